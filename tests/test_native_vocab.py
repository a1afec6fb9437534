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
