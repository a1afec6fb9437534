"""A played hand, told for a person: one event per line and the scoring explained.

`describe(record, rules)` turns a `mjsim.game.HandRecord` into text lines; `mjsim replay`
prints them.  Payments are explained from the rule parameters the native loop applied
(RULES §1 Units, §2.3-2.5: value × base × 2^(fire of payer + fire of receiver) × dealer
doubling + (piao of payer + piao of receiver) × base; kong values × base likewise), and the
session's first dealer with how it was chosen (RULES §1 Sessions).
"""
from __future__ import annotations

from mjsim.rulesets.rules import Rules
from mjsim.tiles import format_tiles, parse_tiles

SEAT_NAMES = ("seat 0", "seat 1", "seat 2", "seat 3")


def _tiles(text: str | None, chinese: bool) -> str:
    if not text:
        return "-"
    return format_tiles(parse_tiles(text), chinese=chinese, sort=False) if chinese else text


def _meld(text: str, chinese: bool) -> str:
    """A record's meld, "pung:111p", with its tiles as --chinese shows every other tile."""
    kind, _, tiles = text.partition(":")
    return f"{kind}:{_tiles(tiles, chinese)}"


def _event_line(e, chinese: bool) -> str:
    t = _tiles(e.tile, chinese) if e.tile else ""
    who = f"seat {e.seat}" if e.seat is not None else ""
    if e.kind == "draw":
        return f"{who} draws {t}" + (" (replacement from the tail)" if e.replacement else "")
    if e.kind == "discard":
        return f"{who} discards {t}"
    if e.kind == "pung":
        return f"{who} pungs {t} from seat {e.from_seat}"
    if e.kind == "chow":
        return f"{who} chows {t} from seat {e.from_seat} with {_tiles(e.tiles, chinese)}"
    if e.kind == "kong":
        src = f" from seat {e.from_seat}" if e.from_seat is not None else ""
        return f"{who} declares a {e.kong} kong of {t}{src}"
    if e.kind == "robbed":
        return f"{who}'s added kong of {t} is robbed"
    if e.kind == "win":
        src = "self-draw" if e.from_seat is None else f"on seat {e.from_seat}'s tile"
        return f"{who} WINS with {t} ({src}), {e.points} per payer"
    if e.kind == "payment":
        if e.reason == "kong_refund":
            return f"{who} returns {e.amount} to seat {e.to_seat} (kong_refund: the hand is a draw)"
        return f"{who} pays seat {e.to_seat} {e.amount} ({e.reason})"
    if e.kind == "pass_win":
        return f"{who} passes a win on {t}"
    if e.kind == "exhausted":
        return "no live tile left: the hand is a draw (荒莊)"
    if e.kind == "indicator":
        return f"{t} is turned up and set aside"
    if e.kind == "instant":
        return f"{who} holds {e.category}: " + ("declares the special start" if e.declared else "passes the special start")
    if e.kind == "buzhang":
        return f"{who} takes 補章 tiles {_tiles(e.tiles, chinese)}"
    if e.kind == "locked":
        return f"{who}'s hand is locked (discards what it draws)"
    if e.kind == "bird":
        return f"bird {t} points at seat {e.to_seat}"
    return str(e)


def _anhua_explanation(win, e) -> str:
    """Anhua: the score's named factors times this payer's bird factor (RULES §3.2, §3.5)."""
    factor = next((f for q, a, f in win.payments if q == e.seat and a == e.amount), None)
    if factor is None:
        return ""
    parts = [f"{n} {v}" for n, v in win.factors if n != "bird"]
    if factor > 1:
        parts.append(f"bird {factor}")
    text = " × ".join(parts)
    return f"{text} = {e.amount}" + (f" (capped at {win.capped})" if win.capped and e.amount == win.capped else "")


def _multipliers(rules: Rules, record, p: int, r: int, value: int, parts: list[str]) -> int:
    """Fire and dealer doubling of a Wanzai payment from p to r (RULES §2.5)."""
    fire = record.fire[p] + record.fire[r]
    value <<= fire
    if fire:
        parts.append(f"× fire 2^{fire}")
    if rules["dealer_pays_double"] and p == record.dealer:
        value *= 2
        parts.append("× dealer 2")
    return value


def _kong_explanation(rules: Rules, record, e) -> str:
    """Why a Wanzai kong payment has its amount: kong value × base × fire × dealer (§2.4)."""
    if not rules.traits.kong_payments:
        return ""
    kind = e.reason.removeprefix("kong_")
    value = rules["kong_values"][kind]
    parts = [f"{kind} kong {value}"]
    base = rules["base"]
    if base != 1:
        parts.append(f"× base {base}")
    value = _multipliers(rules, record, e.seat, e.to_seat, value * base, parts)
    explained = " ".join(parts) + f" = {value}"
    return explained if value == e.amount else f"{explained} (paid {e.amount})"


def _payment_explanation(rules: Rules, record, e, share_of: int | None = None) -> str:
    """Why a win payment from seat e.seat to seat e.to_seat has its amount. `share_of`: the
    seat whose share of a self-drawn score this is, when another seat pays it (the robbed
    player pays all three shares of a robbed kong, each with that share's payer's fire,
    piao and dealer factor: RULES §2.5)."""
    win = next((w for w in record.wins if w.winner == e.to_seat), None)
    if win is None:
        return ""
    if not rules.traits.pattern_values:
        return _anhua_explanation(win, e)
    p, r = (e.seat if share_of is None else share_of), e.to_seat
    base = rules["base"]
    parts = [f"seat {p}'s share:"] if share_of is not None else []
    parts.append(f"{win.pattern} {win.points // base}" + (f" × base {base}" if base != 1 else ""))
    value = _multipliers(rules, record, p, r, win.points, parts)
    piao = rules["piao"][p] + rules["piao"][r]
    if piao:
        value += piao * base
        parts.append(f"+ piao ({rules['piao'][p]}+{rules['piao'][r]})" + (f" × base {base}" if base != 1 else ""))
    explained = " ".join(parts) + f" = {value}"
    return explained if value == e.amount else f"{explained} (paid {e.amount})"


def _pays_every_share(rules: Rules, record, e) -> bool:
    """A Wanzai robbed-kong win whose robbed player pays all three shares (rob_kong_pays =
    "all"): the native loop pays them in seat order from the winner's left."""
    if not rules.traits.pattern_values or rules.get("rob_kong_pays") != "all":
        return False
    return any(w.winner == e.to_seat and w.kind == "rob_kong" for w in record.wins)


def _first_dealer_line(record, rules: Rules) -> str:
    """Who dealt the session's first hand and how it was chosen (RULES §1 first_dealer)."""
    first = getattr(record, "first_dealer", 0)
    rule = rules.get("first_dealer", 0)
    how = ("drawn from the session's seed (first_dealer = \"random\")" if rule == "random"
           else f"fixed (first_dealer = {rule})")
    k = record.hand_index % record.session_hands
    where = "this hand" if k == 0 else f"hand {record.hand_index - k}"
    return f"session's first dealer ({where}): seat {first}, {how}"


def describe(record, rules: Rules, chinese: bool = False) -> list[str]:
    """The whole hand as text lines."""
    lines = [
        f"{rules.game} hand {record.hand_index} (rules {rules.variant}, session of {record.session_hands})",
        f"dealer seat {record.dealer}; dice {record.dice[0]}+{record.dice[1]} = {sum(record.dice)}",
        _first_dealer_line(record, rules),
    ]
    fire = getattr(record, "fire", None)
    if fire and any(fire):
        lines.append("on fire: " + ", ".join(f"seat {s}" for s in range(4) if fire[s]))
    indicator = getattr(record, "wild_indicator", None)
    if indicator:
        wilds = " ".join(_tiles(w, chinese) for w in record.wilds)
        lines.append(f"turned-up tile {_tiles(indicator, chinese)}; wilds: the other {_tiles(indicator, chinese)} and {wilds.split()[-1]}")
    lines.append("opening hands:")
    for s, hand in enumerate(record.opening):
        lines.append(f"  seat {s}{' (dealer)' if s == record.dealer else ''}: {_tiles(hand, chinese)}")
    lines.append("events:")
    if not record.events:
        lines.append("  (not logged)")
    shares_paid = dict.fromkeys(range(4), 0)     # robbed-kong shares paid to each winner so far
    for i, e in enumerate(record.events, 1):
        line = _event_line(e, chinese)
        if e.kind == "payment" and e.reason in ("win", "kong_added", "kong_exposed", "kong_concealed"):
            share_of = None
            if e.reason == "win" and _pays_every_share(rules, record, e):
                shares_paid[e.to_seat] += 1
                share_of = (e.to_seat + shares_paid[e.to_seat]) & 3    # shares in seat order after the winner
            why = _payment_explanation(rules, record, e, share_of) if e.reason == "win" else \
                _kong_explanation(rules, record, e)
            if why:
                line += f"   [{why}]"
        lines.append(f"  {i:3d}  {line}")
    lines.append("final hands:")
    for s in range(4):
        melds = "  ".join(_meld(m, chinese) for m in record.melds[s])
        lines.append(f"  seat {s}: {_tiles(record.final[s], chinese)}" + (f"   melds {melds}" if melds else ""))
    for w in record.wins:
        # the score before birds; each payment line above shows its own bird factor
        named = [f"{n} {v}" for n, v in w.factors if n != "bird"] or [f"{w.pattern} {w.points}"]
        props = ", ".join(sorted(w.properties))
        birds = f"; birds point at seats {', '.join(map(str, w.bird_seats))}" if w.bird_seats else ""
        lines.append(f"win: seat {w.winner} {w.kind} ({props}): {' × '.join(named)} = {w.points} per payer"
                     f"{birds}; received {w.received}")
    lines.append(f"result: {record.end}; score " + " ".join(f"{d:+d}" for d in record.deltas))
    lines.append(f"next dealer: seat {record.next_dealer}")
    return lines
