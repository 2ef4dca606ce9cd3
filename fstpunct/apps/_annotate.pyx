# cython: language_level=3, boundscheck=False, wraparound=False
"""The per-word work of :mod:`fstpunct.apps.decode` compiled: T′ as a bracketed string, by the
same walk over the tree as the readable :func:`~fstpunct.apps.decode.bracketed_reference`; and
whether a sentence lacks UPOS (:func:`fstpunct.apps.text.untagged`, asked of every sentence)."""
from libc.stdlib cimport free, malloc

cdef enum:
    OPEN, WORD, CLOSE


def bracketed_tokens(tuple words, tuple heads, list pairs, tuple backoff):
    """The tokens of T′ in order, each constituent's brackets stuck to its first and last
    token (``pairs[w - 1]``: node w's (l, r), None for the backoff, whose tokens are
    ``backoff``); the caller opens it with the boundary (a sentence with words)."""
    cdef Py_ssize_t n = len(heads), w, c, h, top = 0, step, at
    cdef Py_ssize_t* buf = <Py_ssize_t*> malloc((6 * n + 4) * sizeof(Py_ssize_t))
    if buf == NULL:
        raise MemoryError()
    cdef Py_ssize_t* start = buf  # the children of node h: kids[start[h]:start[h + 1]]
    cdef Py_ssize_t* kids = buf + (n + 2)
    cdef Py_ssize_t* first = buf + (2 * n + 2)  # where node w's tokens begin in ``out``
    cdef Py_ssize_t* stack = buf + (3 * n + 3)  # entries 3·w + step: at most 3n at once
    cdef list out = []
    if len(words) != n or len(pairs) < n:
        raise ValueError("bracketed_tokens: a word and a pair per node")
    try:
        for h in range(n + 2):
            start[h] = 0
        for w in range(n):
            h = heads[w]
            if h < 0 or h > n:
                raise ValueError(f"bracketed_tokens: head {h} out of range")
            start[h + 1] += 1
        for h in range(n + 1):
            start[h + 1] += start[h]
        for w in range(1, n + 1):  # in order: each node's children left to right
            h = heads[w - 1]
            kids[start[h]] = w
            start[h] += 1
        for h in range(n, -1, -1):
            start[h + 1] = start[h]
        start[0] = 0
        stack[0] = 3 * kids[0] + OPEN
        top = 1
        while top:
            top -= 1
            w, step = stack[top] // 3, stack[top] % 3
            if step == WORD:
                out.append(words[w - 1])
                continue
            pair = pairs[w - 1]
            if step == OPEN:  # l, the left children, the word, the right children, r
                first[w] = len(out)
                out.extend(backoff if pair is None else pair[0])
                stack[top] = 3 * w + CLOSE
                top += 1
                for at in range(start[w + 1] - 1, start[w] - 1, -1):
                    c = kids[at]
                    if c > w:
                        stack[top] = 3 * c + OPEN
                        top += 1
                stack[top] = 3 * w + WORD
                top += 1
                for at in range(start[w + 1] - 1, start[w] - 1, -1):
                    c = kids[at]
                    if c < w:
                        stack[top] = 3 * c + OPEN
                        top += 1
            else:
                out.extend(backoff if pair is None else pair[1])
                at = len(out) - 1
                out[first[w]] = "[" + out[first[w]]
                out[at] = out[at] + "]"
        return out
    finally:
        free(buf)


def untagged(list words):
    """Whether some word has UPOS ``_`` (:func:`fstpunct.apps.text.untagged_reference` of a
    sentence with these words)."""
    for word in words:
        if word.upos == "_":
            return True
    return False
