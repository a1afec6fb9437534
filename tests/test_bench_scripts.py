"""The measurement scripts of bench/ that the docs quote (tempo, danger, the search
player's reading of the opponents and where it departs from ev): each runs small and its
output is checked for what the docs read from it, so a figure quoted in a doc comes from a
script that still works."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from mjsim.run import evfit

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_tempo_frontier_trades_deal_ins_for_draws():
    """bench/tempo_frontier.py (what a lower deal-in rate costs ev): raising `fold` from 1 to 5,
    or `race` from 0.8 to 5, must lower the all-ev table's deal-in rate and raise its draw
    rate, on the same deals, and the script must print one row per value."""
    script = BENCH / "tempo_frontier.py"
    for option, values in (("fold", ("1", "5")), ("race", ("0.8", "5"))):
        out = subprocess.run([sys.executable, str(script), "--deals", "200", "--option", option,
                              "--values", ",".join(values), "--workers", "1"],
                             capture_output=True, text=True, check=True).stdout
        assert f"| {option} | edge" in out
        rows = [line.split("|")[1:-1] for line in out.splitlines() if re.match(r"^\| [0-9]", line)]
        assert [r[0].strip() for r in rows] == list(values)
        deal_in = [float(r[5].strip(" %")) for r in rows]
        draws = [float(r[6].strip(" %")) for r in rows]
        assert deal_in[1] < deal_in[0] - 3 and draws[1] > draws[0] + 5, out


def _bench_module(name):
    """Import bench/<name>.py as a module (bench/ is not a package)."""
    path = BENCH / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_danger_ceiling_reads_drawn_discards_and_scores_every_model():
    """bench/danger_ceiling.py (how far ev's danger ranking is from what the table shows): a
    discard is 'the tile just drawn' only right after that seat drew that kind, never after a
    claim; and the script scores all three models on held-out rows, each better than chance."""
    dc, script = _bench_module("danger_ceiling")
    D, X, P, C = evfit.EV_DRAW, evfit.EV_DISCARD, evfit.EV_PUNG, evfit.EV_CHOW
    events = [(D, 0, 5, 0, 0), (X, 0, 5, 0, 0),        # drew 5, threw 5
              (D, 1, 7, 0, 0), (X, 1, 3, 0, 0),        # drew 7, threw 3
              (P, 2, 3, 1, 0), (X, 2, 7, 0, 0),        # punged 3, then threw 7
              (D, 3, 9, 0, 0), (X, 3, 9, 0, 0),        # drew 9, threw 9
              (C, 0, 9, 3, 0), (X, 0, 9, 0, 0)]        # chowed 9, threw another 9: not drawn
    assert dc._drawn_flags({"events": events}) == [1, 0, 0, 1, 0]
    out = subprocess.run([sys.executable, str(script), "--hands", "40", "--workers", "1"],
                         capture_output=True, text=True, check=True).stdout
    rows, held = map(lambda s: int(s.replace(",", "")),
                     re.search(r"([\d,]+) \(opponent, held kind\) rows, ([\d,]+) held out", out).groups())
    assert 0.15 * rows < held < 0.35 * rows, out
    aucs = {name.strip(): float(auc) for name, auc in re.findall(r"^(.+?)\s+AUC ([\d.]+)", out, re.M)}
    assert set(aucs) == {"ev's logistics (shipped)", "trees on ev's features", "trees on ev's + extra features"}
    assert all(0.6 < a <= 1 for a in aucs.values()), out


def test_read_calibration_scores_the_true_hands_as_perfect():
    """bench/read_calibration.py (how well the sampler places the opponents' waits): a sampler
    that keeps the true hands (peek=1) must score exactly as the truth does, and ev's risk
    must be scored on the same rows."""
    script = BENCH / "read_calibration.py"
    out = subprocess.run([sys.executable, str(script), "--hands", "8", "--samples", "4", "--peek", "1"],
                         capture_output=True, text=True, check=True).stdout
    sampler = next(line for line in out.splitlines() if line.startswith("sampler"))
    truth = next(line for line in out.splitlines() if line.startswith("truth"))
    assert "Brier 0.0000" in sampler and "AUC 1.000" in sampler
    assert truth.split("base rate ")[1].split()[0] == sampler.split("mean estimate ")[1]
    assert any(line.startswith("ev ") and "AUC" in line for line in out.splitlines())


def test_search_deviations_accounts_for_every_differing_turn():
    """bench/search_deviations.py (where search departs from ev): every differing turn falls
    in exactly one of its categories, every differing claim in one (ev's answer, search's
    answer) pair, and the counts it prints add up to the totals."""
    script = BENCH / "search_deviations.py"
    out = subprocess.run([sys.executable, str(script), "--hands", "8", "--examples", "2"],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    turns, differ = map(int, re.search(r"^turns (\d+): search differs on (\d+)", out, re.M).groups())
    start = next(i for i, line in enumerate(lines) if line.startswith("turns "))
    end = next(i for i, line in enumerate(lines) if line.startswith("claims "))
    assert turns > 40 and differ == sum(int(line.split()[0]) for line in lines[start + 1:end])
    claims_differ = int(re.search(r"^claims \d+: search differs on (\d+)", out, re.M).group(1))
    wins = next(i for i, line in enumerate(lines) if line.startswith("wins on a discard"))
    breakdown = lines[end + 1:wins]
    assert all(re.match(r"^\s+\d+  ev (pass|pung|kong|chow|honour chow), search (pass|pung|kong|chow|honour chow)$", line)
               for line in breakdown), breakdown
    assert claims_differ == sum(int(line.split()[0]) for line in breakdown)
    n_wins, n_lan, wins_differ = map(int, re.search(
        r"^wins on a discard (\d+) \((\d+) of them 13-lan\): search differs on (\d+)", out, re.M).groups())
    win_lines = [re.match(r"^\s+(\d+)  ev (takes|passes), search (takes|passes) \((\d+) of them 13-lan\)$", line)
                 for line in lines[wins + 1:]]
    win_lines = [m for m in win_lines if m]
    assert n_lan <= n_wins and wins_differ == sum(int(m.group(1)) for m in win_lines)
    assert all(int(m.group(4)) <= int(m.group(1)) for m in win_lines)


def test_a_13_lan_win_follows_the_reference_rule():
    """search_deviations counts a win on a discard as 13-lan by the reference's rule: fourteen
    different tiles, suited ones three apart, nothing melded."""
    deviations, _ = _bench_module("search_deviations")
    hand = [0] * 34
    for k in (0, 3, 6, 10, 13, 16, 19, 22, 25, 27, 28, 29, 30):     # 147m 258p 258s and the four winds
        hand[k] = 1
    assert deviations.is_shisanlan(hand, [], 31)                     # 中 makes fourteen different
    assert not deviations.is_shisanlan(hand, [], 27)                  # a second 東: a pair
    assert not deviations.is_shisanlan(hand, [("chow", [1, 2, 3])], 31)
    assert not deviations.is_shisanlan(hand, [], 1)                   # 2m beside 1m: too close


def test_search_deviations_fits_every_offered_claim():
    """bench/search_deviations.py --fit-claims: one feature row per claim the seat is offered
    (the count the claim breakdown prints), the share of calls and of agreement within
    0-100%, and the overturned answers it calls right no more than it overturns."""
    script = BENCH / "search_deviations.py"
    out = subprocess.run([sys.executable, str(script), "--hands", "40", "--seed", "5", "--examples", "0",
                          "--fit-claims"], capture_output=True, text=True, check=True).stdout
    claims = int(re.search(r"^claims (\d+): search differs on", out, re.M).group(1))
    fit = re.search(r"^claims fitted (\d+): search calls on ([\d.]+)%, ev on ([\d.]+)%; ev's answer is "
                    r"search's on ([\d.]+)%, the model's on ([\d.]+)%", out, re.M)
    assert fit, out
    assert int(fit.group(1)) == claims > 50
    assert all(0 < float(v) < 100 for v in fit.groups()[1:])
    overturned, right = map(int, re.search(r"overturns ev on (\d+) claims, rightly on (\d+)", out).groups())
    assert 0 <= right <= overturned <= claims


def test_claim_features_measure_each_call_after_its_best_discard():
    """The shanten a call leaves counts its best discard.  123m 45m 456p 9p 789s E is one from
    ready; chowing 6m with 45m and throwing 9p or E leaves it ready (0), a pung of E leaves a
    single to pair (0), and chowing 3p with 45p (456p broken for 345p) gains nothing (1)."""
    deviations, _ = _bench_module("search_deviations")
    hand = [0] * 34
    for k in (0, 1, 2, 3, 4, 12, 13, 14, 17, 24, 25, 26, 27):
        hand[k] += 1
    assert deviations.reference.wanzai_shanten(hand, []) == 1
    assert deviations.after_call(hand, [], 5, ("chow", 3, 4)) == 0
    two_e = list(hand)
    two_e[17] -= 1
    two_e[27] += 1
    assert deviations.after_call(two_e, [], 27, ("pung",)) == 0
    assert deviations.after_call(hand, [], 11, ("chow", 12, 13)) == 1


def test_ev_style_search_points_and_surface():
    """bench/ev_style_search.py: point 0 is the shipped Wanzai style, the others lie in
    RANGES and do not depend on how many are asked for; the response surface finds the best
    value of an option whose edge is a known parabola, and no maximum for one whose edge
    only rises."""
    import random as _random

    search, _ = _bench_module("ev_style_search")
    shipped = search.shipped_style("wanzai")
    assert shipped["kongs"] == 0.25 and "hold" not in shipped      # hold stays 0 (RULES §1)
    assert search.point(1, 0, shipped) == shipped
    p = search.point(1, 7, shipped)
    assert p == search.point(1, 7, shipped) != search.point(2, 7, shipped)
    assert all(lo <= p[k] <= hi for k, (lo, hi) in search.RANGES.items())
    rng = _random.Random(3)
    rows = []
    for i in range(60):
        pt = search.point(5, i + 1, shipped)
        edge = -(pt["keep"] - 0.7) ** 2 + 0.01 * pt["fold"] + rng.gauss(0, 1e-5)
        rows.append({"point": pt, "edge": edge})
    fitted = {k: (b, c, best) for k, b, _, c, _, best in search.surface(rows)}
    assert abs(fitted["keep"][2] - 0.7) < 0.01
    assert fitted["fold"][0] > 0 and abs(fitted["fold"][1]) < 1e-3


def test_ev_style_search_resumes_from_its_file(tmp_path):
    """An interrupted search loses nothing: a second run on the same file measures only the
    points it lacks, and a run with other deals does not take the file's points as its own."""
    script, out = BENCH / "ev_style_search.py", tmp_path / "points.jsonl"
    args = [sys.executable, str(script), "--deals", "4", "--workers", "1", "--out", str(out)]
    first = subprocess.run(args + ["--points", "1"], capture_output=True, text=True, check=True).stdout
    assert "0 points already" in first and len(out.read_text().splitlines()) == 2
    second = subprocess.run(args + ["--points", "2"], capture_output=True, text=True, check=True).stdout
    assert "2 points already" in second and "point 2:" in second and "point 0:" not in second
    assert len(out.read_text().splitlines()) == 3
    other = subprocess.run(args[:3] + ["5"] + args[4:] + ["--points", "0"], capture_output=True, text=True,
                           check=True).stdout
    assert "0 points already" in other and "point 0:" in other


def test_interval_coverage_prints_sane_tables(tmp_path):
    """bench/interval_coverage.py (docs/statistics.md, "Do the intervals cover?"), tiny: one
    coverage row per shown measure and set, each coverage inside its Clopper-Pearson interval;
    the seat means' truth is the theory's 0; the false-positive table ends with the
    family-wise row; the no-op rule change plays every hand identically and tests nothing;
    and the JSON agrees. No coverage figure is asserted (at this size they mean nothing)."""
    import json

    script, out_json = BENCH / "interval_coverage.py", tmp_path / "coverage.json"
    out = subprocess.run([sys.executable, str(script), "--truth-hands", "3200", "--runs", "4", "--sets", "10x16,2x16",
                          "--paired", "2", "--noop", "1", "--data", str(tmp_path / "data"), "--json", str(out_json)],
                         capture_output=True, text=True, check=True).stdout
    assert "| measure | truth | source | 10×16 | 2×16 |" in out
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in out.split("## wanzai: false positives")[0].splitlines()
            if re.match(r"^\| [a-z]", line) and not line.startswith("| measure |")}
    assert rows["seat 0"][:2] == ["0", "theory: 0"] and rows["seat 0 wins"][1] == "large run, 4 seats pooled"
    cells = [c for row in rows.values() for c in row[2:] if c not in ("-", "no interval")]
    assert cells
    for c in cells:
        cov, lo, hi = map(float, re.match(r"^([\d.]+) \[([\d.]+), ([\d.]+)\]", c).groups())
        assert 0 <= lo <= cov <= hi <= 1, c
    assert re.search(r"^\| \*\*any Holm-adjusted p < 0\.05\*\* \| \d+/2 \[", out, re.M), out
    noop = re.findall(r"^no-op change .*: (\d+) paired comparisons, (\d+) with every hand played identically, "
                      r"(\d+) measures tested, (\d+) flagged$", out, re.M)
    assert noop == [("1", "1", "0", "0")] * 2, out
    data = json.loads(out_json.read_text())
    assert [s["sessions"] for s in data["sets"]] == [10, 2] and data["truth"]["score / seat 0"]["value"] == 0
    for s in data["sets"]:
        assert s["unpaired"]["comparisons"] == 2 and s["paired_wall_model"]["comparisons"] == 2
        for c in s["coverage"].values():
            assert c["runs"] + c["no_interval"] == 4
    assert not any((tmp_path / "data").glob("run-*")), "runs are deleted once used"
