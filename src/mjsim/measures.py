"""What the statistics measure, as SQL over the dataset, and the per-session sums behind
every interval.

Every measure is a ratio of two per-hand quantities summed over hands, R = Σy / Σn:

- a rate per hand: y = 1 when it happened in the hand, n = 1 (a hand with two winners of
  one pattern counts once);
- a rate per win: y = wins of the hand that had it, n = wins of the hand;
- a mean per hand: y = the value, n = 1; a mean per win: y = the sum over the hand's wins,
  n = its number of wins; a share of money: y = money of the kind, n = all money.

Hands of one session are dependent (the dealer passes on, 上火 carries over), sessions are
independent, so every standard error is clustered by session: with Y_g, N_g the sums over
session g and G the sessions with N_g > 0,

    Var(R) = G / (G - 1) * Σ_g (Y_g - R N_g)^2 / (Σ_g N_g)^2,

which is what statsmodels' OLS of the unit values on a constant with
``cov_type="cluster"`` gives (its small-sample factor (N-1)/(N-k) is 1 for one regressor);
the tests check it against statsmodels. With one hand per session it is the ordinary
standard error of a mean. Only per-session sums leave DuckDB, never per-hand rows.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Def", "definitions", "discover", "paired_sums", "session_sums", "sql_str"]

_WANZAI_PATTERNS = (
    "pinghu", "shisanlan", "qixing_shisanlan", "quanqiuren", "daqidui", "qixiaodui",
    "haohua_qixiaodui", "shuang_haohua_qixiaodui", "san_haohua_qixiaodui", "qingyise_pinghu",
    "qingyise_daqidui", "qingyise_qixiaodui", "qingyise_haohua_qixiaodui",
    "qingyise_shuang_haohua_qixiaodui", "qingyise_san_haohua_qixiaodui",
)
WILD_CATEGORIES = ("dan_wang", "san_wang", "si_wang", "liu_wang", "qi_wang")
#: listed even when they never occurred: a zero count still has an informative upper bound
GAME_PATTERNS = {"wanzai": _WANZAI_PATTERNS, "anhua": ("yingzhuang", "pinghu")}
GAME_PROPERTIES = {
    "wanzai": _WANZAI_PATTERNS[:9] + ("qingyise",),
    "anhua": ("qingyise", "xiaoqidui", *WILD_CATEGORIES, "gangshanghua", "qiangganghu", "gangshangpao"),
}
PAY_REASONS = ("win", "kong_added", "kong_exposed", "kong_concealed", "kong_refund", "instant")
GAME_WIN_KINDS = {
    "wanzai": ("self_draw", "discard", "rob_kong"),
    "anhua": ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant"),
}


def sql_str(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


@dataclass(frozen=True)
class Def:
    """One measure: per-hand SQL for its numerator `y` and denominator `n`.

    `sq`, `lo`, `hi` (means only) give the per-hand sum of squares, minimum and maximum of
    the unit values, for the sd, min and max. `defined_by`: rules keys that define the
    measure itself (bird hits by `birds`), so a change of them is not a finding. `binary`:
    y is 0/1 per hand and n = 1, so exact tests on hand counts apply.
    """

    section: str
    name: str
    kind: str                 # "rate" or "mean"
    y: str
    n: str = "1"
    unit: str = "hands"
    sq: str | None = None
    lo: str | None = None
    hi: str | None = None
    defined_by: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def binary(self) -> bool:
        return self.kind == "rate" and self.n == "1"


def _ident(i: int, prefix: str) -> str:
    return f"{prefix}{i}"


@dataclass
class Lists:
    """The names a variant's wins use, besides the game's listed ones (built by discover)."""

    game: str
    patterns: list[str]
    kinds: list[str]
    properties: list[str]
    categories: list[str]
    has_turn: bool = False
    has_claims: bool = False
    reasons: list[str] | None = None     # payment reasons; None: no payments table
    payments: str | None = None          # SQL source of the payments table


def discover(con, wins: str, hands: str, game: str, payments: str | None = None) -> Lists:
    """The game's listed names plus every other one that occurs in `wins`."""
    def seen(sql: str) -> list[str]:
        return sorted(str(r[0]) for r in con.execute(sql).fetchall() if r[0] is not None)

    def merged(listed: Sequence[str], found: Sequence[str]) -> list[str]:
        return [*listed, *[x for x in found if x not in listed]]

    wcols = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {wins}").fetchall()}
    hcols = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {hands}").fetchall()}
    return Lists(
        game,
        merged(GAME_PATTERNS.get(game, ()), seen(f"SELECT DISTINCT pattern FROM {wins}")),
        merged(GAME_WIN_KINDS.get(game, ()), seen(f"SELECT DISTINCT win_kind FROM {wins}")),
        merged(GAME_PROPERTIES.get(game, ()), seen(f"SELECT DISTINCT unnest(properties) FROM {wins}")),
        merged(WILD_CATEGORIES if game == "anhua" else (), seen(f"SELECT DISTINCT category FROM {wins}")),
        has_turn="turn" in wcols,
        has_claims="claims_0" in hcols,
        reasons=(merged(PAY_REASONS, seen(f"SELECT DISTINCT reason FROM {payments}")) if payments else None),
        payments=payments,
    )


def union(a: Lists, b: Lists) -> Lists:
    """The names of both (payments only when both have them); sources are set per side."""
    def u(x, y):
        return [*x, *[v for v in y if v not in x]]

    reasons = u(a.reasons, b.reasons) if a.reasons is not None and b.reasons is not None else None
    return Lists(a.game, u(a.patterns, b.patterns), u(a.kinds, b.kinds), u(a.properties, b.properties),
                 u(a.categories, b.categories), a.has_turn and b.has_turn, a.has_claims and b.has_claims,
                 reasons, None)


def _money_properties(lists: Lists) -> list[tuple[int, str]]:
    """(index, property) of the properties with a `property money` share: those that are
    not also a pattern id (Wanzai's pattern families have their `pattern money`; every
    extra column of the per-hand wins aggregate costs memory, and ten more took a 400,000-
    hand Wanzai summary past its 512 MB limit)."""
    return [(i, p) for i, p in enumerate(lists.properties) if p not in lists.patterns]


def _wins_columns(lists: Lists) -> list[tuple[str, str, bool]]:
    """(alias, aggregate over a hand's wins, summable) for the per-hand wins table."""
    cols = [("nw", "count(*)", True)]
    for v, alias in (("points", "pts"), ("received", "rec"), ("birds_hit", "bh"),
                     *((("turn", "turn"),) if lists.has_turn else ())):
        cols += [(alias, f"sum({v})", True), (f"{alias}2", f"sum({v}::DOUBLE * {v})", True),
                 (f"{alias}_lo", f"min({v})", False), (f"{alias}_hi", f"max({v})", False)]
    cols.append(("bw", "count_if(birds_hit > 0)", True))
    for i, p in enumerate(lists.patterns):
        q = sql_str(p)
        cols += [(f"pat{i}", f"bool_or(pattern = {q})::INT", True),
                 (f"patn{i}", f"count_if(pattern = {q})", True),
                 (f"patp{i}", f"sum(CASE WHEN pattern = {q} THEN points ELSE 0 END)", True),
                 (f"patr{i}", f"sum(CASE WHEN pattern = {q} THEN received ELSE 0 END)", True)]
    cols += [(f"kind{i}", f"bool_or(win_kind = {sql_str(k)})::INT", True) for i, k in enumerate(lists.kinds)]
    cols += [(f"prop{i}", f"bool_or(list_contains(properties, {sql_str(p)}))::INT", True)
             for i, p in enumerate(lists.properties)]
    # the money a property's wins received (a win with several properties counts in each)
    cols += [(f"propr{i}", f"sum(CASE WHEN list_contains(properties, {sql_str(p)}) THEN received ELSE 0 END)", True)
             for i, p in _money_properties(lists)]
    cols += [(f"cat{i}", f"bool_or(category = {sql_str(c)})::INT", True) for i, c in enumerate(lists.categories)]
    for s in range(4):
        cols += [(f"won{s}", f"bool_or(winner = {s})::INT", True),
                 (f"dealt{s}", f"bool_or(discarder = {s})::INT", True)]
    return cols


_DEALER = "(CASE dealer " + " ".join(f"WHEN {s} THEN delta_{s}" for s in range(4)) + " END)"
_TOTAL = "(" + " + ".join(f"delta_{s}" for s in range(4)) + ")"


def _hand_mean(section: str, name: str, expr: str, **kw) -> Def:
    return Def(section, name, "mean", expr, sq=f"({expr})::DOUBLE * ({expr})", lo=expr, hi=expr, **kw)


def _win_mean(section: str, name: str, alias: str, **kw) -> Def:
    return Def(section, name, "mean", alias, n="nw", unit="wins", sq=f"{alias}2", lo=f"{alias}_lo",
               hi=f"{alias}_hi", **kw)


def definitions(lists: Lists, fire: bool = True) -> list[Def]:
    """Every measure of a variant, in report order."""
    L = lists
    d: list[Def] = [
        Def("outcome", "win", "rate", "(\"end\" = 'win')::INT"),
        Def("outcome", "draw", "rate", "(\"end\" = 'draw')::INT"),
        Def("outcome", "several winners", "rate", "(n_winners > 1)::INT"),
    ]
    d += [Def("win kind", k, "rate", f"kind{i}") for i, k in enumerate(L.kinds)]
    d += [Def("pattern", p, "rate", f"pat{i}") for i, p in enumerate(L.patterns)]
    d += [Def("property", p, "rate", f"prop{i}") for i, p in enumerate(L.properties)]
    if L.game == "anhua":
        d += [Def("wild category", c, "rate", f"cat{i}") for i, c in enumerate(L.categories)]
    # per pattern: what a win of it is worth and the share of all win money it carries
    d += [Def("pattern points", p, "mean", f"patp{i}", n=f"patn{i}", unit="wins") for i, p in enumerate(L.patterns)]
    d += [Def("pattern money", p, "rate", f"patr{i}", n="rec", unit="points") for i, p in enumerate(L.patterns)]
    # the same share for every property that is not a pattern id (Anhua 清一色, a wild category,
    # a 槓 context; Wanzai 清一色): properties overlap, so these shares need not add up to 1
    d += [Def("property money", p, "rate", f"propr{i}", n="rec", unit="points") for i, p in _money_properties(L)]
    d += [Def("seat", f"seat {s} wins", "rate", f"won{s}") for s in range(4)]
    d += [Def("seat", f"seat {s} deals in", "rate", f"dealt{s}") for s in range(4)]
    if L.game == "anhua":
        d += [Def("birds", "wins with a bird hit", "rate", "bw", n="nw", unit="wins", defined_by=("birds",)),
              _win_mean("birds", "birds hit per win", "bh", defined_by=("birds",))]
    for kind in ("exposed", "added", "concealed"):
        d.append(Def("kongs", f"hands with {kind} kong", "rate", f"(kongs_{kind} > 0)::INT"))
    for kind in ("exposed", "added", "concealed"):
        d.append(_hand_mean("kongs", f"{kind} kongs per hand", f"kongs_{kind}"))
    if fire:
        d += [Def("fire", f"seat {s} on fire", "rate", f"(fire_{s} > 0)::INT", defined_by=("fire",)) for s in range(4)]
    d += [_hand_mean("score", f"seat {s}", f"delta_{s}") for s in range(4)]
    d.append(_hand_mean("score", "dealer", _DEALER))
    # one quantity per hand, not three pooled non-dealer values (they are not independent)
    d.append(_hand_mean("score", "dealer − non-dealer", f"({_DEALER} - ({_TOTAL} - {_DEALER}) / 3.0)"))
    d += [_win_mean("win", "points per win", "pts"), _win_mean("win", "received per win", "rec")]
    if L.has_turn:
        d.append(_win_mean("win", "winning turn", "turn"))
    d.append(_hand_mean("hand", "live tiles drawn", "draws"))
    if L.has_claims:
        claims = "(" + " + ".join(f"claims_{s}" for s in range(4)) + ")"
        d.append(_hand_mean("hand", "claims per hand", claims))
        d += [_hand_mean("seat", f"seat {s} claims per hand", f"claims_{s}") for s in range(4)]
    if L.reasons is not None:
        d += [Def("money", r, "rate", f"payr{i}", n="pay_all", unit="points") for i, r in enumerate(L.reasons)]
    return d


def _signature(lists: Lists) -> tuple[str, str]:
    """(per-hand wins aggregate, hand expression) of how the hand was played, not scored."""
    wins_sig = ("string_agg(winner::VARCHAR || ':' || coalesce(discarder::VARCHAR, '-') || ':' || win_kind, ','"
                " ORDER BY winner)")
    # not wall_left: birds are drawn from the wall after the play is over
    parts = ["dealer", "\"end\"", "draws", "n_winners", "kongs_exposed", "kongs_added",
             "kongs_concealed", "coalesce(h.sig, '')"]
    if lists.has_claims:
        parts += [f"claims_{s}" for s in range(4)]
    return wins_sig, "concat_ws('|', " + ", ".join(f"{p}::VARCHAR" for p in parts) + ")"


def _per_hand(defs: Sequence[Def], lists: Lists, hands: str, wins: str, signature: bool = False,
              payments: str | None = None):
    """SQL of one row per hand: session, hand_index, y{i}, n{k}, q{i}, lo{i}, hi{i} (and sig);
    returns (sql, n expressions in column order)."""
    wcols = _wins_columns(lists)
    wsig, hsig = _signature(lists)
    wsel = ", ".join(f"{agg} AS {alias}" for alias, agg, _ in wcols)
    if signature:
        wsel += f", {wsig} AS sig"
    w = f"SELECT hand_index, {wsel} FROM {wins} GROUP BY hand_index"
    # hands without wins: sums are 0, minima and maxima stay NULL
    joined = ", ".join(f"coalesce(w.{a}, 0) AS {a}" if summable else f"w.{a} AS {a}" for a, _, summable in wcols)
    ns = list(dict.fromkeys(d.n for d in defs))
    cols = ["h.session", "h.hand_index"]
    for i, d in enumerate(defs):
        cols.append(f"({d.y})::DOUBLE AS y{i}")
        if d.kind == "mean" and d.sq:
            cols += [f"({d.sq})::DOUBLE AS q{i}", f"({d.lo})::DOUBLE AS lo{i}", f"({d.hi})::DOUBLE AS hi{i}"]
    cols += [f"({n})::DOUBLE AS n{k}" for k, n in enumerate(ns)]
    if signature:
        cols.append(f"{hsig} AS sig")
    pjoin, psel = "", ""
    if lists.reasons is not None and payments:
        aggs = ["sum(amount) AS pay_all"] + [f"sum(amount) FILTER (WHERE reason = {sql_str(r)}) AS payr{i}"
                                             for i, r in enumerate(lists.reasons)]
        pjoin = f" LEFT JOIN (SELECT hand_index, {', '.join(aggs)} FROM {payments} GROUP BY hand_index) p USING (hand_index)"
        psel = ", " + ", ".join(f"coalesce(p.{a}, 0) AS {a}" for a in
                                ["pay_all", *[f"payr{i}" for i in range(len(lists.reasons))]])
    sql = (f"SELECT {', '.join(cols)} FROM (SELECT h.*, {joined}{', w.sig' if signature else ''}{psel} FROM {hands} h "
           f"LEFT JOIN ({w}) w USING (hand_index){pjoin}) h")
    return sql, ns


def session_sums(con, defs: Sequence[Def], lists: Lists, hands: str, wins: str) -> dict:
    """Totals and clustered second moments of every measure of one variant.

    Returns {"hands": N, "sessions": G, "Y": [...], "N": [...], "SS": [...] (Σ_g (Y_g - R N_g)^2),
    "G": [...] (sessions with N_g > 0), "Q": [...], "lo": [...], "hi": [...]} in `defs` order.
    """
    per_hand, ns = _per_hand(defs, lists, hands, wins, payments=lists.payments)
    nidx = {n: k for k, n in enumerate(ns)}
    means = [i for i, d in enumerate(defs) if d.kind == "mean" and d.sq]
    s_cols = ["count(*) AS hands"]
    s_cols += [f"sum(y{i}) AS Y{i}" for i in range(len(defs))]
    s_cols += [f"sum(n{k}) AS N{k}" for k in range(len(ns))]
    s_cols += [f"sum(q{i}) AS Q{i}, min(lo{i}) AS L{i}, max(hi{i}) AS H{i}" for i in means]
    t_cols = [f"sum(Y{i}) / nullif(sum(N{nidx[d.n]}), 0) AS R{i}" for i, d in enumerate(defs)]
    out = ["count(*)", "sum(hands)"]
    out += [f"sum(Y{i})" for i in range(len(defs))]
    out += [f"sum(N{k})" for k in range(len(ns))]
    out += [f"count_if(N{k} > 0)" for k in range(len(ns))]
    out += [f"sum((Y{i} - coalesce(R{i}, 0) * N{nidx[d.n]}) ** 2)" for i, d in enumerate(defs)]
    out += [f"sum(Q{i}), min(L{i}), max(H{i})" for i in means]
    sql = (f"WITH s AS MATERIALIZED (SELECT session, {', '.join(s_cols)} FROM ({per_hand}) GROUP BY session), "
           f"t AS (SELECT {', '.join(t_cols)} FROM s) SELECT {', '.join(out)} FROM s, t")
    row = [0 if v is None else v for v in con.execute(sql).fetchone()]
    m, k = len(defs), len(ns)
    G, hands_n = int(row[0]), int(row[1])
    Y = row[2:2 + m]
    Nk = row[2 + m:2 + m + k]
    Gk = row[2 + m + k:2 + m + 2 * k]
    SS = row[2 + m + 2 * k:2 + 2 * m + 2 * k]
    rest = row[2 + 2 * m + 2 * k:]
    Q, lo, hi = [None] * m, [None] * m, [None] * m
    for j, i in enumerate(means):
        Q[i], lo[i], hi[i] = rest[3 * j], rest[3 * j + 1], rest[3 * j + 2]
    return {"sessions": G, "hands": hands_n, "Y": [float(y) for y in Y],
            "N": [float(Nk[nidx[d.n]]) for d in defs], "G": [int(Gk[nidx[d.n]]) for d in defs],
            "SS": [float(x) for x in SS], "Q": Q, "lo": lo, "hi": hi}


def paired_sums(con, defs: Sequence[Def], lists: Lists, a: tuple, b: tuple) -> dict:
    """Per measure, the totals of both variants and the clustered second moment of the
    paired difference of the two ratios, over hands matched by hand_index.

    Returns {"hands", "sessions", "identical" (hands played identically), "Ya", "Na", "Yb",
    "Nb", "SS" (Σ_g u_g^2 with u_g = (Yb_g - Rb Nb_g)/ΣNb - (Ya_g - Ra Na_g)/ΣNa),
    "G" (sessions where either side has N_g > 0), "up", "down" (binary rates: hands with
    the event only in b, only in a)}.
    """
    pa_sql, ns = _per_hand(defs, lists, a[0], a[1], signature=True, payments=a[2] if len(a) > 2 else None)
    pb_sql, _ = _per_hand(defs, lists, b[0], b[1], signature=True, payments=b[2] if len(b) > 2 else None)
    nidx = {n: k for k, n in enumerate(ns)}
    m, k = len(defs), len(ns)
    binary = [i for i, d in enumerate(defs) if d.binary]
    j_cols = ["A.session AS session", "(A.sig = B.sig)::INT AS same"]
    j_cols += [f"A.y{i} AS ay{i}, B.y{i} AS by{i}" for i in range(m)]
    j_cols += [f"A.n{c} AS an{c}, B.n{c} AS bn{c}" for c in range(k)]
    s_cols = ["count(*) AS hands", "sum(same) AS same"]
    s_cols += [f"sum(ay{i}) AS AY{i}, sum(by{i}) AS BY{i}" for i in range(m)]
    s_cols += [f"sum(an{c}) AS AN{c}, sum(bn{c}) AS BN{c}" for c in range(k)]
    s_cols += [f"count_if(by{i} > ay{i}) AS UP{i}, count_if(by{i} < ay{i}) AS DN{i}" for i in binary]
    t_cols = [f"sum(AN{c}) AS SA{c}, sum(BN{c}) AS SB{c}" for c in range(k)]
    t_cols += [f"sum(AY{i}) / nullif(sum(AN{nidx[d.n]}), 0) AS RA{i}, sum(BY{i}) / nullif(sum(BN{nidx[d.n]}), 0) AS RB{i}"
               for i, d in enumerate(defs)]
    out = ["count(*)", "sum(hands)", "sum(same)"]
    out += [f"sum(AY{i}), sum(BY{i})" for i in range(m)]
    out += [f"sum(AN{c}), sum(BN{c}), count_if(AN{c} > 0 OR BN{c} > 0)" for c in range(k)]
    for i, d in enumerate(defs):
        c = nidx[d.n]
        ub = f"coalesce((BY{i} - coalesce(RB{i}, 0) * BN{c}) / nullif(SB{c}, 0), 0)"
        ua = f"coalesce((AY{i} - coalesce(RA{i}, 0) * AN{c}) / nullif(SA{c}, 0), 0)"
        out.append(f"sum(({ub} - {ua}) ** 2)")
    out += [f"sum(UP{i}), sum(DN{i})" for i in binary]
    sql = (f"WITH A AS ({pa_sql}), B AS ({pb_sql}), "
           f"J AS (SELECT {', '.join(j_cols)} FROM A JOIN B USING (hand_index)), "
           f"s AS MATERIALIZED (SELECT session, {', '.join(s_cols)} FROM J GROUP BY session), "
           f"t AS (SELECT {', '.join(t_cols)} FROM s) SELECT {', '.join(out)} FROM s, t")
    row = [0 if v is None else v for v in con.execute(sql).fetchone()]
    G, hands_n, same = int(row[0]), int(row[1]), int(row[2])
    pos = 3
    Ya, Yb = [], []
    for _ in range(m):
        Ya.append(float(row[pos]))
        Yb.append(float(row[pos + 1]))
        pos += 2
    NA, NB, GK = [], [], []
    for _ in range(k):
        NA.append(float(row[pos]))
        NB.append(float(row[pos + 1]))
        GK.append(int(row[pos + 2]))
        pos += 3
    SS = [float(x) for x in row[pos:pos + m]]
    pos += m
    up, down = [None] * m, [None] * m
    for i in binary:
        up[i], down[i] = int(row[pos]), int(row[pos + 1])
        pos += 2
    return {"sessions": G, "hands": hands_n, "identical": same, "Ya": Ya, "Yb": Yb,
            "Na": [NA[nidx[d.n]] for d in defs], "Nb": [NB[nidx[d.n]] for d in defs],
            "G": [GK[nidx[d.n]] for d in defs], "SS": SS, "up": up, "down": down}
