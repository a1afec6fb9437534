"""Every code <-> name table of mjsim.vocab agrees with the native enums it names
(core/_state.pxd, _eval.pxd, _wall.pxd), name by name."""
import pytest

from mjsim import vocab
from mjsim.core import _testing


@pytest.mark.parametrize("table", sorted(_testing.NATIVE_NAMES))
def test_vocab_table_matches_the_native_codes(table):
    names = getattr(vocab, table)
    native = _testing.NATIVE_NAMES[table]
    assert set(names) == set(native), table
    for name, code in native.items():
        assert names.index(name) == code, (table, name)


def test_every_vocab_table_is_tied():
    tables = {k for k, v in vars(vocab).items() if k.isupper() and isinstance(v, tuple)}
    assert tables <= set(_testing.NATIVE_NAMES), tables - set(_testing.NATIVE_NAMES)


def test_python_players_come_after_the_builtins():
    assert _testing.PLAYER_PYTHON == len(vocab.PLAYERS)


def test_the_player_option_row_has_the_native_length():
    from mjsim.players import ev, search

    assert ev.N_PLAYER_OPTS == search.N_PLAYER_OPTS == _testing.N_PLAYER_OPTS


@pytest.mark.parametrize("player", ["ev", "search"])
def test_the_python_option_layout_is_the_native_one(player):
    import importlib
    import re

    module = importlib.import_module(f"mjsim.players.{player}")
    native = _testing.PLAYER_OPTION_SLOTS[player]
    for name, slot in native.items():
        assert getattr(module, name) == slot, (player, name)
    # every slot the Python module lays out is one the native code declares
    python_slots = {n for n in vars(module) if re.fullmatch(r"OPT_[A-Z0-9_]+", n)}
    if player == "search":
        python_slots = {n for n in python_slots if n.startswith("OPT_S_")}
    assert python_slots <= set(native), python_slots - set(native)
