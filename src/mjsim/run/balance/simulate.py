"""The evaluator that plays candidates: each candidate one variant of the output dataset, on
the same seeds (common random numbers), its hands grown in whole chunks; the resume state."""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from mjsim.run.balance.problem import FIRST_HANDS, STATE_FILE, Target, Vary, apply
from mjsim.run.balance.search import Estimate


# ------------------------------------------------------------------------------------
# The simulation side: candidates as variants of one dataset


def hands_plan(max_hands: int, session_hands: int, chunk: int | None = None,
               cost: float = 0.0) -> tuple[int, int, int]:
    """(chunk, start hands, cap): hands grow in whole chunks from `start` up to `cap`,
    max_hands in whole chunks. The first step is `chunk` hands, or by default about
    max_hands / 64 (at least FIRST_HANDS or all of max_hands, at most the runner's default
    chunk). With slow players (`cost`: CPU seconds a hand, spec.table_seconds_per_hand)
    the default chunk is about SLOW_CHUNK_SECONDS of work, as in simulate, so that Ctrl-C
    loses little; the first step stays as large, in whole chunks. docs/guide/balance.md
    and --chunk's help say this: change them with it."""
    from mjsim.run import runner
    from mjsim.run.spec import SLOW_CHUNK_SECONDS, check_chunk, check_sizes, work_limited

    # the sizes checked as simulate checks them (the same messages): a --hands that ends
    # inside a session is refused with the nearest that work, not silently cut
    max_hands, session_hands = check_sizes(max_hands, session_hands)
    if chunk is not None:
        chunk = check_chunk(chunk, session_hands)
        step = chunk
    else:
        step = _default_step(max_hands, session_hands, runner.DEFAULT_CHUNK)
        chunk = work_limited(step, cost, SLOW_CHUNK_SECONDS, session_hands)
        step = min(math.ceil(step / chunk) * chunk, max_hands // chunk * chunk)
    if max_hands < step:
        raise ValueError(f"--hands {max_hands:,} is less than one chunk ({step:,} hands)")
    return chunk, step, max_hands // chunk * chunk


def _default_step(max_hands: int, session_hands: int, most: int) -> int:
    """The first step's hands by default: about max_hands / 64, at least FIRST_HANDS (or
    all of max_hands), at most `most`, in whole sessions; a size that divides max_hands is
    preferred when one is near, so that the last step is max_hands itself."""
    # a first step of a few thousand hands at least: fewer say little about a pattern's share
    want = min(most, max(session_hands, max_hands // 64, min(max_hands, FIRST_HANDS)))
    step = max(session_hands, want // session_hands * session_hands)
    divisors = [c for c in range(session_hands, most + 1, session_hands)
                if max_hands % c == 0 and max(want / 2, min(FIRST_HANDS, max_hands)) <= c]
    if divisors:
        step = min(divisors, key=lambda c: (abs(c - want), c))
    return step


class SimulationEvaluator:
    """Plays a candidate (positions -> rules) for a number of hands into `out`, a variant
    each, and reads the targets' estimates and 95 % intervals.

    Results are kept in DIR/balance-state.json, keyed by variant and hands, each with what
    made its hands (rules, seed, players, session length, chunk): a rerun of the same
    command follows the same path and reads them back, so a resumed search gives the same
    answer (the data of a candidate may have grown past a step that is asked again). A
    result made otherwise is never read back: the step is played, and the runner refuses
    a directory that holds the variant made otherwise."""

    def __init__(self, base, varies: Sequence[Vary], targets: Sequence[Target], *, players, out: Path,
                 seed: int, session_hands: int, chunk: int, run_step: Callable, label_suffix: str = "",
                 progress: Callable | None = None, chunk_from_hands: int | None = None):
        from mjsim.run import runner

        self.base, self.varies, self.targets = base, list(varies), list(targets)
        self.players = runner.parse_players(players)
        self.out, self.seed, self.session_hands, self.chunk = Path(out), seed, session_hands, chunk
        self.run_step, self.suffix, self.progress = run_step, label_suffix, progress
        self.chunk_from_hands = chunk_from_hands      # --hands, when the chunk is its default
        self.hands_played = 0
        self.labels: dict[tuple, str] = {}

    def values(self, pos: tuple) -> tuple:
        return tuple(v.value(p) for v, p in zip(self.varies, pos))

    def label(self, pos: tuple) -> str:
        return " ".join(f"{v.name}={_show(x)}" for v, x in zip(self.varies, self.values(pos))) + self.suffix

    def spec(self, pos: tuple, hands: int):
        from mjsim.run import runner

        rules = apply(self.base, self.varies, self.values(pos))
        return runner.make_spec(rules, players=self.players, hands=hands, session_hands=self.session_hands,
                                seed=self.seed, chunk=self.chunk, label=self.label(pos))

    def __call__(self, pos: tuple, hands: int) -> list[Estimate]:
        from mjsim.analysis import stats
        from mjsim.dataset.storage import directory_lock
        from mjsim.run import precision

        spec = self.spec(pos, hands)
        made_with = _made_with(spec)
        known = _cached(_read_state(self.out), spec.variant, hands, made_with)
        if all(_tkey(t) in known for t in self.targets):
            return [tuple(known[_tkey(t)]) for t in self.targets]
        _refuse_made_otherwise(self.out, spec, self.chunk_from_hands)
        recorded = precision._recorded_hands(self.out, spec)
        if recorded is not None and recorded > hands:
            spec = self.spec(pos, recorded)      # grown past this step by an earlier run
        precision._allow_growth(self.out, spec)
        if self.progress is not None:
            self.progress(self.label(pos), spec.hands, self.hands_played)
        result = self.run_step(spec)
        self.hands_played += getattr(result, "hands_done", 0) or 0
        if spec.hands > hands:
            st = _prefix_stats(self.out, spec, hands)
        else:
            st = stats.variant_stats(self.out, spec.variant)
        found = {m.key: m for m in (*st.rates, *st.means)}
        out = []
        for t in self.targets:
            m = found.get(t.key)
            if m is None:
                est, lo, hi = math.nan, math.nan, math.nan
            else:
                est = m.freq if hasattr(m, "freq") else m.mean
                lo, hi = m.ci
            out.append((float(est), float(lo), float(hi)))
        with directory_lock(self.out):      # read, change and write the state as one writer
            state = _read_state(self.out)
            estimates = _cached(state, spec.variant, hands, made_with)
            estimates.update({_tkey(t): list(e) for t, e in zip(self.targets, out)})
            state.setdefault(spec.variant, {})[str(hands)] = {"made_with": made_with, "estimates": estimates}
            _write_state(self.out, state)
        return out


def _made_with(spec) -> dict:
    """What made a candidate's hands besides their number (the manifest's fields)."""
    from mjsim.dataset.manifest import SHAPING_BUT_HANDS

    entry = spec.manifest_entry()
    return {k: entry[k] for k in SHAPING_BUT_HANDS}


def _refuse_made_otherwise(out: Path, spec, chunk_from_hands: int | None) -> None:
    """Refuse, in balance's terms, a candidate in `out` made otherwise (rules, seed, players,
    session length, chunk). The runner would refuse it too, but would also name as --hands
    the step sizes the search picks, which the user never typed; another --hands with the
    same chunk is no obstacle (a candidate's hands grow, or its first ones are read)."""
    from mjsim.dataset.manifest import SHAPING_BUT_HANDS, shaping_diffs
    from mjsim.run import runner

    if not (out / "manifest.json").exists():
        return
    old = runner.read_manifest(out)["variants"].get(spec.variant)
    if old is None:
        return
    # chunk is the last of SHAPING_BUT_HANDS, so the diffs keep the manifest's order
    diffs = shaping_diffs(old, spec.manifest_entry(), [k for k in SHAPING_BUT_HANDS if k != "chunk"])
    chunk_changed = old.get("chunk") != spec.chunk
    # without --chunk the new chunk came from --hands, which is what the user changed
    from_hands = chunk_changed and chunk_from_hands is not None
    if chunk_changed:
        why = f", the default for --hands {chunk_from_hands}" if from_hands else ""
        diffs.append(f"--chunk {old.get('chunk')} (now {spec.chunk}{why})")
    if not diffs:
        return
    todo = "rerun with those settings to resume"
    if from_hands and len(diffs) == 1:
        todo = f"rerun with --chunk {old.get('chunk')} to resume with this --hands"
    raise ValueError(f"{out} already holds variant {spec.variant} made with {'; '.join(diffs)}: {todo}, "
                     f"or choose another --out")


def _cached(state: dict, variant: str, hands: int, made_with: dict) -> dict:
    """{target key: [estimate, low, high]} kept for this variant and step, when made as now;
    entries of another shape (an older mjsim, a hand-edited file) count as absent."""
    entry = state.get(variant, {}).get(str(hands))
    if not isinstance(entry, dict) or entry.get("made_with") != made_with:
        return {}
    estimates = entry.get("estimates")
    if not isinstance(estimates, dict):
        return {}
    return {k: v for k, v in estimates.items() if _is_estimate(v)}


def _is_estimate(v) -> bool:
    return (isinstance(v, list) and len(v) == 3
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v))


def _prefix_stats(out: Path, spec, hands: int):
    """The statistics of a variant's first `hands` hands (whole chunks): a temporary
    dataset of links to those chunk files, read as any dataset. A resumed search whose
    state file is gone then sees at each step what the first run saw."""
    import shutil
    import tempfile

    from mjsim.run import runner
    from mjsim.analysis import stats

    tmp = Path(tempfile.mkdtemp(prefix="mjsim-balance-"))
    try:
        for table in runner.TABLES:
            src = runner.partition(out, table, spec.variant)
            dst = runner.partition(tmp, table, spec.variant)
            dst.mkdir(parents=True)
            for start, count in runner.plan_chunks(spec):
                if start >= hands:
                    break
                f = src / runner.chunk_name(spec, start, count)
                if f.exists():
                    (dst / f.name).symlink_to(f.resolve())
        manifest = runner.read_manifest(out)
        entry = dict(manifest["variants"].get(spec.variant, {}), hands=hands)
        (tmp / "manifest.json").write_text(json.dumps({"variants": {spec.variant: entry}}))
        return stats.variant_stats(tmp, spec.variant)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _tkey(t: Target) -> str:
    return f"{t.section}:{t.name}"


def _show(x) -> str:
    if isinstance(x, float):
        return f"{x:.12g}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(map(_show, x)) + "]"
    return str(x)


def _read_state(out: Path) -> dict:
    """DIR/balance-state.json as {variant: {hands: entry}}. It is a cache of what the data
    say: an unreadable or malformed file, or part of one, is read as absent and rebuilt
    from the data."""
    try:
        state = json.loads((Path(out) / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(state, dict):
        return {}
    return {k: v for k, v in state.items() if isinstance(v, dict)}


def _write_state(out: Path, state: dict) -> None:
    from mjsim.run import runner

    runner.write_atomic(Path(out) / STATE_FILE, (json.dumps(state, indent=1, ensure_ascii=False) + "\n").encode())
