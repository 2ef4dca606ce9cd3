# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Attach products of a candidate set compiled, reading and writing only the block
(used contexts × candidates) of a contexts × pairs matrix: the scores
``contexts · (Θ Gᵀ)[used, candidates]`` (:func:`gathered_matmul`; :func:`prefix_matmul` sharing
the partial sums of rows with a common prefix of entries) and, for the M-step, each row's
softmax with the objective's gradient ``d[used, candidates] += contextsᵀ · (targets − mass · p)``
(:func:`softmax_gradient`) in one pass over the rows (:meth:`fstpunct.model.attach._Group.scores`,
:meth:`~fstpunct.model.attach._Group.fit_term`). Each adds the same terms in the same order as
the readable numpy products it replaces, so bitwise their results (the exponential is libm's,
which numpy calls too where it has no SIMD version of its own); all release the GIL (the
M-step's threads)."""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from ..dp._sparse cimport _exp_terms


cdef double* _block(str name, str given, Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t n_rows,
                    Py_ssize_t width, Py_ssize_t n_used, bint zeroed) except? NULL:
    """A ``n_used`` × ``width`` buffer for a product's block (zeroed if asked), after checking
    that the ``given`` matrix (``rows`` × ``cols``) is ``n_rows`` × ``width``; NULL when the
    block is empty (nothing to do)."""
    cdef double* block
    if rows != n_rows or cols != width:
        raise ValueError(f"{name}: {given} must be rows × candidates")
    if width == 0 or n_used == 0:
        return NULL
    if zeroed:
        block = <double *> calloc(n_used * width, sizeof(double))
    else:
        block = <double *> malloc(n_used * width * sizeof(double))
    if block == NULL:
        raise MemoryError()
    return block


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
                    double[:, ::1] out):
    """out += A · scores[used][:, candidates] for the CSR matrix A (columns: ``used``): the same
    terms added in the same order as :func:`fstpunct.dp._sparse.csr_matmul` over the gathered
    block, so bitwise its result."""
    cdef Py_ssize_t i, e, k, width = candidates.shape[0]
    cdef double a
    cdef double *block
    cdef double *row
    cdef double *target
    block = _block("gathered_matmul", "out", out.shape[0], out.shape[1], indptr.shape[0] - 1,
                   width, used.shape[0], False)
    if block == NULL:
        return
    with nogil:
        _gather(block, scores, used, candidates)
        for i in range(indptr.shape[0] - 1):
            target = &out[i, 0]
            for e in range(indptr[i], indptr[i + 1]):
                a, row = data[e], block + indices[e] * width
                for k in range(width):
                    target[k] += a * row[k]
    free(block)


def prefix_matmul(const Py_ssize_t[::1] indptr, const int[::1] indices,
                  const double[::1] data, const Py_ssize_t[::1] order,
                  const Py_ssize_t[::1] shared, const Py_ssize_t[::1] used,
                  const Py_ssize_t[::1] candidates, const double[:, ::1] scores,
                  double[:, ::1] out):
    """out = A · scores[used][:, candidates] for the CSR matrix A (columns: ``used``), bitwise
    :func:`gathered_matmul` into zeros: row i is 0 + a₁·b₁ + a₂·b₂ + … in the order of its
    entries, and the partial sum after its first d entries is the same for every row that
    starts with the same d entries, so it is computed once. Rows are visited in ``order``
    (rows with common prefixes next to each other, e.g. sorted), ``shared[j]`` being how many
    first entries row ``order[j]`` shares with row ``order[j − 1]`` (0 for j = 0): only the
    partial sums past them are computed."""
    cdef Py_ssize_t i, j, d, e, k, n, width = candidates.shape[0], depth = 0
    cdef double a
    cdef double *block
    cdef double *partial = NULL
    cdef double *level
    cdef double *row
    cdef double *target
    if order.shape[0] != indptr.shape[0] - 1 or shared.shape[0] != order.shape[0]:
        raise ValueError("prefix_matmul: order and shared must have one entry per row")
    for i in range(indptr.shape[0] - 1):
        depth = max(depth, indptr[i + 1] - indptr[i])
    block = _block("prefix_matmul", "out", out.shape[0], out.shape[1], indptr.shape[0] - 1,
                   width, used.shape[0], False)
    if block == NULL:
        out[:, :] = 0.0
        return
    partial = <double *> malloc(max(depth, 1) * width * sizeof(double))
    if partial == NULL:
        free(block)
        raise MemoryError()
    with nogil:
        _gather(block, scores, used, candidates)
        for j in range(order.shape[0]):
            i = order[j]
            n = indptr[i + 1] - indptr[i]
            for d in range(shared[j], n):
                e = indptr[i] + d
                a, row, level = data[e], block + indices[e] * width, partial + d * width
                if d == 0:
                    for k in range(width):
                        level[k] = 0.0 + a * row[k]
                else:
                    for k in range(width):
                        level[k] = level[k - width] + a * row[k]
            target = &out[i, 0]
            if n == 0:
                for k in range(width):
                    target[k] = 0.0
            else:
                memcpy(target, partial + (n - 1) * width, width * sizeof(double))
    free(partial)
    free(block)


def softmax_gradient(const double[:, ::1] scores, const double[:, ::1] targets,
                     const double[::1] mass, const Py_ssize_t[::1] indptr,
                     const int[::1] indices, const double[::1] data,
                     const Py_ssize_t[::1] used, const Py_ssize_t[::1] candidates,
                     double[:, ::1] out, double[::1] top, double[::1] total):
    """For the scores S = A · (…)[used, candidates] of the CSR matrix A's rows (columns:
    ``used``): each row's maximum ``top`` and ``total`` = Σ exp(S − top) (numpy's pairwise sum),
    p = exp(S − top) / total, and ``out[used][:, candidates] += Aᵀ · (p · (−mass) + targets)``,
    row by row in one pass; bitwise what numpy's ``max``, ``exp``, ``sum`` and the products of
    ``_Group.fit_term_reference`` give (the gradient summed from zeros, row by row of A, then
    added to the block)."""
    cdef Py_ssize_t i, e, k, u, width = candidates.shape[0], n_used = used.shape[0]
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef double a, m, high, sum_
    cdef double *gradient
    cdef double *p
    cdef double *row
    cdef const double *s
    cdef const double *t
    if scores.shape[0] != n_rows or scores.shape[1] != width or \
            targets.shape[0] != n_rows or targets.shape[1] != width or \
            mass.shape[0] != n_rows or top.shape[0] != n_rows or total.shape[0] != n_rows:
        raise ValueError("softmax_gradient: scores and targets must be rows × candidates, "
                         "mass, top and total one per row")
    if n_rows == 0:
        return
    if width == 0:
        raise ValueError("softmax_gradient: a row without candidates has no distribution")
    gradient = <double *> calloc(max(n_used * width, 1), sizeof(double))
    p = <double *> malloc(width * sizeof(double))
    if gradient == NULL or p == NULL:
        free(gradient)
        free(p)
        raise MemoryError()
    with nogil:
        for i in range(n_rows):
            s, t = &scores[i, 0], &targets[i, 0]
            sum_ = _exp_terms(s, p, width, &high)
            m = -mass[i]
            for k in range(width):
                p[k] = p[k] / sum_ * m + t[k]
            for e in range(indptr[i], indptr[i + 1]):
                a, row = data[e], gradient + indices[e] * width
                for k in range(width):
                    row[k] += a * p[k]
            top[i], total[i] = high, sum_
        for u in range(n_used):
            for k in range(width):
                out[used[u], candidates[k]] += gradient[u * width + k]
    free(p)
    free(gradient)
