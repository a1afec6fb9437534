# Hand evaluation for both rule sets: win detection, pattern and score, shanten, waits.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t, int8_t, uint64_t
from mjsim.core._tables cimport Tables, MaskEntry

cdef enum:
    GAME_WANZAI = 0
    GAME_ANHUA = 1

# Scored pattern ids; PATTERNS in _core.pyx lists their names in this order.
cdef enum:
    P_NONE = -1
    P_PINGHU = 0
    P_SHISANLAN = 1
    P_QIXING_SHISANLAN = 2
    P_QUANQIUREN = 3
    P_DAQIDUI = 4
    P_QIXIAODUI = 5
    P_HAOHUA = 6
    P_SHUANG_HAOHUA = 7
    P_SAN_HAOHUA = 8
    P_QYS_PINGHU = 9
    P_QYS_DAQIDUI = 10
    P_QYS_QIXIAODUI = 11
    P_QYS_HAOHUA = 12
    P_QYS_SHUANG_HAOHUA = 13
    P_QYS_SAN_HAOHUA = 14
    P_YINGZHUANG = 15
    N_WANZAI_VALUES = 15
    N_PATTERNS = 16

# Property bits; bits 0..8 are the Wanzai base ids above (PROPERTIES in _core.pyx).
cdef enum:
    PR_QINGYISE = 9
    PR_XIAOQIDUI = 10
    PR_CATEGORY0 = 10        # PR_CATEGORY0 + category: 11 dan_wang .. 15 qi_wang
    PR_CONTEXT0 = 15         # PR_CONTEXT0 + context: 16 gangshanghua .. 18 gangshangpao
    N_PROPERTIES = 19

cdef enum:
    CTX_NONE = 0
    CTX_GANGSHANGHUA = 1
    CTX_QIANGGANGHU = 2
    CTX_GANGSHANGPAO = 3

# discard_win_wilds (Anhua RULES §3.3): which hands holding wilds may win on a plain discard
cdef enum:
    DISCARD_WILDS_NONE = 0           # no wild tile in hand
    DISCARD_WILDS_DAN = 1            # no wild or 單王, complete at face value (default)
    DISCARD_WILDS_FACE = 2           # any wilds, complete at face value

cdef enum:
    CAT_NONE = 0
    CAT_DAN = 1
    CAT_SAN = 2
    CAT_SI = 3
    CAT_LIU = 4
    CAT_QI = 5

ctypedef struct EvalConfig:
    int game
    int base
    int values[N_WANZAI_VALUES][2]   # Wanzai [discard, self]
    int quanqiuren_self              # Wanzai: 1 = a self-drawn 全求人 scores as quanqiuren (house variant)
    int discard_wilds                # Anhua: DISCARD_WILDS_*
    int pair_258                     # Anhua
    int hard_if_natural
    int score_cap
    int m_hard                       # 硬莊
    int m_soft                       # 平胡
    int m_cat[6]                     # by category (index 0 unused)
    int m_qingyise
    int m_xiaoqidui
    int m_ctx[4]                     # by context (index 0 unused)

# What the evaluator needs to know about the declared melds.
ctypedef struct MeldInfo:
    int n
    int has_chow
    int has_concealed_kong
    int suit_mask                    # bit s: a meld in suit s (0..2); bit 3: honors
    uint8_t counts[34]               # tiles sitting in the melds (kongs count 4)

ctypedef struct EvalResult:
    int win
    int pattern
    uint32_t props
    int points
    int category
    int hard                         # Anhua: scored as 硬莊

cdef int category_of(int a, int b) noexcept nogil
cdef bint discard_category_ok(const EvalConfig* cfg, int cat) noexcept nogil
cdef int wild_kinds(int indicator, int* a_kind, int* b_kind) noexcept nogil
cdef void evaluate(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi, int win_tile,
                   bint self_draw, int indicator, int context, EvalResult* out) noexcept nogil
cdef bint is_complete(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                      int indicator) noexcept nogil
cdef int shanten(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                 int indicator) noexcept nogil
cdef int shanten_neighbours(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                            int indicator, int sign, int8_t* out) noexcept nogil
cdef int waits(const EvalConfig* cfg, uint8_t* c, const MeldInfo* mi, int indicator,
               uint8_t* out) noexcept nogil
# per-form pieces of shanten_neighbours, for players that value each hand form apart (_ev.pyx)
cdef int _std_neighbours(const Tables* T, const uint8_t* c, int n_groups, int melds, int pt,
                         int sign, int* out) noexcept nogil
cdef void _pairs_neighbours(const uint8_t* c, int n_kinds, int sign, int* out) noexcept nogil
cdef void _lan_neighbours(const Tables* T, const uint8_t* c, int sign, int* out) noexcept nogil

# ---------------------------------------------------------------- one pass with the tables' masks
# The standard form of one pair column: each group's entry, the other groups' combined rows
# and which of the group's targets (bit 2m+q: m melds, q = holds the pair) reach the hand's
# distance D in some split; unn = kinds (34-bit) whose discard keeps D.
ctypedef struct StdScan:
    int pt
    int D
    int32_t idx[4]
    const MaskEntry* e[4]
    uint8_t rows[4][16]
    uint8_t rest[4][16]
    uint8_t prod[2][16]
    int opt[4]
    uint16_t rn_done[4]
    uint64_t rn[4][10]
    uint16_t pn_done[2]
    uint64_t pn[2][10]
    int nec_done
    uint64_t nec_all
    uint64_t keep
    uint64_t unn

# discard_scan's result: enough to answer, for each discard that keeps the shanten, which
# draws would then lower it (discard_useful), without another pass over the groups.
ctypedef struct DiscardScan:
    int n_groups
    int melds
    int D
    int J
    int ak
    int bk
    int n_std
    StdScan std[2]
    int d_pairs
    int d_lan
    uint64_t odd
    uint64_t unn_pairs
    uint64_t unn_lan
    uint64_t unn
    uint32_t form[4]

cdef int discard_scan(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi, int indicator,
                      DiscardScan* s, int8_t* out) noexcept nogil
cdef uint64_t discard_useful(DiscardScan* s, const uint8_t* c, int k) noexcept nogil
cdef uint64_t useful_mask(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                          int indicator, int* sh) noexcept nogil

# discard_scan returns SCAN_FALLBACK, useful_mask a mask with bit MASK_FALLBACK_BIT, for a
# hand they do not cover: the caller then asks shanten_neighbours
cdef enum:
    SCAN_FALLBACK = -2
    MASK_FALLBACK_BIT = 63
