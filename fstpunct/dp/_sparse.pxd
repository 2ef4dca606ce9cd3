# The C functions of _sparse.pyx that other compiled modules use.

cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil
