# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""L-BFGS's passes over its vectors compiled (:mod:`fstpunct.model.lbfgs`), chunk by chunk: the
vectors are cut into chunks of ``chunk`` entries, each call does the chunks ``first`` to
``last − 1`` with the GIL released (so the M-step's threads can share one pass) and writes one
partial sum per chunk, which the caller adds in chunk order. So the results do not depend on
how the chunks are shared between threads. Within a chunk a product is summed in 4 lanes (entry
j in lane j mod 4), the lanes added as (l₀ + l₁) + (l₂ + l₃): the same products as numpy's, in
another order (the readable references are numpy's)."""
from libc.stdlib cimport free, malloc

from ..dp._sparse cimport _first


cdef extern from *:
    """
    /* GCC's vector extensions (+, * and comparisons element by element, each rounded once:
       the module is built with -ffp-contract=off), so every build gives the same bits; the
       body is built twice, for AVX2 (four doubles an instruction), chosen at run time, and
       portably (two). A product is summed in 4 lanes (entry j in lane j mod 4), added as (l₀ + l₁) + (l₂ + l₃). */
    typedef double fstp_v4 __attribute__((vector_size(32), aligned(8), may_alias));
    typedef long long fstp_m4 __attribute__((vector_size(32), aligned(8), may_alias));
    #define FSTP_LOAD(p) (*(const fstp_v4*) (p))

    static inline double fstp_lanes(fstp_v4 a) {
        return (a[0] + a[1]) + (a[2] + a[3]);
    }

    /* out[2r] = rows[r] · u and, if V, out[2r + 1] = rows[r] · v, for the R rows: each product
       in 4 lanes; the R rows are read side by side, u and v once. */
    static inline __attribute__((always_inline)) void fstp_products_group(
            const double* const* rows, const double* u, const double* v, Py_ssize_t n,
            double* out, const int R, const int V) {
        fstp_v4 au[4], av[4];
        for (int r = 0; r < R; r++) au[r] = av[r] = (fstp_v4) {0.0};
        Py_ssize_t j = 0;
        for (; j + 4 <= n; j += 4) {
            const fstp_v4 uj = FSTP_LOAD(u + j), vj = V ? FSTP_LOAD(v + j) : uj;
            for (int r = 0; r < R; r++) {
                const fstp_v4 x = FSTP_LOAD(rows[r] + j);
                au[r] = au[r] + x * uj;
                if (V) av[r] = av[r] + x * vj;
            }
        }
        for (int l = 0; j < n; j++, l++)
            for (int r = 0; r < R; r++) {
                au[r][l] += rows[r][j] * u[j];
                if (V) av[r][l] += rows[r][j] * v[j];
            }
        for (int r = 0; r < R; r++) {
            out[2 * r] = fstp_lanes(au[r]);
            out[2 * r + 1] = V ? fstp_lanes(av[r]) : 0.0;
        }
    }

    #define FSTP_GROUP(R)                                                                   \\
        if (v) fstp_products_group(rows + i, u, v, n, out + 2 * i, R, 1);                   \\
        else fstp_products_group(rows + i, u, v, n, out + 2 * i, R, 0);

    /* out[2i] = rows[i] · u, out[2i + 1] = rows[i] · v (0 if v is NULL), 4 rows at a time. */
    static inline __attribute__((always_inline)) void fstp_products_body(
            const double* const* rows, Py_ssize_t k, const double* u, const double* v,
            Py_ssize_t n, double* out) {
        Py_ssize_t i = 0;
        for (; i + 4 <= k; i += 4) { FSTP_GROUP(4) }
        switch (k - i) {
            case 3: FSTP_GROUP(3) break;
            case 2: FSTP_GROUP(2) break;
            case 1: FSTP_GROUP(1) break;
        }
    }

    /* max |a| over n entries (0 for none; NaN if any entry is NaN). */
    static inline __attribute__((always_inline)) double fstp_max_abs_body(
            const double* a, Py_ssize_t n) {
        const fstp_m4 sign = {~(1LL << 63), ~(1LL << 63), ~(1LL << 63), ~(1LL << 63)};
        fstp_v4 top = {0.0};
        fstp_m4 nan = {0};
        Py_ssize_t j = 0;
        for (; j + 4 <= n; j += 4) {
            const fstp_v4 x = (fstp_v4) ((fstp_m4) FSTP_LOAD(a + j) & sign);
            const fstp_m4 more = x > top;
            top = (fstp_v4) ((more & (fstp_m4) x) | (~more & (fstp_m4) top));
            nan |= x != x;
        }
        double m = 0.0;
        int any_nan = 0;
        for (int l = 0; l < 4; l++) {
            if (top[l] > m) m = top[l];
            any_nan |= nan[l] != 0;
        }
        for (; j < n; j++) {
            const double x = a[j] < 0.0 ? -a[j] : a[j];
            if (x > m) m = x;
            any_nan |= x != x;
        }
        return any_nan ? __builtin_nan("") : m;
    }

    /* d = −(Σ_i coef[i] · rows[i] + gamma · g) over n entries, each entry's terms added in
       the order of the rows, then gamma · g; 1,024 entries at a time (kept in cache), 4 rows
       read side by side. */
    static inline __attribute__((always_inline)) void fstp_combine_body(
            const double* const* rows, const double* coef, Py_ssize_t k, double gamma,
            const double* g, Py_ssize_t n, double* d) {
        fstp_v4 acc[256];
        for (Py_ssize_t a = 0; a < n; a += 1024) {
            const Py_ssize_t w = n - a < 1024 ? n - a : 1024, full = w / 4;
            double tail[4] = {0.0};
            for (Py_ssize_t v = 0; v < full; v++) acc[v] = (fstp_v4) {0.0};
            Py_ssize_t i = 0;
            for (; i + 4 <= k; i += 4) {
                const double c0 = coef[i], c1 = coef[i + 1], c2 = coef[i + 2], c3 = coef[i + 3];
                const double *r0 = rows[i] + a, *r1 = rows[i + 1] + a, *r2 = rows[i + 2] + a,
                             *r3 = rows[i + 3] + a;
                for (Py_ssize_t v = 0; v < full; v++)
                    acc[v] = (((acc[v] + c0 * FSTP_LOAD(r0 + 4 * v)) + c1 * FSTP_LOAD(r1 + 4 * v))
                              + c2 * FSTP_LOAD(r2 + 4 * v)) + c3 * FSTP_LOAD(r3 + 4 * v);
                for (Py_ssize_t j = 4 * full; j < w; j++)
                    tail[j - 4 * full] = (((tail[j - 4 * full] + c0 * r0[j]) + c1 * r1[j])
                                          + c2 * r2[j]) + c3 * r3[j];
            }
            for (; i < k; i++) {
                const double c = coef[i], *r = rows[i] + a;
                for (Py_ssize_t v = 0; v < full; v++) acc[v] = acc[v] + c * FSTP_LOAD(r + 4 * v);
                for (Py_ssize_t j = 4 * full; j < w; j++) tail[j - 4 * full] += c * r[j];
            }
            for (Py_ssize_t v = 0; v < full; v++)
                *(fstp_v4*) (d + a + 4 * v) = -(acc[v] + gamma * FSTP_LOAD(g + a + 4 * v));
            for (Py_ssize_t j = 4 * full; j < w; j++)
                d[a + j] = -(tail[j - 4 * full] + gamma * g[a + j]);
        }
    }

    /* out = x + stp · d (stp · d if x is NULL) and, if y, y = g − g_old (one product, one sum
       per entry, as numpy). */
    static inline __attribute__((always_inline)) void fstp_axpy_body(
            double* out, const double* x, const double* d, double stp, double* y,
            const double* g, const double* g_old, Py_ssize_t n) {
        Py_ssize_t j = 0;
        for (; j + 4 <= n; j += 4) {
            *(fstp_v4*) (out + j) = x ? FSTP_LOAD(x + j) + stp * FSTP_LOAD(d + j)
                                      : stp * FSTP_LOAD(d + j);
            if (y) *(fstp_v4*) (y + j) = FSTP_LOAD(g + j) - FSTP_LOAD(g_old + j);
        }
        for (; j < n; j++) {
            out[j] = x ? x[j] + stp * d[j] : stp * d[j];
            if (y) y[j] = g[j] - g_old[j];
        }
    }

    #define FSTP_LBFGS_LOOPS(NAME, ATTRIBUTES)                                              \\
        static ATTRIBUTES void fstp_products_##NAME(const double* const* rows, Py_ssize_t k,\\
                const double* u, const double* v, Py_ssize_t n, double* out) {              \\
            fstp_products_body(rows, k, u, v, n, out);                                      \\
        }                                                                                   \\
        static ATTRIBUTES double fstp_max_abs_##NAME(const double* a, Py_ssize_t n) {       \\
            return fstp_max_abs_body(a, n);                                                 \\
        }                                                                                   \\
        static ATTRIBUTES void fstp_combine_##NAME(const double* const* rows,               \\
                const double* coef, Py_ssize_t k, double gamma, const double* g,            \\
                Py_ssize_t n, double* d) {                                                  \\
            fstp_combine_body(rows, coef, k, gamma, g, n, d);                               \\
        }                                                                                   \\
        static ATTRIBUTES void fstp_axpy_##NAME(double* out, const double* x,               \\
                const double* d, double stp, double* y, const double* g,                    \\
                const double* g_old, Py_ssize_t n) {                                        \\
            fstp_axpy_body(out, x, d, stp, y, g, g_old, n);                                 \\
        }

    FSTP_LBFGS_LOOPS(portable, )
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    FSTP_LBFGS_LOOPS(avx2, __attribute__((target("avx2"))))
    static int fstp_lbfgs_avx2(void) { return __builtin_cpu_supports("avx2") != 0; }
    #else
    FSTP_LBFGS_LOOPS(avx2, )
    static int fstp_lbfgs_avx2(void) { return 0; }
    #endif
    """
    void fstp_products_portable(const double* const* rows, Py_ssize_t k, const double* u,
                                const double* v, Py_ssize_t n, double* out) noexcept nogil
    void fstp_products_avx2(const double* const* rows, Py_ssize_t k, const double* u,
                            const double* v, Py_ssize_t n, double* out) noexcept nogil
    double fstp_max_abs_portable(const double* a, Py_ssize_t n) noexcept nogil
    double fstp_max_abs_avx2(const double* a, Py_ssize_t n) noexcept nogil
    void fstp_combine_portable(const double* const* rows, const double* coef, Py_ssize_t k,
                               double gamma, const double* g, Py_ssize_t n,
                               double* d) noexcept nogil
    void fstp_combine_avx2(const double* const* rows, const double* coef, Py_ssize_t k,
                           double gamma, const double* g, Py_ssize_t n, double* d) noexcept nogil
    void fstp_axpy_portable(double* out, const double* x, const double* d, double stp,
                            double* y, const double* g, const double* g_old,
                            Py_ssize_t n) noexcept nogil
    void fstp_axpy_avx2(double* out, const double* x, const double* d, double stp, double* y,
                        const double* g, const double* g_old, Py_ssize_t n) noexcept nogil
    int fstp_lbfgs_avx2() noexcept nogil


cdef bint _avx2 = fstp_lbfgs_avx2()

ctypedef void (*products_t)(const double* const* rows, Py_ssize_t k, const double* u,
                            const double* v, Py_ssize_t n, double* out) noexcept nogil
ctypedef double (*max_abs_t)(const double* a, Py_ssize_t n) noexcept nogil
ctypedef void (*combine_t)(const double* const* rows, const double* coef, Py_ssize_t k,
                           double gamma, const double* g, Py_ssize_t n,
                           double* d) noexcept nogil


ctypedef void (*axpy_t)(double* out, const double* x, const double* d, double stp, double* y,
                        const double* g, const double* g_old, Py_ssize_t n) noexcept nogil


cdef struct _Loops:
    products_t products
    max_abs_t max_abs
    combine_t combine
    axpy_t axpy


cdef _Loops _loops(bint avx2) noexcept:
    cdef _Loops loops
    if avx2 and _avx2:
        loops.products = fstp_products_avx2
        loops.max_abs, loops.combine = fstp_max_abs_avx2, fstp_combine_avx2
        loops.axpy = fstp_axpy_avx2
    else:
        loops.products = fstp_products_portable
        loops.max_abs, loops.combine = fstp_max_abs_portable, fstp_combine_portable
        loops.axpy = fstp_axpy_portable
    return loops


cdef inline Py_ssize_t _width(Py_ssize_t c, Py_ssize_t chunk, Py_ssize_t n) noexcept nogil:
    return n - c * chunk if n - c * chunk < chunk else chunk


def _check(Py_ssize_t n, Py_ssize_t chunk, Py_ssize_t first, Py_ssize_t last,
           Py_ssize_t n_out) -> None:
    if chunk < 1 or first < 0 or last < first or last > n_out or (last - 1) * chunk >= n > 0:
        raise ValueError(f"chunks {first}..{last} of {chunk} entries: not within the "
                         f"{n} entries and {n_out} partial sums")


cdef const double** _pointers(const double[:, ::1] rows, const Py_ssize_t[::1] which,
                              str name) except NULL:
    """Room for pointers into the rows ``which`` of ``rows`` (checked; to be freed)."""
    cdef Py_ssize_t i
    for i in range(which.shape[0]):
        if not 0 <= which[i] < rows.shape[0]:
            raise ValueError(f"{name}: row {which[i]} of {rows.shape[0]}")
    cdef const double** pointers = <const double**> malloc(max(which.shape[0], 1)
                                                           * sizeof(double*))
    if pointers == NULL:
        raise MemoryError()
    return pointers


cdef inline void _point(const double** pointers, const double[:, ::1] rows,
                        const Py_ssize_t[::1] which, Py_ssize_t a) noexcept nogil:
    """pointers[i] = the entry ``a`` of the row which[i]."""
    cdef Py_ssize_t i
    for i in range(which.shape[0]):
        pointers[i] = &rows[which[i], a]


def update(double[:, ::1] rows, const Py_ssize_t[::1] which, Py_ssize_t s_row,
           Py_ssize_t y_row, const double[::1] d, double stp, const double[::1] g,
           const double[::1] g_old, double[:, :, ::1] out, double[::1] top,
           Py_ssize_t chunk, Py_ssize_t first, Py_ssize_t last, bint avx2=True) -> None:
    """For the chunks ``first``..``last − 1``: if ``y_row`` ≥ 0, store the new pair
    s = stp · d in ``rows[s_row]`` and y = g − g_old in ``rows[y_row]``; then ``out[c, i]`` =
    (rows[which[i]] · g, rows[which[i]] · y) over chunk c (the second 0 without a new pair)
    and ``top[c]`` = max |g| over it (NaN if any entry is); by the loops built for AVX2 if
    ``avx2`` and the processor has it (the same bits as the portable ones)."""
    cdef Py_ssize_t n = g.shape[0], k = which.shape[0], c, a, w
    cdef _Loops loops = _loops(avx2)
    cdef const double** pointers
    cdef const double* y
    if (d.shape[0] != n or g_old.shape[0] != n or rows.shape[1] != n or out.shape[1] != k
            or out.shape[2] != 2):
        raise ValueError("update: vectors of different lengths")
    if y_row >= rows.shape[0] or s_row >= rows.shape[0] or (y_row >= 0 and s_row < 0):
        raise ValueError(f"update: rows {s_row}, {y_row} of {rows.shape[0]}")
    _check(n, chunk, first, last, min(out.shape[0], top.shape[0]))
    pointers = _pointers(rows, which, "update")
    try:
        with nogil:
            for c in range(first, last):
                a, w = c * chunk, _width(c, chunk, n)
                y = NULL
                if y_row >= 0:
                    loops.axpy(&rows[s_row, a], NULL, &d[a], stp, &rows[y_row, a], &g[a],
                               &g_old[a], w)
                    y = &rows[y_row, a]
                _point(pointers, rows, which, a)
                if k:
                    loops.products(pointers, k, &g[a], y, w, &out[c, 0, 0])
                top[c] = loops.max_abs(&g[a], w)
    finally:
        free(pointers)


def direction(const double[:, ::1] rows, const Py_ssize_t[::1] which,
              const double[::1] coef, double gamma, const double[::1] g, double[::1] d,
              double[:, ::1] out, Py_ssize_t chunk, Py_ssize_t first, Py_ssize_t last,
              bint avx2=True) -> None:
    """For the chunks ``first``..``last − 1``: d = −(Σᵢ coef[i] · rows[which[i]] + γ g) (each
    entry's terms in that order) and ``out[c]`` = (d · g, d · d) over chunk c (loops as
    :func:`update`'s)."""
    cdef Py_ssize_t n = g.shape[0], k = which.shape[0], c, a, w
    cdef _Loops loops = _loops(avx2)
    cdef const double** pointers
    cdef const double* di
    if d.shape[0] != n or rows.shape[1] != n or coef.shape[0] != k or out.shape[1] != 2:
        raise ValueError("direction: vectors of different lengths")
    _check(n, chunk, first, last, out.shape[0])
    pointers = _pointers(rows, which, "direction")
    try:
        with nogil:
            for c in range(first, last):
                a, w = c * chunk, _width(c, chunk, n)
                _point(pointers, rows, which, a)
                loops.combine(pointers, _first(coef), k, gamma, &g[a], w, &d[a])
                di = &d[a]
                loops.products(&di, 1, &g[a], &d[a], w, &out[c, 0])
    finally:
        free(pointers)


def step(const double[::1] x, const double[::1] d, double stp, double[::1] out,
         Py_ssize_t chunk, Py_ssize_t first, Py_ssize_t last, bint avx2=True) -> None:
    """out = x + stp · d over the chunks ``first``..``last − 1`` (numpy's values: one product
    and one sum per entry; loops as :func:`update`'s)."""
    cdef Py_ssize_t n = x.shape[0], c, a
    cdef _Loops loops = _loops(avx2)
    if d.shape[0] != n or out.shape[0] != n:
        raise ValueError("step: vectors of different lengths")
    _check(n, chunk, first, last, (n + chunk - 1) // chunk if chunk > 0 else 0)
    with nogil:
        for c in range(first, last):
            a = c * chunk
            loops.axpy(&out[a], &x[a], &d[a], stp, NULL, NULL, NULL, _width(c, chunk, n))


def dot(const double[::1] u, const double[::1] v, double[::1] out, Py_ssize_t chunk,
        Py_ssize_t first, Py_ssize_t last, bint avx2=True) -> None:
    """``out[c]`` = u · v over chunk c, for the chunks ``first``..``last − 1`` (loops as
    :func:`update`'s)."""
    cdef Py_ssize_t n = u.shape[0], c, a
    cdef _Loops loops = _loops(avx2)
    cdef const double* ua
    cdef double pair[2]
    if v.shape[0] != n:
        raise ValueError("dot: vectors of different lengths")
    _check(n, chunk, first, last, out.shape[0])
    with nogil:
        for c in range(first, last):
            a = c * chunk
            ua = &u[a]
            loops.products(&ua, 1, &v[a], NULL, _width(c, chunk, n), pair)
            out[c] = pair[0]
