"""replcheck: the front door over the model (``replcheck.model``) and its checkers
(``replcheck.specs``).

* ``replcheck.cli``: the ``replcheck`` command (check, explore, fuzz, show, list);
* ``replcheck.matrix``: every design and mutant × configuration × checker, and the gate's verdict;
* ``replcheck.report``: results as text, JSON and JUnit XML, counterexamples drawn step by step;
* ``replcheck.progress``: progress lines on stderr for long runs.
"""
