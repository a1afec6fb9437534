"""The `mjsim` command (app.py: the Typer application and every command)."""
from mjsim.cli.app import main

__all__ = ["main"]
