# cython: language_level=3, boundscheck=False, wraparound=False
"""The Attach scores of a candidate set compiled: ``contexts · (Θ Gᵀ)[used, candidates]``
without gathering that block of Θ Gᵀ first (:meth:`fstpunct.model.attach._Group.scores`)."""


def gathered_matmul(const Py_ssize_t[::1] indptr, const int[::1] indices,
                    const double[::1] data, const Py_ssize_t[::1] used,
                    const Py_ssize_t[::1] candidates, const double[:, ::1] scores,
                    double[:, ::1] out):
    """out += A · scores[used][:, candidates] for the CSR matrix A (columns: ``used``): the same
    terms added in the same order as :func:`fstpunct.dp._sparse.csr_matmul` over the gathered
    block, so bitwise its result."""
    cdef Py_ssize_t i, e, k, row, width = candidates.shape[0]
    cdef double a
    if out.shape[0] != indptr.shape[0] - 1 or out.shape[1] != width:
        raise ValueError("gathered_matmul: out must be rows × candidates")
    with nogil:  # other threads may run meanwhile (the M-step's)
        for i in range(indptr.shape[0] - 1):
            for e in range(indptr[i], indptr[i + 1]):
                a, row = data[e], used[indices[e]]
                for k in range(width):
                    out[i, k] += a * scores[row, candidates[k]]
