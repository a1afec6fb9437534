"""The `mjsim` command (app.py: the Typer application and every command).

`main` loads the application itself, so that a Ctrl-C or SIGTERM while its modules load
(about 0.4 s) ends with one line and exit 130, as everywhere else, rather than a Python
traceback or a silent exit."""
from __future__ import annotations

import signal
import sys
import threading

INTERRUPTED_WHILE_LOADING = "interrupted: mjsim was still loading; nothing was done"


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    # SIGTERM while loading ends as Ctrl-C does (app.main then keeps it so for the command)
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if on_main else None
    try:
        from mjsim.cli.app import main as run
    except KeyboardInterrupt:
        print(INTERRUPTED_WHILE_LOADING, file=sys.stderr)
        return 130
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
    code = run(argv)
    if code == 130 and argv is None and on_main:
        # the command line's own process ends next: a second Ctrl-C while the worker pool
        # shuts down would print a traceback from Python's exit hooks instead of nothing
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return code


__all__ = ["main"]
