# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled helper of :mod:`fstpunct.fst.lattice`: a machine composed with a linear acceptor
(a string, with optional self-loops) and trimmed, numbered exactly as OpenFst numbers
``pynini.compose(machine, acceptor, connect=True)``.

OpenFst expands the composition's states breadth first from the start (state ids in order of
discovery), each state's arcs in the order its matchers give them: the acceptor's arcs sorted by
label (pynini sorts it), the machine's sorted by output label (stably). With both sides sorted it
matches on the side with fewer arcs at the state pair (the machine's when it has no more than
the acceptor's): then the machine's arcs in order, each with the acceptor's arcs of its output
label (an output ε stays in place); else first the machine's output-ε arcs, then for each
acceptor arc in order the machine's arcs of its label. Trimming keeps the coaccessible states
(all are accessible) in order, and their arcs to kept states in order.
"""
from libc.stdlib cimport free, malloc, realloc

from ..dp._sparse cimport _counting_sort

import numpy as np


cdef struct Grow:
    Py_ssize_t* data
    Py_ssize_t size, cap


cdef int _grow(Grow* g, Py_ssize_t cap=0) except -1:
    """Room for at least ``cap`` entries (by default, twice as many as now, plus 256)."""
    cdef Py_ssize_t* q
    g.cap = max(cap, 2 * g.cap + 256)
    q = <Py_ssize_t*> realloc(g.data, g.cap * sizeof(Py_ssize_t))
    if q == NULL:
        raise MemoryError()
    g.data = q
    return 0


cdef inline int _push(Grow* g, Py_ssize_t x) except -1:
    if g.size == g.cap:  # rarely: the growth out of line, the rest inlined
        _grow(g)
    g.data[g.size] = x
    g.size += 1
    return 0


cdef inline int _add(Grow* src, Grow* dst, Grow* arcs, Grow* states, Py_ssize_t* ids,
                     Py_ssize_t positions, Py_ssize_t s, Py_ssize_t s1, Py_ssize_t k,
                     Py_ssize_t a) except -1:
    cdef Py_ssize_t key = s1 * positions + k
    if ids[key] < 0:
        ids[key] = states.size
        _push(states, key)
    _push(src, s)
    _push(dst, ids[key])
    _push(arcs, a)
    return 0


cdef Py_ssize_t _lower(const Py_ssize_t[::1] label, Py_ssize_t lo, Py_ssize_t hi,
                       Py_ssize_t x) noexcept:
    """The first index in [lo, hi) whose label is ≥ x (labels ascending there)."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) // 2
        if label[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def compose_linear(const Py_ssize_t[::1] ptr, const Py_ssize_t[::1] olabel,
                   const Py_ssize_t[::1] arc, const Py_ssize_t[::1] dst, Py_ssize_t final,
                   const Py_ssize_t[::1] acc_ptr, const Py_ssize_t[::1] acc_label,
                   const Py_ssize_t[::1] acc_next):
    """The trimmed composition of a machine (start 0, one final state ``final``; state q's arcs
    are ``ptr[q]:ptr[q+1]``, sorted by output label ``olabel`` (0: ε), each with its own index
    ``arc`` and target ``dst``) with an acceptor over positions 0..m (position k's arcs
    ``acc_ptr[k]:acc_ptr[k+1]``, sorted by label, going to position ``acc_next``; m final).
    Returns (number of states, src, dst, machine arc index) in OpenFst's numbering and order;
    no states when the start is not coaccessible."""
    cdef Py_ssize_t machine = len(ptr) - 1, positions = len(acc_ptr) - 1
    cdef Py_ssize_t i, s1, k, j, a, lo, hi, eps_end, n, x, y, kept, kept_arcs
    cdef Grow src, dst_, arcs, states
    cdef Py_ssize_t* ids = <Py_ssize_t*> malloc(machine * positions * sizeof(Py_ssize_t))
    cdef Py_ssize_t* rptr = NULL
    cdef Py_ssize_t* rarc = NULL
    cdef Py_ssize_t* todo = NULL
    cdef char* co = NULL
    if ids == NULL:
        raise MemoryError()
    src.data = dst_.data = arcs.data = states.data = NULL
    src.size = dst_.size = arcs.size = states.size = 0
    src.cap = dst_.cap = arcs.cap = states.cap = 0
    try:
        # room for every state pair, and for as many arcs as the machine's times the
        # acceptor's at each position (no more can come): no copying growth on the way
        _grow(&states, machine * positions)
        n = 0
        for k in range(positions):
            n += ptr[machine] * max(1, acc_ptr[k + 1] - acc_ptr[k])
        _grow(&src, n)
        _grow(&dst_, n)
        _grow(&arcs, n)
        for i in range(machine * positions):
            ids[i] = -1
        ids[0] = 0
        _push(&states, 0)
        i = 0
        while i < states.size:  # breadth first: states in order of discovery
            s1, k = states.data[i] // positions, states.data[i] % positions
            lo, hi = ptr[s1], ptr[s1 + 1]
            if hi - lo <= acc_ptr[k + 1] - acc_ptr[k]:  # match on the machine's side
                for j in range(lo, hi):
                    if olabel[j] == 0:
                        _add(&src, &dst_, &arcs, &states, ids, positions, i, dst[j], k, arc[j])
                        continue
                    for a in range(acc_ptr[k], acc_ptr[k + 1]):
                        if acc_label[a] == olabel[j]:
                            _add(&src, &dst_, &arcs, &states, ids, positions, i, dst[j],
                                 acc_next[a], arc[j])
            else:  # output ε first, then the acceptor's arcs one by one
                eps_end = _lower(olabel, lo, hi, 1)
                for j in range(lo, eps_end):
                    _add(&src, &dst_, &arcs, &states, ids, positions, i, dst[j], k, arc[j])
                for a in range(acc_ptr[k], acc_ptr[k + 1]):
                    j = _lower(olabel, eps_end, hi, acc_label[a])
                    while j < hi and olabel[j] == acc_label[a]:
                        _add(&src, &dst_, &arcs, &states, ids, positions, i, dst[j],
                             acc_next[a], arc[j])
                        j += 1
            i += 1
        # coaccessible states: backwards from the final one, over arcs grouped by target
        n = states.size
        rptr = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
        rarc = <Py_ssize_t*> malloc((src.size + 1) * sizeof(Py_ssize_t))
        todo = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
        co = <char*> malloc(n + 1)
        if rptr == NULL or rarc == NULL or todo == NULL or co == NULL:
            raise MemoryError()
        _counting_sort(dst_.data, NULL, src.size, n, rptr, rarc)  # arcs into y: rarc[rptr[y]:…]
        for x in range(n):
            co[x] = 0
        kept = 0
        x = ids[final * positions + positions - 1]
        if x >= 0:
            co[x] = 1
            todo[0] = x
            kept = 1
        while kept:
            kept -= 1
            y = todo[kept]
            for j in range(rptr[y], rptr[y + 1]):
                x = src.data[rarc[j]]
                if not co[x]:
                    co[x] = 1
                    todo[kept] = x
                    kept += 1
        if not co[0]:
            return 0, *(np.zeros(0, dtype=np.intp) for _ in range(3))
        for x in range(n):  # new ids, in order
            todo[x] = kept
            kept += co[x]
        kept_arcs = 0
        for j in range(src.size):
            kept_arcs += co[src.data[j]] and co[dst_.data[j]]
        out_src = np.empty(kept_arcs, dtype=np.intp)
        out_dst = np.empty(kept_arcs, dtype=np.intp)
        out_arc = np.empty(kept_arcs, dtype=np.intp)
        _fill(src, dst_, arcs, co, todo, out_src, out_dst, out_arc)
        return int(kept), out_src, out_dst, out_arc
    finally:
        free(ids)
        free(rptr)
        free(rarc)
        free(todo)
        free(co)
        free(src.data)
        free(dst_.data)
        free(arcs.data)
        free(states.data)


cdef void _fill(Grow src, Grow dst, Grow arcs, const char* co, const Py_ssize_t* new,
                Py_ssize_t[::1] out_src, Py_ssize_t[::1] out_dst,
                Py_ssize_t[::1] out_arc) noexcept:
    cdef Py_ssize_t j, at = 0
    for j in range(src.size):
        if co[src.data[j]] and co[dst.data[j]]:
            out_src[at] = new[src.data[j]]
            out_dst[at] = new[dst.data[j]]
            out_arc[at] = arcs.data[j]
            at += 1


def without_final(Py_ssize_t n, const Py_ssize_t[::1] src, const Py_ssize_t[::1] dst,
                  const Py_ssize_t[::1] arc, const Py_ssize_t[::1] arc_token):
    """A composition's states (n, arcs ``src`` → ``dst`` with machine arcs ``arc``) numbered
    anew, in order, without the states only end-mark arcs (``arc_token[arc] < 0``) reach: a
    state is kept if it is 0, an arc leaves it or a token arc enters it. Returns (states kept,
    src, dst (-1 where an end mark's target is dropped), each arc's token)."""
    cdef Py_ssize_t m = src.shape[0], e, kept = 0
    if not dst.shape[0] == arc.shape[0] == m:
        raise ValueError(f"without_final: src, dst, arc of lengths {m}, {dst.shape[0]}, "
                         f"{arc.shape[0]}; one length")
    for e in range(m):
        if not (0 <= src[e] < n and 0 <= dst[e] < n and 0 <= arc[e] < arc_token.shape[0]):
            raise ValueError(f"without_final: arc {e} ({src[e]} → {dst[e]}, machine arc "
                             f"{arc[e]}) out of range")
    out_token = np.empty(m, dtype=np.intp)
    out_src = np.empty(m, dtype=np.intp)
    out_dst = np.empty(m, dtype=np.intp)
    index_a = np.zeros(max(n, 1), dtype=np.intp)
    cdef Py_ssize_t[::1] token = out_token, new_src = out_src, new_dst = out_dst
    cdef Py_ssize_t[::1] index = index_a  # first 1 where kept, then the new ids (-1: dropped)
    index[0] = 1
    for e in range(m):
        token[e] = arc_token[arc[e]]
        index[src[e]] = 1
        if token[e] >= 0:
            index[dst[e]] = 1
    for e in range(n):
        if index[e]:
            index[e] = kept
            kept += 1
        else:
            index[e] = -1
    for e in range(m):
        new_src[e], new_dst[e] = index[src[e]], index[dst[e]]
    return kept, out_src, out_dst, out_token
