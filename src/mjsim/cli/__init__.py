"""The `mjsim` command (app.py: the Typer application and every command).

`main` loads the application itself, so that a Ctrl-C while its modules load (about 0.4 s)
ends with one line and exit 130, as everywhere else, rather than a Python traceback."""
from __future__ import annotations

import sys

INTERRUPTED_WHILE_LOADING = "interrupted: mjsim was still loading; nothing was done"


def main(argv: list[str] | None = None) -> int:
    try:
        from mjsim.cli.app import main as run
    except KeyboardInterrupt:
        print(INTERRUPTED_WHILE_LOADING, file=sys.stderr)
        return 130
    return run(argv)


__all__ = ["main"]
