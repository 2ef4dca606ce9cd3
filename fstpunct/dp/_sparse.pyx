# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled helpers of :mod:`fstpunct.fst.lattice`, :mod:`fstpunct.dp.stacks` and
:mod:`fstpunct.dp.sparse`: products of a slot lattice's token matrices along token strings, the
max-times Kleene star of a lattice (its backoff closure), transposes of stacked CSR matrices
(as permutations of their entries), CSR × vector and CSR × dense products (either side), dense
transposed lines × vector (:func:`dense_lines`, the tree DP's dense way along a matrix), a
lattice's parallel arcs combined (:func:`combine_arcs`), stacked rows of two CSR stacks and
their transposes concatenated (:func:`concat_rows`, :func:`concat_transposes`), and
the E-step's gradient of log Z at a slot's arcs
(:func:`edit_gradients`, for :class:`fstpunct.fst.lattice.EditCounter`).

:func:`string_products` computes what the level-by-level numpy formulation computed (row r of
M(t·s) is the ⊕ over the arcs r → r′ of token t of weight · row r′ of M(s)), entry by entry with
the same products added up as ``np.add.reduceat`` adds them (in order of ascending r′: the first,
plus numpy's pairwise sum of the others, which is a plain sum below 8 terms), so values are
bitwise the same in both semirings; each row's columns come out ascending. It weights the arcs of
one lattice in several semirings at once (sum and max: the same nonzeros, other values), each
entry holding one value per weighting.

:func:`exponentials` is the M-step's exponential (:c:func:`fstp_exp`, for ``_exp_terms(...,
libm=False)``): exp(x) for x ≤ 0 by IEEE additions, multiplications and one division only
(fdlibm's reduction and rational approximation, error < 1 ulp; no table, no fused multiply-add),
so it gives the same bits on every machine, and loops over it vectorise (2 doubles wide with
SSE2 or NEON, 4 with AVX2, chosen at run time: the same operations element by element, so the
same bits). It is within 1 ulp of libm's. The Attach softmax rows use it for decode's analysis
and libm's elsewhere (``libm``: :func:`fstpunct.model.attach.probabilities` says how far apart
the two are, :func:`fstpunct.apps.decode.inference_of` which paths take which).
"""
from libc.math cimport exp
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy as np


ctypedef fused Index:  # row pointers: intp, or int32 (a stack's rows)
    int
    Py_ssize_t

MAX_STATES = STATES  # (the C constant for Python: dp.stacks.STATES)


cpdef int check_states(Py_ssize_t n, str what) except -1:
    """Refuse (ValueError, naming ``what``) n states above :data:`STATES`: stacks, lattices'
    arcs and token chains hold states as :data:`State` (uint16) indices."""
    if n > STATES:
        raise ValueError(f"{what}: {n} states; at most {STATES} (uint16 state indices)")
    return 0


ctypedef fused Column:  # column indices: int32, or a stack's states (State: uint16)
    int
    State


cdef struct Rows:
    # A growable CSR: ptr has one entry per row + 1; `width` values per entry (val[f·width + k]).
    Py_ssize_t* ptr
    State* col
    double* val
    Py_ssize_t n_rows, nnz, cap_rows, cap, width


cdef int _start(Rows* m, Py_ssize_t width) except -1:
    m.cap_rows, m.n_rows, m.nnz, m.cap, m.width = 64, 0, 0, 0, width
    m.ptr = <Py_ssize_t*> _grow(NULL, m.cap_rows * sizeof(Py_ssize_t))
    m.ptr[0] = 0
    return 0


cdef inline int _push_row(Rows* m) except -1:
    if m.n_rows + 2 > m.cap_rows:
        m.cap_rows = 2 * m.cap_rows + 64
        m.ptr = <Py_ssize_t*> _grow(m.ptr, m.cap_rows * sizeof(Py_ssize_t))
    m.n_rows += 1
    m.ptr[m.n_rows] = m.nnz
    return 0


cdef inline int _reserve(Rows* m, Py_ssize_t extra) except -1:
    if m.nnz + extra > m.cap:
        m.cap = 2 * (m.nnz + extra) + 64
        m.col = <State*> _grow(m.col, m.cap * sizeof(State))
        m.val = <double*> _grow(m.val, m.cap * m.width * sizeof(double))
    return 0


cdef void* _grow(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef void _free(Rows* m) noexcept:
    free(m.ptr)
    free(m.col)
    free(m.val)


cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """numpy's pairwise summation of a[0:n] (what ``np.add.reduceat`` adds to a segment's first
    element, and ``sum`` along a contiguous row adds to 0), so that sums are bitwise numpy's."""
    cdef double res
    cdef double r[8]
    cdef Py_ssize_t i, j, half
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for j in range(8):
            r[j] = a[j]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += a[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise_sum(a, half) + _pairwise_sum(a + half, n - half)


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* GCC keeps a select of doubles (the clamp below) out of vectorised loops unless
       floating-point operations may not trap: allowed here (it changes no value). */
    #if defined(__GNUC__) && !defined(__clang__)
    #define FSTP_NO_TRAPS __attribute__((optimize("no-trapping-math")))
    #else
    #define FSTP_NO_TRAPS
    #endif

    /* exp(x) for x <= 0 (exp(-inf) = 0, NaN stays NaN): x = k ln 2 + r, |r| <= ln 2 / 2
       (k * ln2_hi exact), exp(r) by fdlibm's rational approximation with the lost low part of
       r put back (error < 1 ulp), times 2^k as 2^k1 * 2^k2 (k1 = floor(k / 2)), both normal:
       the first product exact, the second rounded once, also to a subnormal. */
    static inline FSTP_NO_TRAPS double fstp_exp(double x) {
        const double shift = 6755399441055744.0;           /* 1.5 * 2^52: x + shift - shift
                                                              rounds x to an integer */
        const double log2e = 1.44269504088896338700e+00;
        const double ln2_hi = 6.93147180369123816490e-01;  /* 32 significant bits */
        const double ln2_lo = 1.90821492927058770002e-10;
        const double p1 = 1.66666666666666019037e-01, p2 = -2.77777777770155933842e-03,
                     p3 = 6.61375632143793436117e-05, p4 = -1.65339022054652515390e-06,
                     p5 = 4.13813679705723846039e-08;
        double k, k1, hi, lo, r, t, c, y, a, b, u;
        uint64_t bits;
        x = x < -746.0 ? -746.0 : x;                       /* below, exp rounds to 0 */
        k = (x * log2e + shift) - shift;
        hi = x - k * ln2_hi;
        lo = k * ln2_lo;
        r = hi - lo;
        t = r * r;
        c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))));
        y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
        k1 = (k * 0.5 - 0.25 + shift) - shift;             /* floor(k / 2), k >= -1076 */
        u = k1 + shift;                                    /* k1 in the low bits */
        memcpy(&bits, &u, 8);
        bits = (bits + 1023) << 52;                        /* 2^k1 */
        memcpy(&a, &bits, 8);
        u = (k - k1) + shift;
        memcpy(&bits, &u, 8);
        bits = (bits + 1023) << 52;                        /* 2^(k - k1) */
        memcpy(&b, &bits, 8);
        return y * a * b;
    }

    static FSTP_NO_TRAPS void fstp_exp_portable(const double* s, double* p, Py_ssize_t n,
                                                double top) {
        for (Py_ssize_t k = 0; k < n; k++) p[k] = fstp_exp(s[k] - top);
    }

    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    static FSTP_NO_TRAPS __attribute__((target("avx2"))) void fstp_exp_avx2(
            const double* s, double* p, Py_ssize_t n, double top) {
        for (Py_ssize_t k = 0; k < n; k++) p[k] = fstp_exp(s[k] - top);
    }
    static int fstp_has_avx2(void) { return __builtin_cpu_supports("avx2") != 0; }
    #else
    static void fstp_exp_avx2(const double* s, double* p, Py_ssize_t n, double top) {
        fstp_exp_portable(s, p, n, top);
    }
    static int fstp_has_avx2(void) { return 0; }
    #endif

    /* One Floyd-Warshall step on one row in the max-times semiring: line[j] = max(line[j],
       c * row[j]) for j in [lo, hi), element by element (maxpd: the same value, line[j] kept
       on ties). The AVX2 build does four at a time where the scalar build does two. */
    static void fstp_fw_row_portable(double* line, const double* row, double c,
                                     Py_ssize_t lo, Py_ssize_t hi) {
        for (Py_ssize_t j = lo; j < hi; j++) {
            double p = c * row[j];
            line[j] = p > line[j] ? p : line[j];
        }
    }

    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    static __attribute__((target("avx2"))) void fstp_fw_row_avx2(
            double* line, const double* row, double c, Py_ssize_t lo, Py_ssize_t hi) {
        for (Py_ssize_t j = lo; j < hi; j++) {
            double p = c * row[j];
            line[j] = p > line[j] ? p : line[j];
        }
    }
    #else
    static void fstp_fw_row_avx2(double* line, const double* row, double c, Py_ssize_t lo,
                                 Py_ssize_t hi) {
        fstp_fw_row_portable(line, row, c, lo, hi);
    }
    #endif

    /* out[r] = (+) over the columns c = cols[0], cols[1], ... (ascending) of t[c * n + r] (x)
       x[c], for r in [0, n), in the real semiring or (mx) the max-product one (maxpd: the first
       kept on ties): each out[r]'s terms taken in the columns' order, one rounding each (no
       contraction), four columns per pass over out. The AVX2 build does four r at a time
       where the portable one does two. */
    #define FSTP_DENSE_LINES(NAME, ATTR)                                                      \
    static ATTR void NAME(const double* t, const double* x, const Py_ssize_t* cols,          \
                          Py_ssize_t m, Py_ssize_t n, double* out, int mx) {                 \
        Py_ssize_t k = 0, r;                                                                  \
        for (r = 0; r < n; r++) out[r] = 0.0;                                                 \
        for (; k + 4 <= m; k += 4) {                                                          \
            const double *t0 = t + cols[k] * n, *t1 = t + cols[k + 1] * n,                   \
                         *t2 = t + cols[k + 2] * n, *t3 = t + cols[k + 3] * n;               \
            double x0 = x[cols[k]], x1 = x[cols[k + 1]], x2 = x[cols[k + 2]],                \
                   x3 = x[cols[k + 3]];                                                       \
            if (mx) {                                                                         \
                for (r = 0; r < n; r++) {                                                     \
                    double a = out[r], p;                                                     \
                    p = t0[r] * x0; a = p > a ? p : a;                                        \
                    p = t1[r] * x1; a = p > a ? p : a;                                        \
                    p = t2[r] * x2; a = p > a ? p : a;                                        \
                    p = t3[r] * x3; a = p > a ? p : a;                                        \
                    out[r] = a;                                                               \
                }                                                                             \
            } else {                                                                          \
                for (r = 0; r < n; r++)                                                       \
                    out[r] = (((out[r] + t0[r] * x0) + t1[r] * x1) + t2[r] * x2)             \
                             + t3[r] * x3;                                                    \
            }                                                                                 \
        }                                                                                     \
        for (; k < m; k++) {                                                                  \
            const double* t0 = t + cols[k] * n;                                               \
            double x0 = x[cols[k]];                                                           \
            if (mx) {                                                                         \
                for (r = 0; r < n; r++) {                                                     \
                    double p = t0[r] * x0;                                                    \
                    out[r] = p > out[r] ? p : out[r];                                         \
                }                                                                             \
            } else {                                                                          \
                for (r = 0; r < n; r++) out[r] = out[r] + t0[r] * x0;                         \
            }                                                                                 \
        }                                                                                     \
    }
    FSTP_DENSE_LINES(fstp_dense_lines_portable, )
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    FSTP_DENSE_LINES(fstp_dense_lines_avx2, __attribute__((target("avx2"))))
    #else
    FSTP_DENSE_LINES(fstp_dense_lines_avx2, )
    #endif
    """
    void fstp_exp_portable(const double* s, double* p, Py_ssize_t n, double top) noexcept nogil
    void fstp_exp_avx2(const double* s, double* p, Py_ssize_t n, double top) noexcept nogil
    int fstp_has_avx2() noexcept nogil
    void fstp_fw_row_portable(double* line, const double* row, double c, Py_ssize_t lo,
                              Py_ssize_t hi) noexcept nogil
    void fstp_fw_row_avx2(double* line, const double* row, double c, Py_ssize_t lo,
                          Py_ssize_t hi) noexcept nogil
    void fstp_dense_lines_portable(const double* t, const double* x, const Py_ssize_t* cols,
                                   Py_ssize_t m, Py_ssize_t n, double* out, int mx) noexcept nogil
    void fstp_dense_lines_avx2(const double* t, const double* x, const Py_ssize_t* cols,
                               Py_ssize_t m, Py_ssize_t n, double* out, int mx) noexcept nogil


cdef bint _avx2 = fstp_has_avx2()


cdef void _dense_lines(const double* t, const double* x, const Py_ssize_t* cols, Py_ssize_t m,
                       Py_ssize_t n, double* out, bint mx, bint avx2) noexcept nogil:
    """out[r] = ⊕_c L[r, c] ⊗ x[c] for r < n (max-product if ``mx``), L an n × n matrix's
    lines stored dense and transposed (t[c·n + r] = L[r, c], 0 where the line has no entry),
    over the columns ``cols[:m]`` (ascending; every c with x[c] ≠ 0 among them): each out[r]'s
    terms taken in ascending c, as a sparse line's stored entries are, so for a nonnegative
    finite x the same bits as over the stored entries alone (an absent entry, or a c with
    x[c] = 0 left out, adds an exact 0, or cannot beat a maximum that starts at 0), the n
    outputs at once, through the loop built for AVX2 if ``avx2`` and the processor has it (the
    same operations)."""
    if avx2 and _avx2:
        fstp_dense_lines_avx2(t, x, cols, m, n, out, mx)
    else:
        fstp_dense_lines_portable(t, x, cols, m, n, out, mx)


def dense_lines(const double[::1] t, const double[::1] x, bint maximum, bint avx2=True):
    """:c:func:`_dense_lines` of the n × n transposed dense lines ``t`` (flat) against ``x``
    (n) over its nonzero entries, as an array (the tests' handle)."""
    cdef Py_ssize_t n = x.shape[0]
    if t.shape[0] != n * n:
        raise ValueError("dense_lines: t must hold n × n values for an x of n")
    cols = np.flatnonzero(np.asarray(x)).astype(np.intp)
    cdef const Py_ssize_t[::1] c = cols
    out = np.empty(n)
    cdef double[::1] o = out
    if n:
        _dense_lines(&t[0], &x[0], _first(c), c.shape[0], n, &o[0], maximum, avx2)
    return out


def exponentials(const double[::1] x, double[::1] out, bint avx2=True):
    """out = exp(x) for x ≤ 0 by the M-step's exponential (the module's docstring), through the
    loop built for AVX2 if ``avx2`` and the processor has it, else the portable one (for the
    tests: both give the same bits)."""
    if out.shape[0] != x.shape[0]:
        raise ValueError("exponentials: out must have x's length")
    if avx2 and _avx2:
        fstp_exp_avx2(_first(x), &out[0] if x.shape[0] else NULL, x.shape[0], 0.0)
    else:
        fstp_exp_portable(_first(x), &out[0] if x.shape[0] else NULL, x.shape[0], 0.0)


cdef double _exp_terms(const double* s, double* p, Py_ssize_t n, double* high,
                       bint libm) noexcept nogil:
    """A softmax's terms p = exp(s − max s) (``p`` may be ``s``), their total by numpy's
    pairwise sum, and the maximum in ``high``: what ``max``, ``exp`` and ``sum`` along a row
    give in numpy (n ≥ 1). The exponential is libm's if ``libm`` (numpy's where it has no SIMD
    one), else the M-step's (the module's docstring: within 1 ulp of it, several times
    cheaper)."""
    cdef Py_ssize_t k
    cdef double top = s[0]
    for k in range(1, n):
        top = s[k] if s[k] > top else top
    if libm:
        for k in range(n):
            p[k] = exp(s[k] - top)
    elif _avx2:
        fstp_exp_avx2(s, p, n, top)
    else:
        fstp_exp_portable(s, p, n, top)
    high[0] = top
    return 0.0 + _pairwise_sum(p, n)


cdef void _counting_sort(const Py_ssize_t* key, const Py_ssize_t* items, Py_ssize_t m,
                         Py_ssize_t buckets, Py_ssize_t* ptr, Py_ssize_t* order) noexcept nogil:
    """A stable counting sort of the m items ``items[:m]`` (NULL: 0 … m − 1) by their keys
    ``key[e]`` (each in [0, buckets)): afterwards ``order[ptr[q] : ptr[q + 1]]`` are the items e
    with ``key[e] == q``, in their order in ``items`` (``ptr``: buckets + 1 entries, overwritten;
    the CSR grouping of the items by key; ``order`` must not be ``items``)."""
    cdef Py_ssize_t e, f, q
    for q in range(buckets + 1):
        ptr[q] = 0
    for f in range(m):
        e = items[f] if items != NULL else f
        ptr[key[e] + 1] += 1
    for q in range(buckets):
        ptr[q + 1] += ptr[q]
    for f in range(m):
        e = items[f] if items != NULL else f
        q = key[e]
        order[ptr[q]] = e
        ptr[q] += 1
    for q in range(buckets, 0, -1):  # each bucket's end back to its start
        ptr[q] = ptr[q - 1]
    ptr[0] = 0


cdef void _sort(Py_ssize_t* x, Py_ssize_t k) noexcept nogil:
    """Insertion sort (rows are short)."""
    cdef Py_ssize_t i, j, v
    for i in range(1, k):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] > v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


def string_products(Py_ssize_t n, const Py_ssize_t[::1] arc_ptr, const Py_ssize_t[::1] dst,
                    const double[:, ::1] weight, const Py_ssize_t[::1] level_offsets,
                    const Py_ssize_t[::1] heads, const Py_ssize_t[::1] parents,
                    const Py_ssize_t[::1] wanted, const unsigned char[::1] maximum,
                    const Py_ssize_t[::1] place, Py_ssize_t n_matrices,
                    const double[:, :, :, ::1] extras):
    """CSR rows (ptr, col, val) of a stack of ``n_matrices`` matrices, then the E matrices
    ``extras`` (E, K, n, n), stacked (row a·n + r); row pointers int32 (more entries are
    refused) and column indices :data:`State` (n > 65,536 is refused): a slot cache keeps
    them for its whole run. Matrix ``place[a]``
    (ascending) is M(s) for the a-th wanted string, the others are 0; an extra matrix is stored
    on the union of its nonzeros under the K weightings (row by row, columns ascending). The
    arcs have K weightings: ``weight[k]`` in the max semiring where ``maximum[k]``, else in the
    sum semiring; ``val[k]`` holds the values under weighting k.

    The strings are given level by level (``level_offsets``; level 0 is ε alone): string q of a
    level is token ``heads[q]`` followed by string ``parents[q]`` of the level below (indices
    within levels, flat over levels). The arcs of token t leaving state r are
    ``arc_ptr[t·n + r] : arc_ptr[t·n + r + 1]``, in ascending ``dst``. ``wanted[a]`` is the flat
    index of the a-th string to return."""
    check_states(n, "string_products")
    cdef Py_ssize_t n_levels = level_offsets.shape[0] - 1, d, q, p, t, r, e, f, c, k, i, a
    cdef Py_ssize_t first, n_touched, size = 0
    cdef Rows* levels = <Rows*> malloc(max(n_levels, 1) * sizeof(Rows))
    cdef Py_ssize_t* where = <Py_ssize_t*> malloc(max(level_offsets[n_levels], 1)
                                                   * sizeof(Py_ssize_t))
    cdef char* seen = <char*> malloc(max(n, 1))
    cdef Py_ssize_t* touched = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* count = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t width = weight.shape[0], j
    cdef double* first_term = <double*> malloc(max(n * width, 1) * sizeof(double))
    cdef double* rest = <double*> malloc(max(n * width, 1) * sizeof(double))
    cdef Terms terms
    terms.col, terms.val, terms.grouped, terms.fill, terms.cap = NULL, NULL, NULL, NULL, 0
    cdef Py_ssize_t most
    cdef Rows* below
    cdef Rows* m
    cdef double x
    cdef bint any_sum = False
    for j in range(width):
        any_sum = any_sum or not maximum[j]
    terms.fill = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    if (levels == NULL or where == NULL or seen == NULL or touched == NULL or count == NULL
            or first_term == NULL or rest == NULL or terms.fill == NULL):
        raise MemoryError()
    for d in range(n_levels):
        levels[d].ptr = levels[d].col = NULL
        levels[d].val = NULL
        levels[d].n_rows = levels[d].nnz = levels[d].cap_rows = levels[d].cap = 0
        levels[d].width = width
    try:
        for c in range(n):
            seen[c] = 0
        m = &levels[0]  # ε: the identity
        _start(m, width)
        _reserve(m, n)
        for r in range(n):
            m.col[r] = r
            for j in range(width):
                m.val[r * width + j] = 1.0
            m.nnz += 1
            _push_row(m)
        for q in range(level_offsets[1]):
            where[q] = 0
        for d in range(1, n_levels):
            below, m = &levels[d - 1], &levels[d]
            _start(m, width)
            # room for as many entries per string as the level below has (grown if need be):
            # few reallocations, each of which copies what the level holds so far
            _reserve(m, (level_offsets[d + 1] - level_offsets[d]) * below.nnz
                     // max(level_offsets[d] - level_offsets[d - 1], 1))
            for q in range(level_offsets[d], level_offsets[d + 1]):
                where[q] = d
                t, p = heads[q], parents[q]
                for r in range(n):
                    if arc_ptr[t * n + r + 1] - arc_ptr[t * n + r] == 1:
                        _scaled_row(below, m, weight, arc_ptr[t * n + r],
                                    p * n + dst[arc_ptr[t * n + r]])
                        continue
                    # each column's first term, and the others added up in order: what
                    # np.add.reduceat gives for up to 8 terms (the first plus numpy's pairwise
                    # sum of the rest, which adds fewer than 8 one by one)
                    n_touched, most = 0, 0
                    for e in range(arc_ptr[t * n + r], arc_ptr[t * n + r + 1]):
                        i = p * n + dst[e]
                        for f in range(below.ptr[i], below.ptr[i + 1]):
                            c = below.col[f]
                            if not seen[c]:
                                seen[c] = 1
                                touched[n_touched] = c
                                n_touched += 1
                                count[c] = 1
                                for j in range(width):
                                    first_term[c * width + j] = weight[j, e] \
                                        * below.val[f * width + j]
                                    rest[c * width + j] = 0.0
                            else:
                                count[c] += 1
                                for j in range(width):
                                    x = weight[j, e] * below.val[f * width + j]
                                    if maximum[j]:
                                        if x > first_term[c * width + j]:
                                            first_term[c * width + j] = x
                                    else:
                                        rest[c * width + j] = rest[c * width + j] + x
                            if count[c] > most:
                                most = count[c]
                    if most > 8 and any_sum:  # numpy's pairwise sum: redo by its rules
                        for j in range(width):
                            if not maximum[j]:
                                _pairwise_row(below, arc_ptr, dst, weight, j, t, p, n, r,
                                              touched, n_touched, rest, &terms)
                    _reserve(m, n_touched)
                    if n_touched > 48:  # long row: collect the columns in order by a scan
                        k = 0
                        for c in range(n):
                            if seen[c]:
                                touched[k] = c
                                k += 1
                    else:
                        _sort(touched, n_touched)
                    for f in range(n_touched):
                        c = touched[f]
                        m.col[m.nnz] = c
                        for j in range(width):
                            m.val[m.nnz * width + j] = first_term[c * width + j] \
                                if maximum[j] else first_term[c * width + j] + rest[c * width + j]
                        m.nnz += 1
                        seen[c] = 0
                    _push_row(m)
        # the wanted strings in their places, then the extra matrices
        if place.shape[0] != wanted.shape[0] or extras.shape[1] != width or \
                (extras.shape[0] and (extras.shape[2] != n or extras.shape[3] != n)):
            raise ValueError("string_products: shapes do not match")
        for a in range(place.shape[0]):
            if place[a] >= n_matrices or place[a] < 0 or (a and place[a] <= place[a - 1]):
                raise ValueError("string_products: places must ascend below n_matrices")
        ptr = np.empty((n_matrices + extras.shape[0]) * n + 1, dtype=np.int32)
        for a in range(wanted.shape[0]):
            q = wanted[a]
            m = &levels[where[q]]
            first = (q - level_offsets[where[q]]) * n
            size += m.ptr[first + n] - m.ptr[first]
        for e in range(extras.shape[0]):
            for r in range(n):
                for c in range(n):
                    size += _extra_at(extras, e, r, c)
        if size >= 2 ** 31:
            raise ValueError("string_products: more entries than int32 row pointers hold")
        col = np.empty(size, dtype=np.uint16)
        val = np.empty((width, size), dtype=np.float64)
        _gather(levels, where, level_offsets, wanted, n, place, n_matrices, extras, ptr, col, val)
        return ptr, col, val
    finally:
        for d in range(n_levels):
            _free(&levels[d])
        free(levels)
        free(where)
        free(seen)
        free(touched)
        free(count)
        free(first_term)
        free(rest)
        free(terms.col)
        free(terms.val)
        free(terms.grouped)
        free(terms.fill)


cdef inline int _scaled_row(const Rows* below, Rows* m, const double[:, ::1] weight, Py_ssize_t e,
                     Py_ssize_t i) except -1:
    """Push row i of ``below`` times arc e's weights as the next row of ``m``: a row reached by
    one arc (its columns are ascending already; each value is its one term, as the general
    case gives it: first term + 0 in the sum semiring)."""
    cdef Py_ssize_t f, j, width = m.width, lo = below.ptr[i], length = below.ptr[i + 1] - lo
    cdef double w
    cdef double* out
    cdef const double* src
    _reserve(m, length)
    if length:
        memcpy(m.col + m.nnz, below.col + lo, length * sizeof(State))
        for j in range(width):
            w, out, src = weight[j, e], m.val + m.nnz * width + j, below.val + lo * width + j
            for f in range(length):
                out[f * width] = w * src[f * width]
        m.nnz += length
    _push_row(m)
    return 0


cdef struct Terms:
    # Scratch for _pairwise_row: every term of a row, its column, and the terms by column.
    Py_ssize_t* col
    double* val
    double* grouped
    Py_ssize_t* fill
    Py_ssize_t cap


cdef int _pairwise_row(Rows* below, const Py_ssize_t[::1] arc_ptr, const Py_ssize_t[::1] dst,
                       const double[:, ::1] weight, Py_ssize_t j, Py_ssize_t t, Py_ssize_t p,
                       Py_ssize_t n, Py_ssize_t r, const Py_ssize_t* touched,
                       Py_ssize_t n_touched, double* rest, Terms* terms) except -1:
    """rest[c·width + j] for every touched column c of row r of M(t·s) under weighting j:
    numpy's pairwise sum of all terms but the first, in order, as np.add.reduceat adds them to
    the first."""
    cdef Py_ssize_t e, f, i, c, k, n_terms = 0, width = below.width
    cdef double w
    for e in range(arc_ptr[t * n + r], arc_ptr[t * n + r + 1]):
        i = p * n + dst[e]
        n_terms += below.ptr[i + 1] - below.ptr[i]
    if n_terms > terms.cap:
        terms.cap = 2 * n_terms
        terms.col = <Py_ssize_t*> _grow(terms.col, terms.cap * sizeof(Py_ssize_t))
        terms.val = <double*> _grow(terms.val, terms.cap * sizeof(double))
        terms.grouped = <double*> _grow(terms.grouped, terms.cap * sizeof(double))
    k = 0
    for e in range(arc_ptr[t * n + r], arc_ptr[t * n + r + 1]):
        w, i = weight[j, e], p * n + dst[e]
        for f in range(below.ptr[i], below.ptr[i + 1]):
            terms.col[k], terms.val[k] = below.col[f], w * below.val[f * width + j]
            k += 1
    for c in range(n_touched):  # each column's place: columns counted in order of first use
        terms.fill[touched[c]] = 0
    for f in range(n_terms):
        terms.fill[terms.col[f]] += 1
    k = 0
    for c in range(n_touched):
        i = terms.fill[touched[c]]
        terms.fill[touched[c]] = k
        k += i
    for f in range(n_terms):
        c = terms.col[f]
        terms.grouped[terms.fill[c]] = terms.val[f]
        terms.fill[c] += 1
    k = 0  # fill is now each group's end; the groups follow each other in touched's order
    for c in range(n_touched):
        i = terms.fill[touched[c]]
        rest[touched[c] * width + j] = _pairwise_sum(terms.grouped + k + 1, i - k - 1)
        k = i
    return 0


cdef inline bint _extra_at(const double[:, :, :, ::1] extras, Py_ssize_t e, Py_ssize_t r,
                           Py_ssize_t c) noexcept:
    """Whether extra matrix e has a nonzero at (r, c) under some weighting."""
    cdef Py_ssize_t k
    for k in range(extras.shape[1]):
        if extras[e, k, r, c] != 0.0:
            return True
    return False


cdef void _gather(Rows* levels, const Py_ssize_t* where, const Py_ssize_t[::1] level_offsets,
                  const Py_ssize_t[::1] wanted, Py_ssize_t n, const Py_ssize_t[::1] place,
                  Py_ssize_t count, const double[:, :, :, ::1] extras, int[::1] ptr,
                  State[::1] col, double[:, ::1] val) noexcept:
    cdef Py_ssize_t a, b, q, r, f, j, c, e, first, lo, length, at = 0, row = 0, next_wanted = 0
    cdef Rows* m
    cdef double* out
    cdef const double* src
    ptr[0] = 0
    for b in range(count):
        if next_wanted == place.shape[0] or place[next_wanted] != b:  # a 0 matrix
            for r in range(n):
                row += 1
                ptr[row] = at
            continue
        a = next_wanted
        next_wanted += 1
        q = wanted[a]
        m = &levels[where[q]]
        first = (q - level_offsets[where[q]]) * n
        lo = m.ptr[first]  # the matrix's rows are one block of its level's entries
        length = m.ptr[first + n] - lo
        if length:
            memcpy(&col[at], m.col + lo, length * sizeof(State))
            for j in range(m.width):
                out, src = &val[j, at], m.val + lo * m.width + j
                for f in range(length):
                    out[f] = src[f * m.width]
        for r in range(first, first + n):
            row += 1
            ptr[row] = at + m.ptr[r + 1] - lo
        at += length
    for e in range(extras.shape[0]):
        for r in range(n):
            for c in range(n):
                if _extra_at(extras, e, r, c):
                    col[at] = c
                    for j in range(extras.shape[1]):
                        val[j, at] = extras[e, j, r, c]
                    at += 1
            row += 1
            ptr[row] = at


def transpose(Py_ssize_t n, const int[::1] ptr, const State[::1] col):
    """The CSR rows of the transposes of stacked n×n matrices (row a·n + s = M_a[s, :]) as a
    permutation of their entries: row a·n + t of the result is M_a[:, t], its entries ``perm[q]``
    of the rows (rows ascending within it, ``col[q]`` the row s); one permutation serves every
    set of values of that structure (int32 row pointers and permutation, row indices
    :data:`State`, as the rows' columns)."""
    cdef Py_ssize_t n_rows = ptr.shape[0] - 1, r, f, t, base, s, q
    tptr_a = np.zeros(n_rows + 1, dtype=np.int32)
    tcol_a = np.empty(col.shape[0], dtype=np.uint16)
    perm_a = np.empty(col.shape[0], dtype=np.int32)
    cdef int[::1] tptr = tptr_a
    cdef State[::1] tcol = tcol_a
    cdef int[::1] perm = perm_a
    # a counting sort of the entries by their row of the transposes, scattering each entry
    # straight to its place (no key or order array, as _counting_sort takes: 1.7 times faster)
    for base in range(0, n_rows, n):  # matrix a's rows are a·n ... a·n + n − 1
        for f in range(ptr[base], ptr[base + n]):
            tptr[base + col[f] + 1] += 1
    for r in range(n_rows):
        tptr[r + 1] += tptr[r]
    cdef Py_ssize_t* fill = <Py_ssize_t*> malloc(max(n_rows, 1) * sizeof(Py_ssize_t))
    if fill == NULL:
        raise MemoryError()
    for r in range(n_rows):
        fill[r] = tptr[r]
    for base in range(0, n_rows, n):
        for s in range(n):
            for f in range(ptr[base + s], ptr[base + s + 1]):
                t = base + col[f]
                q = fill[t]
                fill[t] = q + 1
                tcol[q], perm[q] = s, f
    free(fill)
    return tptr_a, tcol_a, perm_a


def concat_transposes(Py_ssize_t n, const int[::1] ptr, const int[::1] a_ptr,
                      const int[::1] a_tptr, const State[::1] a_tcol, const int[::1] a_perm,
                      const int[::1] b_ptr, const int[::1] b_tptr, const State[::1] b_tcol,
                      const int[::1] b_perm):
    """The transposes (:func:`transpose`) of the stacked n×n rows that :func:`concat_rows`
    made (row pointers ``ptr``) from A's and B's (``a_ptr``, ``b_ptr``; B may have fewer
    matrices), from theirs, where every matrix is 0 in A or in B: each matrix's transposes are
    those of the side that has it, their entries moved as :func:`concat_rows` moved its
    rows' (by as many places for the whole matrix)."""
    cdef Py_ssize_t n_rows = ptr.shape[0] - 1, b_rows = b_ptr.shape[0] - 1, a, r0, q0, q, t
    cdef Py_ssize_t at = 0, length, shift
    if (a_ptr.shape[0] != n_rows + 1 or a_tptr.shape[0] != n_rows + 1
            or b_tptr.shape[0] != b_rows + 1 or b_rows > n_rows or n_rows % n or b_rows % n):
        raise ValueError("concat_transposes: shapes do not match")
    tptr_a = np.empty(n_rows + 1, dtype=np.int32)
    tcol_a = np.empty(a_tcol.shape[0] + b_tcol.shape[0], dtype=np.uint16)
    perm_a = np.empty(a_tcol.shape[0] + b_tcol.shape[0], dtype=np.int32)
    cdef int[::1] tptr = tptr_a
    cdef State[::1] tcol = tcol_a
    cdef int[::1] perm = perm_a
    cdef const int* side_tptr
    cdef const State* side_tcol
    cdef const int* side_perm
    tptr[0] = 0
    for a in range(n_rows // n):  # matrix a: rows r0 … r0 + n − 1
        r0 = a * n
        if r0 < b_rows and b_ptr[r0 + n] > b_ptr[r0]:
            if a_ptr[r0 + n] > a_ptr[r0]:
                raise ValueError("concat_transposes: a matrix is nonzero in A and in B")
            side_tptr, side_tcol, side_perm = &b_tptr[0], _first(b_tcol), _first(b_perm)
            shift = ptr[r0] - b_ptr[r0]
        else:
            side_tptr, side_tcol, side_perm = &a_tptr[0], _first(a_tcol), _first(a_perm)
            shift = ptr[r0] - a_ptr[r0]
        q0 = side_tptr[r0]
        length = side_tptr[r0 + n] - q0
        for t in range(1, n + 1):
            tptr[r0 + t] = at + side_tptr[r0 + t] - q0
        if length:
            memcpy(&tcol[at], side_tcol + q0, length * sizeof(State))
            for q in range(length):
                perm[at + q] = side_perm[q0 + q] + shift
        at += length
    return tptr_a, tcol_a, perm_a


def combine_arcs(Py_ssize_t n, const Py_ssize_t[::1] token, const Py_ssize_t[::1] src,
                 const Py_ssize_t[::1] dst, const double[::1] weight,
                 const unsigned char[::1] maximum):
    """The distinct arcs (token, src, dst) of a lattice of n states, in increasing order of
    (token·n + src)·n + dst, with the ⊕ of their weights in each semiring (``maximum[k]``: max,
    else sum): what a stable sort of those keys then ``np.add.reduceat`` or
    ``np.maximum.reduceat`` give (a sum is its first term plus numpy's pairwise sum of the
    others, in the arcs' order). Arcs with a negative token (a topology's end marks ``$``) are
    left out, their src and dst unread (the others' must be states < n; src, dst and weight
    have token's length). Returns token, src, dst (uint16, :data:`State`: a slot
    cache keeps them for its whole run; more states or tokens are refused) and the (K, arcs)
    values. The sort is two stable counting sorts, by dst and then by (token, src)."""
    cdef Py_ssize_t m = token.shape[0], width = maximum.shape[0], buckets = 0, e, f
    cdef Py_ssize_t u = 0, kept = 0
    check_states(n, "combine_arcs")
    if not src.shape[0] == dst.shape[0] == weight.shape[0] == m:
        raise ValueError(f"combine_arcs: token, src, dst, weight of lengths {m}, {src.shape[0]}, "
                         f"{dst.shape[0]}, {weight.shape[0]}; one length")
    for e in range(m):
        if token[e] < 0:
            continue
        kept += 1
        buckets = max(buckets, token[e] * n + src[e] + 1)
        if token[e] >= STATES:
            raise ValueError(f"combine_arcs: token {token[e]}; at most {STATES - 1}")
        if not (0 <= src[e] < n and 0 <= dst[e] < n):
            raise ValueError(f"combine_arcs: arc {e} from {src[e]} to {dst[e]}; {n} states")
    cdef Py_ssize_t* ptr = <Py_ssize_t*> malloc((max(buckets, n) + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* by_dst = <Py_ssize_t*> malloc(max(kept, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* order = <Py_ssize_t*> malloc(max(kept, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* key = <Py_ssize_t*> malloc(max(m, 1) * sizeof(Py_ssize_t))
    cdef double* terms = <double*> malloc(max(kept, 1) * sizeof(double))
    try:
        if ptr == NULL or by_dst == NULL or order == NULL or key == NULL or terms == NULL:
            raise MemoryError()
        f = 0
        for e in range(m):  # the kept arcs, in order (in ``order`` until it is sorted)
            if token[e] >= 0:
                order[f] = e
                key[e] = token[e] * n + src[e]
                f += 1
        _counting_sort(_first(dst), order, kept, n, ptr, by_dst)  # stable by dst ...
        _counting_sort(key, by_dst, kept, buckets, ptr, order)  # ... then by (token, src)
        for f in range(kept):  # the number of distinct arcs
            u += f == 0 or key[order[f]] != key[order[f - 1]] or \
                dst[order[f]] != dst[order[f - 1]]
        out_token = np.empty(u, dtype=np.uint16)
        out_src = np.empty(u, dtype=np.uint16)
        out_dst = np.empty(u, dtype=np.uint16)
        out_val = np.empty((width, u), dtype=np.float64)
        _combined(kept, token, src, dst, weight, maximum, order, key, terms, out_token, out_src,
                  out_dst, out_val)
        return out_token, out_src, out_dst, out_val
    finally:
        free(ptr)
        free(by_dst)
        free(order)
        free(key)
        free(terms)


cdef void _combined(Py_ssize_t m, const Py_ssize_t[::1] token, const Py_ssize_t[::1] src,
                    const Py_ssize_t[::1] dst, const double[::1] weight,
                    const unsigned char[::1] maximum, const Py_ssize_t* order,
                    const Py_ssize_t* key, double* terms, State[::1] out_token,
                    State[::1] out_src, State[::1] out_dst, double[:, ::1] out_val) noexcept:
    """Each run of equal arcs in ``order`` (equal ``key``, (token, src), and dst) as one arc of
    ``out_*``, its weights ⊕-combined."""
    cdef Py_ssize_t lo = 0, hi, a = 0, k, f, e
    cdef double best
    while lo < m:
        e = order[lo]
        hi = lo + 1
        while hi < m and key[order[hi]] == key[e] and dst[order[hi]] == dst[e]:
            hi += 1
        out_token[a], out_src[a], out_dst[a] = token[e], src[e], dst[e]
        if hi - lo == 1:  # the usual case: no parallel arc
            for k in range(maximum.shape[0]):
                out_val[k, a] = weight[e]
            a += 1
            lo = hi
            continue
        for f in range(lo, hi):
            terms[f - lo] = weight[order[f]]
        for k in range(maximum.shape[0]):
            if maximum[k]:
                best = terms[0]
                for f in range(1, hi - lo):
                    if terms[f] > best:
                        best = terms[f]
                out_val[k, a] = best
            else:
                out_val[k, a] = terms[0] + _pairwise_sum(terms + 1, hi - lo - 1)
        a += 1
        lo = hi


def concat_rows(Py_ssize_t n_rows, const int[::1] a_ptr, const State[::1] a_col,
                const double[:, ::1] a_val, const int[::1] b_ptr, const State[::1] b_col,
                const double[:, ::1] b_val):
    """Stacked CSR rows whose row r holds row r of A then row r of B (B may have fewer rows:
    the others are empty), with one row of values per set (``a_val[k]``, ``b_val[k]``); int32
    row pointers and :data:`State` column indices (as a stack's). Runs of rows that come from one side alone are
    copied as one block."""
    cdef Py_ssize_t b_rows = b_ptr.shape[0] - 1, r, width = a_val.shape[0]
    cdef Py_ssize_t la, lb, run = 0, run_from = 0, at = 0
    cdef bint from_b = False
    if b_rows > n_rows or a_ptr.shape[0] != n_rows + 1 or b_val.shape[0] != width:
        raise ValueError("concat_rows: shapes do not match")
    if <Py_ssize_t> a_ptr[n_rows] + b_ptr[b_rows] >= 2 ** 31:
        raise ValueError("concat_rows: more entries than int32 row pointers hold")
    ptr_a = np.empty(n_rows + 1, dtype=np.int32)
    cdef int[::1] ptr = ptr_a
    ptr[0] = 0
    for r in range(n_rows):
        ptr[r + 1] = ptr[r] + a_ptr[r + 1] - a_ptr[r] + (b_ptr[r + 1] - b_ptr[r] if r < b_rows
                                                          else 0)
    col_a = np.empty(ptr[n_rows], dtype=np.uint16)
    val_a = np.empty((width, ptr[n_rows]), dtype=np.float64)
    cdef State[::1] col = col_a
    cdef double[:, ::1] val = val_a
    for r in range(n_rows):
        la = a_ptr[r + 1] - a_ptr[r]
        lb = b_ptr[r + 1] - b_ptr[r] if r < b_rows else 0
        if la == 0 and lb == 0:  # an empty row breaks no run
            continue
        if la and lb:  # both: the run so far, then A's row and B's
            at = _flush(col, val, at, from_b, a_col, a_val, b_col, b_val, run_from, run)
            at = _flush(col, val, at, False, a_col, a_val, b_col, b_val, a_ptr[r], la)
            at = _flush(col, val, at, True, a_col, a_val, b_col, b_val, b_ptr[r], lb)
            run = 0
        elif run == 0 or from_b != (lb > 0):  # one side's row starts a run of that side
            at = _flush(col, val, at, from_b, a_col, a_val, b_col, b_val, run_from, run)
            from_b = lb > 0
            if from_b:
                run_from, run = b_ptr[r], lb
            else:
                run_from, run = a_ptr[r], la
        else:  # ... or extends it
            run += lb if from_b else la
    _flush(col, val, at, from_b, a_col, a_val, b_col, b_val, run_from, run)
    return ptr_a, col_a, val_a


cdef Py_ssize_t _flush(State[::1] col, double[:, ::1] val, Py_ssize_t at, bint from_b,
                       const State[::1] a_col, const double[:, ::1] a_val, const State[::1] b_col,
                       const double[:, ::1] b_val, Py_ssize_t start,
                       Py_ssize_t length) noexcept:
    """Copy entries start … start + length − 1 of A (or B, ``from_b``) to ``at`` … of the
    output; where the output continues."""
    if length:
        if from_b:
            _copy(col, val, at, b_col, b_val, start, length)
        else:
            _copy(col, val, at, a_col, a_val, start, length)
    return at + length


cdef void _copy(State[::1] col, double[:, ::1] val, Py_ssize_t at, const State[::1] src_col,
                const double[:, ::1] src_val, Py_ssize_t start, Py_ssize_t length) noexcept:
    """Entries start … start + length − 1 of a source to ``at`` … of the output."""
    cdef Py_ssize_t k
    memcpy(&col[at], &src_col[start], length * sizeof(State))
    for k in range(val.shape[0]):
        memcpy(&val[k, at], &src_val[k, start], length * sizeof(double))


def csr_matmul(const Py_ssize_t[::1] indptr, const int[::1] indices,
               const double[::1] data, const double[:, ::1] dense, double[:, ::1] out):
    """out += A · dense for the CSR matrix A: each row's terms added one by one in the order of
    its entries (scipy's CSR product)."""
    cdef Py_ssize_t i, e, k, j, width = dense.shape[1]
    cdef double a
    with nogil:  # other threads may run meanwhile (the M-step's)
        for i in range(indptr.shape[0] - 1):
            for e in range(indptr[i], indptr[i + 1]):
                a, j = data[e], indices[e]
                for k in range(width):
                    out[i, k] += a * dense[j, k]


cdef inline double _row_dot(const Index* ptr, const Column* col, const double* val, Py_ssize_t i,
                            const double* x) noexcept nogil:
    """Σ_e val[e] · x[col[e]] over row i's entries in order, from 0."""
    cdef Py_ssize_t e
    cdef double acc = 0.0
    for e in range(ptr[i], ptr[i + 1]):
        acc = acc + val[e] * x[col[e]]
    return acc


def dense_csr_t(const double[:, ::1] dense, const Index[::1] indptr,
                const Column[::1] indices, const double[::1] data, double[:, ::1] out):
    """out = dense · Aᵀ for the CSR matrix A (intp or int32 row pointers, int32 or
    :data:`State` column indices): out[c, i] adds row
    i's terms one by one in the order of its entries, from 0 (as :func:`csr_matmul` computes
    (A · denseᵀ)[i, c]). Four rows of ``dense`` at a time: each entry of A is read once for
    the four, each sum is still its own chain of additions (the same bits)."""
    cdef Py_ssize_t c = 0, i, e, k, rows = dense.shape[0], n = indptr.shape[0] - 1
    cdef Py_ssize_t step = dense.shape[1]  # C-contiguous: row c + 1 follows row c
    cdef double acc0, acc1, acc2, acc3, w
    cdef const double* d
    with nogil:
        while c + 4 <= rows:
            d = &dense[c, 0]
            for i in range(n):
                acc0 = acc1 = acc2 = acc3 = 0.0
                for e in range(indptr[i], indptr[i + 1]):
                    w, k = data[e], indices[e]
                    acc0 = acc0 + w * d[k]
                    acc1 = acc1 + w * d[step + k]
                    acc2 = acc2 + w * d[2 * step + k]
                    acc3 = acc3 + w * d[3 * step + k]
                out[c, i], out[c + 1, i], out[c + 2, i], out[c + 3, i] = acc0, acc1, acc2, acc3
            c += 4
        while c < rows:
            d = &dense[c, 0]
            for i in range(n):
                out[c, i] = _row_dot(&indptr[0], &indices[0], &data[0], i, d)
            c += 1


def dense_csr(const double[:, ::1] dense, const Py_ssize_t[::1] indptr,
              const int[::1] indices, const double[::1] data, double[:, ::1] out):
    """out += dense · A for the CSR matrix A (rows of A in order; zeros of ``dense`` skipped)."""
    cdef Py_ssize_t c, i, e
    cdef double d
    with nogil:
        for c in range(dense.shape[0]):
            for i in range(indptr.shape[0] - 1):
                d = dense[c, i]
                if d != 0.0:
                    for e in range(indptr[i], indptr[i + 1]):
                        out[c, indices[e]] += d * data[e]


def csr_matvec(const Index[::1] indptr, const Column[::1] indices, const double[::1] data,
               const double[::1] x, double[::1] out, bint maximum):
    """out = A ⊗ x for the CSR matrix A (intp or int32 row pointers, int32 or :data:`State`
    column indices), in the real semiring (each row's terms added one by one
    in the order of its entries, from 0: scipy's product, and ``np.bincount``'s) or, with
    ``maximum``, in the max-times one (from 0: entries are nonnegative)."""
    cdef Py_ssize_t i, e
    cdef double acc, p
    for i in range(indptr.shape[0] - 1):
        acc = 0.0
        if maximum:
            for e in range(indptr[i], indptr[i + 1]):
                p = data[e] * x[indices[e]]
                acc = p if p > acc else acc
        else:
            for e in range(indptr[i], indptr[i + 1]):
                acc += data[e] * x[indices[e]]
        out[i] = acc


def backoff_arcs(Py_ssize_t n, const State[::1] token, const State[::1] src,
                 const State[::1] dst, const double[::1] weight, double rate,
                 Py_ssize_t exclude, bint maximum):
    """rate · A as a dense (n, n) array, A the ⊕ (max if ``maximum``, else sum) of the arcs'
    ``weight`` at (``src``, ``dst``) over the arcs whose ``token`` is not ``exclude``, in one
    pass in the arcs' order: what ``np.maximum.at`` or ``np.add.at`` of ``rate * weight`` on a
    zero array gives, bitwise (:meth:`fstpunct.fst.lattice.Lattice.backoff_arcs_reference`)."""
    cdef Py_ssize_t m = token.shape[0], e, at
    cdef double x
    check_states(n, "backoff_arcs")
    if not src.shape[0] == dst.shape[0] == weight.shape[0] == m:
        raise ValueError(f"backoff_arcs: token, src, dst, weight of lengths {m}, {src.shape[0]}, "
                         f"{dst.shape[0]}, {weight.shape[0]}; one length")
    for e in range(m):
        if src[e] >= n or dst[e] >= n:
            raise ValueError(f"backoff_arcs: arc {e} from {src[e]} to {dst[e]}; {n} states")
    out = np.zeros((n, n))
    cdef double[:, ::1] view = out
    cdef double* a = &view[0, 0] if n else NULL
    for e in range(m):
        if token[e] == exclude:
            continue
        at = src[e] * n + dst[e]
        x = rate * weight[e]
        if not maximum:
            a[at] = a[at] + x
        elif x > a[at] or x != x:  # np.maximum: the larger, NaN if either is
            if a[at] == a[at]:
                a[at] = x
    return out


def max_star(double[:, ::1] star, bint avx2=True):
    """Floyd–Warshall in place in the max-times semiring: for k = 0, 1, …, every entry becomes
    max(star[i, j], star[i, k] · star[k, j]), row and column k taken before step k (as the numpy
    formulation ``np.maximum(star, star[:, k, None] * star[None, k, :], out=star)``); each row's
    step through the loop built for AVX2 if ``avx2`` and the processor has it, else the
    portable one (the same operations: the same bits)."""
    cdef Py_ssize_t n = star.shape[0], i, k, lo, hi
    cdef double c
    cdef bint wide = avx2 and _avx2
    cdef double* row = <double*> malloc(max(n, 1) * sizeof(double))
    cdef double* col = <double*> malloc(max(n, 1) * sizeof(double))
    if row == NULL or col == NULL:
        free(row)
        free(col)
        raise MemoryError()
    for k in range(n):
        lo, hi = n, 0  # the nonzeros of row k lie in [lo, hi)
        for i in range(n):
            row[i], col[i] = star[k, i], star[i, k]
            if row[i] != 0.0:
                lo, hi = min(lo, i), i + 1
        for i in range(n):
            c = col[i]
            if c == 0.0:  # every product is 0: nothing changes (entries are nonnegative)
                continue
            # (outside [lo, hi) every product is 0: nothing changes)
            if wide:
                fstp_fw_row_avx2(&star[i, 0], row, c, lo, hi)
            else:
                fstp_fw_row_portable(&star[i, 0], row, c, lo, hi)
    free(row)
    free(col)



def strong_components(const double[:, ::1] a):
    """The strongly connected components of the graph with an arc i → j wherever a[i, j] ≠ 0
    (i ≠ j), in topological order (every arc within a component or to a later one: the matrix
    permuted by them is block upper triangular). Returns ``order``, the states component by
    component (ascending within each), and ``offsets``: component c is
    ``order[offsets[c] : offsets[c + 1]]`` (Tarjan's algorithm, which finds the components
    in reverse topological order)."""
    cdef Py_ssize_t n = a.shape[0], top = 0, depth = 0, counter = 0, placed, v, w, u, lo
    if a.shape[1] != n:
        raise ValueError("strong_components: the matrix is not square")
    order = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] out = order
    starts = []  # each component's first place in order, as found (the last one first)
    cdef Py_ssize_t* index = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* low = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* stack = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* frame = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* next_w = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef unsigned char* held = <unsigned char*> malloc(max(n, 1))
    try:
        if index == NULL or low == NULL or stack == NULL or frame == NULL or \
                next_w == NULL or held == NULL:
            raise MemoryError()
        for v in range(n):
            index[v], held[v] = -1, 0
        placed = n  # components are placed from the end of order: the last found first
        for u in range(n):
            if index[u] != -1:
                continue
            index[u] = low[u] = counter
            counter += 1
            stack[top], held[u] = u, 1
            top += 1
            frame[0], next_w[0], depth = u, 0, 1
            while depth:
                v, w = frame[depth - 1], next_w[depth - 1]
                while w < n:  # v's next unexplored successor, if any
                    if w != v and a[v, w] != 0.0:
                        if index[w] == -1:
                            break
                        if held[w]:
                            low[v] = min(low[v], index[w])
                    w += 1
                if w < n:  # descend into w
                    next_w[depth - 1] = w + 1
                    index[w] = low[w] = counter
                    counter += 1
                    stack[top], held[w] = w, 1
                    top += 1
                    frame[depth], next_w[depth] = w, 0
                    depth += 1
                    continue
                depth -= 1  # v done
                if low[v] == index[v]:  # v's component: the stack down to v
                    lo = top
                    while True:
                        lo -= 1
                        held[stack[lo]] = 0
                        if stack[lo] == v:
                            break
                    placed -= top - lo
                    for w in range(top - lo):
                        out[placed + w] = stack[lo + w]
                    _sort(&out[placed], top - lo)
                    starts.append(placed)
                    top = lo
                if depth:
                    u = frame[depth - 1]
                    low[u] = min(low[u], low[v])
    finally:
        free(index)
        free(low)
        free(stack)
        free(frame)
        free(next_w)
        free(held)
    return order, np.array(starts[::-1] + [n], dtype=np.intp)


cdef bint _positions_sum(double* out, Py_ssize_t n, const double* coef, Py_ssize_t lo,
                         Py_ssize_t hi, const Py_ssize_t* puncteme, const Py_ssize_t* string,
                         const double* strings) noexcept nogil:
    """out = Σ coef[puncteme[k]] · strings[string[k]] (rows of n) over positions lo ≤ k < hi;
    whether any term was nonzero."""
    cdef Py_ssize_t k, s, r
    cdef double c
    cdef bint any_term = False
    for s in range(n):
        out[s] = 0.0
    for k in range(lo, hi):
        c = coef[puncteme[k]]
        if c != 0.0:
            any_term = True
            r = string[k] * n
            for s in range(n):
                out[s] += c * strings[r + s]
    return any_term


cdef void _mark(unsigned char* need, const double* coef, const Py_ssize_t* puncteme,
                const Py_ssize_t* string, Py_ssize_t count) noexcept nogil:
    """need[string[k]] = 1 for every k < count whose puncteme's coefficient is nonzero."""
    cdef Py_ssize_t k
    for k in range(count):
        if coef[puncteme[k]] != 0.0:
            need[string[k]] = 1


cdef void _products(double* out, const unsigned char* need, Py_ssize_t strings, Py_ssize_t n,
                    const Index* ptr, const Column* col, const double* val,
                    const double* x) noexcept nogil:
    """out[j·n + i] = row j·n + i's :func:`_row_dot` with x (:func:`dense_csr_t`'s sum), for
    the strings j with need[j]."""
    cdef Py_ssize_t j, i
    for j in range(strings):
        if need[j]:
            for i in range(j * n, (j + 1) * n):
                out[i] = _row_dot(ptr, col, val, i, x)


cdef _check_ends(str name, const Py_ssize_t[::1] ptr, Py_ssize_t n_tokens,
                 const Py_ssize_t[::1] puncteme, Py_ssize_t n_punctemes,
                 const Py_ssize_t[::1] string, Py_ssize_t n_strings, str kind):
    """ValueError unless :func:`edit_gradients`' first or last positions (``name``) fit: their
    offsets one per token and one more, ascending from 0 to the number of positions; as many
    strings (suffixes or prefixes: ``kind``) as punctemes, each in range."""
    cdef Py_ssize_t count = puncteme.shape[0], v, k
    if string.shape[0] != count:
        raise ValueError(f"edit_gradients: {name}_puncteme and {name}_{kind} of lengths "
                         f"{count} and {string.shape[0]}; one length")
    if ptr.shape[0] != n_tokens + 1:
        raise ValueError(f"edit_gradients: {ptr.shape[0]} offsets in {name}_ptr; "
                         f"{n_tokens} tokens need {n_tokens + 1}")
    for v in range(n_tokens + 1):
        if (ptr[v] < ptr[v - 1] if v else ptr[v] != 0) or v == n_tokens and ptr[v] != count:
            raise ValueError(f"edit_gradients: {name}_ptr does not ascend from 0 to "
                             f"{count} ({name} positions): offset {v} is {ptr[v]}")
    for k in range(count):
        if not (0 <= puncteme[k] < n_punctemes and 0 <= string[k] < n_strings):
            raise ValueError(f"edit_gradients: {name} position {k} (puncteme {puncteme[k]}, "
                             f"{kind} {string[k]}); {n_punctemes} punctemes, {n_strings} "
                             f"{kind}es")


def edit_gradients(double[::1] grad, const double[:, ::1] coef, const double[:, ::1] p,
                   const double[:, ::1] q, const Index[::1] pre_ptr, const Column[::1] pre_col,
                   const double[::1] pre_val, const Index[::1] suf_ptr,
                   const Column[::1] suf_col, const double[::1] suf_val,
                   const double[::1] closure, const double[:, ::1] kp, const double[:, ::1] kq,
                   Py_ssize_t exclude, Py_ssize_t n, const Py_ssize_t[::1] arc_ptr,
                   const Py_ssize_t[::1] src, const Py_ssize_t[::1] dst,
                   const Py_ssize_t[::1] first_ptr, const Py_ssize_t[::1] first_puncteme,
                   const Py_ssize_t[::1] first_suffix,
                   const Py_ssize_t[::1] last_ptr, const Py_ssize_t[::1] last_puncteme,
                   const Py_ssize_t[::1] last_prefix,
                   const Py_ssize_t[::1] middle_token, const Py_ssize_t[::1] middle_puncteme,
                   const Py_ssize_t[::1] middle_prefix, const Py_ssize_t[::1] middle_suffix):
    """For every term r (a row of each 2-D argument), add ∂log Z/∂M(υ)[s, t] at every token arc
    (arcs sorted by token υ: ``arc_ptr``; from ``src`` to ``dst``) for ∂log Z/∂M(l) =
    coef[r, l] · p_r q_rᵀ (coef's last column is the closure's, not a puncteme's) and
    ∂log Z/∂K = ``closure[r]`` · p_r q_rᵀ, term by term. The stacks
    of M(l_<k)ᵀ for every prefix (CSR rows ``pre_*``: row j·n + s of prefix j) and of M(l_>k)
    for every suffix (``suf_*``) are applied to p_r and q_r here, one term at a time and only
    for the prefixes and suffixes its nonzero coefficients use (each product :func:`dense_csr_t`'s
    sum, so the same values as ``rmatmul_t`` of the whole stacks). The closure's share at every
    arc of a token but ``exclude`` is ``closure[r]`` · kp[r, s] · kq[r, t] (the rate included;
    kp and kq are read only where closure[r] ≠ 0). First positions (grouped by token:
    ``first_ptr``) give p ⊗ b_υ with b_υ = Σ coef[l] · M(l_>0) q, last ones f_υ ⊗ q with
    f_υ = Σ coef[l] · M(l_<k)ᵀ p; middle ones (token, puncteme, prefix, suffix) pair with
    their token's arcs one by one, in the arcs' order (prefix · n + src and suffix · n + dst
    index the prefixes' and suffixes' products). ValueError if the positions' arrays differ in
    length, their offsets do not group them by token or an index is out of range (the arcs,
    the stacks and the 2-D arguments are not checked)."""
    cdef Py_ssize_t v, e, m, k, r, n_tokens = arc_ptr.shape[0] - 1, at_pre, at_suf
    cdef Py_ssize_t n_pre = (pre_ptr.shape[0] - 1) // n if n else 0
    cdef Py_ssize_t n_suf = (suf_ptr.shape[0] - 1) // n if n else 0
    cdef Py_ssize_t n_first = first_puncteme.shape[0], n_last = last_puncteme.shape[0]
    cdef Py_ssize_t n_middle = middle_puncteme.shape[0]
    cdef Py_ssize_t n_punctemes = coef.shape[1] - 1  # the closure's coefficient is last
    cdef const Py_ssize_t* first_l = _first(first_puncteme)
    cdef const Py_ssize_t* first_s = _first(first_suffix)
    cdef const Py_ssize_t* last_l = _first(last_puncteme)
    cdef const Py_ssize_t* last_p = _first(last_prefix)
    cdef const Py_ssize_t* middle_l = _first(middle_puncteme)
    cdef const Py_ssize_t* middle_p = _first(middle_prefix)
    cdef const Py_ssize_t* middle_s = _first(middle_suffix)
    cdef double c
    cdef double* b
    cdef unsigned char* need_pre
    cdef unsigned char* need_suf
    cdef double* f
    cdef double* prefixed
    cdef double* suffixed
    cdef const double* row
    cdef bint any_b, any_f, any_k
    _check_ends("first", first_ptr, n_tokens, first_puncteme, n_punctemes, first_suffix,
                n_suf, "suffix")
    _check_ends("last", last_ptr, n_tokens, last_puncteme, n_punctemes, last_prefix, n_pre,
                "prefix")
    if not (middle_token.shape[0] == middle_prefix.shape[0] == middle_suffix.shape[0]
            == n_middle):
        raise ValueError(f"edit_gradients: middle_token, middle_puncteme, middle_prefix, "
                         f"middle_suffix of lengths {middle_token.shape[0]}, {n_middle}, "
                         f"{middle_prefix.shape[0]}, {middle_suffix.shape[0]}; one length")
    for k in range(n_middle):
        if not (0 <= middle_token[k] < n_tokens and 0 <= middle_puncteme[k] < n_punctemes
                and 0 <= middle_prefix[k] < n_pre and 0 <= middle_suffix[k] < n_suf):
            raise ValueError(f"edit_gradients: middle position {k} (token {middle_token[k]}, "
                             f"puncteme {middle_puncteme[k]}, prefix {middle_prefix[k]}, "
                             f"suffix {middle_suffix[k]}); {n_tokens} tokens, "
                             f"{n_punctemes} punctemes, {n_pre} prefixes, {n_suf} suffixes")
    b = <double*> malloc(max(2 * n + (n_pre + n_suf) * n, 1) * sizeof(double))
    need_pre = <unsigned char*> malloc(max(n_pre + n_suf, 1))
    need_suf = need_pre + n_pre
    if b == NULL or need_pre == NULL:
        free(b)
        free(need_pre)
        raise MemoryError()
    f = b + n
    prefixed = f + n
    suffixed = prefixed + n_pre * n
    with nogil:
        for r in range(coef.shape[0]):
            row = &coef[r, 0]
            for m in range(n_pre + n_suf):
                need_pre[m] = 0
            _mark(need_suf, row, first_l, first_s, n_first)
            _mark(need_pre, row, last_l, last_p, n_last)
            _mark(need_pre, row, middle_l, middle_p, n_middle)
            _mark(need_suf, row, middle_l, middle_s, n_middle)
            if n_pre:
                _products(prefixed, need_pre, n_pre, n, &pre_ptr[0], &pre_col[0], &pre_val[0],
                          &p[r, 0])
            if n_suf:
                _products(suffixed, need_suf, n_suf, n, &suf_ptr[0], &suf_col[0], &suf_val[0],
                          &q[r, 0])
            for v in range(n_tokens):
                if arc_ptr[v] == arc_ptr[v + 1]:
                    continue
                any_b = _positions_sum(b, n, row, first_ptr[v], first_ptr[v + 1], first_l,
                                       first_s, suffixed)
                any_f = _positions_sum(f, n, row, last_ptr[v], last_ptr[v + 1], last_l, last_p,
                                       prefixed)
                any_k = closure[r] != 0.0 and v != exclude
                if any_b or any_f:
                    for e in range(arc_ptr[v], arc_ptr[v + 1]):
                        grad[e] += p[r, src[e]] * b[dst[e]] + f[src[e]] * q[r, dst[e]]
                if any_k:
                    for e in range(arc_ptr[v], arc_ptr[v + 1]):
                        grad[e] += closure[r] * kp[r, src[e]] * kq[r, dst[e]]
            for k in range(n_middle):
                c = row[middle_puncteme[k]]
                if c != 0.0:
                    v = middle_token[k]
                    at_pre, at_suf = middle_prefix[k] * n, middle_suffix[k] * n
                    for e in range(arc_ptr[v], arc_ptr[v + 1]):
                        grad[e] += c * prefixed[at_pre + src[e]] * suffixed[at_suf + dst[e]]
    free(b)
    free(need_pre)


def hash_table(const long long[::1] keys, Py_ssize_t size):
    """An open-addressing table of ``size`` slots (a power of two, more than ``len(keys)``)
    holding each distinct key with its 1-based rank: (slot keys, slot ranks; rank 0 = empty)."""
    import numpy as np
    table = np.zeros(size, dtype=np.int64)
    ranks = np.zeros(size, dtype=np.int32)
    cdef long long[::1] tk = table
    cdef int[::1] tr = ranks
    cdef Py_ssize_t i, h, mask = size - 1
    with nogil:
        for i in range(keys.shape[0]):
            h = _slot(keys[i], mask)
            while tr[h] != 0 and tk[h] != keys[i]:
                h = (h + 1) & mask
            tk[h], tr[h] = keys[i], i + 1
    return table, ranks


def hash_lookup(const long long[::1] table, const int[::1] ranks, const long long[::1] queries,
                int[::1] out):
    """out[q] = the rank of queries[q] in the table of :func:`hash_table`, 0 if absent."""
    cdef Py_ssize_t q, mask = table.shape[0] - 1
    with nogil:
        for q in range(queries.shape[0]):
            out[q] = _rank(&table[0], &ranks[0], mask, queries[q], _slot(queries[q], mask))


cdef int _rank(const long long* table, const int* ranks, Py_ssize_t mask, long long key,
               Py_ssize_t h) noexcept nogil:
    """The rank of ``key`` in the table of :func:`hash_table` (``mask`` = its size - 1), 0 if
    absent, searched from its slot ``h`` = ``_slot(key, mask)``."""
    while ranks[h] != 0 and table[h] != key:
        h = (h + 1) & mask
    return ranks[h]  # 0 at an empty slot


cdef Py_ssize_t _slot(long long key, Py_ssize_t mask) noexcept nogil:
    """A well-mixed slot for a key (the splitmix64 finaliser)."""
    cdef unsigned long long z = <unsigned long long> key
    z = (z ^ (z >> 30)) * <unsigned long long> 0xbf58476d1ce4e5b9
    z = (z ^ (z >> 27)) * <unsigned long long> 0x94d049bb133111eb
    z = z ^ (z >> 31)
    return <Py_ssize_t> (z & <unsigned long long> mask)


def template_keys(const long long[:, ::1] rows, const Py_ssize_t[:, ::1] columns,
                  unsigned long long multiplier, int shift):
    """(B, T) 64-bit keys of the templates ``columns`` (T × C atom columns) over the atom rows
    (B × atoms): h = (t + 1) · m, then for each of the template's atoms a, h = (h ^ a) · m,
    h ^= h >> shift (wrapping uint64 arithmetic)."""
    import numpy as np
    out = np.empty((rows.shape[0], columns.shape[0]), dtype=np.uint64)
    cdef unsigned long long[:, ::1] o = out
    cdef Py_ssize_t b, t
    with nogil:
        for b in range(rows.shape[0]):
            for t in range(columns.shape[0]):
                o[b, t] = _template_key(&rows[b, 0], &columns[t, 0], columns.shape[1], t,
                                        multiplier, shift)
    return out


cdef unsigned long long _template_key(const long long* row, const Py_ssize_t* columns,
                                      Py_ssize_t width, Py_ssize_t t,
                                      unsigned long long multiplier, int shift) noexcept nogil:
    """The key of template ``t`` (atom columns ``columns[:width]``) over the atom ``row``
    (:func:`template_keys`)."""
    cdef unsigned long long h = <unsigned long long> (t + 1) * multiplier
    cdef Py_ssize_t c
    for c in range(width):
        h = (h ^ <unsigned long long> row[columns[c]]) * multiplier
        h = h ^ (h >> shift)
    return h
