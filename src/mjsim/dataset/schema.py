"""The record contract of a dataset: the arrays the game returns for each chunk, with their
dtypes, and the Arrow tables, schemas and Parquet file metadata made from them (once)."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mjsim.vocab import PAY_REASONS, WIN_KIND_NAMES as WIN_KINDS

if TYPE_CHECKING:
    from mjsim.run.spec import RunSpec


# WIN_KINDS and PAY_REASONS (from mjsim.vocab) are the game contract's names; a game module's
# own WIN_KINDS / PAY_REASONS win where it defines them.
END_NAMES = ("draw", "win")

#: Layout of the files (file metadata ``mjsim.schema_version``). 2: no ``variant`` column
#: (the hive path holds it, URI-encoded), sweeps' grid values as columns of hands, the
#: payments table, claims_0..3 per hand and turn per win, int64 money.
SCHEMA_VERSION = 2

# Columns the game returns, with the dtypes of the contract (RULES-independent).
HANDS_ARRAYS = {
    "hand_index": np.int64, "session": np.int64, "hand_in_session": np.int32,
    "dealer": np.int8, "dice": np.int8, "wild_indicator": np.int8, "end": np.uint8,
    "draws": np.int16, "wall_left": np.int16, "n_winners": np.int8,
    "kongs_exposed": np.int8, "kongs_added": np.int8, "kongs_concealed": np.int8,
    **{f"delta_{s}": np.int64 for s in range(4)},
    **{f"fire_{s}": np.int8 for s in range(4)},
    **{f"piao_{s}": np.int8 for s in range(4)},
    **{f"claims_{s}": np.int16 for s in range(4)},
}
WINS_ARRAYS = {
    "hand_index": np.int64, "winner": np.int8, "discarder": np.int8, "win_kind": np.uint8,
    "pattern": np.int8, "props": np.uint32, "category": np.int8, "points": np.int32,
    "birds_hit": np.int8, "received": np.int64, "turn": np.int16,
}
PAYMENTS_ARRAYS = {
    "hand_index": np.int64, "payer": np.int8, "receiver": np.int8, "amount": np.int64,
    "reason": np.int8, "pattern": np.int16,
}
#: the tables of a dataset, one file per chunk in each; a chunk is done when all exist
TABLES = ("hands", "wins", "payments")


def _columns(arrays: dict, spec_dtypes: dict, what: str) -> dict[str, np.ndarray]:
    """The contract's columns as numpy arrays of the contract's dtypes, equal lengths."""
    missing = [k for k in spec_dtypes if k not in arrays]
    if missing:
        raise ValueError(f"simulate_chunk returned no {what} column(s) {', '.join(missing)}")
    out = {k: np.asarray(arrays[k]).astype(dt, copy=False) for k, dt in spec_dtypes.items()}
    lengths = {len(v) for v in out.values()}
    if len(lengths) > 1:
        raise ValueError(f"simulate_chunk returned {what} columns of different lengths {sorted(lengths)}")
    return out


def _names(codes: np.ndarray, names: Sequence, column: str, null_code: int | None = None):
    """Integer codes -> an Arrow string array (null where code == null_code)."""
    import pyarrow as pa

    codes = codes.astype(np.int32)
    mask = codes == null_code if null_code is not None else None
    valid = codes[~mask] if mask is not None else codes
    if valid.size and (valid.min() < 0 or valid.max() >= len(names)):
        bad = valid[(valid < 0) | (valid >= len(names))][0]
        raise ValueError(f"simulate_chunk returned {column} code {bad}, outside 0..{len(names) - 1}")
    if mask is not None:
        codes = np.where(mask, 0, codes)
    return pa.array(list(names), pa.string()).take(pa.array(codes, mask=mask))


def _property_lists(props: np.ndarray):
    """uint32 bit sets -> list<string> (bit i = mjsim.PROPERTIES[i]), vectorised."""
    import pyarrow as pa

    from mjsim.vocab import PROPERTIES

    n_bits = len(PROPERTIES)
    if props.size and int(props.max()) >> n_bits:
        raise ValueError(f"simulate_chunk returned a props bit beyond the {n_bits} known PROPERTIES")
    bits = (props[:, None] >> np.arange(n_bits, dtype=np.uint32)) & np.uint32(1)
    _, cols = np.nonzero(bits)           # row-major: each row's properties in PROPERTIES order
    offsets = np.zeros(len(props) + 1, np.int32)
    np.cumsum(bits.sum(axis=1, dtype=np.int32), out=offsets[1:])
    values = pa.array(list(PROPERTIES), pa.string()).take(pa.array(cols.astype(np.int32)))
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _constant(value, n: int, type_):
    import pyarrow as pa

    return pa.repeat(pa.scalar(value, type_), n)


def hands_table(spec: RunSpec, start: int, count: int, arrays: dict):
    import pyarrow as pa

    from mjsim.tiles import kind_name

    c = _columns(arrays, HANDS_ARRAYS, "hands")
    n = len(c["hand_index"])
    if n != count or not np.array_equal(c["hand_index"], np.arange(start, start + count)):
        raise ValueError(f"simulate_chunk returned hands that are not exactly {start}..{start + count - 1}")
    tiles = [kind_name(k) for k in range(34)]
    cols = {
        "rules": _constant(spec.rules.game, n, pa.string()),
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "session": c["session"],
        "hand_in_session": c["hand_in_session"],
        "dealer": c["dealer"],
        "dice": c["dice"],
        "wild_indicator": _names(c["wild_indicator"], tiles, "wild_indicator", null_code=-1),
        "end": _names(c["end"], END_NAMES, "end"),
        **{k: c[k] for k in ("draws", "wall_left", "n_winners", "kongs_exposed", "kongs_added", "kongs_concealed")},
        **{f"delta_{s}": c[f"delta_{s}"] for s in range(4)},
        **{f"fire_{s}": c[f"fire_{s}"] for s in range(4)},
        **{f"piao_{s}": c[f"piao_{s}"] for s in range(4)},
        **{f"claims_{s}": c[f"claims_{s}"] for s in range(4)},
    }
    table = pa.table(cols, schema=hands_schema())
    for key, value in spec.swept:      # constant columns after the contract's
        table = table.append_column(key, pa.repeat(pa.scalar(value), n))
    return table


def wins_table(spec: RunSpec, arrays: dict, win_kinds: Sequence[str] = WIN_KINDS):
    import pyarrow as pa

    from mjsim.vocab import PATTERNS
    from mjsim.vocab import CATEGORY_NAMES as CATEGORIES

    c = _columns(arrays, WINS_ARRAYS, "wins")
    n = len(c["hand_index"])
    cols = {
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "winner": c["winner"],
        "discarder": pa.array(c["discarder"], mask=c["discarder"] < 0),
        "win_kind": _names(c["win_kind"], win_kinds, "win_kind"),
        "pattern": _names(c["pattern"], PATTERNS, "pattern"),
        "properties": _property_lists(c["props"]),
        "category": _names(c["category"], CATEGORIES, "category", null_code=0),
        "points": c["points"],
        "birds_hit": c["birds_hit"],
        "received": c["received"],
        "turn": c["turn"],
    }
    return pa.table(cols, schema=wins_schema())


def payments_table(spec: RunSpec, arrays: dict, reasons: Sequence[str] = PAY_REASONS):
    """One row per payment: who paid whom how much, why, and for which pattern's win."""
    import pyarrow as pa

    from mjsim.vocab import PATTERNS

    c = _columns(arrays, PAYMENTS_ARRAYS, "payments")
    n = len(c["hand_index"])
    cols = {
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "payer": c["payer"],
        "receiver": c["receiver"],
        "amount": c["amount"],
        "reason": _names(c["reason"], reasons, "reason"),
        "pattern": _names(c["pattern"], PATTERNS, "pattern", null_code=-1),
    }
    return pa.table(cols, schema=payments_schema())


def payments_schema():
    import pyarrow as pa

    return pa.schema([
        ("seed", pa.uint64()), ("hand_index", pa.int64()), ("payer", pa.int8()), ("receiver", pa.int8()),
        ("amount", pa.int64()), ("reason", pa.string()), ("pattern", pa.string()),
    ])


def hands_schema():
    import pyarrow as pa

    return pa.schema([
        ("rules", pa.string()), ("seed", pa.uint64()),
        ("hand_index", pa.int64()), ("session", pa.int64()), ("hand_in_session", pa.int32()),
        ("dealer", pa.int8()), ("dice", pa.int8()), ("wild_indicator", pa.string()),
        ("end", pa.string()), ("draws", pa.int16()), ("wall_left", pa.int16()),
        ("n_winners", pa.int8()), ("kongs_exposed", pa.int8()), ("kongs_added", pa.int8()),
        ("kongs_concealed", pa.int8()),
        *[(f"delta_{s}", pa.int64()) for s in range(4)],
        *[(f"fire_{s}", pa.int8()) for s in range(4)],
        *[(f"piao_{s}", pa.int8()) for s in range(4)],
        *[(f"claims_{s}", pa.int16()) for s in range(4)],
    ])


def wins_schema():
    import pyarrow as pa

    return pa.schema([
        ("seed", pa.uint64()), ("hand_index", pa.int64()),
        ("winner", pa.int8()), ("discarder", pa.int8()), ("win_kind", pa.string()),
        ("pattern", pa.string()), ("properties", pa.list_(pa.string())),
        ("category", pa.string()), ("points", pa.int32()), ("birds_hit", pa.int8()),
        ("received", pa.int64()), ("turn", pa.int16()),
    ])


def file_metadata(spec: RunSpec, start: int, count: int) -> dict[str, str]:
    """Key-value metadata of every file: enough to know what made it without the manifest."""
    from mjsim.version import __version__

    return {
        "mjsim.schema_version": str(SCHEMA_VERSION),
        "mjsim.version": __version__,
        "mjsim.rules": spec.rules.to_toml(),
        "mjsim.rules_hash": spec.rules.hash,
        "mjsim.variant": spec.variant,
        "mjsim.seed": str(spec.seed),
        "mjsim.players": ",".join(spec.players),
        "mjsim.session_hands": str(spec.session_hands),
        "mjsim.chunk": f"{start},{count}",
        "mjsim.label": spec.label,
        "mjsim.swept": json.dumps({k: jsonable(v) for k, v in spec.swept}, ensure_ascii=False),
    }


def encode_parquet(table, metadata: dict[str, str]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    # zstd level 1: about as fast as snappy here and a third smaller; page checksums (CRC32)
    # let a reader tell a damaged page from data instead of decoding it into wrong numbers
    pq.write_table(table.replace_schema_metadata(metadata), sink, compression="zstd",
                   compression_level=1, write_page_checksum=True)
    return sink.getvalue().to_pybytes()


def jsonable(v):
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    return v
