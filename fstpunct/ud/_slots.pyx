# cython: language_level=3, boundscheck=False, wraparound=False
""":func:`fstpunct.ud.slots.to_slots` compiled: one pass over a sentence's words gives its
depunctuated tree, the slot strings and every subtree's span, as the readable reference
(``to_slots_reference``: :func:`~fstpunct.ud.slots.depunctuate`,
:func:`~fstpunct.ud.slots.surface_slots`, :func:`~fstpunct.ud.tree.projectivize`,
:func:`~fstpunct.ud.tree.spans`) computes them step by step. The rare cases stay with the
reference's own functions, passed in: straight quotes (``quote_symbols``) and trees that
depunctuation leaves non-projective (``projectivize``).
"""
from libc.stdlib cimport free, malloc


cdef bint _punct(str upos, str deprel):
    """``Word.is_punct``: UPOS PUNCT or relation punct (subtypes included)."""
    return upos == "PUNCT" or deprel == "punct" or deprel.startswith("punct:")


cdef bint _extents(Py_ssize_t n, const Py_ssize_t* heads, Py_ssize_t* lo, Py_ssize_t* hi):
    """First and last word of every node's subtree (index = word, 1-based); whether every
    subtree is contiguous (``heads[k]``: the head of word k; a tree: every word reaches 0)."""
    cdef Py_ssize_t k, h, steps
    cdef Py_ssize_t* size = <Py_ssize_t*> malloc((n + 1) * sizeof(Py_ssize_t))
    if size == NULL:
        raise MemoryError()
    for k in range(n + 1):
        lo[k] = hi[k] = k
        size[k] = 1
    cdef bint ok = True
    for k in range(1, n + 1):  # every word counts in the subtree of each of its ancestors
        h, steps = heads[k], 0
        while h and ok:
            if k < lo[h]:
                lo[h] = k
            if k > hi[h]:
                hi[h] = k
            size[h] += 1
            h = heads[h]
            steps += 1
            ok = steps <= n  # (a cycle: never with a validated tree)
    for k in range(1, n + 1):
        ok = ok and hi[k] - lo[k] + 1 == size[k]
    free(size)
    return ok


def slot_parts(list words, str abbv, quote_symbols, projectivize):
    """What ``to_slots`` puts into a :class:`~fstpunct.ud.slots.SlotSentence` for the
    sentence of ``words`` (:class:`~fstpunct.ud.treebank.Word`; ``abbv``: the abbreviation-dot
    token): forms, UPOS, heads, relations, slots, word IDs, slot IDs (tuples), the number of
    lifted arcs and of punctuation tokens with dependents, and the spans
    (:attr:`SlotSentence.spans`). None when the words are not numbered 1, 2, ... with heads
    among them and punctuation chains leading to a word or 0 (what a validated sentence has):
    the caller takes the reference."""
    cdef Py_ssize_t m = len(words), n = 0, j, k, h, steps, with_deps = 0, lifted = 0, root = 0
    cdef Py_ssize_t* buf = <Py_ssize_t*> malloc(7 * (m + 1) * sizeof(Py_ssize_t))
    if buf == NULL:
        raise MemoryError()
    # per input word (1-based): punct flag, head, index among the kept words, whether a kept
    # word depends on it; per kept word: its head over the kept words, its subtree's extents
    cdef Py_ssize_t* punct = buf
    cdef Py_ssize_t* head_of = buf + (m + 1)
    cdef Py_ssize_t* index = buf + 2 * (m + 1)
    cdef Py_ssize_t* governs = buf + 3 * (m + 1)
    cdef Py_ssize_t* heads = buf + 4 * (m + 1)
    cdef Py_ssize_t* lo = buf + 5 * (m + 1)
    cdef Py_ssize_t* hi = buf + 6 * (m + 1)
    cdef bint quoted = False
    cdef str form
    forms, upos, deprels, word_ids = [], [], [], []
    slot, slot_id = [], []  # the current slot's tokens and their word IDs
    slots, slot_ids = [slot], [slot_id]
    try:
        for j in range(m + 1):
            governs[j] = 0
        for j in range(m):  # each word's attributes read once
            w = words[j]
            h = w.head
            if w.id != j + 1 or h < 0 or h > m:
                return None
            form, tag, deprel = w.form, w.upos, w.deprel
            head_of[j + 1] = h
            punct[j + 1] = _punct(tag, deprel)
            if punct[j + 1]:
                quoted = quoted or form == '"' or form == "'"
                index[j + 1] = 0
                slot.append(form)
                slot_id.append(j + 1)
                continue
            n += 1
            index[j + 1] = n
            governs[h] = 1
            upos.append(tag)
            deprels.append(deprel)
            word_ids.append(j + 1)
            if len(form) > 1 and form[len(form) - 1] == "." and form.rstrip("."):
                forms.append(form[:len(form) - 1])
                slot, slot_id = [abbv], [j + 1]
            else:
                forms.append(form)
                slot, slot_id = [], []
            slots.append(slot)
            slot_ids.append(slot_id)
        if quoted:  # straight quotes made directional
            quotes = quote_symbols(words)
            for slot, slot_id in zip(slots, slot_ids):
                for k in range(len(slot)):
                    slot[k] = quotes.get(slot_id[k], slot[k])
        for j in range(1, m + 1):
            if punct[j]:
                with_deps += governs[j]
                continue
            h, steps = head_of[j], 0
            while h and punct[h]:  # up to the nearest non-punctuation ancestor
                h = head_of[h]
                steps += 1
                if steps > m:
                    return None
            k = index[j]
            heads[k] = index[h] if h else 0
            if heads[k] == 0:
                if root:
                    heads[k] = root  # extra roots attach to the first
                else:
                    root = k
        heads[0] = 0
        if not _extents(n, heads, lo, hi):
            lifted_heads, lifted = projectivize([heads[k] for k in range(1, n + 1)])
            for k in range(1, n + 1):
                heads[k] = lifted_heads[k - 1]
            _extents(n, heads, lo, hi)
        return (tuple(forms), tuple(upos), tuple([heads[k] for k in range(1, n + 1)]),
                tuple(deprels), tuple([tuple(s) for s in slots]), tuple(word_ids),
                tuple([tuple(s) for s in slot_ids]), lifted, with_deps,
                [(lo[k] - 1, hi[k]) for k in range(1, n + 1)])
    finally:
        free(buf)
