"""The SIMD helpers in _masks.h (the mask pass) agree with their plain-C fallback."""
import shutil
import subprocess
from pathlib import Path

import pytest

import mjsim.core

SRC = Path(mjsim.core.__file__).resolve().parent / "include"
CHECK = Path(__file__).parent / "c" / "masks_check.c"


def _run(tmp_path, name, *flags):
    exe = tmp_path / name
    subprocess.run(["cc", "-O2", *flags, "-I", str(SRC), str(CHECK), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_simd_and_plain_c_agree(tmp_path):
    simd = _run(tmp_path, "simd")
    plain = _run(tmp_path, "plain", "-DMJSIM_NO_SIMD")
    assert simd.count("\n") == 20000
    assert simd == plain
    # the last two numbers of a line: the unseen count as the build takes it (on x86-64 a
    # popcnt copy chosen at run time) and by the portable C popcount
    for line in simd.splitlines():
        *_, used, portable = line.split()
        assert used == portable, line


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_seat_helpers_agree_with_their_plain_statement(tmp_path):
    # the hand loop's any-four test (SSE2) and random's select (pdep where chosen at run
    # time), in both builds, against the plain statement printed beside each
    check = Path(__file__).parent / "c" / "seat_check.c"
    outs = []
    for flags in ((), ("-DMJSIM_NO_SIMD",)):
        exe = tmp_path / ("seat" + "".join(flags).replace("-D", "_"))
        subprocess.run(["cc", "-O2", *flags, "-I", str(SRC), str(check), "-o", str(exe)], check=True)
        outs.append(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout)
    assert outs[0] == outs[1]
    lines = outs[0].splitlines()
    assert len(lines) == 20000
    assert {line.split()[1] for line in lines} == {"0", "1"}
    for line in lines:
        four, four_plain, kind, kind_plain = line.split()
        assert (four, kind) == (four_plain, kind_plain), line
