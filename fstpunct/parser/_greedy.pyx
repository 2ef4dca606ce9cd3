# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Greedy (beam 1) parsing of one sentence compiled: :func:`fstpunct.parser.search.search` with
k = 1 and :func:`~fstpunct.parser.search.tree`, its readable reference, step for step.

Greedy search never goes back, so the configuration is arrays updated in place: every token's
node atoms (:data:`~fstpunct.parser.transitions.NODE_ATOMS`) and punctuation property (as
:func:`~fstpunct.parser.punct.combine` updates it), the stack as token numbers. Each step builds
the atom row of :func:`~fstpunct.parser.features.atoms`, hashes every template
(:func:`fstpunct.dp._sparse.template_keys`), finds the feature rows in the model's hash table,
adds their nonzero weights (CSR) up in float32 transition by transition in template order, adds
the legality mask and the score so far in float64, and takes the first best transition
(``np.argmax``). The reference's ``weights[rows].sum(axis=1)`` adds the zeros too, in the same
order (over more than one transition), which changes no value but a zero's sign: the same
decisions, always.
"""
from libc.stdlib cimport calloc, free

from ..dp._sparse cimport _rank, _slot, _template_key


cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil

cdef enum:
    NODE = 19  # atoms of a node: word, tag, l1 (w, p, l), l2, r1, r2, vl, vr, sl, sr, pc
    W = 0
    P = 1
    L1 = 2
    R1 = 8
    VL = 14
    VR = 15
    SL = 16
    SR = 17
    PC = 18
    BUFFER = 4  # b0..b3, each word, tag and pc
    ROW = 3 * NODE + 3 * BUFFER + 4  # features.ATOMS: s0, s1, s2, b0..b3, d01, d02, d0b, none
    SHIFT = 0  # transition kinds
    LEFT = 1


# Punctuation properties by token: opening kinds (outermost first), closing kinds stored innermost
# last (the reverse of ``Prop.closes``), plain mark, paired; ``k`` slots a side.
cdef struct Props:
    Py_ssize_t k
    long long* opens
    long long* closes
    Py_ssize_t* n_opens
    Py_ssize_t* n_closes
    long long* punct
    bint* paired


cdef long long _code(const Props* p, Py_ssize_t i) noexcept nogil:
    """``make_prop(...).code`` of token i's property (the three innermost flags a side)."""
    cdef long long enc_o = 0, enc_c = 0, code
    cdef Py_ssize_t q, no = p.n_opens[i], nc = p.n_closes[i]
    cdef const long long* o = p.opens + i * p.k
    cdef const long long* c = p.closes + i * p.k
    for q in range(no - 3 if no > 3 else 0, no):
        enc_o = enc_o * 16 + o[q]
    for q in range((nc if nc < 3 else 3) - 1, -1, -1):  # Prop.closes[-3:], in its order
        enc_c = enc_c * 16 + c[q]
    code = ((enc_o * 4096 + enc_c) * 2 + (p.punct[i] > 0)) * 2 + p.paired[i]
    if p.punct[i] > 1:
        code += p.punct[i] << 26
    return code


cdef void _combine(Props* p, Py_ssize_t h, Py_ssize_t d, bint left) noexcept nogil:
    """Head h's property after d becomes its outermost left (right) dependent: ``combine``."""
    cdef Py_ssize_t q, k = p.k
    cdef long long* o = p.opens + h * k
    cdef long long* c = p.closes + h * k
    cdef bint matched = False
    if left:
        p.n_opens[h] = p.n_opens[d]
        for q in range(p.n_opens[d]):
            o[q] = p.opens[d * k + q]
    else:
        p.punct[h] = 0 if p.n_opens[h] else p.punct[d]
        p.n_closes[h] = p.n_closes[d]
        for q in range(p.n_closes[d]):
            c[q] = p.closes[d * k + q]
    while p.n_opens[h] and p.n_closes[h] and o[p.n_opens[h] - 1] == c[p.n_closes[h] - 1]:
        p.n_opens[h] -= 1
        p.n_closes[h] -= 1
        matched = True
    p.paired[h] = p.paired[h] or (matched and not p.n_opens[h] and not p.n_closes[h])


cdef void _attach(long long* head, const long long* dep, long long label, bint left
                  ) noexcept nogil:
    """``transitions._attach`` on node atoms (the property code is set by the caller)."""
    cdef Py_ssize_t first = L1 if left else R1, q
    for q in range(3):  # the outermost dependent becomes the second outermost
        head[first + 3 + q] = head[first + q]
    head[first], head[first + 1], head[first + 2] = dep[W], dep[P], label
    head[VL if left else VR] += 1
    head[SL if left else SR] |= (<long long> 1) << (label % 62)


def parse(list words, list tags, tuple props, tuple marks, const Py_ssize_t[:, ::1] columns,
          unsigned long long multiplier, int shift, long long max_dist,
          const long long[::1] table, const int[::1] ranks, int key_shift,
          const Py_ssize_t[::1] indptr, const int[::1] indices, const float[::1] data,
          const float[:, ::1] masks,
          const signed char[::1] kinds, const long long[::1] label_ids):
    """Heads (1-based, 0 = root) and action numbers of the arcs that made them, by token, of
    the greedy parse of a sentence of ``n`` tokens: model ids ``words`` and ``tags``, initial
    properties ``props`` (:class:`~fstpunct.parser.punct.Prop`), ``marks`` as
    :attr:`~fstpunct.parser.model.Input.marks` (root first, padding last); template
    ``columns`` and the key hash (``multiplier``, ``shift``: :func:`features.keys`); the
    distances' cap; the model's hash ``table`` and ``ranks`` of its keys shifted right by
    ``key_shift`` (fingerprints: :func:`~fstpunct.parser.storage.lookup_keys`); its weights in
    CSR form (``indptr``, ``indices``, ``data``: a row per rank, no column twice in a row);
    legality ``masks`` by class (:meth:`~fstpunct.parser.model.Model.mask_table`); and per
    transition its kind (0 shift, 1 left arc, 2 right arc) and label id."""
    cdef Py_ssize_t n = len(words), n_t = columns.shape[0], width = columns.shape[1]
    cdef Py_ssize_t n_a = masks.shape[1], table_mask = table.shape[0] - 1
    cdef Py_ssize_t i, q, t, a, e, step, best, depth = 1, j = 0, i0, i1, i2, k = 1
    cdef long long label
    cdef double v, best_v = 0.0, total = 0.0
    cdef const float* m
    if len(tags) != n or len(props) != n or len(marks) != n + 2:
        raise ValueError("words, tags, props and marks do not fit one sentence")
    if kinds.shape[0] != n_a or label_ids.shape[0] != n_a:
        raise ValueError("masks and transitions do not fit one model")
    for prop in props:
        k = max(k, len(prop[0]), len(prop[1]))
    cdef long long* nodes = <long long*> calloc((n + 1) * NODE, sizeof(long long))
    cdef long long* cells = <long long*> calloc((n + 1 + BUFFER) * 3, sizeof(long long))
    cdef Py_ssize_t* stack = <Py_ssize_t*> calloc(n + 1, sizeof(Py_ssize_t))
    cdef long long* mk = <long long*> calloc(n + 2, sizeof(long long))
    cdef long long* heads = <long long*> calloc(n + 1, sizeof(long long))
    cdef long long* acts = <long long*> calloc(n + 1, sizeof(long long))
    cdef float* sums = <float*> calloc(max(n_a, 1), sizeof(float))
    cdef Py_ssize_t* found = <Py_ssize_t*> calloc(max(n_t, 1), sizeof(Py_ssize_t))
    cdef long long* keys = <long long*> calloc(max(n_t, 1), sizeof(long long))
    cdef long long row[ROW]
    cdef Props p
    p.k = k
    p.opens = <long long*> calloc((n + 1) * k, sizeof(long long))
    p.closes = <long long*> calloc((n + 1) * k, sizeof(long long))
    p.n_opens = <Py_ssize_t*> calloc(n + 1, sizeof(Py_ssize_t))
    p.n_closes = <Py_ssize_t*> calloc(n + 1, sizeof(Py_ssize_t))
    p.punct = <long long*> calloc(n + 1, sizeof(long long))
    p.paired = <bint*> calloc(n + 1, sizeof(bint))
    try:
        if not (nodes and cells and stack and mk and heads and acts and sums and found and keys
                and p.opens and p.closes and p.n_opens and p.n_closes and p.punct and p.paired):
            raise MemoryError()
        for i in range(n + 2):
            mk[i] = marks[i]
        nodes[W] = nodes[P] = 1  # the root: word and tag ROOT, property EMPTY
        nodes[PC] = _code(&p, 0) + 1
        for i in range(1, n + 1):
            prop = props[i - 1]
            opens, closes = prop[0], prop[1]
            p.n_opens[i], p.n_closes[i] = len(opens), len(closes)
            for q in range(p.n_opens[i]):
                p.opens[i * k + q] = opens[q]
            for q in range(p.n_closes[i]):
                p.closes[i * k + q] = closes[p.n_closes[i] - 1 - q]
            p.punct[i], p.paired[i] = prop[2], prop[3]
            nodes[i * NODE + W] = cells[i * 3] = words[i - 1]
            nodes[i * NODE + P] = cells[i * 3 + 1] = tags[i - 1]
            nodes[i * NODE + PC] = cells[i * 3 + 2] = prop[4] + 1
        with nogil:
            for step in range(2 * n):
                i0 = stack[depth - 1]
                i1 = stack[depth - 2] if depth >= 2 else -1
                i2 = stack[depth - 3] if depth >= 3 else -1
                for q in range(NODE):
                    row[q] = nodes[i0 * NODE + q]
                    row[NODE + q] = nodes[i1 * NODE + q] if i1 >= 0 else 0
                    row[2 * NODE + q] = nodes[i2 * NODE + q] if i2 >= 0 else 0
                for q in range(3 * BUFFER):
                    row[3 * NODE + q] = cells[(j + 1) * 3 + q]
                q = 3 * NODE + 3 * BUFFER
                row[q] = min(i0 - i1, max_dist) if i1 >= 0 else 0
                row[q + 1] = min(i0 - i2, max_dist) if i2 >= 0 else 0
                row[q + 2] = min(j + 1 - i0, max_dist) if j < n else 0
                row[q + 3] = 0
                # the lookups stage by stage, each stage's memory reads started for all
                # templates at once (prefetched) before the next stage needs them
                for t in range(n_t):
                    keys[t] = <long long> (_template_key(row, &columns[t, 0], width, t,
                                                         multiplier, shift) >> key_shift)
                    found[t] = _slot(keys[t], table_mask)
                    __builtin_prefetch(&table[found[t]])
                    __builtin_prefetch(&ranks[found[t]])
                for t in range(n_t):
                    found[t] = _rank(&table[0], &ranks[0], table_mask, keys[t], found[t])
                    __builtin_prefetch(&indptr[found[t]])
                for t in range(n_t):
                    __builtin_prefetch(&indices[indptr[found[t]]])
                    __builtin_prefetch(&data[indptr[found[t]]])
                for a in range(n_a):
                    sums[a] = 0.0
                for t in range(n_t):  # each transition's weights in template order
                    for e in range(indptr[found[t]], indptr[found[t] + 1]):
                        sums[indices[e]] = sums[indices[e]] + data[e]
                m = &masks[((min(depth, 3) * 2 + (j < n)) * 3 + mk[i0]) * 3
                           + mk[i1 if i1 >= 0 else n + 1], 0]
                best, best_v = 0, (<double> sums[0] + <double> m[0]) + total
                for a in range(1, n_a):
                    v = (<double> sums[a] + <double> m[a]) + total
                    if v > best_v:
                        best, best_v = a, v
                if best_v == -1.0 / 0.0:
                    break
                total = best_v
                if kinds[best] == SHIFT:
                    j += 1
                    stack[depth] = j
                    depth += 1
                    continue
                label = label_ids[best]
                if kinds[best] == LEFT:  # s1 becomes a dependent of s0
                    _attach(&nodes[i0 * NODE], &nodes[i1 * NODE], label, True)
                    _combine(&p, i0, i1, True)
                    nodes[i0 * NODE + PC] = _code(&p, i0) + 1
                    heads[i1], acts[i1] = i0, best
                    stack[depth - 2] = i0
                else:  # s0 becomes a dependent of s1
                    _attach(&nodes[i1 * NODE], &nodes[i0 * NODE], label, False)
                    _combine(&p, i1, i0, False)
                    nodes[i1 * NODE + PC] = _code(&p, i1) + 1
                    heads[i0], acts[i0] = i1, best
                depth -= 1
        if best_v == -1.0 / 0.0 and n:
            raise ValueError("no legal transition")
        return [heads[i] for i in range(1, n + 1)], [acts[i] for i in range(1, n + 1)]
    finally:
        free(nodes)
        free(cells)
        free(stack)
        free(mk)
        free(heads)
        free(acts)
        free(sums)
        free(found)
        free(keys)
        free(p.opens)
        free(p.closes)
        free(p.n_opens)
        free(p.n_closes)
        free(p.punct)
        free(p.paired)
