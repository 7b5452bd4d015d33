"""`python -m tally …` runs the `tally` command."""

from tally.cli import main

main()
