# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled helpers of :mod:`fstpunct.lattice` and :mod:`fstpunct.stacks`: products of a slot
lattice's token matrices along token strings, and transposes of stacked CSR matrices.

:func:`string_products` computes what the level-by-level numpy formulation computed (row r of
M(t·s) is the ⊕ over the arcs r → r′ of token t of weight · row r′ of M(s)), entry by entry with
the same products added up as ``np.add.reduceat`` adds them (in order of ascending r′: the first,
plus numpy's pairwise sum of the others), so values are bitwise the same in both semirings;
each row's columns come out ascending.
"""
from libc.stdlib cimport free, malloc, realloc

import numpy as np


cdef struct Rows:
    # A growable CSR: ptr has one entry per row + 1.
    Py_ssize_t* ptr
    Py_ssize_t* col
    double* val
    Py_ssize_t n_rows, nnz, cap_rows, cap


cdef int _start(Rows* m) except -1:
    m.cap_rows, m.n_rows, m.nnz, m.cap = 64, 0, 0, 0
    m.ptr = <Py_ssize_t*> _grow(NULL, m.cap_rows * sizeof(Py_ssize_t))
    m.ptr[0] = 0
    return 0


cdef int _push_row(Rows* m) except -1:
    if m.n_rows + 2 > m.cap_rows:
        m.cap_rows = 2 * m.cap_rows + 64
        m.ptr = <Py_ssize_t*> _grow(m.ptr, m.cap_rows * sizeof(Py_ssize_t))
    m.n_rows += 1
    m.ptr[m.n_rows] = m.nnz
    return 0


cdef int _reserve(Rows* m, Py_ssize_t extra) except -1:
    if m.nnz + extra > m.cap:
        m.cap = 2 * (m.nnz + extra) + 64
        m.col = <Py_ssize_t*> _grow(m.col, m.cap * sizeof(Py_ssize_t))
        m.val = <double*> _grow(m.val, m.cap * sizeof(double))
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


cdef double _max(const double* x, Py_ssize_t n) noexcept:
    cdef double out = x[0]
    cdef Py_ssize_t i
    for i in range(1, n):
        if x[i] > out:
            out = x[i]
    return out


cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept:
    """numpy's pairwise summation of a[0:n] (what ``np.add.reduceat`` adds to a segment's first
    element), so that sums are bitwise those of the former numpy formulation."""
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


cdef void _sort(Py_ssize_t* x, Py_ssize_t k) noexcept:
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
                    const double[::1] weight, const Py_ssize_t[::1] level_offsets,
                    const Py_ssize_t[::1] heads, const Py_ssize_t[::1] parents,
                    const Py_ssize_t[::1] wanted, bint maximum):
    """CSR rows (ptr, col, val) of M(s) for the wanted strings, stacked (row a·n + r).

    The strings are given level by level (``level_offsets``; level 0 is ε alone): string q of a
    level is token ``heads[q]`` followed by string ``parents[q]`` of the level below (indices
    within levels, flat over levels). The arcs of token t leaving state r are
    ``arc_ptr[t·n + r] : arc_ptr[t·n + r + 1]``, in ascending ``dst``. ``wanted[a]`` is the flat
    index of the a-th string to return."""
    cdef Py_ssize_t n_levels = level_offsets.shape[0] - 1, d, q, p, t, r, e, f, c, k, i
    cdef Py_ssize_t first, n_touched
    cdef Rows* levels = <Rows*> malloc(max(n_levels, 1) * sizeof(Rows))
    cdef Py_ssize_t* where = <Py_ssize_t*> malloc(max(level_offsets[n_levels], 1)
                                                   * sizeof(Py_ssize_t))
    cdef char* seen = <char*> malloc(max(n, 1))
    cdef Py_ssize_t* touched = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* count = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* fill = <Py_ssize_t*> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* term_col = NULL
    cdef double* term_val = NULL
    cdef double* grouped = NULL
    cdef Py_ssize_t n_terms, cap_terms = 0
    cdef Rows* below
    cdef Rows* m
    cdef double w
    if (levels == NULL or where == NULL or seen == NULL or touched == NULL or count == NULL
            or fill == NULL):
        raise MemoryError()
    for d in range(n_levels):
        levels[d].ptr = levels[d].col = NULL
        levels[d].val = NULL
        levels[d].n_rows = levels[d].nnz = levels[d].cap_rows = levels[d].cap = 0
    try:
        for c in range(n):
            seen[c] = 0
        m = &levels[0]  # ε: the identity
        _start(m)
        _reserve(m, n)
        for r in range(n):
            m.col[r], m.val[r] = r, 1.0
            m.nnz += 1
            _push_row(m)
        for q in range(level_offsets[1]):
            where[q] = 0
        for d in range(1, n_levels):
            below, m = &levels[d - 1], &levels[d]
            _start(m)
            for q in range(level_offsets[d], level_offsets[d + 1]):
                where[q] = d
                t, p = heads[q], parents[q]
                for r in range(n):
                    # every contribution to the row, in order (arcs by ascending r′, then
                    # columns), counted per column
                    n_touched = n_terms = 0
                    for e in range(arc_ptr[t * n + r], arc_ptr[t * n + r + 1]):
                        w, i = weight[e], p * n + dst[e]
                        if n_terms + below.ptr[i + 1] - below.ptr[i] > cap_terms:
                            cap_terms = 2 * (n_terms + below.ptr[i + 1] - below.ptr[i])
                            term_col = <Py_ssize_t*> _grow(term_col, cap_terms * sizeof(Py_ssize_t))
                            term_val = <double*> _grow(term_val, cap_terms * sizeof(double))
                            grouped = <double*> _grow(grouped, cap_terms * sizeof(double))
                        for f in range(below.ptr[i], below.ptr[i + 1]):
                            c = below.col[f]
                            term_col[n_terms], term_val[n_terms] = c, w * below.val[f]
                            n_terms += 1
                            if not seen[c]:
                                seen[c] = 1
                                touched[n_touched] = c
                                n_touched += 1
                                count[c] = 0
                            count[c] += 1
                    _reserve(m, n_touched)
                    if n_touched > 48:  # long row: collect the columns in order by a scan
                        k = 0
                        for c in range(n):
                            if seen[c]:
                                touched[k] = c
                                k += 1
                    else:
                        _sort(touched, n_touched)
                    k = 0  # group the terms by column, keeping their order
                    for f in range(n_touched):
                        c = touched[f]
                        fill[c] = k
                        k += count[c]
                    for f in range(n_terms):
                        c = term_col[f]
                        grouped[fill[c]] = term_val[f]
                        fill[c] += 1
                    for f in range(n_touched):
                        c = touched[f]
                        k = fill[c] - count[c]
                        m.col[m.nnz] = c
                        m.val[m.nnz] = _max(grouped + k, count[c]) if maximum else \
                            grouped[k] + _pairwise_sum(grouped + k + 1, count[c] - 1)
                        m.nnz += 1
                        seen[c] = 0
                    _push_row(m)
        # the wanted strings, stacked
        total_rows = wanted.shape[0] * n
        ptr = np.empty(total_rows + 1, dtype=np.intp)
        size = 0
        for a in range(wanted.shape[0]):
            q = wanted[a]
            m = &levels[where[q]]
            first = (q - level_offsets[where[q]]) * n
            size += m.ptr[first + n] - m.ptr[first]
        col = np.empty(size, dtype=np.intp)
        val = np.empty(size, dtype=np.float64)
        _gather(levels, where, level_offsets, wanted, n, ptr, col, val)
        return ptr, col, val
    finally:
        for d in range(n_levels):
            _free(&levels[d])
        free(levels)
        free(where)
        free(seen)
        free(touched)
        free(count)
        free(fill)
        free(term_col)
        free(term_val)
        free(grouped)


cdef void _gather(Rows* levels, const Py_ssize_t* where, const Py_ssize_t[::1] level_offsets,
                  const Py_ssize_t[::1] wanted, Py_ssize_t n, Py_ssize_t[::1] ptr,
                  Py_ssize_t[::1] col, double[::1] val) noexcept:
    cdef Py_ssize_t a, q, r, f, first, at = 0, row = 0
    cdef Rows* m
    ptr[0] = 0
    for a in range(wanted.shape[0]):
        q = wanted[a]
        m = &levels[where[q]]
        first = (q - level_offsets[where[q]]) * n
        for r in range(first, first + n):
            for f in range(m.ptr[r], m.ptr[r + 1]):
                col[at], val[at] = m.col[f], m.val[f]
                at += 1
            row += 1
            ptr[row] = at


def transpose(Py_ssize_t n, const Py_ssize_t[::1] ptr, const Py_ssize_t[::1] col,
              const double[::1] val):
    """The CSR rows of the transposes of stacked n×n matrices (row a·n + s = M_a[s, :]):
    row a·n + t of the result is M_a[:, t], rows ascending within it."""
    cdef Py_ssize_t n_rows = ptr.shape[0] - 1, r, f, t, base
    tptr_a = np.zeros(n_rows + 1, dtype=np.intp)
    tcol_a = np.empty(col.shape[0], dtype=np.intp)
    tval_a = np.empty(col.shape[0], dtype=np.float64)
    cdef Py_ssize_t[::1] tptr = tptr_a, tcol = tcol_a
    cdef double[::1] tval = tval_a
    for r in range(n_rows):
        base = r - r % n
        for f in range(ptr[r], ptr[r + 1]):
            tptr[base + col[f] + 1] += 1
    for r in range(n_rows):
        tptr[r + 1] += tptr[r]
    cdef Py_ssize_t* fill = <Py_ssize_t*> malloc(max(n_rows, 1) * sizeof(Py_ssize_t))
    if fill == NULL:
        raise MemoryError()
    for r in range(n_rows):
        fill[r] = tptr[r]
    for r in range(n_rows):
        base = r - r % n
        for f in range(ptr[r], ptr[r + 1]):
            t = base + col[f]
            tcol[fill[t]], tval[fill[t]] = r % n, val[f]
            fill[t] += 1
    free(fill)
    return tptr_a, tcol_a, tval_a


def csr_matmul(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
               const double[::1] data, const double[:, ::1] dense, double[:, ::1] out):
    """out += A · dense for the CSR matrix A: each row's terms added one by one in the order of
    its entries (scipy's CSR product)."""
    cdef Py_ssize_t i, e, k, j, width = dense.shape[1]
    cdef double a
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            a, j = data[e], indices[e]
            for k in range(width):
                out[i, k] += a * dense[j, k]
