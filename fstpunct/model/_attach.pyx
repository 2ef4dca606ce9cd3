# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Attach products of a candidate set compiled, reading and writing only the block
(used contexts × candidates) of a contexts × pairs matrix: the scores
``contexts · (Θ Gᵀ)[used, candidates]`` (:func:`gathered_matmul`, bitwise the readable numpy
product it replaces: the same terms added in the same order) and, for the M-step, a piece of a
candidate set's objective term with its gradient in one pass over its rows as a trie
(:func:`fit_piece`; :class:`fstpunct.model.attach._Piece`), whose gradient blocks
:func:`scatter_add` adds up. All release the GIL (the M-step's threads)."""
from libc.math cimport log
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from ..dp._sparse cimport _exp_terms


cdef extern from *:
    """
    /* out = A · block, row by row, for the CSR matrix A (n_rows rows over the block's rows):
       each output row is summed 16 entries at a time, held in registers while the row's terms
       are added in the order of its entries, from 0 (then the last entries one at a time):
       every entry gets its terms in the order csr_matmul adds them, so the same bits. The
       body is built twice, for AVX2 (four doubles an instruction) and portably (two); neither
       contracts a * b + c (-ffp-contract=off; the AVX2 target has no FMA). */
    #define FSTP_GATHERED_ROWS(ATTRIBUTES, NAME)                                              \\
    static ATTRIBUTES void NAME(const Py_ssize_t* indptr, const int* indices,                \\
                                const double* data, Py_ssize_t n_rows, const double* block,  \\
                                Py_ssize_t width, double* out) {                             \\
        for (Py_ssize_t i = 0; i < n_rows; i++) {                                            \\
            double* target = out + i * width;                                                \\
            Py_ssize_t k = 0;                                                                \\
            for (; k + 16 <= width; k += 16) {                                               \\
                double acc[16];                                                              \\
                for (int j = 0; j < 16; j++) acc[j] = 0.0;                                   \\
                for (Py_ssize_t e = indptr[i]; e < indptr[i + 1]; e++) {                     \\
                    const double a = data[e];                                                \\
                    const double* row = block + indices[e] * width + k;                      \\
                    for (int j = 0; j < 16; j++) acc[j] += a * row[j];                       \\
                }                                                                            \\
                for (int j = 0; j < 16; j++) target[k + j] = acc[j];                         \\
            }                                                                                \\
            for (; k < width; k++) {                                                         \\
                double t = 0.0;                                                              \\
                for (Py_ssize_t e = indptr[i]; e < indptr[i + 1]; e++)                       \\
                    t += data[e] * block[indices[e] * width + k];                            \\
                target[k] = t;                                                               \\
            }                                                                                \\
        }                                                                                    \\
    }
    FSTP_GATHERED_ROWS(, fstp_gathered_rows_portable)
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    FSTP_GATHERED_ROWS(__attribute__((target("avx2"))), fstp_gathered_rows_avx2)
    static int fstp_attach_avx2(void) { return __builtin_cpu_supports("avx2") != 0; }
    #else
    #define fstp_gathered_rows_avx2 fstp_gathered_rows_portable
    static int fstp_attach_avx2(void) { return 0; }
    #endif
    """
    void fstp_gathered_rows_portable(const Py_ssize_t* indptr, const int* indices,
                                     const double* data, Py_ssize_t n_rows, const double* block,
                                     Py_ssize_t width, double* out) noexcept nogil
    void fstp_gathered_rows_avx2(const Py_ssize_t* indptr, const int* indices,
                                 const double* data, Py_ssize_t n_rows, const double* block,
                                 Py_ssize_t width, double* out) noexcept nogil
    int fstp_attach_avx2() noexcept nogil


cdef bint _avx2 = fstp_attach_avx2()


cdef void _gather(double* block, const double[:, ::1] scores, const Py_ssize_t[::1] used,
                  const Py_ssize_t[::1] candidates) noexcept nogil:
    """block = scores[used][:, candidates] (contiguous rows: inner loops over it vectorise)."""
    cdef Py_ssize_t u, k, width = candidates.shape[0]
    for u in range(used.shape[0]):
        for k in range(width):
            block[u * width + k] = scores[used[u], candidates[k]]


def gathered_matmul(const Py_ssize_t[::1] indptr, const int[::1] indices,
                    const double[::1] data, const Py_ssize_t[::1] used,
                    const Py_ssize_t[::1] candidates, const double[:, ::1] scores,
                    double[:, ::1] out, bint avx2=True):
    """out = A · scores[used][:, candidates] for the CSR matrix A (columns: ``used``; what
    ``out`` held is not read): the same terms added in the same order, from 0, as
    :func:`fstpunct.dp._sparse.csr_matmul` over the gathered block, so bitwise its result.
    Each output row is summed 16 entries at a time (held in registers while the row's terms
    are added), not term by term over the whole row: every entry still gets its terms in the
    same order; by the loop built for AVX2 if ``avx2`` and the processor has it, else the
    portable one (the same bits)."""
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, width = candidates.shape[0], i
    cdef double *block
    if out.shape[0] != n_rows or out.shape[1] != width:
        raise ValueError("gathered_matmul: out must be rows × candidates")
    if width == 0:
        return
    if used.shape[0] == 0:  # rows without entries
        out[:, :] = 0.0
        return
    for i in range(n_rows):
        if not (0 <= indptr[i] <= indptr[i + 1] <= indices.shape[0] <= data.shape[0]):
            raise ValueError("gathered_matmul: the row pointers are out of range")
    for i in range(indptr[n_rows]):
        if not 0 <= indices[i] < used.shape[0]:
            raise ValueError("gathered_matmul: a column is out of range")
    block = <double *> malloc(used.shape[0] * width * sizeof(double))
    if block == NULL:
        raise MemoryError()
    with nogil:
        _gather(block, scores, used, candidates)
        if avx2 and _avx2:
            fstp_gathered_rows_avx2(&indptr[0], &indices[0] if indices.shape[0] else NULL,
                                    &data[0] if data.shape[0] else NULL, n_rows, block, width,
                                    &out[0, 0] if n_rows else NULL)
        else:
            fstp_gathered_rows_portable(&indptr[0], &indices[0] if indices.shape[0] else NULL,
                                        &data[0] if data.shape[0] else NULL, n_rows, block,
                                        width, &out[0, 0] if n_rows else NULL)
    free(block)


def fit_piece(const Py_ssize_t[::1] indptr, const int[::1] indices, const double[::1] data,
              const Py_ssize_t[::1] shared, const Py_ssize_t[::1] used,
              const Py_ssize_t[::1] candidates, const double[:, ::1] scores,
              const double[:, ::1] targets, const double[::1] mass, double[:, ::1] gradient):
    """The M-step's term of some context rows (the CSR matrix A, columns: ``used``; row i has
    ``targets[i]`` over the candidates, ``mass[i]`` their sum): returns
    Σ_i targets[i] · s_i − mass[i] · log Σ_k exp s_ik for the scores s = A · scores[used][:,
    candidates], and writes ``gradient`` = Aᵀ · (targets − mass · p) (``used`` × candidates; p
    the rows' softmax), in one pass over the rows as a trie of their entries (column, value).

    ``shared[i]`` is how many first entries row i shares with row i − 1 (0 for i = 0; rows
    sorted so that common prefixes are next to each other share most). A row's score is
    0 + a₁·b₁ + a₂·b₂ + … in the order of its entries, and the partial sums of a shared prefix
    are computed once (scores bitwise :func:`gathered_matmul`'s); the gradient is summed the
    same way in reverse, as the trie is left: each trie node at depth d with entry (c, a) adds
    a · (the sum of its subtree's rows' targets − mass · p) to ``gradient[c]`` once, and that sum
    to its parent's. Each row's exponentials, after the row's maximum, are the vectorised
    :func:`fstpunct.dp._sparse.exponentials` (within 1 ulp of libm's and numpy's) and their sum
    numpy's pairwise sum; the value and the gradient are sums in another order than numpy's
    products (equal to a few units in the last place)."""
    cdef Py_ssize_t i, d, e, k, n, open_ = 0, prev = 0, depth = 0
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, width = candidates.shape[0]
    cdef Py_ssize_t n_used = used.shape[0]
    cdef double a, high, sum_, m, dot, value = 0.0
    cdef double *block
    cdef double *partial
    cdef double *below
    cdef double *p
    cdef double *zero
    cdef double *level
    cdef double *row
    cdef const double *score
    cdef const double *t
    if shared.shape[0] != n_rows or targets.shape[0] != n_rows or \
            targets.shape[1] != width or mass.shape[0] != n_rows or \
            gradient.shape[0] != n_used or gradient.shape[1] != width:
        raise ValueError("fit_piece: shared, targets and mass must have one row per context "
                         "row (targets: rows × candidates), gradient be used × candidates")
    if n_rows == 0:
        gradient[:, :] = 0.0
        return 0.0
    if width == 0:
        raise ValueError("fit_piece: a row without candidates has no distribution")
    for i in range(n_rows):
        depth = max(depth, indptr[i + 1] - indptr[i])
    block = <double *> malloc(max(n_used * width, 1) * sizeof(double))
    partial = <double *> malloc(max(depth, 1) * width * sizeof(double))
    below = <double *> calloc(max(depth, 1) * width, sizeof(double))  # closed levels are 0
    p = <double *> malloc(width * sizeof(double))
    zero = <double *> calloc(width, sizeof(double))
    if block == NULL or partial == NULL or below == NULL or p == NULL or zero == NULL:
        free(block)
        free(partial)
        free(below)
        free(p)
        free(zero)
        raise MemoryError()
    with nogil:
        _gather(block, scores, used, candidates)
        if n_used:
            memset(&gradient[0, 0], 0, n_used * width * sizeof(double))
        for i in range(n_rows):
            n = indptr[i + 1] - indptr[i]
            _leave(&gradient[0, 0], below, indptr[prev], indices, data, open_, shared[i],
                   width)
            for d in range(shared[i], n):
                e = indptr[i] + d
                a, row, level = data[e], block + indices[e] * width, partial + d * width
                if d == 0:
                    for k in range(width):
                        level[k] = 0.0 + a * row[k]
                else:
                    for k in range(width):
                        level[k] = level[k - width] + a * row[k]
            score, t = (partial + (n - 1) * width if n else zero), &targets[i, 0]
            sum_ = _exp_terms(score, p, width, &high, False)
            dot = 0.0
            for k in range(width):
                dot = dot + t[k] * score[k]
            value = value + (dot - mass[i] * (high + log(sum_)))
            if n:
                m, level = -mass[i], below + (n - 1) * width
                for k in range(width):
                    level[k] += p[k] / sum_ * m + t[k]
            open_, prev = n, i
        _leave(&gradient[0, 0], below, indptr[prev], indices, data, open_, 0, width)
    free(zero)
    free(p)
    free(below)
    free(partial)
    free(block)
    return value


cdef void _leave(double* gradient, double* below, Py_ssize_t first, const int[::1] indices,
                 const double[::1] data, Py_ssize_t open_, Py_ssize_t keep,
                 Py_ssize_t width) noexcept nogil:
    """Close the trie levels ``open_`` − 1 down to ``keep`` of the path whose entries start at
    ``first``: each adds a · (its subtree's sum ``below[d]``) to its column's gradient row and
    that sum to its parent's, and is set back to 0 for the next node at its depth."""
    cdef Py_ssize_t d, k, e
    cdef double a
    cdef double *level
    cdef double *row
    for d in range(open_ - 1, keep - 1, -1):
        e = first + d
        a, level, row = data[e], below + d * width, gradient + indices[e] * width
        if d > 0:
            for k in range(width):
                row[k] += a * level[k]
                level[k - width] += level[k]
                level[k] = 0.0
        else:
            for k in range(width):
                row[k] += a * level[k]
                level[k] = 0.0


def scatter_add(double[:, ::1] out, const double[:, ::1] block, const Py_ssize_t[::1] used,
                const Py_ssize_t[::1] candidates):
    """out[used][:, candidates] += block (row by row; GIL released)."""
    cdef Py_ssize_t u, k, width = candidates.shape[0]
    if block.shape[0] != used.shape[0] or block.shape[1] != width:
        raise ValueError("scatter_add: block must be used × candidates")
    with nogil:
        for u in range(used.shape[0]):
            for k in range(width):
                out[used[u], candidates[k]] += block[u, k]
