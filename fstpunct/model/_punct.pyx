# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, nonecheck=False
"""What :class:`fstpunct.model.punct.Inference` computes per Attach row, compiled: its
candidates in one pass over the rows of a range of nodes, where the numpy formulation
(``Inference._candidate_arrays_reference``, the tests' oracle) makes a dozen passes over them
(:func:`candidate_arrays`); and the Attach probabilities of a candidate set's nodes, each
distinct context row's softmax written straight to its nodes' rows (:func:`softmax_rows`,
bitwise :func:`fstpunct.model.attach.probabilities_reference`'s)."""
import numpy as np

from ..dp._sparse cimport _exp_terms


def candidate_arrays(const Py_ssize_t[::1] node_offsets, const int[::1] pairs,
                     const Py_ssize_t[::1] left_of_pair, const Py_ssize_t[::1] right_of_pair,
                     const Py_ssize_t[:, ::1] ends, const unsigned char[:, ::1] possible,
                     const double[::1] probs, const double[::1] tilt, double keep,
                     double backoff, Py_ssize_t closure, Py_ssize_t backoff_label):
    """Node t's rows ``node_offsets[t] : node_offsets[t + 1]`` (flat Attach rows, whose pairs
    are ``pairs[row]``) whose left puncteme is possible in slot ``ends[t, 0]`` and whose right
    one in slot ``ends[t, 1]`` (``possible[slot, puncteme]``), then the backoff. Returns the
    candidates' offsets (per node, + 1), weights (keep · probs[row] · tilt[pair], the backoff's
    ``backoff``), left and right stack indices (int32; the backoff's ``closure``) and labels
    (the row, the backoff's ``backoff_label``)."""
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
    left_a = np.empty(total, dtype=np.int32)
    right_a = np.empty(total, dtype=np.int32)
    labels_a = np.empty(total, dtype=np.intp)
    cdef Py_ssize_t[::1] offsets = offsets_a, labels = labels_a
    cdef int[::1] left = left_a, right = right_a
    cdef double[::1] weights = weights_a
    if max(width, closure) >= 2 ** 31:  # (stack indices: punctemes, or the closure's)
        raise ValueError("candidate_arrays: more matrices in a stack than int32 indices hold")
    offsets[0] = 0
    for t in range(n_nodes):
        i, k = ends[t, 0] * width, ends[t, 1] * width
        for row in range(node_offsets[t], node_offsets[t + 1]):
            p = pairs[row]
            if pos[i + left_of_pair[p]] and pos[k + right_of_pair[p]]:
                weights[at] = keep * probs[row] * tilt[p]
                left[at], right[at], labels[at] = <int> left_of_pair[p], <int> right_of_pair[p], row
                at += 1
        weights[at], left[at], right[at], labels[at] = backoff, <int> closure, <int> closure, \
            backoff_label
        at += 1
        offsets[t + 1] = at
    return offsets_a, weights_a, left_a, right_a, labels_a


def softmax_rows(double[:, ::1] scores, const Py_ssize_t[::1] inverse,
                 const Py_ssize_t[::1] starts, double[::1] out, bint libm=True):
    """Each row of ``scores`` (distinct context rows × candidates) turned in place into
    p = exp(S − max) / Σ exp(S − max) (numpy's ``max``, ``exp``, pairwise ``sum`` and division,
    as :func:`fstpunct.model.attach._softmax` computes it: bitwise where numpy's exponential is
    libm's), then row ``inverse[j]`` of p copied to ``out[starts[j] : starts[j] + width]`` for
    every node j. ``libm``: as :func:`fstpunct.model.attach.probabilities`."""
    cdef Py_ssize_t n_rows = scores.shape[0], width = scores.shape[1], i, j, k
    cdef double high, total
    cdef double* s
    if inverse.shape[0] != starts.shape[0]:
        raise ValueError("softmax_rows: one row and one start per node")
    for j in range(inverse.shape[0]):
        if not (0 <= inverse[j] < n_rows and 0 <= starts[j] <= out.shape[0] - width):
            raise ValueError("softmax_rows: a node's row or start is out of range")
    if width == 0:
        return
    with nogil:
        for i in range(n_rows):
            s = &scores[i, 0]
            total = _exp_terms(s, s, width, &high, libm)
            for k in range(width):
                s[k] = s[k] / total
        for j in range(inverse.shape[0]):
            s = &scores[inverse[j], 0]
            for k in range(width):
                out[starts[j] + k] = s[k]
