"""Planted-bug audit: how many single-line rule bugs do the targeted tests catch?

Each mutant below replaces one exact fragment of one source file (found exactly once) and
names the few test files or test ids that should notice.  For each mutant the script writes
the change, rebuilds the one native module it touches (debug flavour, in place, as the test
suite uses), runs the targeted tests, records "killed" (a test failed or crashed) or
"survived", and restores the file byte for byte (checked by sha256), on any error or Ctrl-C
too.  At the end the touched modules are rebuilt from the restored sources.

Usage, from the repository root after a full debug build
(`MJSIM_DEBUG=1 python setup.py build_ext --inplace`):

    python bench/mutants.py                 # every mutant (slow: several native rebuilds)
    python bench/mutants.py --only ev_      # mutants whose id contains "ev_"
    python bench/mutants.py --list          # the list, without running anything

Not part of the test suite; docs/testing/mutants.md describes it and its last kill rate.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "mjsim"
TEST_TIMEOUT = 900       # seconds per mutant's test run: a hang counts as killed (timeout)
BUILD_TIMEOUT = 900


@dataclass(frozen=True)
class Mutant:
    id: str
    area: str            # evaluator, tables, hand loop, settlement, wall, players, rules, statistics, runner
    file: str            # relative to src/mjsim
    original: str        # exact text, found exactly once (may hold context lines; one line changes)
    replacement: str
    tests: tuple[str, ...]   # pytest arguments: files or node ids under tests/
    rule: str            # what the bug breaks


def M(id, area, file, original, replacement, tests, rule):
    return Mutant(id, area, file, original, replacement, tuple(tests), rule)


G = "tests/test_rule_guards.py"
GW = "tests/test_game_wanzai.py"
GA = "tests/test_game_anhua.py"
EV = "tests/test_evaluate.py"
CC = "tests/test_crosscheck.py"

MUTANTS = [
    # ------------------------------------------------------------------ evaluator (core/_eval.pyx)
    M("eval_category_san_wang", "evaluator", "core/_eval.pyx",
      "    if a <= 2 and b <= 2:\n        return CAT_DAN",
      "    if a <= 2 and b <= 3:\n        return CAT_DAN",
      [EV], "RULES §3.1: three type-B wilds are 三王, not 單王"),
    M("eval_wanzai_equal_value_tie", "evaluator", "core/_eval.pyx",
      "            if v >= best_v:  # on equal value",
      "            if v > best_v:  # on equal value",
      [EV], "RULES §2.2: on equal value the id further down the table wins"),
    M("eval_quanqiuren_self_draw", "evaluator", "core/_eval.pyx",
      "(col == 0 or cfg.quanqiuren_self)",
      "(col == 1 or cfg.quanqiuren_self)",
      [EV], "RULES §2.2: 全求人 is won on a discard; self-drawn it is 平胡"),
    M("eval_anhua_tie_to_yingzhuang", "evaluator", "core/_eval.pyx",
      "    if hard_score >= soft_score:",
      "    if hard_score > soft_score:",
      [f"{G}::test_a_tie_between_the_readings_goes_to_yingzhuang_with_its_own_properties"],
      "RULES §3.2: a tie between the readings goes to 硬莊, with its properties"),
    M("eval_anhua_pair_258", "evaluator", "core/_eval.pyx",
      "    cdef int best = 0, pt = 2 if cfg.pair_258 else 1",
      "    cdef int best = 0, pt = 1",
      [EV, f"{G}::test_anhua_standard_pair_is_a_2_5_or_8_of_any_suit"],
      "RULES §3.2: a standard hand's pair is a 2, 5 or 8"),
    M("eval_anhua_won_wild_face_value", "evaluator", "core/_eval.pyx",
      "    if face_value_tile == ak and a[0]:",
      "    if face_value_tile == -2 and a[0]:",
      [EV, GA], "RULES §3.1: a wild won from a discard is its face value"),
    M("eval_anhua_context_multiplier", "evaluator", "core/_eval.pyx",
      "        score = _times(score, cfg.m_ctx[context])",
      "        score = score",
      [EV, GA], "RULES §3.2: 槓上花 / 搶槓胡 / 槓上炮 each x2"),
    M("eval_anhua_score_cap", "evaluator", "core/_eval.pyx",
      "    if cfg.score_cap and score > cfg.score_cap:\n        score = cfg.score_cap\n    out.win = 1",
      "    if cfg.score_cap and score > cfg.score_cap + 1:\n        score = cfg.score_cap\n    out.win = 1",
      [EV, f"{G}::test_anhua_score_cap_bounds_the_score_from_one_above", GA],
      "RULES §3.2: score_cap caps the score per paying player"),
    # ------------------------------------------------------------------ tables (core/_tables.pyx)
    M("tables_three_winds", "tables", "core/_tables.pyx",
      "    _add_meld(&g, 0, 1, 3)\n",
      "    _add_meld(&g, 0, 1, 2)\n",
      [EV], "RULES §2.1: any three different winds form a meld (東南北)"),
    M("tables_pair_258", "tables", "core/_tables.pyx",
      "    g.pair258[1] = g.pair258[4] = g.pair258[7] = 1",
      "    g.pair258[1] = g.pair258[4] = g.pair258[6] = 1",
      [EV, f"{G}::test_anhua_standard_pair_is_a_2_5_or_8_of_any_suit"],
      "RULES §3.2: the pair ranks are 2, 5 and 8"),
    M("tables_shisanlan_gap", "tables", "core/_tables.pyx",
      "                if i - last < 3:",
      "                if i - last < 2:",
      [EV], "RULES §2.2: 十三爛 tiles of a suit differ by 3 or more"),
    # ------------------------------------------------------------------ hand loop (core/_loop.pyx)
    M("loop_upper_seat_pair_claim", "hand loop", "core/_loop.pyx",
      "    if st.seat[nx].hand[t] >= 2 or st.seat[op].hand[t] >= 2 or st.seat[pv].hand[t] >= 2:",
      "    if st.seat[nx].hand[t] >= 2 or st.seat[op].hand[t] >= 2:",
      [G], "RULES §2.1: pung from any seat, the discarder's 上家 too"),
    M("loop_upper_seat_pung_asked", "hand loop", "core/_loop.pyx",
      "    for i in range(2, 4):\n        q = (discarder + i) & 3\n        if ask_position(discarder, q) >= start and st.seat[q].hand[t] >= 2:",
      "    for i in range(2, 3):\n        q = (discarder + i) & 3\n        if ask_position(discarder, q) >= start and st.seat[q].hand[t] >= 2:",
      [G], "RULES §2.1: pung from any seat, the discarder's 上家 too"),
    M("loop_upper_seat_robs_kong", "hand loop", "core/_loop.pyx",
      "    for i in range(1, 4):\n        q = (s + i) & 3\n        if st.cfg.wilds and (ron_locked(st, q, t)",
      "    for i in range(1, 3):\n        q = (s + i) & 3\n        if st.cfg.wilds and (ron_locked(st, q, t)",
      [G], "RULES §2.1, §3.3: every other seat may rob an added kong, its 上家 too"),
    M("loop_indicator_seen", "hand loop", "core/_loop.pyx",
      "        st.seen[st.indicator] += 1\n        log_event(st, EV_INDICATOR",
      "        pass\n        log_event(st, EV_INDICATOR",
      [G], "RULES §3.1: the turned-up indicator is a visible tile"),
    M("loop_chow_from_upper_seat_only", "hand loop", "core/_loop.pyx",
      "    cdef int i, q, n, pick, chow_seat = (discarder + 1) & 3",
      "    cdef int i, q, n, pick, chow_seat = (discarder + 2) & 3",
      [f"{GW}::test_only_next_player_may_chow", f"{GW}::test_suited_chow_by_next_player"],
      "RULES §1: chow only from 上家"),
    M("loop_special_start_order", "hand loop", "core/_loop.pyx",
      "        s = (st.dealer + i) & 3\n        cat = hand_category(st, st.seat[s].hand)",
      "        s = i & 3\n        cat = hand_category(st, st.seat[s].hand)",
      [GA], "RULES §3.3: the special start is checked from the dealer in play order"),
    M("loop_special_start_base", "hand loop", "core/_loop.pyx",
      "        w.points = st.cfg.instant_score * st.cfg.ev.base",
      "        w.points = st.cfg.instant_score",
      [GA], "RULES §1 Units: the special start is paid x base"),
    M("loop_ron_lock_same_kind", "hand loop", "core/_loop.pyx",
      "        st.seat[s].lock_kinds |= (<uint64_t>1) << tile",
      "        st.seat[s].lock_kinds |= 0",
      [GA], "RULES §3.3 漏胡: a passed win locks that kind"),
    M("loop_kong_min_wall", "hand loop", "core/_loop.pyx",
      "    if live_left(&st.wall) < st.cfg.kong_min_wall:",
      "    if live_left(&st.wall) < st.cfg.kong_min_wall - 1:",
      [GA], "RULES §3.4: a kong needs more than 4 live tiles left"),
    # ------------------------------------------------------------------ settlement (core/_settle.pyx)
    M("settle_piao_base", "settlement", "core/_settle.pyx",
      "        v += <int64_t>(cfg.piao[payer] + cfg.piao[receiver]) * cfg.ev.base",
      "        v += <int64_t>(cfg.piao[payer] + cfg.piao[receiver])",
      [f"{GW}::test_piao_additions_are_in_units_of_base", f"{GW}::test_piao_self_draw_example"],
      "RULES §2.5: 飄 additions are x base"),
    M("settle_fire_both_sides", "settlement", "core/_settle.pyx",
      "    cdef int64_t v = amount << (st.fire[payer] + st.fire[receiver])",
      "    cdef int64_t v = amount << st.fire[payer]",
      [f"{GW}::test_fire_and_dealer_doubling_multiply_payments", f"{GW}::test_fire_on_both_sides"],
      "RULES §2.5: fire doubles for the payer's and the receiver's fire"),
    M("settle_dealer_pays_double", "settlement", "core/_settle.pyx",
      "    if cfg.dealer_pays_double and payer == st.dealer:",
      "    if cfg.dealer_pays_double and receiver == st.dealer:",
      [f"{GW}::test_fire_and_dealer_doubling_multiply_payments"],
      "RULES §2.5: every payment the dealer makes is doubled"),
    M("settle_rob_kong_share_factors", "settlement", "core/_settle.pyx",
      "            v = share(st, q, s, w.points, True)   # each share",
      "            v = share(st, robbed, s, w.points, True)   # each share",
      [f"{GW}::test_robbed_player_pays_each_share_with_that_share_payers_factors"],
      "RULES §2.5: each robbed-kong share with that share's payer's factors"),
    M("settle_bird_seat", "settlement", "core/_settle.pyx",
      "    return (winner + tile % 9) & 3",
      "    return (winner - tile % 9) & 3",
      [GA], "RULES §3.5: rank v points at winner + (v-1): 2 下家, 4 上家"),
    M("settle_kong_refund_direction", "settlement", "core/_settle.pyx",
      "            transfer(st, r.receiver, r.payer, r.amount, PAY_KONG_REFUND, -1)",
      "            transfer(st, r.payer, r.receiver, r.amount, PAY_KONG_REFUND, -1)",
      [f"{GW}::test_exhaustive_draw_keeps_kong_payments"],
      "RULES §2.4: kong_pay_on_draw = false returns kong payments"),
    # ------------------------------------------------------------------ wall (core/_wall.pyx)
    M("wall_dice_upper_seat", "wall", "core/_wall.pyx",
      "        return (dealer + 3) & 3",
      "        return (dealer + 1) & 3",
      ["tests/test_wall.py"], "RULES §1: dice 4/8/12 choose the dealer's 上家's wall"),
    M("wall_deal_order", "wall", "core/_wall.pyx",
      "                base = 4 * (4 * r + j)",
      "                base = 4 * (4 * j + r)",
      ["tests/test_wall.py"], "RULES §1: three rounds, two stacks per player per round"),
    M("wall_replacement_top_first", "wall", "core/_wall.pyx",
      "        return (w.n // 2 - 1 - k // 2) * 2 + (k & 1)",
      "        return (w.n // 2 - 1 - k // 2) * 2 + 1 - (k & 1)",
      ["tests/test_wall.py"], "RULES §1: replacement tiles top first, stack by stack backwards"),
    M("wall_108_stacks", "wall", "core/_wall.pyx",
      "    return 27 * (seat >> 1) + 14 * (seat & 1)",
      "    return 27 * (seat >> 1) + 13 * (seat & 1)",
      ["tests/test_wall.py"], "RULES §1: 108 tiles are 14, 13, 14, 13 stacks"),
    # ------------------------------------------------------------------ players
    M("greedy_call_on_tie", "players", "players/_greedy.pyx",
      "        if sh1[i] == s0 and u1[i] <= u0:",
      "        if sh1[i] == s0 and u1[i] < u0:",
      [G], "greedy calls only for a better shanten or strictly more useful tiles"),
    M("greedy_paid_kongs", "players", "players/_greedy.pyx",
      "    return st.cfg.kong_values[kong_type] > 0",
      "    return st.cfg.kong_values[kong_type] >= 0",
      ["tests/test_greedy.py"], "greedy declares a shanten-raising kong only when it pays"),
    M("ev_special_start_three_payers", "players", "players/_ev.pyx",
      "    return 3 * sure >= later",
      "    return sure >= later",
      [G], "ev declares the special start when three sure payments cover the hand's EV"),
    M("ev_special_start_base", "players", "players/_ev.pyx",
      "    sure = st.cfg.instant_score\n    if st.cfg.score_cap",
      "    sure = st.cfg.instant_score * st.cfg.ev.base\n    if st.cfg.score_cap",
      [G], "RULES §1: play does not depend on base (ev counts in units of base)"),
    # ------------------------------------------------------------------ rules validation (rules.py)
    M("rules_payment_bound_edge", "rules", "rulesets/rules.py",
      "    if amount > PAYMENT_LIMIT:",
      "    if amount >= PAYMENT_LIMIT:",
      [G], "RULES §1: a largest payment of exactly 2^31 - 1 is allowed"),
    M("rules_value_bound_edge", "rules", "rulesets/rules.py",
      "and x > PAYMENT_LIMIT:",
      "and x > PAYMENT_LIMIT + 1:",
      [G, "tests/test_rules.py"], "RULES §1: a single number of 2^31 is refused"),
    M("rules_bound_fire_both_seats", "rules", "rulesets/rules.py",
      "                fire = fire_on[p] + fire_on[r]",
      "                fire = fire_on[p]",
      ["tests/test_rules.py"], "RULES §1, §2.5: the bound counts both seats' fire"),
    # ------------------------------------------------------------------ statistics (stats.py)
    M("stats_wilson_centre", "statistics", "analysis/stats.py",
      "        centre = (p + z * z / (2 * n)) / denom",
      "        centre = (p + z * z / n) / denom",
      ["tests/test_stats.py::test_wilson_interval_hand_computed"], "the Wilson score interval"),
    M("stats_cluster_cr1", "statistics", "analysis/stats.py",
      "    return clusters / (clusters - 1) * ss / (total_n * total_n)",
      "    return ss / (total_n * total_n)",
      ["tests/test_stats.py::test_clustered_errors_match_statsmodels"], "the CR1 session-clustered variance"),
    M("stats_two_sided_z", "statistics", "analysis/stats.py",
      "    return z, float(2 * norm.sf(abs(z)))",
      "    return z, float(norm.sf(abs(z)))",
      ["tests/test_stats.py::test_two_proportion_z_test_hand_computed"], "two-proportion z test is two-sided"),
    # ------------------------------------------------------------------ runner (dataset/layout.py: the plan of chunks)
    M("runner_short_last_chunk", "runner", "dataset/layout.py",
      "start % spec.chunk == 0 and count == min(spec.chunk, spec.hands - start)",
      "start % spec.chunk == 0 and count == spec.chunk",
      [G], "a finished run with a short last chunk resumes"),
    M("runner_chunk_count", "runner", "dataset/layout.py",
      "    return -(-spec.hands // spec.chunk)",
      "    return spec.hands // spec.chunk",
      ["tests/test_runner.py::test_plan_chunks_keep_sessions_whole",
       "tests/test_runner.py::test_rerun_skips_completed_chunks_and_redoes_missing_ones",
       f"{G}::test_a_finished_run_with_a_short_last_chunk_resumes"],
      "the plan counts the short last chunk"),
    # ------------------------------------------------------------------ added after the first
    # full run, targets chosen by the rule's name before running them (a held-out check)
    M("loop_added_kong_on_draw_only", "hand loop", "core/_loop.pyx",
      "    if st.cfg.added_kong_on_draw_only:\n        if drawn >= 0 and find_pung(p, drawn) >= 0",
      "    if not st.cfg.added_kong_on_draw_only:\n        if drawn >= 0 and find_pung(p, drawn) >= 0",
      [f"{GW}::test_added_kong_on_draw_only", f"{GA}::test_added_kong_on_draw_only"],
      "RULES §2.1, §3.4: an added kong only with the tile just drawn"),
    M("loop_dealer_next_on_loss", "hand loop", "core/_loop.pyx",
      "    st.next_dealer = st.dealer if dealer_won else (st.dealer + 1) & 3",
      "    st.next_dealer = st.dealer if dealer_won else (st.dealer + 3) & 3",
      [f"{GW}::test_dealer_next_on_loss"], "RULES §2.6: dealer loses -> 下家 deals"),
    M("loop_last_drawer_deals", "hand loop", "core/_loop.pyx",
      "        st.next_dealer = st.last_drawer",
      "        st.next_dealer = st.dealer",
      [f"{GA}::test_sessions_rotate_the_dealer_winner_or_last_drawer", f"{GW}::test_dealer_on_draw"],
      "RULES §3.6: after a draw the last drawer (海底) deals"),
    M("wall_dice_odd_opposite", "wall", "core/_wall.pyx",
      "        return (dealer + 2) & 3",
      "        return (dealer + 1) & 3",
      ["tests/test_wall.py"], "RULES §1: an odd dice sum chooses the dealer's 對家's wall"),
    M("eval_rob_kong_wilds", "evaluator", "core/_eval.pyx",
      "    if not self_draw and not plain_discard and cat > CAT_DAN:",
      "    if not self_draw and not plain_discard and cat > CAT_SAN:",
      [EV, GA], "RULES §3.3: 搶槓胡 and 槓上炮 with no wild or 單王 only"),
    M("settle_birds_hit_payer", "settlement", "core/_settle.pyx",
      "            w.birds_hit = on[w.winner] + on[w.payer]",
      "            w.birds_hit = on[w.winner]",
      [GA], "RULES §3.5: a bird on the discarder doubles a discard win"),
    M("greedy_kong_same_shanten", "players", "players/_greedy.pyx",
      "    if after <= before:",
      "    if after < before:",
      ["tests/test_greedy.py"], "greedy declares every kong that keeps its shanten"),
    M("rules_bound_dealer_doubling", "rules", "rulesets/rules.py",
      '        dealer = 2 if tree["dealer_pays_double"] else 1',
      "        dealer = 1",
      ["tests/test_rules.py", G], "RULES §1, §2.5: the bound counts the dealer's doubling"),
    # ------------------------------------------------------------------ h2: a second audit
    # (December 2026) of rule parameters and of the rules the first 50 did not touch
    M("h2_loop_same_kind_lock_lifted", "hand loop", "core/_loop.pyx",
      "    p.ron_locked = 0\n    p.lock_kinds = 0\n",
      "    p.ron_locked = 0\n    p.lock_kinds = p.lock_kinds\n",
      [GA, G], "RULES §3.3 漏胡: the same-kind lock ends when the seat completes its own turn"),
    M("h2_loop_rob_kong_same_kind_lock", "hand loop", "core/_loop.pyx",
      "(ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_QIANGGANGHU))",
      "(False or not can_win_on(st, q, t, _eval.CTX_QIANGGANGHU))",
      [GA, G], "RULES §3.3 漏胡: a seat that passed a win on a kind cannot rob a kong of that kind"),
    M("h2_loop_rob_kong_wild_substitutes", "hand loop", "core/_loop.pyx",
      "(ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_QIANGGANGHU))",
      "(ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_NONE))",
      [GA, G], "RULES §3.3 搶槓胡: no wild or 單王, the wild may substitute"),
    M("h2_loop_gangshangpao_same_kind_lock", "hand loop", "core/_loop.pyx",
      "            if ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_GANGSHANGPAO):",
      "            if False or not can_win_on(st, q, t, _eval.CTX_GANGSHANGPAO):",
      [GA, G], "RULES §3.3 漏胡: a seat that passed a win on a kind cannot win a 補章 tile of that kind"),
    M("h2_loop_gangshangpao_wild_substitutes", "hand loop", "core/_loop.pyx",
      "            if ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_GANGSHANGPAO):",
      "            if ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_NONE):",
      [GA, G], "RULES §3.4 槓上炮: eligibility as 搶槓胡 (單王, the wild may substitute)"),
    M("h2_loop_next_on_loss_dealer_among_winners", "hand loop", "core/_loop.pyx",
      "    for i in range(st.n_winners):\n        dealer_won |=",
      "    for i in range(1):\n        dealer_won |=",
      [GW, GA, G], "RULES §2.6 next_on_loss: a dealer who is one of several winners has not lost"),
    M("h2_loop_kong_tenpai_before_the_draw", "hand loop", "core/_loop.pyx",
      "    if source == SRC_DRAW and drawn >= 0 and kong_type != KONG_EXPOSED:",
      "    if source == SRC_DRAW and drawn < 0 and kong_type != KONG_EXPOSED:",
      [GA, G], "RULES §3.4: 'before' a kong is the 13-tile hand before the draw"),
    M("h2_loop_added_kong_seen", "hand loop", "core/_loop.pyx",
      "    st.seen[k] += 1\n    p.melds[i].kind = MELD_ADDED_KONG",
      "    st.seen[k] += 0\n    p.melds[i].kind = MELD_ADDED_KONG",
      [G, GW, GA], "seen tiles: an added kong's fourth tile is on the table"),
    M("h2_loop_exposed_kong_seen", "hand loop", "core/_loop.pyx",
      "        st.seen[t] += 3\n",
      "        st.seen[t] += 2\n",
      [G, GW, GA], "seen tiles: an exposed kong shows its four tiles"),
    M("h2_loop_honor_chow_north", "hand loop", "core/_loop.pyx",
      "        if tile <= 30:\n            # any three different winds",
      "        if tile < 30:\n            # any three different winds",
      [GW, G], "RULES §2.1 honor_chow: 北 is chowed with two other winds"),
    # settlement (core/_settle.pyx)
    M("h2_settle_piao_not_on_exposed_kong", "settlement", "core/_settle.pyx",
      "        transfer(st, discarder, s, share(st, discarder, s, amount, False), reason, -1)",
      "        transfer(st, discarder, s, share(st, discarder, s, amount, True), reason, -1)",
      [GW, G], "RULES §2.5 飄: win payments only, not kong payments"),
    M("h2_settle_piao_not_on_concealed_or_added_kong", "settlement", "core/_settle.pyx",
      "        transfer(st, q, s, share(st, q, s, amount, False), reason, -1)",
      "        transfer(st, q, s, share(st, q, s, amount, True), reason, -1)",
      [GW, G], "RULES §2.5 飄: win payments only, not kong payments"),
    M("h2_settle_exposed_kong_fire_and_dealer", "settlement", "core/_settle.pyx",
      "        transfer(st, discarder, s, share(st, discarder, s, amount, False), reason, -1)",
      "        transfer(st, discarder, s, amount, reason, -1)",
      [GW, G], "RULES §2.5: fire and dealer doubling apply to kong payments (直槓 too)"),
    M("h2_settle_refund_added_kongs", "settlement", "core/_settle.pyx",
      "        if r.reason == PAY_KONG_ADDED or r.reason == PAY_KONG_EXPOSED",
      "        if r.reason == PAY_KONG_EXPOSED or r.reason == PAY_KONG_EXPOSED",
      [GW, G], "RULES §2.4 kong_pay_on_draw = false: every kong payment is returned, 欠槓 too"),
    M("h2_settle_birds_fewer_when_the_wall_runs_out", "settlement", "core/_settle.pyx",
      "        n = left          # fewer if the wall runs out",
      "        n = 0          # fewer if the wall runs out",
      [GA, G], "RULES §3.5: with birds = n, fewer birds (not none) when the wall runs out"),
    # evaluator (core/_eval.pyx)
    M("h2_eval_daqidui_concealed_four", "evaluator", "core/_eval.pyx",
      "        elif c[i] == 1 or c[i] == 4:",
      "        elif c[i] == 1:",
      [EV, CC, G], "RULES §2.2 大七對: every meld a triplet (four concealed are no triplet + pair)"),
    M("h2_eval_shisanlan_no_melds", "evaluator", "core/_eval.pyx",
      "    if mi.n == 0:\n        shape = mjsim_count_shape(c)\n        odd = shape & 1",
      "    if mi.n <= 1:\n        shape = mjsim_count_shape(c)\n        odd = shape & 1",
      [EV, CC, G], "RULES §2.2: 十三爛 and 七小對 need no melds declared"),
    M("h2_eval_waits_indicator_copies", "evaluator", "core/_eval.pyx",
      "        copies = 3 if k == indicator else 4",
      "        copies = 4",
      [EV, CC, GA, G], "RULES §3.1: the indicator is set aside, three copies of its kind are left"),
    # players
    M("h2_ev_locked_discards_drawn", "players", "players/_ev.pyx",
      "    if p.locked:\n        tile[0] = drawn\n        return ACT_DISCARD\n    init_ctx",
      "    if False:\n        tile[0] = drawn\n        return ACT_DISCARD\n    init_ctx",
      [GA, "tests/test_ev.py", G], "RULES §3.4: a locked hand discards what it draws (ev)"),
]


# ---------------------------------------------------------------------------- machinery

def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def module_of(m: Mutant) -> str | None:
    """The extension module to rebuild (None: pure Python)."""
    return m.file[:-4] if m.file.endswith(".pyx") else None


def mutate(text: str, m: Mutant) -> str:
    n = text.count(m.original)
    if n != 1:
        raise SystemExit(f"{m.id}: the fragment occurs {n} times in {m.file} (need exactly once); "
                         "the source changed: update the mutant")
    changed = [a for a, b in zip(m.original.splitlines(), m.replacement.splitlines()) if a != b]
    if len(m.original.splitlines()) != len(m.replacement.splitlines()) or len(changed) != 1:
        raise SystemExit(f"{m.id}: a mutant changes exactly one line")
    return text.replace(m.original, m.replacement)


def env_for_tests(cache_dir: str | None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    if cache_dir:
        env["MJSIM_CACHE_DIR"] = cache_dir
    return env


def debug_module(module: str) -> Path | None:
    """The debug twin the tests load (MJSIM_BUILD=debug): src/mjsim/_debug_build/core/_loop.*.so."""
    found = sorted((SRC / "_debug_build" / Path(module).parent).glob(Path(module).name + ".*.so"))
    return found[0] if found else None


def build(module: str, log: Path) -> bool:
    """Rebuild the debug twin of one module (setup.py's MJSIM_MODULES takes the module's stem,
    `_loop`; MJSIM_DEBUG=only leaves the release modules alone).  False when the build fails
    or did not write the module (a build that matched nothing would leave the old module)."""
    so = debug_module(module)
    before = so.stat().st_mtime_ns if so else None
    env = dict(os.environ, MJSIM_DEBUG="only", MJSIM_MODULES=Path(module).name)
    with open(log, "ab") as f:
        r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=ROOT, env=env,
                           stdout=f, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT)
    so = debug_module(module)
    return r.returncode == 0 and so is not None and so.stat().st_mtime_ns != before


def run_tests(tests, env, log: Path) -> str:
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    try:
        with open(log, "ab") as f:
            r = subprocess.run(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=TEST_TIMEOUT)
    except subprocess.TimeoutExpired:
        return "killed (timeout)"
    if r.returncode == 0:
        return "survived"
    if r.returncode == 1:
        return "killed"
    if r.returncode < 0 or r.returncode > 5:
        return "killed (crash)"
    return f"error (pytest exit {r.returncode})"


def check_debug_build(mutants):
    missing = sorted({module_of(m) for m in mutants if module_of(m) and not debug_module(module_of(m))})
    if missing:
        raise SystemExit(f"needs a full debug build first (no debug {', '.join(missing)}): "
                         "MJSIM_DEBUG=1 python setup.py build_ext --inplace")


def run(mutants, log: Path, baseline: bool) -> list[tuple[Mutant, str, float]]:
    check_debug_build(mutants)
    results = []
    # tables mutants build their own tables: keep them out of the user's cache directory
    scratch = tempfile.mkdtemp(prefix="mjsim-mutant-cache-")
    dirty: set[str] = set()          # modules whose .so may hold a mutant
    try:
        if baseline:
            tests = sorted({t for m in mutants for t in m.tests})
            print(f"baseline: the {len(tests)} targets on the unmutated tree ...", flush=True)
            if run_tests(tests, env_for_tests(None), log) != "survived":
                raise SystemExit(f"the targeted tests fail without any mutant; see {log}")
        for i, m in enumerate(mutants, 1):
            path = SRC / m.file
            original = path.read_bytes()
            before = sha(original)
            t0 = time.monotonic()
            outcome = "?"
            try:
                path.write_bytes(mutate(original.decode("utf-8"), m).encode("utf-8"))
                module = module_of(m)
                if module:
                    dirty.add(module)
                    if not build(module, log):
                        outcome = "error (build)"
                if outcome == "?":
                    cache = scratch if m.area == "tables" else None
                    outcome = run_tests(list(m.tests), env_for_tests(cache), log)
            finally:
                path.write_bytes(original)
                if sha(path.read_bytes()) != before:
                    raise SystemExit(f"{path} was not restored byte for byte: restore it from git")
            secs = time.monotonic() - t0
            results.append((m, outcome, secs))
            print(f"[{i}/{len(mutants)}] {m.id:34} {outcome:18} {secs:6.0f} s", flush=True)
            # the next mutant of the same module rebuilds it anyway; otherwise restore it now
            nxt = mutants[i] if i < len(mutants) else None
            if module_of(m) and (nxt is None or module_of(nxt) != module_of(m)):
                restore_modules({module_of(m)}, log)
                dirty.discard(module_of(m))
    finally:
        if dirty:
            print(f"rebuilding {', '.join(sorted(dirty))} from the restored sources ...", flush=True)
            restore_modules(dirty, log)
        shutil.rmtree(scratch, ignore_errors=True)
    return results


def restore_modules(modules, log: Path):
    for module in sorted(modules):
        # the restored source is newer than the mutant's .so: setuptools rebuilds it
        if not build(module, log):
            raise SystemExit(f"rebuilding {module} from the restored source failed; see {log}")


def report(results) -> float:
    print()
    print(f"{'mutant':34} {'area':12} {'outcome':18} rule")
    for m, outcome, _ in results:
        print(f"{m.id:34} {m.area:12} {outcome:18} {m.rule}")
    judged = [o for _, o, _ in results if o.startswith(("killed", "survived"))]
    killed = sum(o.startswith("killed") for o in judged)
    rate = killed / len(judged) if judged else float("nan")
    errors = len(results) - len(judged)
    print(f"\nkilled {killed} of {len(judged)} mutants: kill rate {rate:.1%}"
          + (f" ({errors} not judged: build or collection errors)" if errors else ""))
    return rate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[], help="run mutants whose id contains this (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the targeted tests")
    ap.add_argument("--log", default=str(ROOT / "build" / "mutants.log"), help="build and pytest output")
    args = ap.parse_args(argv)
    mutants = [m for m in MUTANTS if not args.only or any(o in m.id for o in args.only)]
    for m in mutants:      # every fragment must still be found exactly once, before anything runs
        mutate((SRC / m.file).read_text("utf-8"), m)
    if args.list:
        for m in mutants:
            print(f"{m.id:34} {m.area:12} {m.file:12} {' '.join(m.tests)}")
        return 0
    if not mutants:
        print("no mutant matches --only", file=sys.stderr)
        return 2
    # group by file so that each module is rebuilt as few times as possible
    order = {f: i for i, f in enumerate(dict.fromkeys(m.file for m in mutants))}
    mutants.sort(key=lambda m: order[m.file])
    log = Path(args.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    try:
        results = run(mutants, log, not args.no_baseline)
    except KeyboardInterrupt:
        print("\ninterrupted: every file is restored", file=sys.stderr)
        return 130
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
