# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Attach products of a candidate set compiled, reading and writing only the block
(used contexts × candidates) of a contexts × pairs matrix: the scores
``contexts · (Θ Gᵀ)[used, candidates]`` (:func:`gathered_matmul`, bitwise the readable numpy
product it replaces: the same terms added in the same order) and, for the M-step, a piece of a
candidate set's objective term with its gradient in one pass over its rows as a trie
(:func:`fit_piece`; :class:`fstpunct.model.attach._Piece`), whose gradient blocks
:func:`add_blocks` adds up. All release the GIL (the M-step's threads)."""
from libc.math cimport log
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp, memset

import numpy as np


cdef extern from *:
    int __builtin_popcount(unsigned int x) noexcept nogil

from ..dp._sparse cimport _exp_terms, _first


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


def unpack_nonzeros(const unsigned char[::1] bits, const double[::1] values,
                    double[::1] out):
    """``out`` filled from a stored block (``attach._stored``): where bit k of ``bits``
    (``np.packbits``' order, bits past its end zero) is set, the next of ``values``, else 0.0
    (``attach.unpack_nonzeros_reference``, by a boolean mask; here a byte at a time, without a
    mask of every entry). ValueError if the set bits and the values do not pair up."""
    cdef Py_ssize_t n = out.shape[0], full = min(n >> 3, bits.shape[0]), at = 0, i
    for i in range(full):  # the values each byte takes, checked before the unchecked loop
        at += __builtin_popcount(bits[i])
    if full < bits.shape[0] and n & 7:
        at += __builtin_popcount(bits[full] >> (8 - (n & 7)))
    if at != values.shape[0]:
        raise ValueError("the stored values do not pair up with the block's nonzero bits")
    if n:
        _unpack(&bits[0] if bits.shape[0] else NULL, bits.shape[0], _first(values), n,
                &out[0])


cdef void _unpack(const unsigned char* bits, Py_ssize_t n_bits, const double* values,
                  Py_ssize_t n, double* out) noexcept nogil:
    """:func:`unpack_nonzeros`' loop (the values counted already): a byte's 8 entries at a
    time, a zero byte's without testing its bits."""
    cdef Py_ssize_t at = 0, i, j, width
    cdef unsigned int byte
    for i in range((n + 7) >> 3):
        byte = bits[i] if i < n_bits else 0
        width = min(8, n - (i << 3))
        if byte == 0:
            for j in range(width):
                out[j] = 0.0
        else:
            for j in range(width):
                if byte & (0x80 >> j):
                    out[j] = values[at]
                    at += 1
                else:
                    out[j] = 0.0
        out += 8


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
            fstp_gathered_rows_avx2(&indptr[0], _first(indices), _first(data), n_rows, block,
                                    width, &out[0, 0] if n_rows else NULL)
        else:
            fstp_gathered_rows_portable(&indptr[0], _first(indices), _first(data), n_rows,
                                        block, width, &out[0, 0] if n_rows else NULL)
    free(block)


cdef extern from *:
    """
    /* The hot loops of fit_piece, over a tile of candidates at a time held in registers (GCC's
       vector extensions: + and * element by element, each rounded once: the module is built
       with -ffp-contract=off), so every build gives the same bits; the AVX2 build does four
       elements per instruction where the portable one does two. */
    typedef double fstp_v4 __attribute__((vector_size(32), aligned(8), may_alias));

    /* Levels lo..n-1 of a row's partial sums for candidates k..k+4V-1: level d = level d-1
       (0.0 for d = 0) + data[d] * (its context's row of the gathered block). */
    static inline __attribute__((always_inline)) void fstp_prefix_tile(
            double* __restrict partial, const double* __restrict block, const Py_ssize_t* at,
            const int* indices, const double* data, Py_ssize_t lo, Py_ssize_t n,
            Py_ssize_t width, Py_ssize_t k, const int V) {
        fstp_v4 acc[4];
        int v;
        for (v = 0; v < V; v++)
            acc[v] = lo ? *(const fstp_v4*) (partial + (lo - 1) * width + k + 4 * v)
                        : (fstp_v4) {0.0, 0.0, 0.0, 0.0};
        for (Py_ssize_t d = lo; d < n; d++) {
            const double a = data[d];
            const double* row = block + at[indices[d]] * width + k;
            double* level = partial + d * width + k;
            for (v = 0; v < V; v++) {
                acc[v] = acc[v] + a * *(const fstp_v4*) (row + 4 * v);
                *(fstp_v4*) (level + 4 * v) = acc[v];
            }
        }
    }

    static inline __attribute__((always_inline)) void fstp_prefix_body(
            double* __restrict partial, const double* __restrict block, const Py_ssize_t* at,
            const int* indices, const double* data, Py_ssize_t lo, Py_ssize_t n,
            Py_ssize_t width) {
        Py_ssize_t k = 0;
        for (; k + 16 <= width; k += 16)
            fstp_prefix_tile(partial, block, at, indices, data, lo, n, width, k, 4);
        for (; k + 4 <= width; k += 4)
            fstp_prefix_tile(partial, block, at, indices, data, lo, n, width, k, 1);
        for (; k < width; k++) {
            double t = lo ? partial[(lo - 1) * width + k] : 0.0;
            for (Py_ssize_t d = lo; d < n; d++) {
                t = t + data[d] * block[at[indices[d]] * width + k];
                partial[d * width + k] = t;
            }
        }
    }

    /* Close the trie levels open-1 down to keep (> 0: that level stays open) of a path (its
       entries indices, data) for candidates k..k+4V-1: each level's sum (its own rows' plus
       its closed child's, carried in registers) adds data[d] * sum to its context's gradient
       row and is set back to 0; the last one's sum is added to level keep-1. */
    static inline __attribute__((always_inline)) void fstp_leave_tile(
            double* __restrict gradient, double* __restrict below, const int* indices,
            const double* data, Py_ssize_t open, Py_ssize_t keep, Py_ssize_t width,
            Py_ssize_t k, const int V) {
        fstp_v4 carry[4];
        int v;
        for (v = 0; v < V; v++) carry[v] = *(fstp_v4*) (below + (open - 1) * width + k + 4 * v);
        for (Py_ssize_t d = open - 1; d >= keep; d--) {
            const double a = data[d];
            double* level = below + d * width + k;
            double* row = gradient + (Py_ssize_t) indices[d] * width + k;
            for (v = 0; v < V; v++) {
                if (d < open - 1) carry[v] = *(fstp_v4*) (level + 4 * v) + carry[v];
                *(fstp_v4*) (row + 4 * v) = *(fstp_v4*) (row + 4 * v) + a * carry[v];
                *(fstp_v4*) (level + 4 * v) = (fstp_v4) {0.0, 0.0, 0.0, 0.0};
            }
        }
        if (keep > 0)
            for (v = 0; v < V; v++) {
                fstp_v4* parent = (fstp_v4*) (below + (keep - 1) * width + k + 4 * v);
                *parent = *parent + carry[v];
            }
    }

    static inline __attribute__((always_inline)) void fstp_leave_body(
            double* __restrict gradient, double* __restrict below, const int* indices,
            const double* data, Py_ssize_t open, Py_ssize_t keep, Py_ssize_t width) {
        Py_ssize_t k = 0;
        if (open <= keep) return;
        for (; k + 16 <= width; k += 16)
            fstp_leave_tile(gradient, below, indices, data, open, keep, width, k, 4);
        for (; k + 4 <= width; k += 4)
            fstp_leave_tile(gradient, below, indices, data, open, keep, width, k, 1);
        for (; k < width; k++) {
            double c = below[(open - 1) * width + k];
            for (Py_ssize_t d = open - 1; d >= keep; d--) {
                double* level = below + d * width + k;
                if (d < open - 1) c = *level + c;
                gradient[(Py_ssize_t) indices[d] * width + k] += data[d] * c;
                *level = 0.0;
            }
            if (keep > 0) below[(keep - 1) * width + k] += c;
        }
    }

    /* A row's leaf: level += p / total * m + t, element by element. */
    static inline __attribute__((always_inline)) void fstp_leaf_body(
            double* __restrict level, const double* __restrict p,
            const double* __restrict t, double total, double m, Py_ssize_t width) {
        for (Py_ssize_t k = 0; k < width; k++) level[k] += p[k] / total * m + t[k];
    }

    #define FSTP_LOOPS(suffix, attributes)                                                  \\
        static attributes void fstp_prefix_##suffix(                                        \\
                double* partial, const double* block, const Py_ssize_t* at,                 \\
                const int* indices, const double* data, Py_ssize_t lo, Py_ssize_t n,        \\
                Py_ssize_t width) {                                                         \\
            fstp_prefix_body(partial, block, at, indices, data, lo, n, width);              \\
        }                                                                                   \\
        static attributes void fstp_leave_##suffix(                                         \\
                double* gradient, double* below, const int* indices, const double* data,    \\
                Py_ssize_t open, Py_ssize_t keep, Py_ssize_t width) {                       \\
            fstp_leave_body(gradient, below, indices, data, open, keep, width);             \\
        }                                                                                   \\
        static attributes void fstp_leaf_##suffix(                                          \\
                double* level, const double* p, const double* t, double total, double m,    \\
                Py_ssize_t width) {                                                         \\
            fstp_leaf_body(level, p, t, total, m, width);                                   \\
        }

    FSTP_LOOPS(portable, )
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    FSTP_LOOPS(avx2, __attribute__((target("avx2"))))
    #else
    FSTP_LOOPS(avx2, )
    #endif
    """
    void fstp_prefix_portable(double* partial, const double* block, const Py_ssize_t* at,
                              const int* indices, const double* data, Py_ssize_t lo,
                              Py_ssize_t n, Py_ssize_t width) noexcept nogil
    void fstp_prefix_avx2(double* partial, const double* block, const Py_ssize_t* at,
                          const int* indices, const double* data, Py_ssize_t lo, Py_ssize_t n,
                          Py_ssize_t width) noexcept nogil
    void fstp_leave_portable(double* gradient, double* below, const int* indices,
                             const double* data, Py_ssize_t open, Py_ssize_t keep,
                             Py_ssize_t width) noexcept nogil
    void fstp_leave_avx2(double* gradient, double* below, const int* indices,
                         const double* data, Py_ssize_t open, Py_ssize_t keep,
                         Py_ssize_t width) noexcept nogil
    void fstp_leaf_portable(double* level, const double* p, const double* t, double total,
                            double m, Py_ssize_t width) noexcept nogil
    void fstp_leaf_avx2(double* level, const double* p, const double* t, double total,
                        double m, Py_ssize_t width) noexcept nogil


def gather(const double[:, ::1] scores, const Py_ssize_t[::1] used,
           const Py_ssize_t[::1] candidates, double[:, ::1] out):
    """out = scores[used][:, candidates] (a candidate set's block, read by :func:`fit_piece`;
    GIL released)."""
    if out.shape[0] != used.shape[0] or out.shape[1] != candidates.shape[0]:
        raise ValueError("gather: out must be used × candidates")
    if out.shape[0] and out.shape[1]:
        with nogil:
            _gather(&out[0, 0], scores, used, candidates)


def fit_piece(const Py_ssize_t[::1] indptr, const int[::1] indices, const double[::1] data,
              const Py_ssize_t[::1] shared, const Py_ssize_t[::1] at,
              const double[:, ::1] block, const double[:, ::1] targets,
              const double[::1] mass, double[:, ::1] gradient, bint avx2=True,
              const Py_ssize_t[::1] nonzero_ptr=None, const int[::1] nonzero=None):
    """The M-step's term of some context rows (the CSR matrix A over the piece's contexts,
    whose rows in the candidate set's :func:`gather`-ed ``block`` (contexts × candidates) are
    ``at``; row i has ``targets[i]`` over the candidates, ``mass[i]`` their sum): returns
    Σ_i targets[i] · s_i − mass[i] · log Σ_k exp s_ik for the scores s = A · block[at], and
    writes ``gradient`` = Aᵀ · (targets − mass · p) (len(at) × candidates; p the rows'
    softmax), in one pass over the rows as a trie of their entries (column, value).

    ``shared[i]`` is how many first entries row i shares with row i − 1 (0 for i = 0; rows
    sorted so that common prefixes are next to each other share most). A row's score is
    0 + a₁·b₁ + a₂·b₂ + … in the order of its entries, and the partial sums of a shared prefix
    are computed once (scores bitwise :func:`gathered_matmul`'s); the gradient is summed the
    same way in reverse, as the trie is left: each trie node at depth d with entry (c, a) adds
    a · (the sum of its subtree's rows' targets − mass · p) to ``gradient[c]`` once, and that sum
    to its parent's. Each row's exponentials, after the row's maximum, are the vectorised
    :func:`fstpunct.dp._sparse.exponentials` (within 1 ulp of libm's and numpy's) and their sum
    numpy's pairwise sum; the value and the gradient are sums in another order than numpy's
    products (equal to a few units in the last place). The loops over the candidates run in
    the build for AVX2 if ``avx2`` and the processor has it (the same bits as the portable
    one). ``nonzero_ptr``, ``nonzero`` (optional, CSR): the candidates where each row's targets
    are not 0, in ascending order; targets · s then adds only their terms, the same bits (a
    term 0 · s adds ±0, which leaves a sum that starts at +0 unchanged); a column outside the
    candidates is found where it is read and raises ValueError (``gradient`` then holds no
    meaningful values)."""
    cdef Py_ssize_t i, k, n, column, open_ = 0, prev = 0, depth = 0
    cdef bint sparse = nonzero_ptr is not None, bad = False
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, width = block.shape[1]
    cdef Py_ssize_t n_used = at.shape[0]
    cdef double high, sum_, dot, value = 0.0
    cdef bint wide = avx2 and _avx2
    cdef double *partial
    cdef double *below
    cdef double *p
    cdef double *zero
    cdef double *grad
    cdef const double *score
    cdef const double *t
    if shared.shape[0] != n_rows or targets.shape[0] != n_rows or \
            targets.shape[1] != width or mass.shape[0] != n_rows or \
            gradient.shape[0] != n_used or gradient.shape[1] != width:
        raise ValueError("fit_piece: shared, targets and mass must have one row per context "
                         "row (targets: rows × candidates), gradient be len(at) × candidates")
    for i in range(n_used):
        if not 0 <= at[i] < block.shape[0]:
            raise ValueError("fit_piece: at must give rows of block")
    for i in range(indptr[n_rows]):
        if not 0 <= indices[i] < n_used:
            raise ValueError("fit_piece: indices must be columns of at")
    if sparse:
        if nonzero is None or nonzero_ptr.shape[0] != n_rows + 1 or nonzero_ptr[0] != 0:
            raise ValueError("fit_piece: nonzero_ptr must have a pointer per row and one more")
        for i in range(n_rows):
            if not nonzero_ptr[i] <= nonzero_ptr[i + 1] <= nonzero.shape[0]:
                raise ValueError("fit_piece: nonzero_ptr is out of range")
    if n_rows == 0:
        gradient[:, :] = 0.0
        return 0.0
    if width == 0:
        raise ValueError("fit_piece: a row without candidates has no distribution")
    for i in range(n_rows):
        depth = max(depth, indptr[i + 1] - indptr[i])
    partial = <double *> malloc(max(depth, 1) * width * sizeof(double))
    below = <double *> calloc(max(depth, 1) * width, sizeof(double))  # closed levels are 0
    p = <double *> malloc(width * sizeof(double))
    zero = <double *> calloc(width, sizeof(double))
    if partial == NULL or below == NULL or p == NULL or zero == NULL:
        free(partial)
        free(below)
        free(p)
        free(zero)
        raise MemoryError()
    with nogil:
        grad = &gradient[0, 0] if n_used else zero
        if n_used:
            memset(grad, 0, n_used * width * sizeof(double))
        for i in range(n_rows):
            n = indptr[i + 1] - indptr[i]
            if wide:
                fstp_leave_avx2(grad, below, &indices[indptr[prev]], &data[indptr[prev]],
                                open_, shared[i], width)
                fstp_prefix_avx2(partial, &block[0, 0], &at[0], &indices[indptr[i]],
                                 &data[indptr[i]], shared[i], n, width)
            else:
                fstp_leave_portable(grad, below, &indices[indptr[prev]], &data[indptr[prev]],
                                    open_, shared[i], width)
                fstp_prefix_portable(partial, &block[0, 0], &at[0], &indices[indptr[i]],
                                     &data[indptr[i]], shared[i], n, width)
            score, t = (partial + (n - 1) * width if n else zero), &targets[i, 0]
            sum_ = _exp_terms(score, p, width, &high, False)
            dot = 0.0
            if sparse:  # each column checked where it is read (the chain of sums is the cost)
                for k in range(nonzero_ptr[i], nonzero_ptr[i + 1]):
                    column = nonzero[k]
                    if not 0 <= column < width:
                        bad = True
                        break
                    dot = dot + t[column] * score[column]
                if bad:
                    break
            else:
                for k in range(width):
                    dot = dot + t[k] * score[k]
            value = value + (dot - mass[i] * (high + log(sum_)))
            if n:
                if wide:
                    fstp_leaf_avx2(below + (n - 1) * width, p, t, sum_, -mass[i], width)
                else:
                    fstp_leaf_portable(below + (n - 1) * width, p, t, sum_, -mass[i], width)
            open_, prev = n, i
        if wide:
            fstp_leave_avx2(grad, below, &indices[indptr[prev]], &data[indptr[prev]], open_, 0,
                            width)
        else:
            fstp_leave_portable(grad, below, &indices[indptr[prev]], &data[indptr[prev]],
                                open_, 0, width)
    free(zero)
    free(p)
    free(below)
    free(partial)
    if bad:
        raise ValueError("fit_piece: nonzero must give candidates")
    return value


def merge_rows(const double[::1] targets, const long long[::1] starts,
               const Py_ssize_t[::1] into, double[:, ::1] out):
    """out = 0, then out[into[j]] += targets[starts[j] : starts[j] + width] for j = 0, 1, … in
    turn (width: out's columns): nodes' candidate rows merged into their distinct context rows,
    each a sum 0 + its nodes' rows in node order (what a product by a 0/1 CSR matrix gives)."""
    cdef Py_ssize_t j, k, width = out.shape[1]
    cdef double* row
    if starts.shape[0] != into.shape[0]:
        raise ValueError("merge_rows: a start and a row per node")
    for j in range(starts.shape[0]):
        if not (0 <= into[j] < out.shape[0] and 0 <= starts[j] <= targets.shape[0] - width):
            raise ValueError("merge_rows: a node's row or targets out of range")
    with nogil:
        if out.shape[0] and width:
            memset(&out[0, 0], 0, out.shape[0] * width * sizeof(double))
        for j in range(starts.shape[0]):
            row = &out[into[j], 0] if width else NULL
            for k in range(width):
                row[k] += targets[starts[j] + k]


def add_blocks(double[:, ::1] out, Py_ssize_t lo, Py_ssize_t hi, const Py_ssize_t[::1] ptr,
               const Py_ssize_t[::1] block, const Py_ssize_t[::1] row, list blocks,
               list columns):
    """Rows ``lo``…``hi − 1`` of ``out`` set to 0 and then, row r by row, each of its entries
    j = ptr[r] … ptr[r + 1] − 1 in turn added: out[r, columns[b]] += blocks[b][row[j]] for
    b = block[j] (``blocks``: C-ordered 2-d arrays, ``columns``: intp arrays of their widths).
    The scatter ``out[used][:, columns[b]] += blocks[b]`` of every block b in turn, row by row
    instead: an entry of ``out`` gets its terms in the same order, so the same bits, when each
    row lists its blocks in the order of the scatter; the row stays in cache. GIL released for
    the sums."""
    cdef Py_ssize_t n = len(blocks), b, j, k, r, width
    cdef double[:, ::1] view
    cdef const Py_ssize_t[::1] cols
    cdef double** starts
    cdef const Py_ssize_t** wheres
    cdef Py_ssize_t* shape
    cdef double* target
    cdef const double* source
    cdef const Py_ssize_t* where
    if len(columns) != n:
        raise ValueError("add_blocks: one array of columns per block")
    if not (0 <= lo <= hi <= out.shape[0] and ptr.shape[0] == out.shape[0] + 1):
        raise ValueError("add_blocks: rows lo..hi of out, and a pointer per row and one more")
    for r in range(lo, hi):
        if not (0 <= ptr[r] <= ptr[r + 1] <= block.shape[0] and block.shape[0] == row.shape[0]):
            raise ValueError("add_blocks: the row pointers are out of range")
    starts = <double**> calloc(max(n, 1), sizeof(double*))
    wheres = <const Py_ssize_t**> calloc(max(n, 1), sizeof(Py_ssize_t*))
    shape = <Py_ssize_t*> calloc(2 * max(n, 1), sizeof(Py_ssize_t))
    if starts == NULL or wheres == NULL or shape == NULL:
        free(starts)
        free(<void*> wheres)
        free(shape)
        raise MemoryError()
    try:
        for b in range(n):
            view, cols = blocks[b], columns[b]
            if view.shape[1] != cols.shape[0]:
                raise ValueError("add_blocks: a block's width is not its columns'")
            for k in range(cols.shape[0]):
                if not 0 <= cols[k] < out.shape[1]:
                    raise ValueError("add_blocks: a column is out of range")
            shape[2 * b], shape[2 * b + 1] = view.shape[0], view.shape[1]
            if view.shape[0] and view.shape[1]:
                starts[b], wheres[b] = &view[0, 0], &cols[0]
        for j in range(ptr[lo], ptr[hi]):
            if not (0 <= block[j] < n and 0 <= row[j] < shape[2 * block[j]]):
                raise ValueError("add_blocks: an entry's block or row is out of range")
        width = out.shape[1]
        with nogil:
            for r in range(lo, hi):
                target = &out[r, 0] if width else NULL
                if width:
                    memset(target, 0, width * sizeof(double))
                for j in range(ptr[r], ptr[r + 1]):
                    b = block[j]
                    source, where = starts[b] + row[j] * shape[2 * b + 1], wheres[b]
                    for k in range(shape[2 * b + 1]):
                        target[where[k]] += source[k]
    finally:
        free(starts)
        free(<void*> wheres)
        free(shape)


cdef int _compare(const Py_ssize_t* indptr, const int* indices, const double* data,
                  Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Rows a and b by their entries (column, value) in turn; a row that is a prefix of the
    other first; 0 for equal rows."""
    cdef Py_ssize_t i = indptr[a], j = indptr[b]
    while True:
        if i == indptr[a + 1]:
            return 0 if j == indptr[b + 1] else -1
        if j == indptr[b + 1]:
            return 1
        if indices[i] != indices[j]:
            return -1 if indices[i] < indices[j] else 1
        if data[i] != data[j]:
            return -1 if data[i] < data[j] else 1
        i += 1
        j += 1


def lexicographic(const Py_ssize_t[::1] indptr, const int[::1] indices, const double[::1] data):
    """The rows of a CSR matrix in lexicographic order of their entries (column, value), a row
    that is a prefix of another first, equal rows in row order (a stable merge sort), and how
    many first entries each shares with the row before it (column and value's bits; 0 for the
    first): what :meth:`fstpunct.model.attach._Group.prefixes_reference` computes by numpy's
    ``lexsort`` (values: not NaN)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, i, j, k, lo, mid, hi, width, a, b, s
    cdef Py_ssize_t[::1] order, shared
    cdef Py_ssize_t *source
    cdef Py_ssize_t *target
    cdef Py_ssize_t *buffer
    if n < 0 or indptr[0] != 0:
        raise ValueError("lexicographic: row pointers from 0, one per row and one more")
    for i in range(n):
        if not indptr[i] <= indptr[i + 1] <= min(indices.shape[0], data.shape[0]):
            raise ValueError("lexicographic: the row pointers are out of range")
    order_array, shared_array = np.arange(n, dtype=np.intp), np.zeros(n, dtype=np.intp)
    order, shared = order_array, shared_array
    if n < 2:
        return order_array, shared_array
    buffer = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
    if buffer == NULL:
        raise MemoryError()
    with nogil:
        source, target = &order[0], buffer
        width = 1
        while width < n:  # bottom-up: merge runs of ``width`` from source into target
            lo = 0
            while lo < n:
                mid, hi = min(lo + width, n), min(lo + 2 * width, n)
                i, j, k = lo, mid, lo
                while i < mid and j < hi:
                    if _compare(&indptr[0], &indices[0], &data[0], source[j], source[i]) < 0:
                        target[k] = source[j]
                        j += 1
                    else:
                        target[k] = source[i]
                        i += 1
                    k += 1
                while i < mid:
                    target[k] = source[i]
                    i += 1
                    k += 1
                while j < hi:
                    target[k] = source[j]
                    j += 1
                    k += 1
                lo = hi
            source, target = target, source
            width *= 2
        if source != &order[0]:
            for i in range(n):
                order[i] = source[i]
        for k in range(1, n):
            a, b, s = order[k - 1], order[k], 0
            while (indptr[a] + s < indptr[a + 1] and indptr[b] + s < indptr[b + 1]
                   and indices[indptr[a] + s] == indices[indptr[b] + s]
                   and memcmp(&data[indptr[a] + s], &data[indptr[b] + s], sizeof(double)) == 0):
                s += 1
            shared[k] = s
    free(buffer)
    return order_array, shared_array


def nonzero_rows(const double[:, ::1] values):
    """Where each row of ``values`` is not 0, as a CSR's row pointers (intp) and columns
    (int32, ascending in each row): ``np.nonzero``'s entries in its order."""
    cdef Py_ssize_t n = values.shape[0], width = values.shape[1], i, k, count = 0
    cdef Py_ssize_t[::1] ptr
    cdef int[::1] columns
    ptr_array = np.zeros(n + 1, dtype=np.intp)
    ptr = ptr_array
    with nogil:
        for i in range(n):
            for k in range(width):
                count += values[i, k] != 0.0
            ptr[i + 1] = count
    columns_array = np.empty(count, dtype=np.int32)
    columns = columns_array
    with nogil:
        count = 0
        for i in range(n):
            for k in range(width):
                if values[i, k] != 0.0:
                    columns[count] = <int> k
                    count += 1
    return ptr_array, columns_array
