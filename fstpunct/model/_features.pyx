# cython: language_level=3, boundscheck=False, wraparound=False
"""The per-word loop of :func:`fstpunct.model.features.context_ids` compiled: every word's
head, span, and the codes of its UPOS, relation and (lowercased) form, as the readable
comprehensions over the sentences would number them (in order of first occurrence)."""
import numpy as np

from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.object cimport PyObject


cdef inline Py_ssize_t _code(dict number, str value):
    """The number of ``value`` (a new one, ``len(number)``, the first time)."""
    cdef PyObject* found = PyDict_GetItem(number, value)
    if found != NULL:
        return <object> found
    cdef Py_ssize_t k = len(number)
    PyDict_SetItem(number, value, k)
    return k


def word_columns(list worded, str bos, str eos, bint lexical):
    """For the words of ``worded`` (sentences with words) in order: heads, spans (i, k
    flattened), then the codes and the distinct strings (in order of first occurrence) of the
    UPOS (each sentence's padded by ``bos`` and ``eos``), of the relations and, with
    ``lexical``, of the lowercased forms (padded too)."""
    cdef Py_ssize_t total = 0, w = 0, p = 0, k, m
    for s in worded:
        total += len(s.heads)
    padded = total + 2 * len(worded)
    heads, spans = np.empty(total, dtype=np.intp), np.empty(2 * total, dtype=np.intp)
    upos, deprels = np.empty(padded, dtype=np.intp), np.empty(total, dtype=np.intp)
    forms = np.empty(padded if lexical else 0, dtype=np.intp)
    cdef Py_ssize_t[::1] h = heads, sp = spans, u = upos, d = deprels, f = forms
    cdef dict upos_number = {}, deprel_number = {}, form_number = {}
    cdef tuple s_heads, s_upos, s_deprels, s_words
    cdef list s_spans
    for s in worded:
        s_heads, s_spans, s_upos, s_deprels = s.heads, s.spans, s.upos, s.deprels
        m = len(s_heads)
        if len(s_spans) != m or len(s_upos) != m or len(s_deprels) != m or \
                lexical and len(s.words) != m:
            raise ValueError("word_columns: a sentence's words, heads, spans, UPOS and "
                             "relations differ in number")
        u[p] = _code(upos_number, bos)
        if lexical:
            s_words = s.words
            f[p] = _code(form_number, bos)
        p += 1
        for k in range(m):
            h[w] = s_heads[k]
            span = s_spans[k]
            sp[2 * w] = span[0]
            sp[2 * w + 1] = span[1]
            u[p] = _code(upos_number, s_upos[k])
            d[w] = _code(deprel_number, s_deprels[k])
            if lexical:
                f[p] = _code(form_number, s_words[k].lower())
            w += 1
            p += 1
        u[p] = _code(upos_number, eos)
        if lexical:
            f[p] = _code(form_number, eos)
        p += 1
    return (heads, spans, (upos, list(upos_number)), (deprels, list(deprel_number)),
            (forms, list(form_number)))


def distinct_rows(const Py_ssize_t[::1] ptr, const Py_ssize_t[::1] ids,
                  const Py_ssize_t[::1] group):
    """For CSR rows (``ptr``, ``ids``) of nodes in sets ``group``: each node's number among
    the distinct rows of its set (in order of first occurrence), and whether it is the first
    node of its row (found by hashing, rows compared in full)."""
    cdef Py_ssize_t n = len(group), size = 1, r, q, a, b, k, h, pos, most = 0
    if ptr.shape[0] != n + 1 or ptr[0] != 0 or ptr[n] > ids.shape[0]:
        raise ValueError("distinct_rows: a row per node")
    while size < 2 * n:
        size *= 2
    for r in range(n):
        if group[r] < 0 or ptr[r + 1] < ptr[r]:
            raise ValueError("distinct_rows: sets are numbered from 0, rows ordered")
        most = group[r] if group[r] > most else most
    number = np.empty(n, dtype=np.intp)
    first = np.zeros(n, dtype=bool)
    table = np.full(size, -1, dtype=np.intp)
    counts = np.zeros(most + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] out = number, slots = table, count = counts
    cdef unsigned char[::1] firsts = first.view(np.uint8)
    cdef unsigned long long hashed
    cdef bint same
    for r in range(n):
        a, b = ptr[r], ptr[r + 1]
        hashed = <unsigned long long> group[r] * 0x9E3779B97F4A7C15ULL + <unsigned long long> (b - a)
        for k in range(a, b):
            hashed = (hashed ^ <unsigned long long> ids[k]) * 0x100000001B3ULL
        pos = <Py_ssize_t> ((hashed ^ (hashed >> 29)) & <unsigned long long> (size - 1))
        while True:
            q = slots[pos]
            if q < 0:  # a new row of its set
                slots[pos] = r
                out[r] = count[group[r]]
                count[group[r]] += 1
                firsts[r] = 1
                break
            same = group[q] == group[r] and ptr[q + 1] - ptr[q] == b - a
            k = 0
            while same and k < b - a:
                same = ids[ptr[q] + k] == ids[a + k]
                k += 1
            if same:
                out[r] = out[q]
                break
            pos = (pos + 1) & (size - 1)
    return number, first
