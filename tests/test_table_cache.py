"""The per-machine table cache (core/_tables.pyx builds, core/table_cache.py keeps the file): a process maps the tables a previous one
saved, and gets exactly the tables (and so the hands) a fresh build gives; a damaged,
truncated or foreign file is never used but rebuilt; caching off or an unwritable directory
only costs the build.

Each case runs in a fresh interpreter, because the tables are loaded once per process at
import."""
import json
import os
import subprocess
import sys

import pytest

CHILD = """
import json
from mjsim import Rules
from mjsim.core import _tables
from mjsim.play.game import chunk_digest
print(json.dumps({"source": _tables.SOURCE, "checksum": _tables.tables_checksum(),
                  "path": _tables.cache_path(),
                  "hands": chunk_digest(Rules.load("anhua"), ("greedy",) * 4, 3, 0, 60)}))
"""


def run(env_extra):
    # a clean cache environment, on the build the suite runs against (MJSIM_BUILD)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MJSIM_") or k == "MJSIM_BUILD"}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fresh():
    """What a process that never touches a cache computes."""
    got = run({"MJSIM_TABLE_CACHE": "0"})
    assert got["source"] == "built" and got["path"] is None
    return got


def cache_files(folder):
    return sorted(p for p in os.listdir(folder) if p.startswith("tables-"))


def test_second_process_maps_what_the_first_saved(tmp_path, fresh):
    env = {"MJSIM_CACHE_DIR": str(tmp_path)}
    first = run(env)
    assert first["source"] == "built+saved"
    assert os.path.dirname(first["path"]) == str(tmp_path)
    assert cache_files(tmp_path) == [os.path.basename(first["path"])]   # no temporary left
    second = run(env)
    assert second["source"] == "cache"
    for got in (first, second):
        assert got["checksum"] == fresh["checksum"]
        assert got["hands"] == fresh["hands"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "empty"])
def test_a_bad_file_is_rebuilt_not_used(tmp_path, fresh, damage):
    env = {"MJSIM_CACHE_DIR": str(tmp_path)}
    path = run(env)["path"]
    data = bytearray(open(path, "rb").read())
    if damage == "flip":          # one bit deep inside the tables
        data[len(data) // 2] ^= 0x10
    elif damage == "truncate":
        data = data[: len(data) - 4096]
    elif damage == "foreign":     # another build's key in the header
        data[16] ^= 0xFF
    else:
        data = bytearray()
    with open(path, "wb") as f:
        f.write(data)
    again = run(env)
    assert again["source"] == "built+saved"
    assert again["checksum"] == fresh["checksum"] and again["hands"] == fresh["hands"]
    assert run(env)["source"] == "cache"      # the rebuild repaired the file


def test_unwritable_directory_only_costs_the_build(tmp_path, fresh):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be")
    got = run({"MJSIM_CACHE_DIR": str(blocker / "mjsim")})
    assert got["source"] == "built"
    assert got["checksum"] == fresh["checksum"] and got["hands"] == fresh["hands"]


def test_caching_off_writes_nothing(tmp_path):
    got = run({"MJSIM_CACHE_DIR": str(tmp_path), "MJSIM_TABLE_CACHE": "off"})
    assert got["source"] == "built" and got["path"] is None
    assert cache_files(tmp_path) == []


def test_default_directory_follows_xdg_cache_home(tmp_path):
    got = run({"XDG_CACHE_HOME": str(tmp_path)})
    assert os.path.dirname(got["path"]) == str(tmp_path / "mjsim")
    assert got["source"] == "built+saved"


def test_files_of_other_builds_are_pruned(tmp_path):
    """Only the table_cache.KEEP (1: the other flavour's) most recently used files of other builds survive a save."""
    for i in range(6):
        stale = tmp_path / f"tables-{i:016x}.bin"
        stale.write_bytes(b"old build")
        os.utime(stale, (1_000_000 + i, 1_000_000 + i))
    (tmp_path / "unrelated.txt").write_text("kept")
    got = run({"MJSIM_CACHE_DIR": str(tmp_path)})
    assert got["source"] == "built+saved"
    assert cache_files(tmp_path) == sorted(
        [os.path.basename(got["path"])] + [f"tables-{i:016x}.bin" for i in (5,)])
    assert (tmp_path / "unrelated.txt").exists()
