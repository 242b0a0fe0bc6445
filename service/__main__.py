"""`python -m service` is the `breakeven` command."""

from service.cli import main

main()
