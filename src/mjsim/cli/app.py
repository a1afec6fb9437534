"""The `mjsim` command.

Every user error (bad tile, bad rules key, bad value) ends as one line on stderr and exit
code 2, never a traceback; a failure of the machine or of a library (memory, disk, a lost
connection) ends as one line and exit code 1.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import threading

import typer

# the commands register themselves on `app`, in this order in --help
from mjsim.cli import evaluate, simulate, analyse, players, cache, balance  # noqa: F401
from mjsim.cli.common import (DEBUG_NOTICE, InterruptSaid, _is_duckdb_error, app, console,  # noqa: F401
                              debug_notice, err, error_line, machine_failure, whole_width)
from mjsim.rulesets.rules import RulesError


def _interrupt(signum, frame):
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (kill, a batch system's time limit) ends a run as Ctrl-C does: the workers
    are stopped, unfinished chunk files removed, and the resume line printed.  Python's
    default would end the driver at once and leave its workers computing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


#: said for Ctrl-C anywhere but a run's chunk loop: an arena or a hand as well as the
#: summary after a simulate, so it names both cases
INTERRUPTED_OUTSIDE_A_RUN = ("interrupted before the command finished (a simulate, sweep or balance run keeps "
                             "its complete chunks: the same command resumes it)")


def main(argv: list[str] | None = None) -> int:
    with _terminate_as_interrupt():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    whole_width(console)
    whole_width(err)
    notice = debug_notice()
    if notice:
        err.print(notice, highlight=False, markup=False, soft_wrap=True)
    try:
        # with standalone_mode=False click returns typer.Exit's code instead of raising it
        code = app(args=argv, standalone_mode=False)
        if code == 130:
            # Ctrl-C or SIGTERM outside a run's chunk loop (which says what it kept, below):
            # typer turns the KeyboardInterrupt into exit 130 without a word
            err.print(INTERRUPTED_OUTSIDE_A_RUN, highlight=False, markup=False)
        if isinstance(code, int) and code:
            return code
    except InterruptSaid:
        return 130
    except typer.Exit as e:
        return e.exit_code
    except (ValueError, RulesError) as e:  # TileError and RulesError are ValueErrors
        error_line(e)
        return 2
    except MemoryError:
        error_line("out of memory: free memory (fewer --workers, a smaller --chunk) and run the same command again")
        return 1
    except Exception as e:
        failure = machine_failure(e)
        if failure:     # not the user's input: exit 1, and say what to try
            error_line(failure)
            return 1
        if isinstance(e, OSError):
            error_line(e)
            return 2
        # usage errors from typer's bundled click: one line, with where to find the usage
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            return _usage_error(e)
        if type(e).__name__ == "Abort":
            err.print("aborted")
            return 130
        if _is_duckdb_error(e):    # a damaged dataset read by report/compare
            error_line(f"reading the dataset failed: {e}")
            return 2
        raise
    return 0


def _usage_error(e) -> int:
    """A click usage error as one line naming where the usage is; its exit code."""
    if type(e).__name__ == "NoArgsIsHelpError":
        # `mjsim` alone: typer's rich formatter has already printed the help (on stdout)
        # and left the error's message empty; plain click would have it in the message
        if e.format_message().strip():
            sys.stdout.write(e.format_message().rstrip() + "\n")
        return e.exit_code
    ctx = getattr(e, "ctx", None)
    where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
    message = _no_such_option(e) if type(e).__name__ == "NoSuchOption" else e.format_message()
    error_line(f"{message}{where}")
    return e.exit_code


def _no_such_option(e) -> str:
    """click suggests options close to the unknown one counting the leading dashes both
    share, so --nosuch got '(Possible options: --out)': keep only the suggestions that are
    close without the dashes (--hand: --hands, --max-hands)."""
    from difflib import get_close_matches

    if any(c.isspace() for c in e.option_name):
        # an argument that starts with '-' (SQL beginning with a -- comment): data, not an option
        return (f"{' '.join(e.option_name.split())[:40]!r} starts with '-', so it was read as an option: "
                f"put -- before it (mjsim query DIR -- \"-- comment ...\")")
    typed = e.option_name.lstrip("-")
    close = [p for p in sorted(e.possibilities or ()) if get_close_matches(typed, [p.lstrip("-")])]
    hint = f": did you mean {' or '.join(close)}?" if close else ""
    return f"no such option {e.option_name}{hint}"


if __name__ == "__main__":
    sys.exit(main())
