"""The SIMD helpers in _rowmin.h agree with their plain-C fallback (used off x86-64)."""
import shutil
import subprocess
from pathlib import Path

import pytest

import mjsim.core

SRC = Path(mjsim.core.__file__).resolve().parent / "include"
CHECK = Path(__file__).parent / "c" / "rowmin_check.c"


def _run(tmp_path, name, *flags):
    exe = tmp_path / name
    subprocess.run(["cc", "-O2", *flags, "-I", str(SRC), str(CHECK), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_simd_and_plain_c_give_the_same_rows(tmp_path):
    simd = _run(tmp_path, "simd")
    plain = _run(tmp_path, "plain", "-DMJSIM_NO_SIMD")
    assert simd.count("\n") == 20000
    assert simd == plain
