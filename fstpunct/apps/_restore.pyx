# cython: language_level=3, boundscheck=False, wraparound=False
"""The small, often repeated steps of exact restoration (:mod:`fstpunct.apps.restoration.exact`)
compiled: the edit distances among a slot's candidate strings (each as the readable
:func:`~fstpunct.apps.restoration.metrics.levenshtein`) and a node's most probable punctemes
from its Attach probabilities (as the readable
:func:`~fstpunct.apps.restoration.exact.top_entries_reference` of its row)."""
import numpy as np

from cpython.object cimport Py_EQ, PyObject_RichCompareBool
from libc.stdlib cimport free, malloc


def edit_distances(tuple strings):
    """The token edit distance (insertions, deletions, substitutions cost 1; tokens equal as
    ``==`` says) between every two of ``strings`` (tuples of tokens), as a float matrix."""
    cdef Py_ssize_t n = len(strings), i, j, k, m, longest = 0, prev, here
    cdef tuple a, b
    for i in range(n):
        longest = max(longest, len(<tuple> strings[i]))
    out = np.zeros((n, n))
    cdef double[:, ::1] d = out
    cdef Py_ssize_t* row = <Py_ssize_t*> malloc((longest + 1) * sizeof(Py_ssize_t))
    if row == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            a = strings[i]
            for j in range(i + 1, n):
                b = strings[j]
                for k in range(len(b) + 1):
                    row[k] = k
                for m in range(len(a)):
                    prev, row[0] = row[0], m + 1
                    for k in range(1, len(b) + 1):
                        here = prev + (PyObject_RichCompareBool(a[m], b[k - 1], Py_EQ) != 1)
                        here = min(here, row[k] + 1, row[k - 1] + 1)
                        prev, row[k] = row[k], here
                d[i, j] = d[j, i] = row[len(b)]
    finally:
        free(row)
    return out


def top_entries(const int[::1] pairs, const double[::1] probs, const Py_ssize_t[::1] column,
                Py_ssize_t start, Py_ssize_t stop, const double[::1] add, double floor):
    """A node's row of marginals (``probs[e]`` added to entry ``column[pairs[e]]`` for e from
    ``start`` to ``stop``, in that order) plus ``add``: the indices k < len(add) whose value is
    ≥ ``floor``, largest first (ties: the smaller index first), and those values, as two
    lists."""
    cdef Py_ssize_t n = add.shape[0], e, k, at, count = 0
    cdef double w
    if not (0 <= start <= stop <= pairs.shape[0] and stop <= probs.shape[0]):
        raise ValueError("top_entries: rows out of range")
    cdef double* acc = <double*> malloc((n + 1) * sizeof(double))
    cdef Py_ssize_t* order = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    cdef double* value = <double*> malloc((n + 1) * sizeof(double))
    try:
        if acc == NULL or order == NULL or value == NULL:
            raise MemoryError()
        for k in range(n):
            acc[k] = 0.0
        for e in range(start, stop):
            if not 0 <= pairs[e] < column.shape[0]:
                raise ValueError("top_entries: a pair out of range")
            k = column[pairs[e]]
            if not 0 <= k < n:
                raise ValueError("top_entries: an entry out of range")
            acc[k] += probs[e]
        for k in range(n):
            w = acc[k] + add[k]
            if w >= floor:  # insertion after every value at least as large: stable
                at = count
                while at > 0 and value[at - 1] < w:
                    order[at], value[at] = order[at - 1], value[at - 1]
                    at -= 1
                order[at], value[at] = k, w
                count += 1
        return [order[k] for k in range(count)], [value[k] for k in range(count)]
    finally:
        free(acc)
        free(order)
        free(value)


def forward(list steps, bint ltr, double prune, dict cache, step):
    """The forward pass of :meth:`~fstpunct.apps.restoration.exact.ExactPrior._candidates`
    over ``steps`` (in reading order), as the readable
    :func:`~fstpunct.apps.restoration.exact.forward_reference` does it (the same products and
    sums in the same order): the final states."""
    cdef dict states = {((), None): [1.0, 1.0, (), 0]}, nxt
    cdef list support, outcomes, got, value
    cdef tuple entry, choice, outcome, key, written, shown, olds, heads, made
    cdef object head, pending, puncteme, pending_head, o
    cdef double p, best, w, pw, q, mass, path
    for entry in steps:
        head, support = entry
        nxt = {}
        for key, value in states.items():
            written, pending = key
            p, best, heads, pending_head = value[0], value[1], value[2], value[3]
            for choice in support:
                puncteme, w = choice
                pw = p * w
                if pw < prune:
                    break
                outcomes = cache.get((pending, puncteme))
                if not outcomes:
                    outcomes = step(pending, puncteme)
                for outcome in outcomes:
                    q = outcome[4]
                    mass = pw * q
                    if mass < prune:
                        continue
                    shown = outcome[0]
                    key = (written + shown, outcome[2]) if ltr else (shown + written, outcome[2])
                    got = nxt.get(key)
                    if got is None:
                        got = [0.0, -1.0, (), 0]
                        nxt[key] = got
                    got[0] = <double> got[0] + mass
                    path = best * w * q
                    if path > <double> got[1]:
                        olds = outcome[1]
                        if olds:
                            made = tuple([pending_head if o else head for o in olds])
                            got[2] = heads + made if ltr else made + heads
                        else:
                            got[2] = heads
                        got[1] = path
                        got[3] = pending_head if outcome[3] else head
        states = nxt
    return states
