"""The `breakeven` command: the same settings, documents and answers as the REST API."""

from service.cli.main import cli, main

__all__ = ["cli", "main"]
