# Small inline views of a seat's hand shared by the hand loop (_loop.pyx) and the players
# (_ev.pyx): visible copies, shanten with the hand's wilds, wild categories, and what a
# claim does to a hand.
from libc.stdint cimport uint8_t
from mjsim.core cimport _eval
from mjsim.core._eval cimport MeldInfo
from mjsim.core._state cimport HandState, SeatState, Call, CALL_KONG, CALL_PUNG


cdef inline int suit_bit(int k) noexcept nogil:
    return 1 << (k // 9 if k < 27 else 3)


cdef inline int available(const HandState* st, const SeatState* p, int k) noexcept nogil:
    """Copies of k a seat cannot see: not in its hand, its concealed kongs or on the table."""
    cdef int v = 4 - p.hand[k] - p.hidden[k] - st.seen[k]
    return v if v > 0 else 0


cdef inline int hand_shanten(const HandState* st, const uint8_t* hand,
                             const MeldInfo* mi) noexcept nogil:
    """Shanten with the hand's wilds as wilds (Anhua) -- -1 complete, 0 tenpai."""
    return _eval.shanten(&st.cfg.ev, hand, mi, st.indicator)


cdef inline bint is_anhua(const HandState* st) noexcept nogil:
    return st.cfg.game == _eval.GAME_ANHUA


cdef inline bint is_wild(const HandState* st, int k) noexcept nogil:
    return k >= 0 and (k == st.wild_a or k == st.wild_b)


cdef inline int hand_category(const HandState* st, const uint8_t* hand) noexcept nogil:
    """Wild category of the wilds in a concealed hand (RULES §3.1)."""
    if st.wild_a < 0:
        return _eval.CAT_NONE
    return _eval.category_of(hand[st.wild_a], hand[st.wild_b])


cdef inline void meld_after_call(const SeatState* p, int tile, const Call* c,
                                 MeldInfo* mi) noexcept nogil:
    """The MeldInfo seat p would have after the call (the hand is changed by the caller)."""
    mi[0] = p.mi
    mi.n += 1
    mi.suit_mask |= suit_bit(tile)
    mi.counts[tile] += 1
    if c.type == CALL_KONG:
        mi.counts[tile] += 3
    elif c.type == CALL_PUNG:
        mi.counts[tile] += 2
    else:
        mi.has_chow = 1
        mi.suit_mask |= suit_bit(c.a)
        mi.counts[c.a] += 1
        mi.counts[c.b] += 1


cdef inline void take_call_tiles(uint8_t* hand, int tile, const Call* c, int sign) noexcept nogil:
    """Remove (sign -1) or put back (+1) the tiles a call takes from the hand."""
    if c.type == CALL_KONG:
        hand[tile] += 3 * sign
    elif c.type == CALL_PUNG:
        hand[tile] += 2 * sign
    else:
        hand[c.a] += sign
        hand[c.b] += sign


cdef inline int meld_after_own_kong(const SeatState* p, int k, bint concealed,
                                    MeldInfo* mi) noexcept nogil:
    """The MeldInfo seat p would have after an own-turn kong of kind k (concealed: four
    from the hand; added: the fourth onto its pung); returns how many tiles leave the
    concealed hand (the caller takes them out and puts them back)."""
    mi[0] = p.mi
    mi.counts[k] += 1
    if not concealed:
        return 1
    mi.n += 1
    mi.has_concealed_kong = 1
    mi.counts[k] += 3
    mi.suit_mask |= suit_bit(k)
    return 4
