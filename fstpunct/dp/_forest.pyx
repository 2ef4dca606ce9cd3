# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The tree DP of :mod:`fstpunct.dp.treedp` compiled, over a whole :class:`~fstpunct.dp.forest.Forest`
per call: the inside pass in the real or the max-product semiring, and the Viterbi descent; or
both inside passes in one traversal (:func:`run_pair`: a real-semiring run and its max-product
twin, whose stacks have the same lines, read once for both, but for a dense matrix's, which each
run goes along in its own dense copy), with the same values.

The arithmetic is that of the Python reference, step by step: the same vectors (u_w, v_w, each
application's output) rescaled the same way, and in the max-product semiring the same products
of the same two factors, so maxima and every Viterbi choice (ties included: the first maximiser,
as ``np.argmax``) are bitwise those of :func:`fstpunct.dp.treedp.viterbi`. Sums may be added in
another order (last-bit differences). Only the matrices that some candidate uses are applied.

Status per sentence: ``OK``; ``ZERO`` (Z = 0), ``MALFORMED`` (heads not a projective tree, or
sizes of matrices and slot vectors that do not match) or ``NOT_FINITE``; the caller reruns such a
sentence through the Python reference for its error.
"""
from libc.math cimport INFINITY, exp, isfinite, log
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from ._sparse cimport State, _dense_lines, _first

cdef enum:
    _OK, _ZERO, _MALFORMED, _NOT_FINITE

OK, ZERO, MALFORMED, NOT_FINITE = _OK, _ZERO, _MALFORMED, _NOT_FINITE


cdef struct Lines:
    # Stored lines of matrices: line r's entries are e in ptr[r] : ptr[r + 1], in columns
    # col[e] (ascending), with values val[perm[e]] (val[e] where perm is NULL).
    const int* ptr
    const State* col
    const int* perm
    const double* val


cdef struct Mats:
    # A stack of `count` N×N matrices as CSR rows (line a·N + s = M_a[s, :]) and the rows of
    # the transposes (line a·N + t = M_a[:, t]) as a permutation of the rows' entries.
    Py_ssize_t n
    Py_ssize_t count
    Lines rows
    Lines cols
    # A stack of token chains (fstpunct.dp.chains.TokenChains, base > 0): matrix a < base is
    # the product M(υ₁)⋯M(υₘ) of the tokens stok[soff[a] : soff[a + 1]], never built: applied to
    # a vector token matrix by token matrix (_chain); matrix base + b is stored above as lines
    # b·N + s (base = 0: every matrix is stored).
    Py_ssize_t base
    const Py_ssize_t* soff
    const Py_ssize_t* stok
    Lines krows  # the token matrices' rows: line υ·N + s is M(υ)[s, :]
    Lines kcols  # and their columns: line υ·N + t is M(υ)[:, t]
    Py_ssize_t klines  # how many lines krows (and kcols) have


cdef struct Vecs:
    # A slot automaton's start and final vectors, and λ₀ᵀ ⊗ prefix where it opens a sentence.
    Py_ssize_t n
    Py_ssize_t n_entry
    const double* start
    const double* final
    const double* entry


cdef struct Vec:
    # A scaled vector exp(ls)·arena[off : off + n].
    Py_ssize_t off
    Py_ssize_t n
    double ls


cdef struct App:
    # One application of In(w): the vector it is applied to, its output, its direction and the
    # number of distinct near and far matrices its candidates use.
    Vec ctx
    Vec out
    bint rightward
    Py_ssize_t n_near, n_far


cdef struct Node:
    Vec u, v  # B(w) = u vᵀ: u in slot i, v in slot k
    App app
    Py_ssize_t ua, va  # in the outside pass: where the scaled adjoints of u and v are


cdef const Py_ssize_t* _iptr(object a):
    cdef const Py_ssize_t[::1] view = a
    return _first(view)


cdef const int* _i32ptr(object a):
    cdef const int[::1] view = a
    return _first(view)


cdef const State* _sptr(object a):
    cdef const State[::1] view = a
    return _first(view)


cdef const double* _dptr(object a):
    cdef const double[::1] view = a
    return _first(view)


cdef class _Inputs:
    """C views of the stacks and slot vectors (the arrays stay referenced by the caller)."""
    cdef Mats* mats
    cdef Vecs* vecs
    cdef Py_ssize_t n_mats, n_vecs, most, longest  # most matrices in a stack, largest N
    cdef bint chains  # whether some stack is of token chains
    # per stack and kind of lines (2·stack: rows, 2·stack + 1: columns), allocated at first
    # use: per stored matrix, its lines dense and transposed, made at first use
    # (:meth:`dense_lines`)
    cdef double*** dense

    def __cinit__(self, list mats, list vecs):
        self.n_mats, self.n_vecs = len(mats), len(vecs)
        self.mats = <Mats*> malloc(max(self.n_mats, 1) * sizeof(Mats))
        self.vecs = <Vecs*> malloc(max(self.n_vecs, 1) * sizeof(Vecs))
        self.dense = <double***> calloc(2 * max(self.n_mats, 1), sizeof(double**))
        if self.mats == NULL or self.vecs == NULL or self.dense == NULL:
            raise MemoryError()
        self.most, self.longest = 1, 1
        cdef Py_ssize_t q
        for q, m in enumerate(mats):
            self.mats[q].n, self.mats[q].count = m.size, m.count
            self.mats[q].rows.ptr, self.mats[q].rows.col = _i32ptr(m.ptr), _sptr(m.col)
            self.mats[q].rows.perm, self.mats[q].rows.val = NULL, _dptr(m.val)
            self.mats[q].cols.ptr, self.mats[q].cols.col = _i32ptr(m.tptr), _sptr(m.tcol)
            self.mats[q].cols.perm, self.mats[q].cols.val = _i32ptr(m.tperm), _dptr(m.val)
            self.mats[q].base = 0
            if getattr(m, "base", 0):
                self.chains = True
                self.mats[q].base = m.base
                self.mats[q].soff, self.mats[q].stok = _iptr(m.soff), _iptr(m.stok)
                self.mats[q].krows.ptr, self.mats[q].krows.col = _i32ptr(m.kptr), _sptr(m.kcol)
                self.mats[q].krows.perm, self.mats[q].krows.val = NULL, _dptr(m.kval)
                self.mats[q].kcols.ptr = _i32ptr(m.ktptr)
                self.mats[q].kcols.col = _sptr(m.ktcol)
                self.mats[q].kcols.perm, self.mats[q].kcols.val = _i32ptr(m.ktperm), _dptr(m.kval)
                self.mats[q].klines = len(m.kptr) - 1
            self.most = max(self.most, m.count)
            self.longest = max(self.longest, m.size)
        for q, x in enumerate(vecs):
            self.vecs[q].n = len(x.start)
            self.vecs[q].start, self.vecs[q].final = _dptr(x.start), _dptr(x.final)
            self.vecs[q].entry, self.vecs[q].n_entry = _dptr(x.entry), len(x.entry)
            if len(x.final) != len(x.start):
                raise ValueError("slot vectors: start and final differ in size")
            self.longest = max(self.longest, len(x.start))

    def __dealloc__(self):
        cdef Py_ssize_t k, b
        if self.dense != NULL:
            for k in range(2 * self.n_mats):
                if self.dense[k] != NULL:
                    for b in range(self.mats[k // 2].count - self.mats[k // 2].base):
                        free(self.dense[k][b])
                    free(self.dense[k])
        free(self.dense)
        free(self.mats)
        free(self.vecs)

    cdef const double* dense_lines(self, const Mats* m, Py_ssize_t a, bint cols) except? NULL:
        """The rows (or ``cols``) of stored matrix a of stack m (one of this object's) dense
        and transposed, as :func:`~fstpunct.dp._sparse._dense_lines` reads them (absent entries
        0), made at their first use in this call; NULL where fewer than half of them are
        stored (:func:`_dense_enough`: the sparse lines are cheaper). (Kept with the stacks
        for later calls, they cost decode ~9 MB of peak memory and saved no instructions.)"""
        if not _dense_enough(m, a, cols):
            return NULL
        cdef Py_ssize_t n = m.n, b = a - m.base, k = 2 * (m - self.mats) + cols
        cdef double* t
        if self.dense[k] == NULL:
            self.dense[k] = <double**> calloc(m.count - m.base, sizeof(double*))
            if self.dense[k] == NULL:
                raise MemoryError()
        t = self.dense[k][b]
        if t == NULL:
            t = self.dense[k][b] = <double*> calloc(n * n, sizeof(double))
            if t == NULL:
                raise MemoryError()
            _fill_dense(&m.cols if cols else &m.rows, b * n, n, t)
        return t


cdef void* _grow(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline double _plus(double a, double b, bint mx) noexcept nogil:
    """a ⊕ b; the maximum keeps a on ties, written as x86's ``maxsd`` (one instruction, where
    ``a if a >= b else b`` compiles to a compare and a blend): the same value unless one of
    them is NaN."""
    if mx:
        return b if b > a else a
    return a + b


# --- scaled vectors ------------------------------------------------------------------------------

cdef Py_ssize_t _nonzeros(const double* x, Py_ssize_t n, Py_ssize_t* out) noexcept nogil:
    """The indices of the nonzero entries of x[0:n] into out, ascending; their number."""
    cdef Py_ssize_t i, k = 0
    for i in range(n):
        if x[i] != 0.0:
            out[k] = i
            k += 1
    return k


cdef inline Py_ssize_t _count_nonzero(const double* x, Py_ssize_t n) noexcept nogil:
    """The number of nonzero entries of x[0:n]."""
    cdef Py_ssize_t i, k = 0
    for i in range(n):
        k += x[i] != 0.0
    return k


cdef void _rescale_in_place(double* y, Py_ssize_t n, Vec* out, double ls) noexcept nogil:
    cdef double top = 0.0
    cdef Py_ssize_t q
    for q in range(n):
        if y[q] > top:
            top = y[q]
    if top == 0.0:
        out.ls = 0.0
    elif top == 1.0:
        out.ls = ls
    else:
        for q in range(n):
            y[q] = y[q] / top
        out.ls = ls + log(top)


# --- lines of matrices ---------------------------------------------------------------------------

cdef inline Py_ssize_t _at(const int* perm, Py_ssize_t e) noexcept nogil:
    """Where a line's entry e has its value (:c:type:`Lines`); loops test the loop-invariant
    ``perm`` once (the compiler makes one loop of each kind)."""
    return perm[e] if perm != NULL else e


cdef inline double _dot(const Lines* lines, Py_ssize_t row, const double* x,
                        bint mx) noexcept nogil:
    """⊕_t line[t] ⊗ x[t] over the stored line ``row``."""
    cdef const State* col = lines.col
    cdef const int* perm = lines.perm
    cdef const double* val = lines.val
    cdef double acc = 0.0
    cdef Py_ssize_t e
    for e in range(lines.ptr[row], lines.ptr[row + 1]):
        acc = _plus(acc, val[_at(perm, e)] * x[col[e]], mx)
    return acc


cdef inline void _lines_k(const int* ptr, const State* col, const int* perm, const double* val,
                          Py_ssize_t n, const double* x, double w, double* out, bint mx,
                          bint permuted, bint add, bint pair, const double* val2,
                          const double* x2, double w2, double* out2) noexcept nogil:
    """:func:`_lines_into` for one semiring, one kind of lines and one kind of output (constant
    arguments, so that each call site compiles to its own loop: no per-line tests); with
    ``pair``, also the same into ``out2`` in the max-product semiring, from the values ``val2``
    of lines alike (the same ``ptr``, ``col``, ``perm``) against ``x2`` with ``w2``: the lines
    read once for both, each output's operations those of its own loop."""
    cdef Py_ssize_t s, e = ptr[0], end, p
    cdef State c
    cdef double acc, acc2 = 0.0
    for s in range(n):
        end = ptr[s + 1]
        acc = 0.0
        if pair:
            acc2 = 0.0
        while e < end:
            p = perm[e] if permuted else e
            c = col[e]
            acc = _plus(acc, val[p] * x[c], mx)
            if pair:
                acc2 = _plus(acc2, val2[p] * x2[c], True)
            e += 1
        out[s] = _plus(out[s], w * acc, mx) if add else acc
        if pair:
            out2[s] = _plus(out2[s], w2 * acc2, True) if add else acc2


cdef void _lines_into(const Lines* lines, Py_ssize_t row0, Py_ssize_t n, const double* x,
                      double w, double* out, bint mx, bint add) noexcept nogil:
    """out[s] = :func:`_dot` of line row0 + s against x, or out[s] ⊕= w ⊗ that (``add``), for
    s < n (the lines of one matrix, whose entries follow each other)."""
    if add:
        _lines_of(lines.ptr + row0, lines.col, lines.perm, lines.val, n, x, w, out, mx, True)
    else:
        _lines_of(lines.ptr + row0, lines.col, lines.perm, lines.val, n, x, w, out, mx, False)


cdef inline void _lines_of(const int* ptr, const State* col, const int* perm,
                           const double* val, Py_ssize_t n, const double* x, double w,
                           double* out, bint mx, bint add) noexcept nogil:
    """:func:`_lines_into` for one kind of output: a loop per semiring and kind of lines."""
    if perm != NULL:
        if mx:
            _lines_k(ptr, col, perm, val, n, x, w, out, True, True, add, False, NULL, NULL, 0.0,
                     NULL)
        else:
            _lines_k(ptr, col, perm, val, n, x, w, out, False, True, add, False, NULL, NULL, 0.0,
                     NULL)
    elif mx:
        _lines_k(ptr, col, NULL, val, n, x, w, out, True, False, add, False, NULL, NULL, 0.0, NULL)
    else:
        _lines_k(ptr, col, NULL, val, n, x, w, out, False, False, add, False, NULL, NULL, 0.0,
                 NULL)


cdef void _lines_pair(const Lines* lines, const double* val2, Py_ssize_t row0, Py_ssize_t n,
                      const double* x, const double* x2, double w, double w2, double* out,
                      double* out2, bint add) noexcept nogil:
    """:func:`_lines_into` adding w ⊗ (lines · x) into ``out`` in the real semiring and, over
    the same lines with the values ``val2``, w2 ⊗ (lines · x2) into ``out2`` in the max-product
    one (each bitwise what its own call gives); without ``add``, the products written (w and
    w2 unused)."""
    if add:
        if lines.perm != NULL:
            _lines_k(lines.ptr + row0, lines.col, lines.perm, lines.val, n, x, w, out, False,
                     True, True, True, val2, x2, w2, out2)
        else:
            _lines_k(lines.ptr + row0, lines.col, NULL, lines.val, n, x, w, out, False, False,
                     True, True, val2, x2, w2, out2)
    elif lines.perm != NULL:
        _lines_k(lines.ptr + row0, lines.col, lines.perm, lines.val, n, x, w, out, False, True,
                 False, True, val2, x2, w2, out2)
    else:
        _lines_k(lines.ptr + row0, lines.col, NULL, lines.val, n, x, w, out, False, False,
                 False, True, val2, x2, w2, out2)


cdef bint _same_lines(const Lines* a, const Lines* b, Py_ssize_t lines) noexcept:
    """Whether the first ``lines`` lines of a and b have the same entries in the same columns,
    read in the same order (values aside)."""
    if (a.perm == NULL) != (b.perm == NULL):
        return False
    if lines == 0:
        return True
    cdef Py_ssize_t entries = a.ptr[lines]
    if a.ptr != b.ptr and memcmp(a.ptr, b.ptr, (lines + 1) * sizeof(int)):
        return False
    if entries and a.col != b.col and memcmp(a.col, b.col, entries * sizeof(State)):
        return False
    return (a.perm == NULL or not entries or a.perm == b.perm
            or not memcmp(a.perm, b.perm, entries * sizeof(int)))


cdef enum:  # bits of _Run.alike: which lines of a stack its twin's has
    _STORED = 1
    _CHAINS = 2


cdef bint _same_chains(const Mats* a, const Mats* b) noexcept:
    """Whether two stacks have the same token chains over token matrices of the same lines."""
    if a.base != b.base or a.klines != b.klines:
        return False
    if a.soff != b.soff and memcmp(a.soff, b.soff, (a.base + 1) * sizeof(Py_ssize_t)):
        return False
    if (a.stok != b.stok and a.soff[a.base]
            and memcmp(a.stok, b.stok, a.soff[a.base] * sizeof(Py_ssize_t))):
        return False
    return (_same_lines(&a.krows, &b.krows, a.klines)
            and _same_lines(&a.kcols, &b.kcols, a.klines))


cdef inline Py_ssize_t _argmax_line(const Lines* lines, Py_ssize_t row,
                                    const double* x) noexcept nogil:
    """The first t maximising line[t]·x[t] over the dense line (0 if every product is 0)."""
    cdef const State* col = lines.col
    cdef const int* perm = lines.perm
    cdef const double* val = lines.val
    cdef double best = 0.0, p
    cdef Py_ssize_t at = 0, e
    for e in range(lines.ptr[row], lines.ptr[row + 1]):
        p = val[_at(perm, e)] * x[col[e]]
        if p > best:
            best, at = p, col[e]
    return at


cdef inline Py_ssize_t _line(const Mats* m, Py_ssize_t a, Py_ssize_t s) noexcept nogil:
    """Where line s of stored matrix a is (line a·N + s of rows or cols, less the chains)."""
    return (a - m.base) * m.n + s


cdef void _fill_dense(const Lines* lines, Py_ssize_t row0, Py_ssize_t n, double* t) noexcept:
    """t[c·n + r] = the entry in column c of line row0 + r, for r < n (t zeroed)."""
    cdef Py_ssize_t r, e
    for r in range(n):
        for e in range(lines.ptr[row0 + r], lines.ptr[row0 + r + 1]):
            t[lines.col[e] * n + r] = lines.val[_at(lines.perm, e)]


cdef inline bint _dense_enough(const Mats* m, Py_ssize_t a, bint cols) noexcept nogil:
    """Whether stored matrix a of stack m has at least half of its N² entries stored (its
    rows, or ``cols``: the same number), N ≥ 4: then its lines go along dense
    (:meth:`_Inputs.dense_lines`), as a slot's backoff closure does."""
    cdef const int* ptr = m.cols.ptr if cols else m.rows.ptr
    return m.n >= 4 and 2 * (ptr[_line(m, a + 1, 0)] - ptr[_line(m, a, 0)]) >= m.n * m.n


cdef inline bint _chained(const Mats* m, Py_ssize_t a) noexcept nogil:
    """Whether matrix a of the stack is a token chain (applied, never stored)."""
    return a < m.base


cdef inline double _dense_dot(const double* a, const double* b, Py_ssize_t n,
                              bint mx) noexcept nogil:
    """⊕_t a[t] ⊗ b[t]."""
    cdef double acc = 0.0
    cdef Py_ssize_t t
    for t in range(n):
        acc = _plus(acc, a[t] * b[t], mx)
    return acc


cdef inline Py_ssize_t _scatter_line(const Lines* lines, const double* val, Py_ssize_t row,
                                     double x, double* out, bint mx) noexcept nogil:
    """out ⊕= line ``row`` of ``lines`` (its values in ``val``) ⊗ x, the line's entries in
    order: a step across lines from a nonzero entry x; the number of entries scattered."""
    cdef Py_ssize_t e, c
    for e in range(lines.ptr[row], lines.ptr[row + 1]):
        c = lines.col[e]
        out[c] = _plus(out[c], val[_at(lines.perm, e)] * x, mx)
    return lines.ptr[row + 1] - lines.ptr[row]


cdef inline Py_ssize_t _chain_step(const Lines* along, const Lines* across, Py_ssize_t tok,
                                   Py_ssize_t n, const double* cur, Py_ssize_t nonzero,
                                   double* nxt, bint mx) noexcept nogil:
    """One step of :func:`_chain`: nxt = M(tok) ⊗ cur (or cur ⊗ M(tok), as ``along`` and
    ``across`` are oriented); the new bound on nxt's nonzero entries."""
    cdef Py_ssize_t s
    if 4 * nonzero < n:  # across: each nonzero entry's line, scattered
        memset(nxt, 0, n * sizeof(double))
        nonzero = 0  # bounded by the entries scattered
        for s in range(n):
            if cur[s] != 0.0:
                nonzero += _scatter_line(across, across.val, tok * n + s, cur[s], nxt, mx)
        return nonzero
    _lines_into(along, tok * n, n, cur, 1.0, nxt, mx, False)  # along
    return _count_nonzero(nxt, n)


cdef void _chain(const Mats* m, Py_ssize_t a, const double* x, Py_ssize_t nonzero, double* out,
                 double* tmp, bint vm, bint mx) noexcept nogil:
    """out = M_a ⊗ x, or x ⊗ M_a (``vm``), for the token chain a: M(υ₁)(M(υ₂)(⋯ M(υₘ) x)) or
    ((x M(υ₁)) M(υ₂))⋯, one sparse token matrix at a time (x itself for ε); ``tmp``: N doubles
    of scratch (neither may be x). A step from a vector with few nonzeros (λ, ρ: ``nonzero``
    is x's number of them, or more) goes across the lines of the other orientation from them:
    the same terms added in the same order (a line's entries ascend), so either way gives the
    same bits, and the counts need only choose well."""
    cdef Py_ssize_t n = m.n, lo = m.soff[a], hi = m.soff[a + 1], k, tok
    cdef const double* cur = x
    cdef double* nxt = out if (hi - lo) % 2 else tmp  # so that the last step writes out
    cdef const Lines* along = &m.kcols if vm else &m.krows
    cdef const Lines* across = &m.krows if vm else &m.kcols
    if hi == lo:
        memcpy(out, x, n * sizeof(double))
        return
    for k in range(hi - lo):
        tok = m.stok[lo + k] if vm else m.stok[hi - 1 - k]
        nonzero = _chain_step(along, across, tok, n, cur, nonzero, nxt, mx)
        cur = nxt
        nxt = tmp if nxt == out else out


cdef void _chain_pair(const Mats* m, const Mats* m2, Py_ssize_t a, const double* x,
                      const double* x2, Py_ssize_t nonzero, Py_ssize_t nonzero2, double* out,
                      double* tmp, double* out2, double* tmp2, bint vm) noexcept nogil:
    """:func:`_chain` of token chain a in the real-semiring stack ``m`` (x into out) and in its
    max-product twin ``m2`` (x2 into out2), whose token matrices have the same lines: where
    both steps go the same way, the lines are read once for both; each output's operations are
    those of its own :func:`_chain` (the same bits)."""
    cdef Py_ssize_t n = m.n, lo = m.soff[a], hi = m.soff[a + 1], k, tok, s, e, p, c
    cdef const double* cur = x
    cdef const double* cur2 = x2
    cdef double* nxt = out if (hi - lo) % 2 else tmp
    cdef double* nxt2 = out2 if (hi - lo) % 2 else tmp2
    cdef const Lines* along = &m.kcols if vm else &m.krows
    cdef const Lines* across = &m.krows if vm else &m.kcols
    cdef const Lines* along2 = &m2.kcols if vm else &m2.krows
    cdef const Lines* across2 = &m2.krows if vm else &m2.kcols
    cdef const double* val2 = across2.val
    cdef double xs, xs2
    if hi == lo:
        memcpy(out, x, n * sizeof(double))
        memcpy(out2, x2, n * sizeof(double))
        return
    for k in range(hi - lo):
        tok = m.stok[lo + k] if vm else m.stok[hi - 1 - k]
        if 4 * nonzero < n and 4 * nonzero2 < n:  # both across
            memset(nxt, 0, n * sizeof(double))
            memset(nxt2, 0, n * sizeof(double))
            nonzero, nonzero2 = 0, 0
            for s in range(n):
                xs, xs2 = cur[s], cur2[s]
                if xs != 0.0 and xs2 != 0.0:
                    nonzero += across.ptr[tok * n + s + 1] - across.ptr[tok * n + s]
                    nonzero2 += across.ptr[tok * n + s + 1] - across.ptr[tok * n + s]
                    for e in range(across.ptr[tok * n + s], across.ptr[tok * n + s + 1]):
                        p, c = _at(across.perm, e), across.col[e]
                        nxt[c] = nxt[c] + across.val[p] * xs
                        nxt2[c] = _plus(nxt2[c], val2[p] * xs2, True)
                elif xs != 0.0:
                    nonzero += _scatter_line(across, across.val, tok * n + s, xs, nxt, False)
                elif xs2 != 0.0:
                    nonzero2 += _scatter_line(across, val2, tok * n + s, xs2, nxt2, True)
        elif 4 * nonzero >= n and 4 * nonzero2 >= n:  # both along
            _lines_pair(along, along2.val, tok * n, n, cur, cur2, 1.0, 1.0, nxt, nxt2, False)
            nonzero, nonzero2 = _count_nonzero(nxt, n), _count_nonzero(nxt2, n)
        else:
            nonzero = _chain_step(along, across, tok, n, cur, nonzero, nxt, False)
            nonzero2 = _chain_step(along2, across2, tok, n, cur2, nonzero2, nxt2, True)
        cur, cur2 = nxt, nxt2
        nxt = tmp if nxt == out else out
        nxt2 = tmp2 if nxt2 == out2 else out2


cdef inline double _far_ctx(const Mats* m, Py_ssize_t f, Py_ssize_t y, const double* ctx,
                            bint rightward, bint mx) noexcept nogil:
    """(far matrix f applied to ctx)[y]: row y of R_f ⊗ ctx, or ctx ⊗ column y of L_f (f
    stored)."""
    return _dot(&m.cols if rightward else &m.rows, _line(m, f, y), ctx, mx)


cdef inline double _near_vec(const Mats* m, Py_ssize_t a, Py_ssize_t s, const double* inner,
                             bint rightward, bint mx) noexcept nogil:
    """(near matrix a applied to the near inner vector)[s] (a stored)."""
    return _dot(&m.cols if rightward else &m.rows, _line(m, a, s), inner, mx)


# --- the forest ----------------------------------------------------------------------------------

cdef class _Forest:
    """Typed views of a Forest's arrays."""
    cdef const Py_ssize_t[::1] word_off, node_off, heads, slot_vecs, node_left, node_right
    cdef const Py_ssize_t[::1] cand_off
    cdef const int[::1] left_of, right_of
    cdef const double[::1] weights

    def __cinit__(self, forest):
        self.word_off, self.node_off = forest.word_offsets, forest.node_offsets
        self.heads, self.slot_vecs = forest.heads, forest.slot_vectors
        self.node_left, self.node_right = forest.node_left, forest.node_right
        self.cand_off, self.weights = forest.candidate_offsets, forest.weights
        self.left_of, self.right_of = forest.left_of, forest.right_of


cdef struct Sides:
    # An application's near side (where its chain enters) and far side.
    const Mats* near
    const Mats* far
    const int* near_of
    const int* far_of
    Vec near_in
    Vec far_in


cdef struct Lane:
    # One run's side of an application (_Run.apply): its sides and context, its output (raw,
    # before rescaling), its vectors in the arena and their nonzero entries, and where its
    # distinct far matrices' values and near matrices' weights go.
    Sides sd
    Vec ctx
    Vec out
    const double* cx
    const double* far_in
    const double* near_in
    double* raw
    Py_ssize_t* nz_far
    Py_ssize_t* nz_ctx
    Py_ssize_t* nz_near
    Py_ssize_t n_nz_far, n_nz_ctx, n_nz_near
    double* far_val
    double* near_w


cdef enum:  # how a near matrix goes into an application's output (_Run.way)
    _SKIP, _CHAINED, _ACROSS, _ALONG


cdef bint _same_nonzeros(const Lane* a, const Lane* b) noexcept:
    """Whether two lanes' far and context vectors have their nonzero entries in the same places
    (then both runs take the same way through :func:`_far_at`)."""
    return (a.n_nz_far == b.n_nz_far and a.n_nz_ctx == b.n_nz_ctx
            and not memcmp(a.nz_far, b.nz_far, a.n_nz_far * sizeof(Py_ssize_t))
            and not memcmp(a.nz_ctx, b.nz_ctx, a.n_nz_ctx * sizeof(Py_ssize_t)))


cdef bint _same_near_nonzeros(const Lane* a, const Lane* b) noexcept:
    """Whether two lanes' near vectors have their nonzero entries in the same places."""
    return (a.n_nz_near == b.n_nz_near
            and not memcmp(a.nz_near, b.nz_near, a.n_nz_near * sizeof(Py_ssize_t)))


cdef inline void _near_at(Lane* ln, Lane* ln2, Py_ssize_t a, double w, double w2, int way,
                          bint rightward, bint mx, bint pair, double* z, Py_ssize_t zn,
                          double* z2, Py_ssize_t zn2) noexcept:
    """raw ⊕= w ⊗ (near matrix a applied to near_in) in lane ``ln`` (max-product if ``mx``),
    the way ``way`` (:meth:`_Run.way`; a token chain applied in ``z``, 2·``zn`` doubles of
    scratch); with ``pair`` (constant arguments: each call site compiles to its own code),
    ``ln`` real and ``ln2`` max-product, both taking that way over alike lines (across, from
    the same nonzeros), also w2 ⊗ … into ``ln2``'s raw (scratch ``z2``, ``zn2``), the lines
    read once for both, each value's operations those of its own run (the same bits)."""
    cdef const Mats* nm = ln.sd.near
    cdef const Lines* across = &nm.rows if rightward else &nm.cols
    cdef const Lines* along = &nm.cols if rightward else &nm.rows
    cdef const double* across2 = NULL
    cdef const double* along2 = NULL
    cdef const double* near_in = ln.near_in
    cdef const double* near_in2 = NULL
    cdef double* raw = ln.raw
    cdef double* raw2 = NULL
    cdef Py_ssize_t k, y, r, e, p, c, s
    cdef double x, x2 = 0.0
    if pair:
        across2 = ln2.sd.near.rows.val if rightward else ln2.sd.near.cols.val
        along2 = ln2.sd.near.cols.val if rightward else ln2.sd.near.rows.val
        near_in2, raw2 = ln2.near_in, ln2.raw
    if way == _CHAINED:
        if pair:
            _chain_pair(nm, ln2.sd.near, a, near_in, near_in2, ln.n_nz_near, ln2.n_nz_near, z,
                        z + zn, z2, z2 + zn2, rightward)
        else:
            _chain(nm, a, near_in, ln.n_nz_near, z, z + zn, rightward, mx)
        for s in range(ln.out.n):
            raw[s] = _plus(raw[s], w * z[s], mx)
            if pair:
                raw2[s] = _plus(raw2[s], w2 * z2[s], True)
    elif way == _ACROSS:  # from the inner vector's nonzeros
        for k in range(ln.n_nz_near):
            y = ln.nz_near[k]
            r = _line(nm, a, y)
            x = near_in[y]
            if pair:
                x2 = near_in2[y]
            for e in range(across.ptr[r], across.ptr[r + 1]):
                p, c = _at(across.perm, e), across.col[e]
                raw[c] = _plus(raw[c], w * (across.val[p] * x), mx)
                if pair:
                    raw2[c] = _plus(raw2[c], w2 * (across2[p] * x2), True)
    elif way == _ALONG:
        if pair:
            _lines_pair(along, along2, _line(nm, a, 0), ln.out.n, near_in, near_in2, w, w2, raw,
                        raw2, True)
        else:
            _lines_into(along, _line(nm, a, 0), ln.out.n, near_in, w, raw, mx, True)


cdef inline void _far_at(const Lane* ln, const Lane* ln2, Py_ssize_t a, bint rightward,
                         bint mx, bint pair, double* z, Py_ssize_t zn, double* z2,
                         Py_ssize_t zn2, double* out, double* out2) noexcept:
    """out[0] = far_in ⊗ (far matrix a applied to ctx) in lane ``ln`` (max-product if ``mx``;
    a token chain applied in ``z``, 2·``zn`` doubles of scratch); with ``pair`` (constant
    arguments: each call site compiles to its own code), ``ln`` real and ``ln2`` max-product,
    their far stacks alike (stored lines, and token chains if a is one) and their vectors of
    the same nonzeros, also out2[0] for ``ln2`` (scratch ``z2``, ``zn2``), the lines read once
    for both, each value's operations those of its own run (the same bits)."""
    # lines of a matrix "along" the application (rows of a leftward one's matrices, columns
    # of a rightward one's) give the products one output entry at a time; lines "across"
    # give the terms of one nonzero input entry, for sparse inputs (mostly λ and ρ, which
    # have a single nonzero). In the max-product semiring both orders give the same
    # values: rounding a product by a fixed factor is monotone, so it commutes with max.
    cdef const Mats* fm = ln.sd.far
    cdef const Lines* across = &fm.rows if rightward else &fm.cols
    cdef const Lines* along = &fm.cols if rightward else &fm.rows
    cdef const double* across2 = NULL
    cdef const double* along2 = NULL
    cdef const double* cx = ln.cx
    cdef const double* far_in = ln.far_in
    cdef const double* cx2 = NULL
    cdef const double* far_in2 = NULL
    cdef const Py_ssize_t* nz_far = ln.nz_far
    cdef const Py_ssize_t* nz_ctx = ln.nz_ctx
    cdef Py_ssize_t n_nz_far = ln.n_nz_far, n_nz_ctx = ln.n_nz_ctx, k, y, r, e, p, c
    cdef double acc = 0.0, acc2 = 0.0, x, x2 = 0.0, d, d2
    if pair:
        across2 = ln2.sd.far.rows.val if rightward else ln2.sd.far.cols.val
        along2 = ln2.sd.far.cols.val if rightward else ln2.sd.far.rows.val
        cx2, far_in2 = ln2.cx, ln2.far_in
    if _chained(fm, a) and n_nz_ctx <= n_nz_far:  # a token chain, applied to the sparser vector
        if pair:
            _chain_pair(fm, ln2.sd.far, a, cx, cx2, n_nz_ctx, n_nz_ctx, z, z + zn, z2, z2 + zn2,
                        rightward)
        else:
            _chain(fm, a, cx, n_nz_ctx, z, z + zn, rightward, mx)
        for k in range(n_nz_far):
            y = nz_far[k]
            acc = _plus(acc, z[y] * far_in[y], mx)
            if pair:
                acc2 = _plus(acc2, z2[y] * far_in2[y], True)
    elif _chained(fm, a):
        if pair:
            _chain_pair(fm, ln2.sd.far, a, far_in, far_in2, n_nz_far, n_nz_far, z, z + zn, z2,
                        z2 + zn2, not rightward)
        else:
            _chain(fm, a, far_in, n_nz_far, z, z + zn, not rightward, mx)
        for k in range(n_nz_ctx):
            y = nz_ctx[k]
            acc = _plus(acc, z[y] * cx[y], mx)
            if pair:
                acc2 = _plus(acc2, z2[y] * cx2[y], True)
    elif n_nz_ctx < n_nz_far:  # across, from the context's nonzeros
        for k in range(n_nz_ctx):
            r = _line(fm, a, nz_ctx[k])
            x = cx[nz_ctx[k]]
            if pair:
                x2 = cx2[nz_ctx[k]]
            for e in range(across.ptr[r], across.ptr[r + 1]):
                p, c = _at(across.perm, e), across.col[e]
                acc = _plus(acc, (across.val[p] * x) * far_in[c], mx)
                if pair:
                    acc2 = _plus(acc2, (across2[p] * x2) * far_in2[c], True)
    elif not pair:  # along: each nonzero of far_in against its line applied to ctx
        for k in range(n_nz_far):
            y = nz_far[k]
            acc = _plus(acc, _far_ctx(fm, a, y, cx, rightward, mx) * far_in[y], mx)
    else:  # along, both runs over one line
        for k in range(n_nz_far):
            y = nz_far[k]
            r = _line(fm, a, y)
            d, d2 = 0.0, 0.0
            for e in range(along.ptr[r], along.ptr[r + 1]):
                p, c = _at(along.perm, e), along.col[e]
                d = _plus(d, along.val[p] * cx[c], mx)
                d2 = _plus(d2, along2[p] * cx2[c], True)
            acc = _plus(acc, d * far_in[y], mx)
            acc2 = _plus(acc2, d2 * far_in2[y], True)
    out[0] = acc
    if pair:
        out2[0] = acc2


cdef struct Sentence:
    # Where one sentence's nodes, candidates and slots start in the forest, and its tree.
    Py_ssize_t n, w0, node0, cand0, slot0
    Py_ssize_t root
    Py_ssize_t* kid_ptr   # n + 2: the children of word h are kids[kid_ptr[h] : kid_ptr[h + 1]]
    Py_ssize_t* kids      # n, ascending
    Py_ssize_t* order     # n node indices (word − 1), children first
    Py_ssize_t* lo        # n + 1 by word: the span's first and last word
    Py_ssize_t* hi


cdef class _Run:
    """One pass over a forest in one semiring, with its scratch space."""
    cdef _Forest fo
    cdef _Inputs inp
    cdef bint mx
    cdef double* arena     # the scaled vectors of the current sentence
    cdef Py_ssize_t size, used
    cdef Node* nodes       # per node of the current sentence
    cdef Py_ssize_t* ints  # its tree
    cdef Py_ssize_t n_nodes
    cdef Py_ssize_t* mark  # per matrix of a stack: its place among a node's distinct ones, or -1
    cdef unsigned char* alike  # per stack, with a twin (pair): which of its lines the twin's has
    cdef Py_ssize_t* nz    # 3 × the largest slot: nonzero entries of an application's vectors
    cdef double* buf       # 2 per candidate: the far values, the near weights
    cdef Py_ssize_t* loc   # 2 per candidate: local near index, local far index
    cdef Py_ssize_t* idx   # 2 per candidate: distinct near matrices, distinct far matrices
    cdef double* adj       # 2 per candidate: in the outside pass, d_near and d_far
    cdef double* tab       # a table to choose from (candidates or states) ...
    cdef Py_ssize_t* sup   # ... and its support
    cdef double* lz        # 3 × the largest slot: a token chain's output, its scratch, a unit
    cdef Py_ssize_t n_cands, n_tab
    cdef Sentence sen
    cdef object rng        # sampling: a numpy Generator (None: maximise)
    cdef double pz         # the pseudo node's total, and where its e ⊗ L_a and R_c ⊗ ρ₀ are
    cdef Py_ssize_t p_el, p_rf, p_left, p_right

    def __cinit__(self, forest, list mats, list vecs, bint maximum, rng=None):
        self.fo, self.inp, self.mx = _Forest(forest), _Inputs(mats, vecs), maximum
        self.rng = rng
        self.mark = <Py_ssize_t*> malloc(self.inp.most * sizeof(Py_ssize_t))
        self.nz = <Py_ssize_t*> malloc(3 * self.inp.longest * sizeof(Py_ssize_t))
        self.n_tab = self.inp.longest
        self.tab = <double*> malloc(self.n_tab * sizeof(double))
        self.sup = <Py_ssize_t*> malloc(self.n_tab * sizeof(Py_ssize_t))
        self.lz = <double*> malloc(3 * self.inp.longest * sizeof(double))
        if (self.mark == NULL or self.nz == NULL or self.tab == NULL or self.sup == NULL
                or self.lz == NULL):
            raise MemoryError()
        cdef Py_ssize_t q
        for q in range(self.inp.most):
            self.mark[q] = -1
        for q in range(self.inp.longest):
            self.lz[2 * self.inp.longest + q] = 0.0

    def __dealloc__(self):
        free(self.arena)
        free(self.nodes)
        free(self.ints)
        free(self.mark)
        free(self.alike)
        free(self.nz)
        free(self.buf)
        free(self.loc)
        free(self.idx)
        free(self.adj)
        free(self.tab)
        free(self.sup)
        free(self.lz)

    cdef int start(self, Py_ssize_t s) except -1:
        """Make room for sentence s and point self.sen at it."""
        cdef _Forest fo = self.fo
        cdef Py_ssize_t n = fo.word_off[s + 1] - fo.word_off[s]
        cdef Py_ssize_t node0 = fo.node_off[s], nodes = fo.node_off[s + 1] - node0
        cdef Py_ssize_t cands = fo.cand_off[node0 + nodes] - fo.cand_off[node0]
        if nodes > self.n_nodes:
            self.n_nodes = 2 * nodes
            self.nodes = <Node*> _grow(self.nodes, self.n_nodes * sizeof(Node))
            self.ints = <Py_ssize_t*> _grow(self.ints,
                                            (10 * self.n_nodes + 16) * sizeof(Py_ssize_t))
        if cands > self.n_cands:
            self.n_cands = 2 * cands
            self.buf = <double*> _grow(self.buf, 2 * self.n_cands * sizeof(double))
            self.loc = <Py_ssize_t*> _grow(self.loc, 2 * self.n_cands * sizeof(Py_ssize_t))
            self.idx = <Py_ssize_t*> _grow(self.idx, 2 * self.n_cands * sizeof(Py_ssize_t))
            self.adj = <double*> _grow(self.adj, 2 * self.n_cands * sizeof(double))
        if self.n_cands > self.n_tab:
            self.n_tab = self.n_cands
            self.tab = <double*> _grow(self.tab, self.n_tab * sizeof(double))
            self.sup = <Py_ssize_t*> _grow(self.sup, self.n_tab * sizeof(Py_ssize_t))
        self.used = 0
        self.sen.n, self.sen.node0, self.sen.cand0 = n, node0, fo.cand_off[node0]
        self.sen.w0, self.sen.slot0 = fo.word_off[s], fo.word_off[s] + s
        return 0

    cdef int pair(self, _Run twin) except -1:
        """Make ``twin`` (the same forest's run in the max-product semiring; this one in the real
        one) this run's twin (:meth:`apply`): note which of its stacks have the same lines as
        this run's (the same entries in the same columns: stacks built together share them): bit
        :data:`_STORED` for the stored matrices' lines, :data:`_CHAINS` for the token chains and
        the token matrices' lines (set too for a stack without chains: none unlike)."""
        if self.mx or not twin.mx:
            raise ValueError("a pair of runs is a real-semiring run and a max-product twin")
        self.alike = <unsigned char*> _grow(self.alike, max(self.inp.n_mats, 1))
        cdef Py_ssize_t q, lines
        cdef const Mats* a
        cdef const Mats* b
        for q in range(self.inp.n_mats):
            a, b = &self.inp.mats[q], &twin.inp.mats[q] if q < twin.inp.n_mats else NULL
            self.alike[q] = 0
            if b != NULL and a.n == b.n and a.count == b.count and a.base == b.base:
                lines = (a.count - a.base) * a.n
                if _same_lines(&a.rows, &b.rows, lines) and _same_lines(&a.cols, &b.cols, lines):
                    self.alike[q] = _STORED
                if not a.base or _same_chains(a, b):  # a stack without chains: none unlike
                    self.alike[q] |= _CHAINS
        return 0

    cdef Py_ssize_t take(self, Py_ssize_t n) except -1:
        """Room for n doubles in the arena (which may move): their offset."""
        cdef Py_ssize_t at = self.used
        if at + n > self.size:
            self.size = 2 * (at + n) + 64
            self.arena = <double*> _grow(self.arena, self.size * sizeof(double))
        self.used = at + n
        return at

    cdef double* chained(self, const Mats* m, Py_ssize_t a, const double* x, Py_ssize_t nonzero,
                         bint vm) noexcept:
        """M_a ⊗ x (or x ⊗ M_a) for a token chain a, in scratch (valid until the next call);
        ``nonzero``: as :func:`_chain`'s."""
        _chain(m, a, x, nonzero, self.lz, self.lz + self.inp.longest, vm, self.mx)
        return self.lz

    cdef double* chain_line(self, const Mats* m, Py_ssize_t a, Py_ssize_t s, bint column) noexcept:
        """Row s (or column s) of a token chain a as a dense vector, in scratch."""
        cdef double* unit = self.lz + 2 * self.inp.longest
        unit[s] = 1.0
        _chain(m, a, unit, 1, self.lz, self.lz + self.inp.longest, not column, self.mx)
        unit[s] = 0.0
        return self.lz

    cdef Py_ssize_t pick_in(self, const Mats* m, Py_ssize_t a, Py_ssize_t s, const double* x,
                            bint column) except -1:
        """As :meth:`pick_line` over column s (or row s) of matrix a, stored or a token
        chain (its line computed, dense)."""
        cdef Py_ssize_t t
        cdef const double* line
        if not _chained(m, a):
            return self.pick_line(&m.cols if column else &m.rows, _line(m, a, s), x)
        line = self.chain_line(m, a, s, column)
        for t in range(m.n):
            self.tab[t] = line[t] * x[t]
        return self.pick(m.n)

    cdef const Vecs* vecs(self, Py_ssize_t slot) noexcept:
        return &self.inp.vecs[self.fo.slot_vecs[self.sen.slot0 + slot]]

    cdef Vec rescaled(self, const double* x, Py_ssize_t n) except *:
        """``rescale(x)`` of the reference, copied into the arena."""
        cdef Vec out
        out.off, out.n = self.take(n), n
        cdef double* y = self.arena + out.off
        memcpy(y, x, n * sizeof(double))
        _rescale_in_place(y, n, &out, 0.0)
        return out

    # --- the tree --------------------------------------------------------------------------------

    cdef bint tree(self) noexcept:
        """The current sentence's tree from its heads; False unless it is a projective tree."""
        cdef Sentence* t = &self.sen
        cdef Py_ssize_t n = t.n
        cdef const Py_ssize_t* heads = _first(self.fo.heads) + t.w0
        cdef Py_ssize_t* ints = self.ints
        t.kid_ptr, t.kids, t.order = ints, ints + (n + 2), ints + (2 * n + 2)
        t.lo, t.hi = ints + (3 * n + 2), ints + (4 * n + 3)
        cdef Py_ssize_t* size = ints + (5 * n + 4)  # n + 1; also fill pointers and visit marks
        cdef Py_ssize_t* stack = ints + (6 * n + 5)  # n + 1
        return _build_tree(t, heads, n, size, stack)

    cdef bint sizes_match(self) noexcept:
        """Whether every node's matrices have the size of its slots' vectors, and slot 0 has an
        entry vector of that size (the current sentence, tree built if it has words)."""
        cdef Sentence* t = &self.sen
        cdef Py_ssize_t v, g, i = 0, k = 0
        if self.vecs(0).n_entry != self.vecs(0).n:
            return False
        for v in range(max(t.n, 1)):
            g = t.node0 + v
            if t.n:
                i, k = t.lo[v + 1] - 1, t.hi[v + 1]
            if (self.inp.mats[self.fo.node_left[g]].n != self.vecs(i).n
                    or self.inp.mats[self.fo.node_right[g]].n != self.vecs(k).n):
                return False
        return True

    # --- inside ----------------------------------------------------------------------------------

    cdef Sides sides(self, Py_ssize_t v, bint rightward) noexcept:
        cdef _Forest fo = self.fo
        cdef Node* nd = &self.nodes[v]
        cdef Py_ssize_t g = self.sen.node0 + v
        cdef Sides sd
        if rightward:
            sd.near, sd.far = &self.inp.mats[fo.node_right[g]], &self.inp.mats[fo.node_left[g]]
            sd.near_of, sd.far_of = _first(fo.right_of), _first(fo.left_of)
            sd.near_in, sd.far_in = nd.v, nd.u
        else:
            sd.near, sd.far = &self.inp.mats[fo.node_left[g]], &self.inp.mats[fo.node_right[g]]
            sd.near_of, sd.far_of = _first(fo.left_of), _first(fo.right_of)
            sd.near_in, sd.far_in = nd.u, nd.v
        return sd

    cdef void distinct(self, const int* of, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* loc,
                       Py_ssize_t* idx, Py_ssize_t* count) noexcept:
        """Number the distinct matrices of[lo:hi] in order of first use: loc[j − lo], idx[q]."""
        cdef Py_ssize_t j, a, q = 0
        for j in range(lo, hi):
            a = of[j]
            if self.mark[a] < 0:
                self.mark[a] = q
                idx[q] = a
                q += 1
            loc[j - lo] = self.mark[a]
        for j in range(q):
            self.mark[idx[j]] = -1
        count[0] = q

    cdef int apply(self, Py_ssize_t v, Vec ctx, bint rightward, _Run twin,
                   Vec twin_ctx) except -1:
        """In(v) ⊗ ctx (leftward) or ctx ⊗ In(v) (rightward) as node v's application; the
        values of its distinct far matrices stay in buf for the descent. With a ``twin`` (a run
        in the max-product semiring, this one in the real one, :meth:`pair`), the same
        application there to ``twin_ctx``: its candidates' matrices numbered once, and the lines
        of alike stacks read once for both where both runs take the same way: the far
        matrices' where both runs' vectors have the same nonzeros (:meth:`far_pair`), a near
        matrix's where both go along its lines (not a dense one's: each run goes along its own
        dense copy, :meth:`_Inputs.dense_lines`), or across them from the same nonzeros, or both
        apply its token chain (:func:`_near_at`); each run's values, and its choices between
        ways, are its own."""
        cdef Py_ssize_t g = self.sen.node0 + v
        cdef Py_ssize_t lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef Py_ssize_t at = 2 * (lo - self.sen.cand0), q, n_near, n_far
        cdef Py_ssize_t* loc_near = self.loc + at
        cdef Py_ssize_t* loc_far = loc_near + (hi - lo)
        cdef Py_ssize_t* near_idx = self.idx + at
        cdef Py_ssize_t* far_idx = near_idx + (hi - lo)
        cdef Lane one, two
        cdef bint paired = twin is not None
        cdef unsigned char alike = 0, far_alike
        cdef bint same_near = False
        cdef int way, way2
        self.begin(v, ctx, rightward, lo, hi, &one)
        cdef const Sides* sd = &one.sd
        self.distinct(sd.far_of, lo, hi, loc_far, far_idx, &n_far)
        self.distinct(sd.near_of, lo, hi, loc_near, near_idx, &n_near)
        if paired:
            memcpy(twin.loc + at, self.loc + at, 2 * (hi - lo) * sizeof(Py_ssize_t))
            memcpy(twin.idx + at, self.idx + at, 2 * (hi - lo) * sizeof(Py_ssize_t))
            twin.begin(v, twin_ctx, rightward, lo, hi, &two)
            far_alike = self.alike[self.fo.node_left[g] if rightward else self.fo.node_right[g]]
            if far_alike & _STORED and far_alike & _CHAINS and _same_nonzeros(&one, &two):
                self.far_pair(&one, twin, &two, far_idx, n_far, rightward)
            else:
                self.far(&one, far_idx, n_far, rightward)
                twin.far(&two, far_idx, n_far, rightward)
            twin.weigh(&two, lo, hi, loc_near, loc_far, n_near)
            alike = self.alike[self.fo.node_right[g] if rightward else self.fo.node_left[g]]
            same_near = alike & _STORED and _same_near_nonzeros(&one, &two)
        else:
            self.far(&one, far_idx, n_far, rightward)
        self.weigh(&one, lo, hi, loc_near, loc_far, n_near)
        for q in range(n_near):
            way = self.way(&one, near_idx[q], one.near_w[q])
            if paired:
                way2 = twin.way(&two, near_idx[q], two.near_w[q])
                if way == way2 and (way == _ALONG and alike & _STORED
                                    and not _dense_enough(one.sd.near, near_idx[q], rightward)
                                    or way == _ACROSS and same_near
                                    or way == _CHAINED and alike & _CHAINS):
                    _near_at(&one, &two, near_idx[q], one.near_w[q], two.near_w[q], way,
                             rightward, False, True, self.lz, self.inp.longest, twin.lz,
                             twin.inp.longest)
                    continue
                twin.near(&two, near_idx[q], two.near_w[q], way2, rightward)
            self.near(&one, near_idx[q], one.near_w[q], way, rightward)
        self.close(v, &one, rightward, n_near, n_far)
        if paired:
            twin.close(v, &two, rightward, n_near, n_far)
        return 0

    cdef int begin(self, Py_ssize_t v, Vec ctx, bint rightward, Py_ssize_t lo, Py_ssize_t hi,
                   Lane* ln) except -1:
        """Node v's application to ctx (its candidates lo..hi−1): room for its output, where its
        vectors are and their nonzero entries, where its far values and near weights go."""
        ln.sd = self.sides(v, rightward)
        ln.ctx = ctx
        ln.out.n = ln.sd.near_in.n
        ln.out.off = self.take(ln.out.n)  # before any pointer into the arena is taken
        ln.cx = self.arena + ctx.off
        ln.far_in = self.arena + ln.sd.far_in.off
        ln.near_in = self.arena + ln.sd.near_in.off
        ln.raw = self.arena + ln.out.off
        ln.nz_far = self.nz
        ln.nz_ctx = self.nz + self.inp.longest
        ln.nz_near = ln.nz_ctx + self.inp.longest
        ln.n_nz_far = _nonzeros(ln.far_in, ln.sd.far_in.n, ln.nz_far)
        ln.n_nz_ctx = _nonzeros(ln.cx, ctx.n, ln.nz_ctx)
        ln.n_nz_near = _nonzeros(ln.near_in, ln.sd.near_in.n, ln.nz_near)
        ln.far_val = self.buf + 2 * (lo - self.sen.cand0)
        ln.near_w = ln.far_val + (hi - lo)
        return 0

    cdef void far(self, Lane* ln, const Py_ssize_t* far_idx, Py_ssize_t n_far,
                  bint rightward) noexcept:
        """far_val[q] = far_in ⊗ (far matrix far_idx[q] applied to ctx), q < n_far."""
        cdef Py_ssize_t q
        for q in range(n_far):
            if self.mx:
                _far_at(ln, NULL, far_idx[q], rightward, True, False, self.lz,
                        self.inp.longest, NULL, 0, &ln.far_val[q], NULL)
            else:
                _far_at(ln, NULL, far_idx[q], rightward, False, False, self.lz,
                        self.inp.longest, NULL, 0, &ln.far_val[q], NULL)

    cdef void far_pair(self, Lane* ln, _Run twin, Lane* ln2, const Py_ssize_t* far_idx,
                       Py_ssize_t n_far, bint rightward) noexcept:
        """:meth:`far` of this run (real semiring) and of its ``twin`` (max-product, lane
        ``ln2``) at once, where the far stacks are alike (their stored matrices' lines, and
        their token chains if they have any) and both lanes' vectors have the same nonzero
        entries: the lines read once for both (a chain's by :func:`_chain_pair`); each value's
        operations those of its own run (the same bits)."""
        cdef Py_ssize_t q
        for q in range(n_far):
            _far_at(ln, ln2, far_idx[q], rightward, False, True, self.lz, self.inp.longest,
                    twin.lz, twin.inp.longest, &ln.far_val[q], &ln2.far_val[q])

    cdef void weigh(self, Lane* ln, Py_ssize_t lo, Py_ssize_t hi, const Py_ssize_t* loc_near,
                    const Py_ssize_t* loc_far, Py_ssize_t n_near) noexcept:
        """near_w[q] = ⊕ over the candidates of near matrix q of weight ⊗ far value; the
        output zeroed."""
        cdef Py_ssize_t j, q, s
        for q in range(n_near):
            ln.near_w[q] = 0.0
        for j in range(lo, hi):
            q = loc_near[j - lo]
            ln.near_w[q] = _plus(ln.near_w[q], self.fo.weights[j] * ln.far_val[loc_far[j - lo]],
                                 self.mx)
        for s in range(ln.out.n):
            ln.raw[s] = 0.0

    cdef int way(self, const Lane* ln, Py_ssize_t a, double w) noexcept:
        """How near matrix a goes into the output with weight w (:meth:`near`)."""
        if w == 0.0:
            return _SKIP
        if _chained(ln.sd.near, a):
            return _CHAINED
        if 2 * ln.n_nz_near < ln.out.n:  # across, from the inner vector's nonzeros
            return _ACROSS
        return _ALONG

    cdef int near(self, Lane* ln, Py_ssize_t a, double w, int way, bint rightward) except -1:
        """raw ⊕= w ⊗ (near matrix a applied to near_in), the way :meth:`way` chose (along
        a dense matrix's lines, all of them at once: :meth:`_Inputs.dense_lines`)."""
        cdef const double* t = NULL
        cdef Py_ssize_t s
        if way == _ALONG:
            t = self.inp.dense_lines(ln.sd.near, a, rightward)
        if t != NULL:
            _dense_lines(t, ln.near_in, ln.nz_near, ln.n_nz_near, ln.out.n, self.lz, self.mx,
                         True)
            if self.mx:
                for s in range(ln.out.n):
                    ln.raw[s] = _plus(ln.raw[s], w * self.lz[s], True)
            else:
                for s in range(ln.out.n):
                    ln.raw[s] = ln.raw[s] + w * self.lz[s]
            return 0
        if self.mx:
            _near_at(ln, NULL, a, w, 0.0, way, rightward, True, False, self.lz,
                     self.inp.longest, NULL, 0)
        else:
            _near_at(ln, NULL, a, w, 0.0, way, rightward, False, False, self.lz,
                     self.inp.longest, NULL, 0)
        return 0

    cdef void close(self, Py_ssize_t v, Lane* ln, bint rightward, Py_ssize_t n_near,
                    Py_ssize_t n_far) noexcept:
        """The output rescaled, and the application recorded as node v's."""
        _rescale_in_place(ln.raw, ln.out.n, &ln.out,
                          ln.ctx.ls + ln.sd.near_in.ls + ln.sd.far_in.ls)
        cdef Node* nd = &self.nodes[v]
        nd.app.ctx, nd.app.out, nd.app.rightward = ln.ctx, ln.out, rightward
        nd.app.n_near, nd.app.n_far = n_near, n_far

    cdef int inside(self, double* log_total, signed char* status, _Run twin,
                    double* twin_total, signed char* twin_status) except -1:
        """The inside pass over the current sentence (n ≥ 1, tree built); with a ``twin``
        (:meth:`apply`), the twin's at the same time, its total and status into ``twin_total``
        and ``twin_status``."""
        cdef Sentence* t = &self.sen
        cdef bint paired = twin is not None
        cdef Py_ssize_t m, v, h, e, c
        cdef Vec u, vec, u2, vec2
        u2.off, u2.n, u2.ls = 0, 0, 0.0
        vec2 = u2
        for m in range(t.n):
            v = t.order[m]
            h = v + 1
            u = self.slot_vector(h - 1, False)
            if paired:
                u2 = twin.slot_vector(h - 1, False)
            for e in range(t.kid_ptr[h + 1] - 1, t.kid_ptr[h] - 1, -1):  # left, innermost first
                c = t.kids[e]
                if c < h:
                    self.apply(c - 1, u, False, twin, u2)
                    u = self.nodes[c - 1].app.out
                    if paired:
                        u2 = twin.nodes[c - 1].app.out
            vec = self.slot_vector(h, True)
            if paired:
                vec2 = twin.slot_vector(h, True)
            for e in range(t.kid_ptr[h], t.kid_ptr[h + 1]):  # right, innermost first
                c = t.kids[e]
                if c > h:
                    self.apply(c - 1, vec, True, twin, vec2)
                    vec = self.nodes[c - 1].app.out
                    if paired:
                        vec2 = twin.nodes[c - 1].app.out
            self.nodes[v].u, self.nodes[v].v = u, vec
            if paired:
                twin.nodes[v].u, twin.nodes[v].v = u2, vec2
        u = self.slot_vector(t.n, False)
        if paired:
            u2 = twin.slot_vector(t.n, False)
        self.apply(t.root, u, False, twin, u2)
        self.total(log_total, status)
        if paired:
            twin.total(twin_total, twin_status)
        return 0

    cdef Vec slot_vector(self, Py_ssize_t slot, bint start) except *:
        """A slot's start (``start``) or final vector, rescaled into the arena."""
        cdef const Vecs* x = self.vecs(slot)
        return self.rescaled(x.start if start else x.final, x.n)

    cdef void total(self, double* log_total, signed char* status) noexcept:
        """The current sentence's log total and status, after its inside pass: entry ⊗ the
        root's output."""
        cdef Vec out = self.nodes[self.sen.root].app.out
        cdef const double* entry = self.vecs(0).entry
        cdef double z = 0.0
        cdef Py_ssize_t m
        for m in range(out.n):
            z = _plus(z, entry[m] * self.arena[out.off + m], self.mx)
        _finish(z, out.ls, log_total, status)

    # --- top-down descent: Viterbi and sampling --------------------------------------------------

    cdef Py_ssize_t pick(self, Py_ssize_t n) except -1:
        """An index into the table tab[0:n]: the first maximiser (``np.argmax``; 0 if nothing is
        positive) or, when sampling, a draw as the reference's ``_Sampler``: over the nonzero
        entries in order, their running sum, and the first whose sum exceeds u · total (a
        single nonzero entry is taken without drawing u)."""
        cdef Py_ssize_t i, k = 0
        cdef double best = 0.0
        if self.rng is None:
            for i in range(n):
                if self.tab[i] > best:
                    best, k = self.tab[i], i
            return k
        for i in range(n):
            if self.tab[i] != 0.0:
                self.sup[k] = i
                k += 1
        return self.draw(k, True)

    cdef Py_ssize_t pick_line(self, const Lines* lines, Py_ssize_t row,
                              const double* x) except -1:
        """As :meth:`pick` over the table line[t] · x[t] of a stored matrix line."""
        if self.rng is None:
            return _argmax_line(lines, row, x)
        cdef Py_ssize_t e, k = 0
        cdef double p
        for e in range(lines.ptr[row], lines.ptr[row + 1]):
            p = lines.val[_at(lines.perm, e)] * x[lines.col[e]]
            if p != 0.0:
                self.tab[k], self.sup[k] = p, lines.col[e]
                k += 1
        return self.draw(k, False)

    cdef Py_ssize_t draw(self, Py_ssize_t k, bint gather) except -1:
        """Draw among the k support entries sup[0:k], weighing tab[sup[q]] (``gather``) or
        tab[q]."""
        cdef Py_ssize_t q
        cdef double acc = 0.0, u
        if k <= 1:
            return self.sup[0] if k else 0
        for q in range(k):  # the running sum, in place
            acc += self.tab[self.sup[q]] if gather else self.tab[q]
            self.tab[q] = acc
        u = <double> self.rng.random() * acc
        q = 0
        while q < k - 1 and self.tab[q] <= u:
            q += 1
        return self.sup[q]

    cdef Py_ssize_t descend_app(self, Py_ssize_t v, Py_ssize_t s, Py_ssize_t* x_near,
                                Py_ssize_t* t_meet, Py_ssize_t* y_far) except -1:
        """The reference's ``_descend_app``: given the near state s, the candidate (returned),
        the near inner state, the state where it meets its context and the far inner state."""
        cdef bint mx = self.mx
        cdef Node* nd = &self.nodes[v]
        cdef bint right = nd.app.rightward
        cdef Sides sd = self.sides(v, right)
        cdef Py_ssize_t g = self.sen.node0 + v
        cdef Py_ssize_t lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef Py_ssize_t at = 2 * (lo - self.sen.cand0), j, q, y, best_j, a, c, best_y
        cdef Py_ssize_t* loc_near = self.loc + at
        cdef Py_ssize_t* loc_far = loc_near + (hi - lo)
        cdef Py_ssize_t* near_idx = self.idx + at
        cdef const double* far_val = self.buf + at
        cdef double* near_at = self.adj + at  # each distinct near matrix's value at s
        cdef const double* near_in = self.arena + sd.near_in.off
        cdef const double* far_in = self.arena + sd.far_in.off
        cdef const double* cx = self.arena + nd.app.ctx.off
        for q in range(hi - lo):
            near_at[q] = -1.0
        for j in range(lo, hi):
            q = loc_near[j - lo]
            if near_at[q] < 0.0:
                if _chained(sd.near, near_idx[q]):  # line s of the chain, against near_in
                    near_at[q] = _dense_dot(self.chain_line(sd.near, near_idx[q], s, right),
                                            near_in, sd.near.n, mx)
                else:
                    near_at[q] = _near_vec(sd.near, near_idx[q], s, near_in, right, mx)
            self.tab[j - lo] = self.fo.weights[j] * near_at[q] * far_val[loc_far[j - lo]]
        best_j = self.pick(hi - lo)
        a, c = sd.near_of[lo + best_j], sd.far_of[lo + best_j]
        # right: column s of R_a against v; left: row s of L_a against u
        x_near[0] = self.pick_in(sd.near, a, s, near_in, right)
        cdef const double* z
        if _chained(sd.far, c):
            z = self.chained(sd.far, c, cx, _count_nonzero(cx, nd.app.ctx.n), right)
            for y in range(sd.far_in.n):
                self.tab[y] = far_in[y] * z[y] if far_in[y] != 0.0 else 0.0
        else:
            for y in range(sd.far_in.n):
                self.tab[y] = (far_in[y] * _far_ctx(sd.far, c, y, cx, right, mx)
                               if far_in[y] != 0.0 else 0.0)
        best_y = self.pick(sd.far_in.n)
        y_far[0] = best_y
        # right: column y of L_c against the context; left: row y of R_c
        t_meet[0] = self.pick_in(sd.far, c, best_y, cx, right)
        return best_j

    cdef int descend(self, Py_ssize_t* choice) except -1:
        """Every node's candidate (choice[v] for node v), top-down as the reference's
        ``_descend``: a stack of (node, state in u_w, state in v_w)."""
        cdef Sentence* t = &self.sen
        cdef Py_ssize_t* stack = self.ints + (7 * t.n + 8)  # 3 × (n + 1): node, u and v states
        cdef Py_ssize_t* su = stack + (t.n + 1)
        cdef Py_ssize_t* sv = su + (t.n + 1)
        cdef Py_ssize_t top = 0, v, h, e, c, s = 0, x, y, meet
        cdef Vec out = self.nodes[t.root].app.out
        cdef const double* entry = self.vecs(0).entry
        for e in range(out.n):
            self.tab[e] = entry[e] * self.arena[out.off + e]
        s = self.pick(out.n)
        choice[t.root] = self.descend_app(t.root, s, &x, &meet, &y)
        stack[0], su[0], sv[0] = t.root, x, y
        while top >= 0:
            v, s = stack[top], su[top]
            h = v + 1
            y = sv[top]  # the v-state, for the right kids
            top -= 1
            for e in range(t.kid_ptr[h], t.kid_ptr[h + 1]):  # left kids, outermost first
                c = t.kids[e]
                if c < h:
                    choice[c - 1] = self.descend_app(c - 1, s, &x, &meet, &sv[top + 1])
                    top += 1
                    stack[top], su[top] = c - 1, x
                    s = meet
            s = y
            for e in range(t.kid_ptr[h + 1] - 1, t.kid_ptr[h] - 1, -1):  # right, outermost first
                c = t.kids[e]
                if c > h:
                    choice[c - 1] = self.descend_app(c - 1, s, &sv[top + 1], &meet, &su[top + 1])
                    top += 1
                    stack[top] = c - 1
                    s = meet
        return 0

    # --- a sentence without words ----------------------------------------------------------------

    cdef int pseudo(self, double* log_total, signed char* status) except -1:
        """The pseudo node (B = I): Z = ⊕_j w_j · (e ⊗ L_a) ⊕· (R_c ⊗ ρ₀)."""
        cdef bint mx = self.mx
        cdef Py_ssize_t g = self.sen.node0, lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef const Mats* lm = &self.inp.mats[self.fo.node_left[g]]
        cdef const Mats* rm = &self.inp.mats[self.fo.node_right[g]]
        cdef const Vecs* x = self.vecs(0)
        cdef Py_ssize_t n = x.n, j, q, t
        cdef Py_ssize_t* left_idx = self.idx
        cdef Py_ssize_t* right_idx = self.idx + (hi - lo)
        self.distinct(_first(self.fo.left_of), lo, hi, self.loc, left_idx, &self.p_left)
        self.distinct(_first(self.fo.right_of), lo, hi, self.loc + (hi - lo), right_idx,
                      &self.p_right)
        self.p_el = self.take(self.p_left * n)
        self.p_rf = self.take(self.p_right * n)
        cdef double* arena = self.arena
        cdef const double* chain
        for q in range(self.p_left):  # e ⊗ L_a: column t of L_a against the entry vector
            if _chained(lm, left_idx[q]):
                chain = self.chained(lm, left_idx[q], x.entry, _count_nonzero(x.entry, n), True)
                memcpy(arena + self.p_el + q * n, chain, n * sizeof(double))
                continue
            for t in range(n):
                arena[self.p_el + q * n + t] = _dot(&lm.cols, _line(lm, left_idx[q], t),
                                                    x.entry, mx)
        for q in range(self.p_right):  # R_c ⊗ ρ₀
            if _chained(rm, right_idx[q]):
                chain = self.chained(rm, right_idx[q], x.final, _count_nonzero(x.final, n), False)
                memcpy(arena + self.p_rf + q * n, chain, n * sizeof(double))
                continue
            for t in range(n):
                arena[self.p_rf + q * n + t] = _dot(&rm.rows, _line(rm, right_idx[q], t),
                                                    x.final, mx)
        self.pseudo_terms(True)
        cdef double z = 0.0
        for j in range(hi - lo):
            z = _plus(z, self.tab[j], mx)
        self.pz = z
        _finish(z, 0.0, log_total, status)
        return 0

    cdef Py_ssize_t pseudo_terms(self, bint weighted) noexcept:
        """tab[j] = w_j ⊗ value_j (or value_j alone) for the pseudo node's candidates, value_j =
        (e ⊗ L_a) ⊕· (R_c ⊗ ρ₀); their number."""
        cdef Py_ssize_t g = self.sen.node0, lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef Py_ssize_t n = self.vecs(0).n, j, t, a, c
        cdef double value
        for j in range(lo, hi):
            a, c = self.loc[j - lo], self.loc[hi - lo + j - lo]
            value = 0.0
            for t in range(n):
                value = _plus(value, self.arena[self.p_el + a * n + t]
                              * self.arena[self.p_rf + c * n + t], self.mx)
            self.tab[j - lo] = self.fo.weights[j] * value if weighted else value
        return hi - lo

    # --- outside ---------------------------------------------------------------------------------

    cdef Py_ssize_t reverse(self, Py_ssize_t v, Py_ssize_t g_off, _Out o) except -1:
        """The reference's ``_reverse`` of node v's application, given the arena offset of the
        scaled adjoint of its output: ∂log Z/∂weights into ``o``, the node's two gradient terms
        (near matrices: near weights · …; far ones: ∂/∂far values · …) into ``o``, the scaled
        adjoints of u_w and v_w into the node; returns the offset of its context's."""
        cdef Node* nd = &self.nodes[v]
        cdef bint right = nd.app.rightward
        cdef Sides sd = self.sides(v, right)
        cdef Py_ssize_t g = self.sen.node0 + v
        cdef Py_ssize_t lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef Py_ssize_t at = 2 * (lo - self.sen.cand0), j, q, s
        cdef Py_ssize_t* loc_near = self.loc + at
        cdef Py_ssize_t* loc_far = loc_near + (hi - lo)
        cdef Py_ssize_t* near_idx = self.idx + at
        cdef Py_ssize_t* far_idx = near_idx + (hi - lo)
        cdef const double* far_val = self.buf + at
        cdef const double* near_w = far_val + (hi - lo)
        cdef double* d_near = self.adj + at
        cdef double* d_far = d_near + (hi - lo)
        cdef Py_ssize_t nn = sd.near_in.n, nf = sd.far_in.n
        cdef Py_ssize_t base = self.take(3 * nn + 2 * nf)  # before pointers into the arena
        cdef double* gk = self.arena + base
        cdef double* tmp = gk + nn
        cdef double* g_near = tmp + nn
        cdef double* g_far = g_near + nn
        cdef double* g_ctx = g_far + nf
        cdef const double* near_in = self.arena + sd.near_in.off
        cdef const double* far_in = self.arena + sd.far_in.off
        cdef const double* cx = self.arena + nd.app.ctx.off
        cdef double kappa = exp(nd.app.ctx.ls + sd.near_in.ls + sd.far_in.ls - nd.app.out.ls)
        cdef double acc, dn
        for s in range(nn):
            gk[s] = kappa * self.arena[g_off + s]
            g_near[s] = 0.0
        for s in range(nf):
            g_far[s], g_ctx[s] = 0.0, 0.0
        for q in range(nd.app.n_near):  # back through each near matrix
            for s in range(nn):
                tmp[s] = 0.0
            _accumulate(sd.near, near_idx[q], gk, 1.0, tmp, not right)
            acc = 0.0
            for s in range(nn):
                acc += tmp[s] * near_in[s]
            d_near[q] = acc
            if near_w[q] != 0.0:
                for s in range(nn):
                    g_near[s] += near_w[q] * tmp[s]
        for q in range(nd.app.n_far):
            d_far[q] = 0.0
        for j in range(lo, hi):
            dn = d_near[loc_near[j - lo]]
            o.weights[j - o.cand0] = dn * far_val[loc_far[j - lo]]
            d_far[loc_far[j - lo]] += self.fo.weights[j] * dn
        for q in range(nd.app.n_far):
            if d_far[q] != 0.0:
                _accumulate(sd.far, far_idx[q], cx, d_far[q], g_far, right)
                _accumulate(sd.far, far_idx[q], far_in, d_far[q], g_ctx, not right)
        cdef Sentence* t = &self.sen
        cdef Py_ssize_t i = t.slot0 + t.lo[v + 1] - 1, k = t.slot0 + t.hi[v + 1]
        cdef Py_ssize_t near_stack = self.fo.node_right[g] if right else self.fo.node_left[g]
        cdef Py_ssize_t far_stack = self.fo.node_left[g] if right else self.fo.node_right[g]
        if right:  # left: ∂/∂L_c = d_far[c] · ctx uᵀ; right: ∂/∂R_a = near_w[a] · v gkᵀ
            o.term(i, far_stack, far_idx, d_far, nd.app.n_far, cx, far_in, nf)
            o.term(k, near_stack, near_idx, near_w, nd.app.n_near, near_in, gk, nn)
            nd.ua, nd.va = base + 3 * nn, base + 2 * nn
        else:  # left: ∂/∂L_a = near_w[a] · gk uᵀ; right: ∂/∂R_c = d_far[c] · v ctxᵀ
            o.term(i, near_stack, near_idx, near_w, nd.app.n_near, gk, near_in, nn)
            o.term(k, far_stack, far_idx, d_far, nd.app.n_far, far_in, cx, nf)
            nd.ua, nd.va = base + 2 * nn, base + 3 * nn
        return base + 3 * nn + nf

    cdef int outside(self, _Out o) except -1:
        """The reference's ``outside`` over the current sentence after its inside pass."""
        cdef Sentence* t = &self.sen
        cdef Vec out = self.nodes[t.root].app.out
        cdef const double* entry = self.vecs(0).entry
        cdef double z = 0.0
        cdef Py_ssize_t m, v, h, e, c, g
        for m in range(out.n):
            z += entry[m] * self.arena[out.off + m]
        for m in range(out.n):  # ∂log Z/∂e, e = λ₀ᵀ ⊗ prefix
            o.start[o.slot_off[t.slot0 - o.slot_base] + m] = self.arena[out.off + m] / z
        g = self.take(out.n)
        for m in range(out.n):
            self.arena[g + m] = entry[m] / z
        g = self.reverse(t.root, g, o)
        self.slot_adjoint(o.final, t.n, g, self.nodes[t.root].app.ctx.ls, o)
        for m in range(t.n - 1, -1, -1):  # parents before children
            v = t.order[m]
            h = v + 1
            g = self.nodes[v].ua
            for e in range(t.kid_ptr[h], t.kid_ptr[h + 1]):  # left kids, outermost first
                c = t.kids[e]
                if c < h:
                    g = self.reverse(c - 1, g, o)
            self.slot_adjoint(o.final, h - 1, g, _log_scale(self.vecs(h - 1).final,
                                                             self.vecs(h - 1).n), o)
            g = self.nodes[v].va
            for e in range(t.kid_ptr[h + 1] - 1, t.kid_ptr[h] - 1, -1):  # right, outermost first
                c = t.kids[e]
                if c > h:
                    g = self.reverse(c - 1, g, o)
            self.slot_adjoint(o.start, h, g, _log_scale(self.vecs(h).start, self.vecs(h).n), o)
        return 0

    cdef void slot_adjoint(self, double[::1] into, Py_ssize_t slot, Py_ssize_t g, double ls,
                           _Out o) noexcept:
        """∂log Z/∂(slot's vector) from the scaled adjoint of its rescaled copy."""
        cdef Py_ssize_t at = o.slot_off[self.sen.slot0 + slot - o.slot_base], m
        cdef double f = exp(-ls)
        for m in range(self.vecs(slot).n):
            into[at + m] = self.arena[g + m] * f

    cdef int pseudo_outside(self, _Out o) except -1:
        """The reference's ``_outside_pseudo`` (after :meth:`pseudo`)."""
        cdef Py_ssize_t g = self.sen.node0, lo = self.fo.cand_off[g], hi = self.fo.cand_off[g + 1]
        cdef const Mats* lm = &self.inp.mats[self.fo.node_left[g]]
        cdef const Mats* rm = &self.inp.mats[self.fo.node_right[g]]
        cdef const Vecs* x = self.vecs(0)
        cdef Py_ssize_t n = x.n, j, q, a, c, t, at = o.slot_off[self.sen.slot0 - o.slot_base]
        cdef Py_ssize_t n_left = self.p_left, n_right = self.p_right
        cdef Py_ssize_t d_el = self.take(n_left * n), d_rf = self.take(n_right * n)
        cdef double* arena = self.arena
        cdef double z = self.pz, w
        for t in range(n_left * n):
            arena[d_el + t] = 0.0
        for t in range(n_right * n):
            arena[d_rf + t] = 0.0
        self.pseudo_terms(False)
        for j in range(lo, hi):  # ∂Z/∂(e ⊗ L_a) = Σ_j w_j R_c ⊗ ρ₀, and its mirror
            a, c, w = self.loc[j - lo], self.loc[hi - lo + j - lo], self.fo.weights[j]
            o.weights[j - o.cand0] = self.tab[j - lo] / z
            for t in range(n):
                arena[d_el + a * n + t] += w * arena[self.p_rf + c * n + t]
                arena[d_rf + c * n + t] += w * arena[self.p_el + a * n + t]
        for t in range(n_left * n):
            arena[d_el + t] /= z
        for t in range(n_right * n):
            arena[d_rf + t] /= z
        for t in range(n):
            o.start[at + t], o.final[at + t] = 0.0, 0.0
        cdef double one = 1.0
        for q in range(n_left):  # ∂/∂L_a = e (d_el[a])ᵀ
            _accumulate(lm, self.idx[q], arena + d_el + q * n, 1.0, &o.start[at], False)
            o.term(self.sen.slot0, self.fo.node_left[g], self.idx + q, &one, 1, x.entry,
                   arena + d_el + q * n, n)
        for q in range(n_right):  # ∂/∂R_c = d_rf[c] ρ₀ᵀ
            _accumulate(rm, self.idx[hi - lo + q], arena + d_rf + q * n, 1.0, &o.final[at],
                        True)
            o.term(self.sen.slot0, self.fo.node_right[g], self.idx + (hi - lo) + q, &one, 1,
                   arena + d_rf + q * n, x.final, n)
        return 0

    # --- whole forests ---------------------------------------------------------------------------

    cdef int sentence(self, Py_ssize_t s, double* log_total, signed char* status,
                      Py_ssize_t* choice) except -1:
        """Sentence s: log Z and status, and with ``choice`` its Viterbi candidates."""
        self.start(s)
        if self.sen.n == 0:
            if not self.sizes_match():
                status[0], log_total[0] = _MALFORMED, 0.0
                return 0
            self.pseudo(log_total, status)
            if choice != NULL:
                choice[0] = self.pick(self.pseudo_terms(True))
            return 0
        if not self.tree() or not self.sizes_match():
            status[0], log_total[0] = _MALFORMED, 0.0
            return 0
        self.inside(log_total, status, None, NULL, NULL)
        if choice != NULL and status[0] == _OK:
            self.descend(choice)
        return 0


    cdef int sentence_pair(self, _Run twin, Py_ssize_t s, double* log_total,
                           signed char* status, double* best, signed char* best_status,
                           Py_ssize_t* choice) except -1:
        """:meth:`sentence` s here (log Z) and in the twin (:meth:`pair`; its best score, status
        and Viterbi choices) by one inside pass over the tree built once (a sentence without
        words or malformed: each run on its own)."""
        self.start(s)
        twin.start(s)
        if self.sen.n and self.tree() and self.sizes_match():
            twin.sen = self.sen  # the tree, which neither changes from here
            if twin.sizes_match():
                self.inside(log_total, status, twin, best, best_status)
                if best_status[0] == _OK:
                    twin.descend(choice)
                return 0
        self.sentence(s, log_total, status, NULL)
        twin.sentence(s, best, best_status, choice)
        return 0


cdef class _Out:
    """What the outside pass gives over sentences lo..hi−1: ∂log Z/∂weights per candidate, per
    slot ∂log Z/∂λ and ∂/∂ρ (flat, slot at ``slot_off``; slot 0 of a sentence: ∂/∂e, e = λ₀ᵀ ⊗
    prefix, in place of λ), and the matrices' gradients as rank-one terms: term r lives in
    slot ``slot[r]`` over the stack ``stack[r]``, ∂log Z/∂M_a = Σ coef · p qᵀ over its
    (matrix a, coef) entries, p and q of the slot's size at ``vec[at[r] : at[r] + 2n]``."""
    cdef Py_ssize_t cand0, slot_base
    cdef double[::1] weights, start, final
    cdef const Py_ssize_t[::1] slot_off
    cdef Py_ssize_t* slot
    cdef Py_ssize_t* stack
    cdef Py_ssize_t* at      # n_terms + 1 into vec
    cdef Py_ssize_t* cat     # n_terms + 1 into cidx, cval
    cdef double* vec
    cdef Py_ssize_t* cidx
    cdef double* cval
    cdef Py_ssize_t n_terms, cap_terms, cap_vec, cap_coef

    def __cinit__(self, Py_ssize_t cand0, Py_ssize_t n_cands, Py_ssize_t slot_base,
                  const Py_ssize_t[::1] slot_off):
        import numpy as np
        self.cand0, self.slot_base, self.slot_off = cand0, slot_base, slot_off
        self.weights = np.zeros(n_cands)
        self.start = np.zeros(slot_off[slot_off.shape[0] - 1])
        self.final = np.zeros(slot_off[slot_off.shape[0] - 1])
        self.at = <Py_ssize_t*> _grow(NULL, sizeof(Py_ssize_t))
        self.cat = <Py_ssize_t*> _grow(NULL, sizeof(Py_ssize_t))
        self.at[0], self.cat[0] = 0, 0

    def __dealloc__(self):
        free(self.slot)
        free(self.stack)
        free(self.at)
        free(self.cat)
        free(self.vec)
        free(self.cidx)
        free(self.cval)

    cdef int term(self, Py_ssize_t slot, Py_ssize_t stack, const Py_ssize_t* idx,
                  const double* coef, Py_ssize_t count, const double* p, const double* q,
                  Py_ssize_t n) except -1:
        """Add the term Σ_r coef[r] · [M_{idx[r]}] p qᵀ (p and q of size n)."""
        cdef Py_ssize_t r = self.n_terms, v = self.at[r], c = self.cat[r], m
        if r + 1 >= self.cap_terms:
            self.cap_terms = 2 * (r + 1) + 16
            self.slot = <Py_ssize_t*> _grow(self.slot, self.cap_terms * sizeof(Py_ssize_t))
            self.stack = <Py_ssize_t*> _grow(self.stack, self.cap_terms * sizeof(Py_ssize_t))
            self.at = <Py_ssize_t*> _grow(self.at, (self.cap_terms + 1) * sizeof(Py_ssize_t))
            self.cat = <Py_ssize_t*> _grow(self.cat, (self.cap_terms + 1) * sizeof(Py_ssize_t))
        if v + 2 * n > self.cap_vec:
            self.cap_vec = 2 * (v + 2 * n) + 64
            self.vec = <double*> _grow(self.vec, self.cap_vec * sizeof(double))
        if c + count > self.cap_coef:
            self.cap_coef = 2 * (c + count) + 64
            self.cidx = <Py_ssize_t*> _grow(self.cidx, self.cap_coef * sizeof(Py_ssize_t))
            self.cval = <double*> _grow(self.cval, self.cap_coef * sizeof(double))
        self.slot[r], self.stack[r] = slot, stack
        memcpy(self.vec + v, p, n * sizeof(double))
        memcpy(self.vec + v + n, q, n * sizeof(double))
        for m in range(count):
            self.cidx[c + m], self.cval[c + m] = idx[m], coef[m]
        self.at[r + 1], self.cat[r + 1] = v + 2 * n, c + count
        self.n_terms = r + 1
        return 0

    def arrays(self):
        """(weights, start, final, slot, stack, at, vec, cat, cidx, cval) as numpy arrays."""
        cdef Py_ssize_t r = self.n_terms
        return (self.weights.base, self.start.base, self.final.base,
                _copy(r, True, self.slot), _copy(r, True, self.stack),
                _copy(r + 1, True, self.at), _copy(self.at[r], False, self.vec),
                _copy(r + 1, True, self.cat), _copy(self.cat[r], True, self.cidx),
                _copy(self.cat[r], False, self.cval))


cdef object _copy(Py_ssize_t count, bint ints, const void* src):
    """A numpy copy of count intp (``ints``) or float64 values at src."""
    import numpy as np
    out = np.empty(count, dtype=np.intp if ints else np.float64)
    cdef char[::1] view = out.view(np.int8)
    if count:
        memcpy(&view[0], src, count * (sizeof(Py_ssize_t) if ints else sizeof(double)))
    return out


cdef void _accumulate(const Mats* m, Py_ssize_t a, const double* x, double c, double* out,
                      bint transpose) noexcept:
    """out += c · M_a x, or c · M_aᵀ x (``transpose``), over the stored lines: along them, or
    across them from x's nonzero entries where x has few (λ and ρ have one)."""
    if 4 * _count_nonzero(x, m.n) >= m.n:
        _lines_into(&m.cols if transpose else &m.rows, a * m.n, m.n, x, c, out, False, True)
        return
    cdef const Lines* lines = &m.rows if transpose else &m.cols  # across: line s, times x[s]
    cdef const int* ptr = lines.ptr
    cdef const State* col = lines.col
    cdef const int* perm = lines.perm
    cdef const double* val = lines.val
    cdef Py_ssize_t s, e, row
    cdef double xs
    for s in range(m.n):
        if x[s] == 0.0:
            continue
        xs = c * x[s]
        row = a * m.n + s
        for e in range(ptr[row], ptr[row + 1]):
            out[col[e]] += val[_at(perm, e)] * xs


cdef double _log_scale(const double* x, Py_ssize_t n) noexcept:
    """The log scale ``rescale`` gives x."""
    cdef double top = 0.0
    cdef Py_ssize_t q
    for q in range(n):
        if x[q] > top:
            top = x[q]
    return 0.0 if top == 0.0 or top == 1.0 else log(top)


cdef void _finish(double z, double ls, double* log_total, signed char* status) noexcept:
    if not isfinite(z):
        status[0], log_total[0] = _NOT_FINITE, z
    elif z == 0.0:
        status[0], log_total[0] = _ZERO, -INFINITY
    else:
        status[0], log_total[0] = _OK, log(z) + ls


cdef bint _build_tree(Sentence* t, const Py_ssize_t* heads, Py_ssize_t n, Py_ssize_t* size,
                      Py_ssize_t* stack) noexcept:
    """Children, bottom-up order and spans from heads[0:n] (0 = root); False unless they form a
    projective tree. ``size`` and ``stack`` are scratch of n + 1 entries."""
    cdef Py_ssize_t d, h, roots = 0, top, m, k
    for h in range(n + 2):
        t.kid_ptr[h] = 0
    for d in range(1, n + 1):
        h = heads[d - 1]
        if h < 0 or h > n or h == d:
            return False
        if h == 0:
            roots += 1
        t.kid_ptr[h + 1] += 1
    if roots != 1:
        return False
    for h in range(n + 1):
        t.kid_ptr[h + 1] += t.kid_ptr[h]
    for h in range(n + 1):
        size[h] = t.kid_ptr[h]  # fill pointers
    for d in range(1, n + 1):
        h = heads[d - 1]
        t.kids[size[h]] = d
        size[h] += 1
    t.root = t.kids[0] - 1
    for h in range(n + 1):
        size[h] = 0  # children visited so far
    m, top = 0, 0
    stack[0] = t.kids[0]
    while top >= 0:  # post-order: a node after all of its children
        d = stack[top]
        if size[d] < t.kid_ptr[d + 1] - t.kid_ptr[d]:
            k = t.kids[t.kid_ptr[d] + size[d]]
            size[d] += 1
            top += 1
            if top > n:
                return False
            stack[top] = k
        else:
            if m == n:
                return False
            t.order[m] = d - 1
            m += 1
            top -= 1
    if m != n:
        return False  # a cycle: some words are not below the root
    for h in range(n + 1):
        t.lo[h], t.hi[h], size[h] = h, h, 1
    for m in range(n):
        d = t.order[m] + 1
        h = heads[d - 1]
        if h:
            if t.lo[d] < t.lo[h]:
                t.lo[h] = t.lo[d]
            if t.hi[d] > t.hi[h]:
                t.hi[h] = t.hi[d]
            size[h] += size[d]
    for d in range(1, n + 1):
        if t.hi[d] - t.lo[d] + 1 != size[d]:
            return False
    return True


cdef tuple _outputs(forest, Py_ssize_t passes):
    """A traversal's output arrays: the number of sentences of ``forest``, every node's best
    candidate (zeros), and for each of ``passes`` passes a log score and a status per
    sentence."""
    import numpy as np
    cdef Py_ssize_t n_sent = len(forest.word_offsets) - 1
    choice = np.zeros(forest.node_offsets[n_sent] if n_sent else 0, dtype=np.intp)
    return n_sent, choice, [(np.empty(n_sent), np.empty(n_sent, dtype=np.int8))
                            for _ in range(passes)]


def run(forest, list mats, list vecs, bint maximum, bint viterbi):
    """log Z (or the best log score) and a status per sentence of ``forest``; with ``viterbi``
    (max-product only) also the best candidate of every node, as an index into its candidates.
    ``mats`` and ``vecs`` are the stacks and slot vectors the forest's indices refer to."""
    cdef _Run r = _Run(forest, mats, vecs, maximum)
    cdef Py_ssize_t n_sent, s
    n_sent, choice, ((log_total, status),) = _outputs(forest, 1)
    cdef double[::1] lt = log_total
    cdef signed char[::1] st = status
    cdef Py_ssize_t[::1] ch = choice
    cdef const Py_ssize_t[::1] nodes = forest.node_offsets
    for s in range(n_sent):
        r.sentence(s, &lt[s], &st[s], &ch[nodes[s]] if viterbi else NULL)
    return log_total, status, choice


def run_pair(forest, list mats, list vecs, list max_mats, list max_vecs):
    """:func:`run` over the real-semiring stacks ``mats`` (log Z and status per sentence) and
    :func:`run` with ``viterbi`` over the max-product stacks ``max_mats`` (best log score,
    status and every node's best candidate) in one traversal of ``forest``, reading the lines
    of alike stacks once for both: (log Z, status, best, best status, choice), every value
    bitwise what the two runs give."""
    cdef _Run r = _Run(forest, mats, vecs, False)
    cdef _Run twin = _Run(forest, max_mats, max_vecs, True)
    r.pair(twin)
    cdef Py_ssize_t n_sent, s
    n_sent, choice, ((log_total, status), (best, best_status)) = _outputs(forest, 2)
    cdef double[::1] lt = log_total, bt = best
    cdef signed char[::1] st = status, bst = best_status
    cdef Py_ssize_t[::1] ch = choice
    cdef const Py_ssize_t[::1] nodes = forest.node_offsets
    for s in range(n_sent):
        r.sentence_pair(twin, s, &lt[s], &st[s], &bt[s], &bst[s], &ch[nodes[s]])
    return log_total, status, best, best_status, choice


def outside(forest, list mats, list vecs, Py_ssize_t lo, Py_ssize_t hi,
            const Py_ssize_t[::1] slot_off):
    """The inside and outside passes (real semiring) over sentences lo..hi−1 of ``forest``: log
    Z and status per sentence and the :class:`_Out` arrays; ``slot_off`` places each slot's
    vectors (slots of the range in order, one more entry than slots)."""
    import numpy as np
    cdef _Run r = _Run(forest, mats, vecs, False)
    if r.inp.chains:
        raise ValueError("outside: stacks of token chains are not supported")
    cdef const Py_ssize_t[::1] nodes = forest.node_offsets
    cdef const Py_ssize_t[::1] cands = forest.candidate_offsets
    cdef const Py_ssize_t[::1] words = forest.word_offsets
    cdef Py_ssize_t cand0 = cands[nodes[lo]]
    cdef _Out o = _Out(cand0, cands[nodes[hi]] - cand0, words[lo] + lo, slot_off)
    log_total = np.empty(hi - lo)
    status = np.empty(hi - lo, dtype=np.int8)
    cdef double[::1] lt = log_total
    cdef signed char[::1] st = status
    cdef Py_ssize_t s
    for s in range(lo, hi):
        r.sentence(s, &lt[s - lo], &st[s - lo], NULL)
        if st[s - lo] == _OK:
            if r.sen.n:
                r.outside(o)
            else:
                r.pseudo_outside(o)
    return (log_total, status) + o.arrays()


def sample(forest, list mats, list vecs, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t size, rng):
    """``size`` draws of every node's candidate for sentences lo..hi−1 (real semiring), drawing
    from ``rng`` (a numpy Generator) in the reference's order: log Z, status per sentence and the
    choices, (size, nodes of the range)."""
    import numpy as np
    cdef _Run r = _Run(forest, mats, vecs, False, rng)
    if r.inp.chains:
        raise ValueError("sample: stacks of token chains are not supported")
    cdef const Py_ssize_t[::1] nodes = forest.node_offsets
    log_total = np.empty(hi - lo)
    status = np.empty(hi - lo, dtype=np.int8)
    choice = np.zeros((size, nodes[hi] - nodes[lo]), dtype=np.intp)
    cdef double[::1] lt = log_total
    cdef signed char[::1] st = status
    cdef Py_ssize_t[:, ::1] ch = choice
    cdef Py_ssize_t s, d, at
    for s in range(lo, hi):
        r.sentence(s, &lt[s - lo], &st[s - lo], NULL)
        if st[s - lo] != _OK:
            continue
        at = nodes[s] - nodes[lo]
        for d in range(size):
            if r.sen.n:
                r.descend(&ch[d, at])
            else:
                ch[d, at] = r.pick(r.pseudo_terms(True))
    return log_total, status, choice
def chain_nonzero(Py_ssize_t n, const int[::1] kptr, const State[::1] kcol,
                  const Py_ssize_t[::1] soff, const Py_ssize_t[::1] stok):
    """Whether each token chain M(υ₁)⋯M(υₘ) (tokens ``stok[soff[a] : soff[a + 1]]``; rows of the
    token matrices as :class:`Mats`' ``kptr``, ``kcol``) has an entry: some path of its tokens
    through the arcs, whatever their weights (what the entries of a stored product are; ε: the
    identity). (A,) uint8. The states that start a path of a chain's last token (the rows of
    its matrix with an entry) are found once per token, for all the chains it ends."""
    import numpy as np
    cdef Py_ssize_t count = soff.shape[0] - 1, tokens
    cdef Py_ssize_t a, k, s, e, tok, alive
    out = np.zeros(count, dtype=np.uint8)
    if n <= 0:  # no states: no entries
        return out
    tokens = (kptr.shape[0] - 1) // n
    cdef unsigned char[::1] nonzero = out
    cdef unsigned char* cur = <unsigned char*> malloc(n)
    cdef unsigned char* nxt = <unsigned char*> malloc(n)
    cdef unsigned char* rows = <unsigned char*> malloc(max(n * tokens, 1))  # row s has an entry
    cdef Py_ssize_t* ends = <Py_ssize_t*> malloc(max(tokens, 1) * sizeof(Py_ssize_t))
    if cur == NULL or nxt == NULL or rows == NULL or ends == NULL:
        free(cur)
        free(nxt)
        free(rows)
        free(ends)
        raise MemoryError()
    for tok in range(tokens):
        ends[tok] = -1  # rows with an entry: not counted yet
    for a in range(count):
        if soff[a + 1] == soff[a]:  # ε
            nonzero[a] = 1
            continue
        tok = stok[soff[a + 1] - 1]
        if ends[tok] < 0:
            ends[tok] = 0
            for s in range(n):
                rows[tok * n + s] = kptr[tok * n + s + 1] > kptr[tok * n + s]
                ends[tok] += rows[tok * n + s]
        memcpy(cur, rows + tok * n, n)
        alive = ends[tok]
        for k in range(soff[a + 1] - 2, soff[a] - 1, -1):  # the states that start such a path
            if not alive:
                break
            tok, alive = stok[k], 0
            for s in range(n):
                nxt[s] = 0
                for e in range(kptr[tok * n + s], kptr[tok * n + s + 1]):
                    if cur[kcol[e]]:
                        nxt[s] = 1
                        alive += 1
                        break
            cur, nxt = nxt, cur
        nonzero[a] = alive > 0
    free(cur)
    free(nxt)
    free(rows)
    free(ends)
    return out


def chain_pair(list stacks, Py_ssize_t a, const double[::1] x, const double[::1] x2, bint vm):
    """For the tests: token chain a of two kernel stacks of alike chains (real, then
    max-product) applied to x and x2 (x ⊗ M_a with ``vm``) at once (:func:`_chain_pair`),
    and each alone (:func:`_chain`): (out, out2, alone, alone2), the same bits."""
    import numpy as np
    cdef _Inputs inp = _Inputs(stacks, [])
    if (inp.n_mats != 2 or not 0 <= a < inp.mats[0].base
            or not _same_chains(&inp.mats[0], &inp.mats[1])
            or x.shape[0] != inp.mats[0].n or x2.shape[0] != inp.mats[0].n):
        raise ValueError("chain_pair: two stacks of alike token chains, one of their chains "
                         "and two vectors of their size")
    cdef Py_ssize_t n = inp.mats[0].n
    out = np.zeros((4, 2, n))  # each output and its scratch
    cdef double[:, :, ::1] o = out
    cdef Py_ssize_t nz = _count_nonzero(&x[0], n), nz2 = _count_nonzero(&x2[0], n)
    _chain_pair(&inp.mats[0], &inp.mats[1], a, &x[0], &x2[0], nz, nz2, &o[0, 0, 0],
                &o[0, 1, 0], &o[1, 0, 0], &o[1, 1, 0], vm)
    _chain(&inp.mats[0], a, &x[0], nz, &o[2, 0, 0], &o[2, 1, 0], vm, False)
    _chain(&inp.mats[1], a, &x2[0], nz2, &o[3, 0, 0], &o[3, 1, 0], vm, True)
    return out[:, 0]
