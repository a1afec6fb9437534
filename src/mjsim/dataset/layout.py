"""Where a dataset's files live, and what their names say.

    DIR/manifest.json                                   one entry per variant: what made it
    DIR/hands/variant=<v>/chunk-s<seed>-<start>-<count>.parquet
    DIR/wins/variant=<v>/chunk-s<seed>-<start>-<count>.parquet   (same chunk, same name)
    DIR/payments/variant=<v>/chunk-s<seed>-<start>-<count>.parquet

``<v>`` is the variant name URI-encoded (``a=b-1a2b3c4d`` -> ``a%3Db-1a2b3c4d``), the hive
convention pyarrow, pandas, DuckDB and polars all decode; the variant lives in the path only,
never also as a column in the files (two sources of one column is what breaks pandas).
A chunk never splits a session; the plan of chunks is arithmetic on the spec, never listed.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from mjsim.run.spec import RunSpec


_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def encode_variant(variant: str) -> str:
    """A variant name as one safe path segment: URI percent-encoding (UTF-8) of everything
    but ASCII letters, digits, ``-_.~`` and printable non-ASCII (萬載 stays readable).

    ``=``, ``/``, ``%``, spaces, brackets and glob characters are all encoded, and every
    reader of hive partitions (pyarrow, pandas, DuckDB, polars) decodes the segment back.
    """
    out = []
    for ch in str(variant):
        if ch in _SAFE or (ord(ch) > 127 and ch.isprintable()):
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def decode_variant(segment: str) -> str:
    """The inverse of encode_variant (of the part after ``variant=``)."""
    from urllib.parse import unquote

    return unquote(segment, errors="strict")


def parse_chunk_name(name: str) -> tuple[int, int, int] | None:
    """'chunk-s<seed>-<start>-<count>.parquet' -> (seed, start, count), None for other names."""
    stem = name[:-len(".parquet")] if name.endswith(".parquet") else None
    parts = stem.split("-") if stem and stem.startswith("chunk-s") else []
    if len(parts) != 4 or not all(p.isdigit() for p in (parts[1][1:], parts[2], parts[3])):
        return None
    return int(parts[1][1:]), int(parts[2]), int(parts[3])


def chunk_name(spec: RunSpec, start: int, count: int) -> str:
    # zero-padded start: files sort in hand order
    return f"chunk-s{spec.seed}-{start:012d}-{count}.parquet"


def partition(out: Path, table: str, variant: str) -> Path:
    return Path(out) / table / f"variant={encode_variant(variant)}"


def plan_chunks(spec: RunSpec) -> Iterator[tuple[int, int]]:
    """(start, count) of every chunk, lazily; the last one may be shorter (still whole sessions)."""
    return chunks_of(spec.hands, spec.chunk)


def chunks_of(hands: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(start, count) of the chunks of `hands` hands in chunks of `chunk`, lazily."""
    return ((start, min(chunk, hands - start)) for start in range(0, hands, chunk))


def n_chunks(spec: RunSpec) -> int:
    return -(-spec.hands // spec.chunk)


def chunk_in_plan(spec: RunSpec, start: int, count: int) -> bool:
    """Is (start, count) one of plan_chunks(spec)? (arithmetic: the plan is never listed)"""
    return 0 <= start < spec.hands and start % spec.chunk == 0 and count == min(spec.chunk, spec.hands - start)
