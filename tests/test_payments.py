"""The payments table: one row per payment, read back from the dataset, reconciles with
every hand's deltas (received - paid == delta_s for every hand and seat), for the real
game loop of both rule sets and for the fake one."""
from __future__ import annotations

import numpy as np
import pytest

import mjsim
from mjsim.run import runner
from mjsim.analysis import stats


def _read(root, table):
    import pandas as pd

    return pd.read_parquet(root / table)


def assert_reconciles(root) -> int:
    hands, pays = _read(root, "hands"), _read(root, "payments")
    assert len(pays) > 0
    assert (pays["amount"] >= 0).all() and (pays["payer"] != pays["receiver"]).all()
    assert set(pays["reason"].unique()) <= set(runner.PAY_REASONS)
    assert pays.loc[pays["reason"] == "win", "pattern"].notna().all()
    assert pays.loc[pays["reason"].str.startswith("kong"), "pattern"].isna().all()
    net = {}
    for who, sign in (("receiver", 1), ("payer", -1)):
        g = pays.groupby(["variant", "hand_index", who], observed=True)["amount"].sum() * sign
        for (v, h, s), amount in g.items():
            net[(v, h, s)] = net.get((v, h, s), 0) + amount
    checked = 0
    for row in hands.itertuples():
        for s in range(4):
            assert net.get((row.variant, row.hand_index, s), 0) == getattr(row, f"delta_{s}"), (row.variant, row.hand_index, s)
            checked += 1
    return checked


@pytest.mark.parametrize("rules", [
    mjsim.Rules.load("wanzai"),
    mjsim.Rules.load("wanzai", fire=[0.3, 0.3, 0.3, 0.3], kong_pay_on_draw=False),
    mjsim.Rules.load("anhua"),
    mjsim.Rules.load("anhua", birds=2, score_cap=8),
], ids=["wanzai", "wanzai-fire-refunds", "anhua", "anhua-birds2-cap8"])
def test_real_payments_reconcile_with_deltas(rules, tmp_path):
    root = tmp_path / "d"
    runner.run(runner.make_spec(rules, hands=640, chunk=320, session_hands=16, seed=11), root, workers=1,
               progress=False)
    assert assert_reconciles(root) == 4 * 640


def test_fake_payments_reconcile_and_are_readable_everywhere(tmp_path):
    import duckdb
    import polars as pl
    import pyarrow.parquet as pq

    root = tmp_path / "f"
    runner.run(runner.make_spec(mjsim.Rules.load("wanzai"), hands=800, chunk=400, seed=2), root, workers=1,
               progress=False, simulator="fake_game:simulate_chunk")
    assert_reconciles(root)
    n = len(_read(root, "payments"))
    assert pq.read_table(root / "payments").num_rows == n
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{root}/payments/*/*.parquet', hive_partitioning=true)"
                      ).fetchall()[0][0] == n
    assert pl.scan_parquet(root / "payments", hive_partitioning=True).select(pl.len()).collect().item() == n
    cols, rows = stats.query(root, "SELECT 1")     # the query views still open
    assert rows == [(1,)]


def test_query_sees_the_payments_view_and_it_reconciles_in_sql(tmp_path):
    """`mjsim query` / stats.query over `payments`: per hand and seat, received - paid
    equals the hands table's delta (computed by DuckDB, independently of pandas above)."""
    root = tmp_path / "q"
    runner.run(runner.make_spec(mjsim.Rules.load("wanzai", fire=[0.3, 0.3, 0.3, 0.3]), hands=320, chunk=160,
                                seed=5), root, workers=1, progress=False)
    sql = """
        WITH flows AS (
            SELECT hand_index, receiver AS seat, amount FROM payments
            UNION ALL SELECT hand_index, payer AS seat, -amount FROM payments),
        net AS (SELECT hand_index, seat, sum(amount) AS net FROM flows GROUP BY ALL),
        deltas AS (
            SELECT hand_index, s.seat,
                   [delta_0, delta_1, delta_2, delta_3][s.seat + 1] AS delta
            FROM hands, (SELECT unnest([0, 1, 2, 3]) AS seat) s)
        SELECT count(*) AS n, count(*) FILTER (WHERE coalesce(net.net, 0) <> deltas.delta) AS bad
        FROM deltas LEFT JOIN net USING (hand_index, seat)"""
    cols, rows = stats.query(root, sql)
    assert cols == ["n", "bad"] and rows == [(4 * 320, 0)]


def test_the_largest_seed_is_kept_in_every_table(tmp_path):
    """Seeds are 0..2**64-1 for simulate as for replay: every table stores them unsigned."""
    root = tmp_path / "s"
    seed = 2**64 - 1
    runner.run(runner.make_spec(mjsim.Rules.load("wanzai"), hands=32, chunk=32, seed=seed), root, workers=1,
               progress=False)
    for table in runner.TABLES:
        seeds = set(_read(root, table)["seed"].astype("uint64").tolist())
        assert seeds == {seed}, table
