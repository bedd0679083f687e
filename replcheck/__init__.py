"""replcheck: the front door over the model (``replcheck.model``) and its checkers
(``replcheck.specs``).

* ``replcheck.cli``: the ``replcheck`` command; each ``replcheck.cli_*`` module adds subcommands
  (its docstring lists them all, generated from the parser);
* ``replcheck.exits``: the exit statuses of every command, one table;
* ``replcheck.cli_base``: what the command modules share (``UsageError``, the parser);
* ``replcheck.matrix``: every design and mutant × configuration × checker, and the gate's verdict;
* ``replcheck.report``: results as text, JSON and JUnit XML, counterexamples drawn step by step;
* ``replcheck.progress``: progress lines on stderr for long runs.
"""
