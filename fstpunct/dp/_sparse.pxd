# The C functions of _sparse.pyx that other compiled modules use.
cimport cython

# A state of a stack's N×N matrices, as their column indices (and their transposes' row
# indices) store it: N ≤ STATES (an N×N dense closure of more states would not fit in memory
# anyway).
ctypedef unsigned short State
cdef enum:
    STATES = 65536

cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil
cdef Py_ssize_t _slot(long long key, Py_ssize_t mask) noexcept nogil
cdef int _rank(const long long* table, const int* ranks, Py_ssize_t mask, long long key,
               Py_ssize_t h) noexcept nogil
cdef unsigned long long _template_key(const long long* row, const Py_ssize_t* columns,
                                      Py_ssize_t width, Py_ssize_t t,
                                      unsigned long long multiplier, int shift) noexcept nogil
cdef void _counting_sort(const Py_ssize_t* key, const Py_ssize_t* items, Py_ssize_t m,
                         Py_ssize_t buckets, Py_ssize_t* ptr, Py_ssize_t* order) noexcept nogil
cdef void _sort(Py_ssize_t* x, Py_ssize_t k) noexcept nogil
cdef void _dense_lines(const double* t, const double* x, const Py_ssize_t* cols, Py_ssize_t m,
                       Py_ssize_t n, double* out, bint mx, bint avx2) noexcept nogil
cdef double _exp_terms(const double* s, double* p, Py_ssize_t n, double* high,
                       bint libm) noexcept nogil


# Defined here, inline, for every compiled module: the address of a view's first item.
ctypedef fused Item:  # the items of an array _first points into
    int
    State
    Py_ssize_t
    double


cdef inline const Item* _first(const Item[::1] x) noexcept nogil:
    """The address of x's first item (NULL if it has none)."""
    # (decorators on an inline function of a .pxd are ignored where it is cimported)
    with cython.boundscheck(False), cython.wraparound(False):
        return &x[0] if x.shape[0] else NULL
