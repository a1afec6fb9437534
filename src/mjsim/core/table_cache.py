"""The per-machine cache file of the distance tables (core/_tables.pyx builds them).

Every process (each spawned worker too) needs the same ~75 MiB of tables, which take
~0.5 s to build.  The first process writes them to a file; later ones map it read-only,
so the pages are shared between processes and the build is paid once per machine.
The file name carries a hash of the compiled table module: a rebuilt or edited builder (or
the other build flavour) never reads tables made by another one.

This module knows the file (where it lives, its header, its layout, writing it whole,
pruning old ones); _tables.pyx knows the arrays and points them into a mapped file.
"""
from __future__ import annotations

import functools
import hashlib
import mmap
import os
import struct
import tempfile

MAGIC = b"MJSIMTBL"
FORMAT = 3
# magic, format, pad, build key, checksum, then per group (suits, honors): entries, mask entries
HEADER = struct.Struct("<8sII32sQQQQQ")
ALIGN = 64
KEEP = 1             # cache files of other builds kept besides this build's: the other
                     # flavour's (tests run the debug build, `mjsim` the release one)


@functools.lru_cache(maxsize=None)
def build_key(module_file: str) -> bytes:
    """sha256 of a compiled module (read once per process)."""
    with open(module_file, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def cache_dir() -> str:
    """$MJSIM_CACHE_DIR, else $XDG_CACHE_HOME/mjsim, else ~/.cache/mjsim (`mjsim cache`)."""
    root = os.environ.get("MJSIM_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mjsim")
    return root


def cache_path(module_file: str) -> str | None:
    """The cache file of the tables built by `module_file`, or None when caching is off
    (MJSIM_TABLE_CACHE=0)."""
    if os.environ.get("MJSIM_TABLE_CACHE", "1").strip().lower() in ("0", "no", "off", "false"):
        return None
    return os.path.join(cache_dir(), "tables-" + build_key(module_file)[:8].hex() + ".bin")


def layout(sizes) -> tuple[list[int], int]:
    """Byte offset of each array in the file (each aligned to 64 bytes) and the file size."""
    offsets = []
    pos = -(-HEADER.size // ALIGN) * ALIGN
    for n in sizes:
        offsets.append(pos)
        pos += -(-n // ALIGN) * ALIGN
    return offsets, pos


def save(path: str, header: bytes, arrays) -> bool:
    """Write `header` and the byte arrays (each at its aligned offset) to `path` atomically (a
    temporary file renamed into place), so a reader sees a whole file or none; any OS error
    leaves things as they were (False)."""
    offsets, total = layout([len(a) for a in arrays])
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tables-", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            for a, off in zip(arrays, offsets):
                f.seek(off)
                f.write(a)
            f.truncate(total)
        os.replace(tmp, path)
        tmp = None
        prune(path)
        return True
    except OSError:
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def prune(path: str, keep: int = KEEP) -> None:
    """Each build of the extension has its own file, so a developer who rebuilds often would
    pile them up: keep the `keep` most recently used besides `path`, delete the rest."""
    folder = os.path.dirname(path)
    others = []
    for name in os.listdir(folder):
        full = os.path.join(folder, name)
        if name.startswith("tables-") and name.endswith(".bin") and full != path:
            try:
                others.append((os.path.getmtime(full), full))
            except OSError:
                pass
    for _, full in sorted(others, reverse=True)[keep:]:
        try:
            os.unlink(full)
        except OSError:
            pass


def open_mapped(path: str):
    """(read-only map, header fields) of a cache file, or None when it cannot be read or is
    too short for a header.  The caller checks the fields and owns the map."""
    try:
        with open(path, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    if len(mm) < HEADER.size:
        mm.close()
        return None
    return mm, HEADER.unpack_from(mm, 0)


def touch(path: str) -> None:
    """Mark a cache file most recently used (prune keeps it)."""
    try:
        os.utime(path)
    except OSError:
        pass
