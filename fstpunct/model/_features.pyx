# cython: language_level=3, boundscheck=False, wraparound=False
"""The loops of featurising compiled: the per-word loop of
:func:`fstpunct.model.features.context_ids` (every word's head, span, and the codes of its UPOS,
relation and (lowercased) form, as the readable comprehensions over the sentences would number
them, in order of first occurrence) and its assembly of every node's context ids from them
(:func:`node_rows`), and the layout of ``attach.AttachData`` by candidate set (each set's
distinct context rows, every node's candidate rows)."""
import numpy as np

from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.object cimport PyObject

from ..dp._sparse cimport _sort


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


def set_contexts(const Py_ssize_t[::1] ptr, const Py_ssize_t[::1] ids,
                 const Py_ssize_t[::1] group, const unsigned char[::1] first, Py_ssize_t sets):
    """For CSR rows (``ptr``, ``ids``; ids ≥ 0) of nodes in candidate sets ``group`` (numbered
    0 … ``sets`` − 1), per set: its nodes (ascending, int64) and the rows of those nodes
    marked ``first`` as a CSR over the contexts the set uses — row pointers (intp), the
    contexts used (ascending, int64) and each entry's column among them (int32): what
    ``attach.set_contexts_reference`` computes with numpy (a stable argsort of ``group``,
    :func:`~fstpunct.dp.sparse.unique_ids`)."""
    cdef Py_ssize_t n = len(group), r, k, g, j, u, width = 0, count, entries, lo, hi
    if ptr.shape[0] != n + 1 or first.shape[0] != n or ptr[0] != 0 or ptr[n] > ids.shape[0]:
        raise ValueError("set_contexts: a row and a flag per node")
    for r in range(n):
        if group[r] < 0 or group[r] >= sets or ptr[r + 1] < ptr[r]:
            raise ValueError("set_contexts: sets are numbered from 0 to sets - 1, rows ordered")
    for k in range(ptr[n]):
        if ids[k] < 0:
            raise ValueError("set_contexts: ids are nonnegative")
        if ids[k] >= width:
            width = ids[k] + 1
    bounds = np.zeros(sets + 1, dtype=np.intp)
    order = np.empty(n, dtype=np.int64)
    table = np.full(width, -1, dtype=np.intp)  # per context: -1, or its column in the set
    cdef Py_ssize_t[::1] start = bounds, rank = table, at
    cdef Py_ssize_t[::1] by_set = order, used_of
    cdef Py_ssize_t[::1] row_ptr
    cdef int[::1] local_of
    for r in range(n):  # a counting sort: the nodes of each set in ascending order
        start[group[r] + 1] += 1
    for g in range(sets):
        start[g + 1] += start[g]
    at = bounds.copy()
    for r in range(n):
        by_set[at[group[r]]] = r
        at[group[r]] += 1
    out = []
    for g in range(sets):
        count = entries = u = 0
        lo, hi = width, 0
        for j in range(start[g], start[g + 1]):  # mark the contexts of the set's first rows
            r = by_set[j]
            if first[r]:
                count += 1
                entries += ptr[r + 1] - ptr[r]
                for k in range(ptr[r], ptr[r + 1]):
                    if rank[ids[k]] < 0:
                        rank[ids[k]] = 0
                        u += 1
                        lo = ids[k] if ids[k] < lo else lo
                        hi = ids[k] + 1 if ids[k] >= hi else hi
        used = np.empty(u, dtype=np.int64)
        indptr = np.empty(count + 1, dtype=np.intp)
        local = np.empty(entries, dtype=np.int32)
        used_of, row_ptr, local_of = used, indptr, local
        u = 0
        for k in range(lo, hi):  # number them in ascending order
            if rank[k] == 0:
                rank[k] = u
                used_of[u] = k
                u += 1
        count = entries = 0
        row_ptr[0] = 0
        for j in range(start[g], start[g + 1]):
            r = by_set[j]
            if first[r]:
                for k in range(ptr[r], ptr[r + 1]):
                    local_of[entries] = <int> rank[ids[k]]
                    entries += 1
                count += 1
                row_ptr[count] = entries
        for k in range(u):
            rank[used_of[k]] = -1
        out.append((order[start[g]:start[g + 1]], indptr, used, local))
    return out


def candidate_rows(const Py_ssize_t[::1] node_offsets, const Py_ssize_t[::1] group,
                   list candidates):
    """Every node's candidate pairs, rows concatenated in node order (int32): node r's rows
    ``node_offsets[r]:node_offsets[r + 1]`` hold ``candidates[group[r]]`` (what
    ``attach.candidate_rows_reference`` scatters with numpy)."""
    cdef Py_ssize_t n = len(group), r, k, a, size, sets = len(candidates)
    if node_offsets.shape[0] != n + 1 or node_offsets[0] != 0:
        raise ValueError("candidate_rows: an offset per node and one more")
    lengths = np.array([len(c) for c in candidates], dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    flat = np.concatenate(candidates).astype(np.int32) if sets else np.empty(0, dtype=np.int32)
    pairs = np.empty(node_offsets[n], dtype=np.int32)
    cdef const Py_ssize_t[::1] first = starts, length = lengths
    cdef const int[::1] values = flat
    cdef int[::1] out = pairs
    for r in range(n):
        if group[r] < 0 or group[r] >= sets or \
                node_offsets[r + 1] - node_offsets[r] != length[group[r]]:
            raise ValueError("candidate_rows: each node's rows are its set's candidates")
        a, size = first[group[r]], length[group[r]]
        for k in range(size):
            out[node_offsets[r] + k] = values[a + k]
    return pairs


cdef inline Py_ssize_t _put(Py_ssize_t* out, Py_ssize_t at, Py_ssize_t id) noexcept nogil:
    """Append ``id`` at ``out[at]`` unless it is −1 (a context unknown to the index)."""
    if id >= 0:
        out[at] = id
        return at + 1
    return at


def node_rows(const Py_ssize_t[::1] n, const Py_ssize_t[::1] heads,
              const Py_ssize_t[::1] spans, const Py_ssize_t[::1] upos,
              const Py_ssize_t[::1] deprels, const Py_ssize_t[::1] forms,
              const Py_ssize_t[:, ::1] upos_ids, const Py_ssize_t[:, ::1] deprel_ids,
              const Py_ssize_t[:, ::1] form_ids, const Py_ssize_t[::1] fixed,
              const Py_ssize_t[::1] pseudo, const Py_ssize_t[::1] extra_word,
              const Py_ssize_t[::1] extra_id):
    """The context ids of every node, ascending, as CSR rows (``ptr``, ``ids``): the assembly
    of :func:`fstpunct.model.features.context_ids` from the columns of :func:`word_columns`
    (``n``: the words of every sentence; ``heads``, ``spans``, ``upos``, ``deprels``,
    ``forms`` for the sentences with words) and the ids of each template's strings
    (−1: unknown, left out): ``upos_ids`` rows u=, pu=, ll=, lr=, rl=, rr= by UPOS code;
    ``deprel_ids`` rows d=, pd=, b=, c= by relation code; ``form_ids`` rows fw=, llw=, lrw=,
    rlw=, rrw= by form code (no rows: no lexical contexts); ``fixed``: bias, pd=<root>,
    pu=<root>, start, end; ``pseudo``: the pseudo node's of a sentence without words;
    ``extra_id[e]`` a context of word ``extra_word[e]`` (ascending). Each node's c= ids are
    those of the distinct relations of its children."""
    cdef Py_ssize_t sentences = n.shape[0], words = heads.shape[0], worded = 0, nodes = 0
    cdef Py_ssize_t s, m, w, h, i, k, c, j, j0, cid, e = 0, wo = 0, po = 0, at = 0, start, node = 0
    cdef Py_ssize_t bound, longest = 0, n_upos = upos_ids.shape[1]
    cdef Py_ssize_t n_deprel = deprel_ids.shape[1], n_form = form_ids.shape[1]
    cdef bint lexical = form_ids.shape[0] > 0
    if upos_ids.shape[0] != 6 or deprel_ids.shape[0] != 4 or form_ids.shape[0] not in (0, 5) \
            or fixed.shape[0] != 5 or pseudo.shape[0] != 5 \
            or extra_word.shape[0] != extra_id.shape[0]:
        raise ValueError("node_rows: 6 UPOS, 4 relation, 0 or 5 form templates, 5 fixed and "
                         "5 pseudo ids, a word per extra id")
    for s in range(sentences):
        if n[s] < 0:
            raise ValueError("node_rows: negative sentence length")
        worded += n[s] > 0
        nodes += n[s] if n[s] > 0 else 1
        longest = n[s] if n[s] > longest else longest
        wo += n[s]
    if wo != words or spans.shape[0] != 2 * words or deprels.shape[0] != words or \
            upos.shape[0] != words + 2 * worded or \
            lexical and forms.shape[0] != words + 2 * worded:
        raise ValueError("node_rows: the columns do not match the sentence lengths")
    wo = po = 0
    for s in range(sentences):  # every index in range, before the unchecked loop below
        m = n[s]
        for w in range(wo, wo + m):
            if not (0 <= heads[w] <= m and 0 <= spans[2 * w] <= spans[2 * w + 1] <= m and
                    0 <= deprels[w] < n_deprel):
                raise ValueError("node_rows: a head, span or relation code out of range")
        for w in range(po, po + m + 2 if m else po):
            if not 0 <= upos[w] < n_upos or lexical and not 0 <= forms[w] < n_form:
                raise ValueError("node_rows: a UPOS or form code out of range")
        wo += m
        po += m + 2 if m else 0
    for e in range(extra_word.shape[0]):
        if not 0 <= extra_word[e] < words or e and extra_word[e] < extra_word[e - 1]:
            raise ValueError("node_rows: extra contexts' words ascending, in range")
    bound = words * (12 + 5 * lexical) + words + extra_word.shape[0] + 5 * (sentences - worded)
    ptr_a = np.empty(nodes + 1, dtype=np.intp)
    ids_a = np.empty(bound, dtype=np.intp)
    first_a = np.empty(longest + 1, dtype=np.intp)  # per word of a sentence: its first child
    next_a = np.empty(longest + 1, dtype=np.intp)   # and its next sibling (0: none)
    cdef Py_ssize_t[::1] ptr = ptr_a, first_child = first_a, sibling = next_a, ids = ids_a
    cdef Py_ssize_t* out = &ids[0] if bound else NULL
    wo = po = e = 0
    ptr[0] = 0
    with nogil:
        for s in range(sentences):
            m = n[s]
            if m == 0:  # the pseudo node
                start = at
                for k in range(5):
                    at = _put(out, at, pseudo[k])
                _sort(out + start, at - start)
                node += 1
                ptr[node] = at
                continue
            for w in range(m + 1):
                first_child[w] = 0
            for w in range(m, 0, -1):  # children lists, each ascending
                h = heads[wo + w - 1]
                if h:
                    sibling[w] = first_child[h]
                    first_child[h] = w
            for w in range(1, m + 1):
                start = at
                h, i, k = heads[wo + w - 1], spans[2 * (wo + w - 1)], spans[2 * (wo + w - 1) + 1]
                at = _put(out, at, fixed[0])
                at = _put(out, at, deprel_ids[0, deprels[wo + w - 1]])
                at = _put(out, at, upos_ids[0, upos[po + w]])
                if h:
                    at = _put(out, at, deprel_ids[1, deprels[wo + h - 1]])
                    at = _put(out, at, upos_ids[1, upos[po + h]])
                else:
                    at = _put(out, at, fixed[1])
                    at = _put(out, at, fixed[2])
                at = _put(out, at, upos_ids[2, upos[po + i]])
                at = _put(out, at, upos_ids[3, upos[po + i + 1]])
                at = _put(out, at, upos_ids[4, upos[po + k]])
                at = _put(out, at, upos_ids[5, upos[po + k + 1]])
                if i == 0:
                    at = _put(out, at, fixed[3])
                if k == m:
                    at = _put(out, at, fixed[4])
                at = _put(out, at, deprel_ids[2, deprels[wo + w - 1]])
                if lexical:
                    at = _put(out, at, form_ids[0, forms[po + w]])
                    at = _put(out, at, form_ids[1, forms[po + i]])
                    at = _put(out, at, form_ids[2, forms[po + i + 1]])
                    at = _put(out, at, form_ids[3, forms[po + k]])
                    at = _put(out, at, form_ids[4, forms[po + k + 1]])
                c, j0 = first_child[w], at
                while c:  # c=: a relation's id once (distinct relations, distinct names)
                    cid = deprel_ids[3, deprels[wo + c - 1]]
                    for j in range(j0, at):
                        if out[j] == cid:
                            cid = -1
                            break
                    at = _put(out, at, cid)
                    c = sibling[c]
                while e < extra_word.shape[0] and extra_word[e] == wo + w - 1:
                    at = _put(out, at, extra_id[e])
                    e += 1
                _sort(out + start, at - start)
                node += 1
                ptr[node] = at
            wo += m
            po += m + 2
    return ptr_a, ids_a[:at]
