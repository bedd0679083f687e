"""``python -m replcheck``: the same as the ``replcheck`` command."""

from replcheck.cli import run

run()
