# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Attach products of a candidate set compiled, reading and writing only the block
(used contexts × candidates) of a contexts × pairs matrix: the scores
``contexts · (Θ Gᵀ)[used, candidates]`` and the gradient's ``d[used, candidates] += contextsᵀ · p``
(:meth:`fstpunct.model.attach._Group.scores`, :meth:`~fstpunct.model.attach._Group.add_gradient`).
Both add the same terms in the same order as the readable products they replace, so bitwise
their results; both release the GIL (the M-step's threads)."""
from libc.stdlib cimport calloc, free, malloc


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


def gathered_matmul(const Py_ssize_t[::1] indptr, const int[::1] indices,
                    const double[::1] data, const Py_ssize_t[::1] used,
                    const Py_ssize_t[::1] candidates, const double[:, ::1] scores,
                    double[:, ::1] out):
    """out += A · scores[used][:, candidates] for the CSR matrix A (columns: ``used``): the same
    terms added in the same order as :func:`fstpunct.dp._sparse.csr_matmul` over the gathered
    block, so bitwise its result. The block is gathered first (contiguous rows: the inner loop
    vectorises)."""
    cdef Py_ssize_t i, e, k, u, width = candidates.shape[0], n_used = used.shape[0]
    cdef double a
    cdef double *block
    cdef double *row
    cdef double *target
    block = _block("gathered_matmul", "out", out.shape[0], out.shape[1], indptr.shape[0] - 1,
                   width, n_used, False)
    if block == NULL:
        return
    with nogil:
        for u in range(n_used):
            for k in range(width):
                block[u * width + k] = scores[used[u], candidates[k]]
        for i in range(indptr.shape[0] - 1):
            target = &out[i, 0]
            for e in range(indptr[i], indptr[i + 1]):
                a, row = data[e], block + indices[e] * width
                for k in range(width):
                    target[k] += a * row[k]
    free(block)


def scattered_matmul_t(const Py_ssize_t[::1] indptr, const int[::1] indices,
                       const double[::1] data, const Py_ssize_t[::1] used,
                       const Py_ssize_t[::1] candidates, const double[:, ::1] p,
                       double[:, ::1] out):
    """out[used][:, candidates] += Aᵀ · p for the CSR matrix A (columns: ``used``; no repeated
    ``used`` or ``candidates``): Aᵀ · p summed from zeros, row by row of A (scipy's order for
    the CSC matrix Aᵀ), then added to the block, so bitwise ``out[np.ix_(used, candidates)] +=
    A.T @ p``."""
    cdef Py_ssize_t i, e, k, u, width = candidates.shape[0], n_used = used.shape[0]
    cdef double a
    cdef double *total
    cdef double *source
    cdef double *row
    total = _block("scattered_matmul_t", "p", p.shape[0], p.shape[1], indptr.shape[0] - 1,
                   width, n_used, True)
    if total == NULL:
        return
    with nogil:
        for i in range(indptr.shape[0] - 1):
            source = &p[i, 0]
            for e in range(indptr[i], indptr[i + 1]):
                a, row = data[e], total + indices[e] * width
                for k in range(width):
                    row[k] += a * source[k]
        for u in range(n_used):
            for k in range(width):
                out[used[u], candidates[k]] += total[u * width + k]
    free(total)
