# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, nonecheck=False
"""The candidates of :class:`fstpunct.model.punct.Inference` compiled: one pass over the Attach
rows of a range of nodes, where the numpy formulation
(``Inference._candidate_arrays_reference``, the tests' oracle) makes a dozen passes over them."""
import numpy as np


def candidate_arrays(const Py_ssize_t[::1] node_offsets, const int[::1] pairs,
                     const Py_ssize_t[::1] left_of_pair, const Py_ssize_t[::1] right_of_pair,
                     const Py_ssize_t[:, ::1] ends, const unsigned char[:, ::1] possible,
                     const double[::1] probs, const double[::1] tilt, double keep,
                     double backoff, Py_ssize_t closure, Py_ssize_t backoff_label):
    """Node t's rows ``node_offsets[t] : node_offsets[t + 1]`` (flat Attach rows, whose pairs
    are ``pairs[row]``) whose left puncteme is possible in slot ``ends[t, 0]`` and whose right
    one in slot ``ends[t, 1]`` (``possible[slot, puncteme]``), then the backoff. Returns the
    candidates' offsets (per node, + 1), weights (keep · probs[row] · tilt[pair], the backoff's
    ``backoff``), left and right stack indices (the backoff's ``closure``) and labels (the row,
    the backoff's ``backoff_label``)."""
    cdef Py_ssize_t n_nodes = node_offsets.shape[0] - 1, t, row, p, total = 0, at = 0, i, k
    cdef Py_ssize_t width = possible.shape[1]
    cdef const unsigned char* pos = &possible[0, 0] if possible.shape[0] else NULL
    for t in range(n_nodes):  # first the sizes
        i, k = ends[t, 0] * width, ends[t, 1] * width
        for row in range(node_offsets[t], node_offsets[t + 1]):
            p = pairs[row]
            total += pos[i + left_of_pair[p]] and pos[k + right_of_pair[p]]
        total += 1
    offsets_a = np.empty(n_nodes + 1, dtype=np.intp)
    weights_a = np.empty(total, dtype=np.float64)
    left_a = np.empty(total, dtype=np.intp)
    right_a = np.empty(total, dtype=np.intp)
    labels_a = np.empty(total, dtype=np.intp)
    cdef Py_ssize_t[::1] offsets = offsets_a, left = left_a, right = right_a, labels = labels_a
    cdef double[::1] weights = weights_a
    offsets[0] = 0
    for t in range(n_nodes):
        i, k = ends[t, 0] * width, ends[t, 1] * width
        for row in range(node_offsets[t], node_offsets[t + 1]):
            p = pairs[row]
            if pos[i + left_of_pair[p]] and pos[k + right_of_pair[p]]:
                weights[at] = keep * probs[row] * tilt[p]
                left[at], right[at], labels[at] = left_of_pair[p], right_of_pair[p], row
                at += 1
        weights[at], left[at], right[at], labels[at] = backoff, closure, closure, backoff_label
        at += 1
        offsets[t + 1] = at
    return offsets_a, weights_a, left_a, right_a, labels_a
