"""What the CLI tests share: run `mjsim` in-process, and insist on a one-line error."""
from __future__ import annotations

from mjsim.cli import main


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    c = capsys.readouterr()
    return code, c.out, c.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]
