"""Scale: a dataset of millions of cheap hands is summarised in bounded memory (slow; run
with `pytest -m slow`). The summary runs in a child process whose address space is capped
with resource.setrlimit (a runaway reader fails fast instead of swapping the machine), and
its peak resident memory must stay under a bound that holding the rows would break: 3M
hands x ~250 per-hand float64 columns is 6 GB. The address-space cap is looser than the RSS
bound because the libraries reserve virtual memory they never touch (glibc's per-thread
arenas, Arrow's allocator): about 2 GB of address space for 0.4 GB resident."""
from __future__ import annotations

import subprocess
import sys

import pytest

from mjsim.cli import main

HANDS = 3_000_000
ADDRESS_SPACE = 4 << 30     # virtual, libraries' reservations included
PEAK_RSS = 1 << 30          # resident: about 0.4 GB at 1M and at 10M hands

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from mjsim.analysis import stats
s = stats.variant_stats(sys.argv[1])
print(s.hands, s.sessions, s.wins, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


@pytest.mark.slow
def test_millions_of_one_hand_sessions_summarise_under_a_memory_cap(tmp_path):
    out = tmp_path / "big"
    assert main(["simulate", "--hands", str(HANDS), "--players", "random", "--session-hands", "1",
                 "--out", str(out), "--no-progress", "--chunk", "100000"]) == 0
    proc = subprocess.run([sys.executable, "-c", CHILD.format(limit=ADDRESS_SPACE), str(out)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    hands, sessions, wins, peak = map(int, proc.stdout.split())
    assert hands == sessions == HANDS and 0 < wins < HANDS
    assert peak < PEAK_RSS, f"peak RSS {peak / 2**20:.0f} MiB"
