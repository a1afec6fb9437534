"""Safe storage of a dataset: a writable check, atomic writes, the directory lock, stale
temporary files, quarantine of damaged chunks, the checks that make resume safe, storing a chunk."""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING


from mjsim.dataset.layout import chunk_in_plan, chunk_name, parse_chunk_name, partition
from mjsim.dataset.schema import TABLES

if TYPE_CHECKING:
    from mjsim.run.chunks import ChunkResult
    from mjsim.run.spec import RunSpec


# ------------------------------------------------------------------------------------
# Output directory: checks, manifest, atomic writes


def check_writable(out: Path) -> None:
    """Fail before any work if `out` cannot hold the dataset; creates nothing."""
    out = Path(out)
    if out.is_symlink() and not out.exists():
        raise OSError(f"--out {out}: a symbolic link to {os.readlink(out)}, which does not exist")
    probe_dir = _existing_ancestor(out)
    if not probe_dir.is_dir():
        raise OSError(f"--out {out}: {probe_dir} exists and is not a directory")
    problem = _cannot_write_in(probe_dir)
    if problem:
        raise OSError(f"--out {out}: cannot write in {probe_dir} ({problem})")


#: what marks a directory as an mjsim dataset (made by a run: its manifest or a table)
DATASET_MARKS = ("manifest.json", *TABLES)


def check_not_among_other_files(out: Path) -> None:
    """Refuse a --out that already holds files of its own and no dataset: a run would put
    its tables and manifest among them (`-o .` in a project, a typo naming a home folder).
    An empty directory, a new one and a dataset (to resume or add variants to) are fine."""
    out = Path(out)
    if not out.is_dir():
        return
    try:
        names = sorted(entry.name for entry in os.scandir(out) if entry.name != LOCK_NAME)
    except OSError as e:
        raise OSError(f"--out {out}: cannot list it ({e.strerror or e})") from None
    if names and not any(name in names for name in DATASET_MARKS):
        shown = ", ".join(repr(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        raise ValueError(f"--out {out} holds other files ({shown}) and no mjsim dataset: a run would write "
                         f"its tables among them; choose a new or empty directory")


def check_writable_file(option: str, path: Path) -> None:
    """Fail before any work if the file `path` (given as `option`, e.g. --html) cannot be
    written: one line naming both.  Creates nothing (missing directories are made when the
    file is written, as for --out)."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"{option} {path}: is a directory, not a file")
    probe_dir = _existing_ancestor(path.parent)
    if not probe_dir.is_dir():
        raise OSError(f"{option} {path}: {probe_dir} exists and is not a directory")
    problem = _cannot_write_in(probe_dir)
    if problem and probe_dir != path.parent:
        raise OSError(f"{option} {path}: directory {path.parent} does not exist and cannot be made in "
                      f"{probe_dir} ({problem})")
    if problem:
        raise OSError(f"{option} {path}: cannot write in directory {probe_dir} ({problem})")


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _cannot_write_in(directory: Path) -> str | None:
    """Why no file can be made in `directory`, or None."""
    try:  # a real write: os.access is blind to read-only mounts for some setups and to root
        fd, probe = tempfile.mkstemp(prefix=".mjsim-probe-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return str(e.strerror or e)
    return None


def write_atomic(path: Path, data: bytes) -> None:
    """Never a partial file under the final name: write a temporary file beside it, then
    rename. The temporary name is unique (mkstemp), so two writers never share one. The
    file gets the mode a plain open() would give it (0666 less the umask), not mkstemp's
    private 0600: datasets and reports are shared."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (Linux reports it in /proc); elsewhere
    the usual 022."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_output(path: str | Path, data: bytes) -> Path:
    """A file the user named (--html, --csv, --json, --write, fit-ev --out): its folder
    made if missing, then written as write_atomic writes (complete or absent, no temporary
    file left behind)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)
    return path


def remove_stale_tmp(out: Path, specs: Sequence[RunSpec]) -> None:
    """Leftovers of a run killed mid-write (SIGKILL, power loss). Called under the
    directory lock only, so no other run's temporary file can be removed."""
    out = Path(out)
    for tmp in out.glob(".manifest.json.*.tmp"):
        tmp.unlink(missing_ok=True)
    for spec in specs:
        for table in TABLES:
            for tmp in partition(out, table, spec.variant).glob("*.tmp"):
                tmp.unlink(missing_ok=True)


LOCK_NAME = ".mjsim.lock"

#: directories whose lock this process keeps from one run to the next (keep_lock), and the
#: descriptor holding it once the first run has taken it
_KEEP: dict[str, int | None] = {}


def _lock_key(out: Path) -> str:
    return os.path.realpath(out)


def _lock_holder(fd: int) -> str:
    """What the lock file says about the process holding it ("pid 123")."""
    return os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"


@contextlib.contextmanager
def directory_lock(out: Path):
    """One writer per dataset: an exclusive flock on DIR/.mjsim.lock for the whole run.

    A second run into the same directory is refused at once (it does not wait) with a line
    naming the process that holds the lock. The kernel drops the lock when its holder dies
    (even by SIGKILL), so a crashed run never leaves the directory locked. Inside
    keep_lock(DIR) the lock is kept when the run ends, for the next step of the same search.
    """
    try:
        import fcntl
    except ImportError:     # not POSIX: no lock (documented)
        yield
        return
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key = _lock_key(out)
    if _KEEP.get(key) is not None:      # taken by an earlier step of this search
        yield
        return
    path = out / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    kept = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            raise ValueError(f"{out} is being written by another mjsim run ({holder}): wait for it to "
                             f"finish, or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        if key in _KEEP:
            _KEEP[key] = fd
            kept = True
        yield
    finally:
        if not kept:
            os.close(fd)   # releases the lock


@contextlib.contextmanager
def keep_lock(out: Path):
    """A search that runs step after step into DIR (balance, --precision) keeps the lock its
    first step takes until the last ends: between steps another run could otherwise take
    the directory, and the search would be refused halfway. The lock is first taken by a
    step, after its input was checked, so a refused search leaves nothing behind."""
    key = _lock_key(out)
    if key in _KEEP:                    # nested: the outer search keeps it
        yield
        return
    _KEEP[key] = None
    try:
        yield
    finally:
        fd = _KEEP.pop(key, None)
        if fd is not None:
            os.close(fd)


def live_writer(out: Path) -> str | None:
    """Who is writing DIR now ("pid 123"), if another process holds its lock; else None. A
    reader asks before it lists the chunks: a run writes each chunk's files one by one, so a
    listing taken meanwhile can hold a chunk's wins without its hands."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fd = os.open(Path(out) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            return None if holder == f"pid {os.getpid()}" else holder
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


QUARANTINE = "quarantine"


def chunk_file_problem(path: Path) -> str | None:
    """A cheap look at a Parquet file's frame (magic bytes, footer length): why it cannot be
    read, or None. Catches truncated and garbage files without parsing them."""
    try:
        size = path.stat().st_size
        if size < 12:
            return f"{size} bytes: truncated or empty"
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(size - 8)
            tail = f.read(8)
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    if head != b"PAR1" or tail[4:] != b"PAR1":
        return "not a Parquet file (truncated or overwritten)"
    if int.from_bytes(tail[:4], "little") > size - 12:
        return "truncated (its footer is cut off)"
    return None


def _footer(path: Path):
    """(mjsim metadata, row count) of a Parquet file, or a string saying why not."""
    problem = chunk_file_problem(path)
    if problem:
        return problem
    import pyarrow.parquet as pq

    try:
        md = pq.read_metadata(path)
    except Exception as e:   # pyarrow raises ArrowInvalid, OSError...
        return f"not a readable Parquet file ({first_line(e)})"
    meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (md.metadata or {}).items()}
    return meta, md.num_rows


def footer_chunk(meta: dict) -> tuple[int, int] | None:
    """(start, count) of the chunk a file's mjsim metadata names, or None."""
    start, _, count = meta.get("mjsim.chunk", "").partition(",")
    return (int(start), int(count)) if start.isdigit() and count.isdigit() else None


#: the footer keys that make two chunk files parts of one run
RUN_KEYS = ("mjsim.seed", "mjsim.rules_hash", "mjsim.players", "mjsim.session_hands")


def partition_problem(files: list[Path], table: str) -> str | None:
    """Why the Parquet files of one table and variant are not one run's chunks, or None.

    Each file is whole and its footer names the chunk its file name does (a chunk copied
    under another name would count its hands twice), all come from one run (seed, rules
    hash, players, session length), no two overlap, and a hands file holds a row per hand.
    A reader (report, query) reads every footer for this: about 0.4 ms a file."""
    first = run = None
    spans = []
    for path in files:
        footer = _footer(path)
        if isinstance(footer, str):
            return f"{path} is damaged ({footer})"
        meta, rows = footer
        chunk = footer_chunk(meta)
        if chunk is None:
            return f"{path} is not an mjsim chunk (its metadata names no chunk)"
        (start, count), seed = chunk, meta.get("mjsim.seed", "")
        if not seed.isdigit() or parse_chunk_name(path.name) != (int(seed), start, count):
            return (f"{path} holds hands {start}..{start + count - 1} of seed {seed}, "
                    f"not the chunk its name says (a copy under another name?)")
        identity = tuple(meta.get(k) for k in RUN_KEYS)
        if run is None:
            first, run = path, identity
        elif identity != run:
            return f"{path} and {first} are chunks of two different runs in one variant"
        if table == "hands" and rows != count:
            return f"{path} holds {rows} rows, not the {count} hands of its chunk"
        spans.append((start, count, path))
    spans.sort()
    for (a, n, pa), (b, _, pb) in zip(spans, spans[1:]):
        if b < a + n:
            return f"{pb} overlaps {pa} (hands {b}.. against {a}..{a + n - 1})"
    return None


def _move_aside(out: Path, path: Path, table: str, variant: str) -> Path:
    dest_dir = out / QUARANTINE / table / partition(out, table, variant).name
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / path.name
    n = 1
    while dest.exists():
        dest = dest_dir / f"{path.name}.{n}"
        n += 1
    os.replace(path, dest)
    return dest


def verify_existing(out: Path, spec: RunSpec, *, allow_version_mix: bool = False,
                    say: Callable[[str], None] = lambda line: None) -> dict[int, int]:
    """The chunks of `spec` already complete on disk, checked by content: {start: count}.

    Each file's footer must say it is this run's chunk (seed, rules hash, players, session
    length, chunk start and count; a hands file also the row count). A file that cannot be
    read, or whose content is another chunk than its name says, is moved to
    DIR/quarantine/<table>/variant=<v>/ (and said so) and its chunk is redone. A readable
    file of another run (another seed or rules, e.g. with manifest.json deleted) refuses
    the resume instead: two datasets never mix in one variant. So does a file written by
    another mjsim version, unless allow_version_mix.
    """
    from mjsim.version import __version__

    out = Path(out)
    good: dict[str, dict[int, int]] = {}
    for table in TABLES:
        good[table] = {}
        part = partition(out, table, spec.variant)
        if not part.is_dir():
            continue
        for path in sorted(part.iterdir()):
            if not path.name.endswith(".parquet") or not path.is_file():
                continue
            footer = _footer(path)
            problem = footer if isinstance(footer, str) else None
            if problem is None:
                meta, rows = footer
                chunk = footer_chunk(meta)
                if chunk is None:
                    # no mjsim chunk at all (not another run's): nothing to mix, only to redo
                    problem = "not an mjsim chunk (its metadata names no chunk)"
                else:
                    _refuse_foreign(out, path, spec, meta)
                    if not allow_version_mix and meta.get("mjsim.version") != __version__:
                        raise ValueError(f"{path} was written by mjsim {meta.get('mjsim.version')}, this is mjsim "
                                         f"{__version__}: resuming would mix two versions in one dataset; choose "
                                         f"another --out, or pass --allow-version-mix")
                    named = parse_chunk_name(path.name)
                    start, count = chunk
                    if named != (spec.seed, start, count):
                        problem = f"it holds chunk {start},{count} of seed {spec.seed}: misnamed"
                    elif not chunk_in_plan(spec, start, count):
                        raise ValueError(f"{path} is a chunk of another plan (hands {start}..{start + count - 1}, "
                                         f"not a chunk of --hands {spec.hands} --chunk {spec.chunk}): "
                                         f"choose another --out")
                    elif table == "hands" and rows != count:
                        problem = f"it holds {rows} rows, not {count}"
            if problem:
                dest = _move_aside(out, path, table, spec.variant)
                say(f"{path}: {problem}; moved to {dest}, the chunk will be redone")
                continue
            good[table][start] = count
    return {start: count for start, count in good["hands"].items()
            if all(good[t].get(start) == count for t in TABLES)}


def _refuse_foreign(out: Path, path: Path, spec: RunSpec, meta: dict) -> None:
    mine = dict(zip(RUN_KEYS, (str(spec.seed), spec.rules.hash, ",".join(spec.players), str(spec.session_hands))))
    flags = {"mjsim.seed": "--seed", "mjsim.rules_hash": "rules hash", "mjsim.players": "--players",
             "mjsim.session_hands": "--session-hands"}
    diffs = [f"{flags[k]} {meta.get(k)} (now {v})" for k, v in mine.items() if meta.get(k) != v]
    if diffs:
        raise ValueError(f"{path} belongs to another run ({'; '.join(diffs)}): {out} cannot be resumed "
                         f"with these settings without mixing two datasets; choose another --out")


def chunk_done(out: Path, spec: RunSpec, start: int, count: int) -> bool:
    name = chunk_name(spec, start, count)
    return all((partition(out, t, spec.variant) / name).exists() for t in TABLES)


def store_chunk(out: Path, result: ChunkResult) -> None:
    task = result.task
    name = chunk_name(task.spec, task.start, task.count)
    # payments and wins first: the hands file is the last to appear, and a chunk counts as
    # done only when all exist, so an interruption between the renames just redoes the chunk.
    # An error or Ctrl-C before the hands file takes back the files already renamed: a
    # stopped run leaves whole chunks, which report and query read without a resume first
    hands = partition(out, "hands", task.spec.variant) / name
    written = []
    try:
        for table, data in (("payments", result.payments), ("wins", result.wins)):
            path = partition(out, table, task.spec.variant) / name
            write_atomic(path, data)
            written.append(path)
        write_atomic(hands, result.hands)
    except BaseException:
        if not hands.exists():
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink()
        raise


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
