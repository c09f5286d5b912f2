"""`python -m manimgen.cli` runs the command line."""

from manimgen.cli import main

main()
