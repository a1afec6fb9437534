"""Scale: a dataset of millions of cheap hands is summarised in bounded memory (slow; run
with `pytest -m slow`). The summary runs in a child process whose address space is capped
with resource.setrlimit, so a reader that holds rows instead of per-chunk statistics fails."""
from __future__ import annotations

import subprocess
import sys

import pytest

from mjsim.cli import main

HANDS = 3_000_000
ADDRESS_SPACE = 1 << 30     # 1 GiB for the whole summarising process, libraries included

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from mjsim import stats
s = stats.variant_stats(sys.argv[1])
print(s.hands, s.sessions, s.wins)
"""


@pytest.mark.slow
def test_millions_of_one_hand_sessions_summarise_under_a_memory_cap(tmp_path):
    out = tmp_path / "big"
    assert main(["simulate", "--hands", str(HANDS), "--players", "random", "--session-hands", "1",
                 "--out", str(out), "--no-progress", "--chunk", "100000"]) == 0
    proc = subprocess.run([sys.executable, "-c", CHILD.format(limit=ADDRESS_SPACE), str(out)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    hands, sessions, wins = map(int, proc.stdout.split())
    assert hands == sessions == HANDS and 0 < wins < HANDS
