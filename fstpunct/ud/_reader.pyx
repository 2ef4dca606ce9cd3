# cython: language_level=3, boundscheck=False, wraparound=False
""":func:`fstpunct.ud.treebank.read_conllu` compiled for usual input: the loop over the lines
(:func:`read_usual`), the scan of a usual word line (:func:`usual_line`) and the sentence
checks — word IDs in order, heads in range, DEPS heads that are nodes, one root and no cycle
(:func:`sentence_words`; what the readable ``_finish_reference`` checks step by step).
Anything else — a failed check, unparsed input (HEAD ``_``), a malformed line — is left to the
readable reference, which names the error."""
import dataclasses
from itertools import chain

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.type cimport PyType_GenericAlloc
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND, PyUnicode_READ
from libc.stdlib cimport free, malloc


cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    enum:
        T_OBJECT_EX
        READONLY


cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member


cdef class _Maker:
    """Makes instances of a dataclass with ``slots=True`` (:class:`~.treebank.Line`,
    :class:`~.treebank.Word`: thousands per file) without calling its ``__init__``, which only
    stores each field: the new object's slots are written directly. A class whose ``__init__``
    may do more (``__post_init__``, a field not in a plain slot, its own ``__new__``) is called
    instead."""
    cdef object cls
    cdef readonly bint direct
    cdef Py_ssize_t offsets[16]  # of each field's slot in an instance, in ``__init__`` order
    cdef Py_ssize_t n

    def __init__(self, cls):
        self.cls = cls
        names = [f.name for f in dataclasses.fields(cls) if f.init] \
            if dataclasses.is_dataclass(cls) else []
        self.n = len(names)
        self.direct = (type(cls) is type and cls.__new__ is object.__new__ and
                       not hasattr(cls, "__post_init__") and 0 < self.n <= 16 and
                       len(names) == len(dataclasses.fields(cls)))
        for k, name in enumerate(names if self.direct else ()):
            member = cls.__dict__.get(name)
            if type(member).__name__ != "member_descriptor" or \
                    (<PyMemberDescrObject*> member).d_member.type != T_OBJECT_EX or \
                    (<PyMemberDescrObject*> member).d_member.flags & READONLY:
                self.direct = False
                break
            self.offsets[k] = (<PyMemberDescrObject*> member).d_member.offset

    cdef object start(self):
        """A new instance whose fields are all unset (``direct`` only)."""
        return PyType_GenericAlloc(self.cls, 0)

    def make(self, *values):
        """``cls(*values)``, made directly where the class allows it."""
        if not self.direct:
            return self.cls(*values)
        if len(values) != self.n:
            raise TypeError(f"{self.cls.__name__}: {self.n} fields, {len(values)} values")
        obj = self.start()
        for k in range(self.n):
            _put(obj, self.offsets[k], values[k])
        return obj


cdef inline void _put(object obj, Py_ssize_t offset, object value):
    """Store ``value`` in the (unset) slot at ``offset`` of a new ``obj``."""
    Py_INCREF(value)
    (<PyObject**> (<char*> <PyObject*> obj + offset))[0] = <PyObject*> value


cdef dict _MAKERS = {}  # per class


cdef _Maker _maker_of(cls):
    maker = _MAKERS.get(cls)
    if maker is None:
        maker = _MAKERS[cls] = _Maker(cls)
    return maker


def maker_of(cls):
    """The :class:`_Maker` of ``cls`` (the tests')."""
    return _maker_of(cls)


cdef object _line(_Maker maker, list fields, Py_ssize_t lineno):
    """``Line(fields, lineno)``."""
    if not maker.direct:
        return maker.cls(fields, lineno)
    obj = maker.start()
    _put(obj, maker.offsets[0], fields)
    _put(obj, maker.offsets[1], lineno)
    return obj


ctypedef struct _Chars:  # a string's characters as stored (PEP 393: 1, 2 or 4 bytes each)
    void* data
    int kind


cdef inline _Chars _chars(str text):
    """The characters of ``text``, to read without the checks of indexing a ``str``."""
    cdef _Chars out
    out.data, out.kind = PyUnicode_DATA(text), PyUnicode_KIND(text)
    return out


cdef inline Py_UCS4 _at(_Chars text, Py_ssize_t k):
    """Character k."""
    return PyUnicode_READ(text.kind, text.data, k)


cdef Py_ssize_t _number(str text):
    """``text`` as a number if it is ASCII digits (at most 18), else -1."""
    return _digits(_chars(text), 0, len(text))


cdef Py_ssize_t _digits(_Chars text, Py_ssize_t a, Py_ssize_t b):
    """``text[a:b]`` as a number if it is ASCII digits (at most 18), else -1."""
    cdef Py_ssize_t value = 0, k
    cdef Py_UCS4 c
    if b <= a or b - a > 18:
        return -1
    for k in range(a, b):
        c = _at(text, k)
        if c < 48 or c > 57:  # not '0'..'9'
            return -1
        value = value * 10 + (<Py_ssize_t> c - 48)
    return value


cdef bint _deps_heads_known(str deps, Py_ssize_t n, set empty):
    """Whether every head of a DEPS value (``HEAD:RELATION`` items joined by ``|``, as the
    line check accepts; a head is what precedes an item's first ``:``) is 0, a word 1..n or
    one of the ``empty`` nodes."""
    cdef _Chars text = _chars(deps)
    cdef Py_ssize_t length = len(deps), start = 0, end, h
    while start <= length:  # an item from ``start`` on
        end = start
        while end < length and _at(text, end) != u"|" and _at(text, end) != u":":
            end += 1
        h = _digits(text, start, end)
        if h < 0:
            if empty is None or deps[start:end] not in empty:
                return False
        elif h > n:
            return False
        while end < length and _at(text, end) != u"|":
            end += 1
        start = end + 1
    return True


def sentence_words(sent, word, check_order):
    """The :class:`~fstpunct.ud.treebank.Word` list (made by ``word``) of ``sent``, a sentence
    with a tree whose token lines passed the line checks, when every sentence check passes;
    None otherwise. Multiword-token ranges and empty nodes are put in order by ``check_order``
    (the reference's, which raises on a misplaced one)."""
    cdef list lines = sent.lines
    cdef Py_ssize_t count = len(lines), n = 0, j, k, h, expected = 1, roots = 0
    cdef bint special = False
    cdef str ident
    if count == 0:
        return None
    for line in lines:
        if len(line.fields) != 10:  # (not from the reader: the reference names the error)
            return None
        ident = line.fields[0]
        if "-" in ident or "." in ident:
            special = True
            break
    cdef set empty = None
    if special:
        check_order(sent)
        empty = {line.fields[0] for line in lines if "." in line.fields[0]}
        word_lines = [line for line in lines
                      if "-" not in line.fields[0] and "." not in line.fields[0]]
    else:
        word_lines = lines
    n = len(word_lines)
    if n == 0:
        return None
    if special:  # an empty node's DEPS heads too must be nodes (the word lines' are below)
        for line in lines:
            fields = line.fields
            if "." in fields[0] and fields[8] != "_" and \
                    not _deps_heads_known(fields[8], n, empty):
                return None
    cdef Py_ssize_t* heads = <Py_ssize_t*> malloc(2 * (n + 1) * sizeof(Py_ssize_t))
    if heads == NULL:
        raise MemoryError()
    cdef Py_ssize_t* state = heads + (n + 1)  # 0 unknown, 1 on the current walk, 2 rooted
    try:
        for j in range(n):
            fields = word_lines[j].fields
            if len(fields) != 10 or _number(fields[0]) != j + 1:
                return None
            h = _number(fields[6])
            if h < 0 or h > n or h == j + 1:
                return None
            heads[j + 1] = h
            roots += h == 0
            if fields[8] != "_" and not _deps_heads_known(fields[8], n, empty):
                return None
        if roots != 1:
            return None
        state[0] = 2
        for j in range(1, n + 1):
            state[j] = 0
        for j in range(1, n + 1):  # walk up from every word; a cycle never reaches 0
            h = j
            while state[h] == 0:
                state[h] = 1
                h = heads[h]
            if state[h] == 1:
                return None
            h = j
            while state[h] == 1:
                state[h] = 2
                h = heads[h]
        out = []
        maker = _maker_of(word)
        for j in range(n):
            line = word_lines[j]
            out.append(_word(maker, j + 1, line.fields, heads[j + 1], line.lineno))
        return out
    finally:
        free(heads)


cdef bint _within(_Chars text, Py_ssize_t a, Py_ssize_t b, Py_UCS4 lo, Py_UCS4 hi):
    """Whether every character of ``text[a:b]`` is between ``lo`` and ``hi``."""
    cdef Py_ssize_t k
    cdef Py_UCS4 c
    for k in range(a, b):
        c = _at(text, k)
        if c < lo or c > hi:
            return False
    return True


cdef inline bint _ascii(_Chars text, Py_ssize_t a, Py_ssize_t b):
    """Whether ``text[a:b]`` is printable ASCII without spaces."""
    return _within(text, a, b, 33, 126)


cdef inline bint _number_at(_Chars text, Py_ssize_t a, Py_ssize_t b):
    """Whether ``text[a:b]`` is ``[1-9][0-9]*``."""
    return b > a and _at(text, a) != u"0" and _within(text, a, b, 48, 57)


cdef bint _feats(_Chars text, Py_ssize_t a, Py_ssize_t b):
    """``Feature=Value`` items joined by ``|`` (printable ASCII only)."""
    cdef Py_ssize_t start = a, k, equals
    if not _ascii(text, a, b):
        return False
    while start <= b:
        k, equals = start, -1
        while k < b and _at(text, k) != u"|":
            if equals < 0 and _at(text, k) == u"=":
                equals = k
            k += 1
        if equals <= start or equals + 1 >= k:  # an empty name or value, or no '='
            return False
        start = k + 1
    return True


cdef bint _deps(_Chars text, Py_ssize_t a, Py_ssize_t b):
    """``HEAD:RELATION`` items joined by ``|``, HEAD ``0``, a word or an empty node (printable
    ASCII only)."""
    cdef Py_ssize_t start = a, k, colon, dot
    if not _ascii(text, a, b):
        return False
    while start <= b:
        k, colon, dot = start, -1, -1
        while k < b and _at(text, k) != u"|":
            if colon < 0 and _at(text, k) == u":":
                colon = k
            elif colon < 0 and dot < 0 and _at(text, k) == u".":
                dot = k
            k += 1
        if colon < 0 or colon + 1 >= k:  # no ':' or no relation
            return False
        if dot < 0:
            if not (colon == start + 1 and _at(text, start) == u"0" or
                    _number_at(text, start, colon)):
                return False
        elif not (_number_at(text, start, dot) and _number_at(text, dot + 1, colon)):
            return False
        start = k + 1
    return True


def usual_line(str text):
    """Whether a line is a word line that the reader's line check accepts (:func:`_usual`)."""
    return _usual(text)


def read_usual(stream, str path, tree, finish, sentence, line, quick, field_error, bad_char,
               reference):
    """The sentences of a CoNLL-U stream, as ``treebank.read_conllu_reference(stream, path,
    tree)`` yields them, by the same loop over the lines compiled; ``finish``, ``sentence``
    and ``line`` make them (``_finish``, :class:`Sentence`, :class:`Line`), ``quick`` and
    ``field_error`` judge a line that is not a usual word line, ``bad_char`` finds a character
    no line may hold. At the first line that is not usual input the rest of the stream, from
    the first line of that sentence on, goes to ``reference`` (started where this loop was),
    which yields what follows or raises the error."""
    cdef list comments = [], lines = [], pending = []  # pending: the sentence's raw lines
    cdef Py_ssize_t lineno = 0, done = 0, start = 0, index = 0, length
    cdef str raw, text, end
    cdef list fields
    newline = None
    cdef _Maker line_maker = _maker_of(line)
    rest = iter(stream)
    for raw in rest:
        lineno += 1
        pending.append(raw)
        length = len(raw)
        if length and raw[length - 1] == u"\n":
            if length > 1 and raw[length - 2] == u"\r":
                text, end = raw[:length - 2], "\r\n"
            else:
                text, end = raw[:length - 1], "\n"
        else:
            text, end = raw, ""
        if end and end != newline:
            if newline is not None:
                break
            newline = end
        if ("\x00" in text or "\r" in text or not text.isascii()) and \
                bad_char(text) is not None:
            break
        if not text:
            if not (comments or lines):
                break
            index += 1
            pending, done = [], lineno
            yield finish(sentence(comments, lines, path, start, index=index,
                                  newline=newline or "\n"), tree)
            comments, lines = [], []
            continue
        if not comments and not lines:
            start = lineno
        if text[0] == u"#":
            if lines:
                break
            comments.append(text)
            continue
        fields = text.split("\t")
        if not _usual(text):
            if not text.strip() or not quick(text) and field_error(fields, tree) is not None:
                break
        lines.append(_line(line_maker, fields, lineno))
    else:
        if comments or lines:  # the last sentence lacks its empty line: accepted
            index += 1
            yield finish(sentence(comments, lines, path, start, index=index,
                                  newline=newline or "\n"), tree)
        if index:
            return
    yield from reference(chain(pending, rest), path, tree, done, index, newline)


cdef bint _usual(str line):
    """Whether a line is a word line that the reader's line check accepts (the pattern
    ``treebank._QUICK``), by a scan of its characters; False may also mean a line of a kind
    this scan does not judge (non-ASCII FEATS or DEPS, a range, an empty node): the caller then
    asks the pattern."""
    cdef _Chars text = _chars(line)
    cdef Py_ssize_t n = len(line), k, field = 0, a, b
    cdef Py_ssize_t ends[10]  # where field k ends (a tab, or the end of the line)
    cdef Py_UCS4 c
    for k in range(n):
        if _at(text, k) == u"\t":
            if field == 9:
                return False
            ends[field] = k
            field += 1
    if field != 9:
        return False
    ends[9] = n
    for field in range(10):
        a = 0 if field == 0 else ends[field - 1] + 1
        b = ends[field]
        if b <= a:
            return False
        if field == 0:
            if not _number_at(text, a, b):
                return False
        elif field == 6:
            if not (b == a + 1 and _at(text, a) == u"0" or _number_at(text, a, b)):
                return False
        elif b == a + 1 and _at(text, a) == u"_" and field in (5, 8, 9):
            continue
        elif field == 5:
            if not _feats(text, a, b):
                return False
        elif field == 8:
            if not _deps(text, a, b):
                return False
        elif field == 9:
            c = _at(text, a)
            if c == u"|" or c == u" ":
                return False
            c = _at(text, b - 1)
            if c == u"|" or c == u" ":
                return False
            for k in range(a, b - 1):
                if _at(text, k) == u"|" and _at(text, k + 1) == u"|":
                    return False
        elif _at(text, a) == u" " or _at(text, b - 1) == u" ":
            return False
    return True


cdef object _word(_Maker maker, Py_ssize_t ident, list fields, Py_ssize_t head, lineno):
    """``Word(ident, FORM, LEMMA, UPOS, XPOS, FEATS, head, DEPREL, MISC, lineno)`` of a word
    line's ``fields``."""
    if not maker.direct or maker.n != 10:
        return maker.cls(ident, fields[1], fields[2], fields[3], fields[4], fields[5], head,
                         fields[7], fields[9], lineno)
    obj = maker.start()
    _put(obj, maker.offsets[0], ident)
    for k in range(1, 6):
        _put(obj, maker.offsets[k], fields[k])
    _put(obj, maker.offsets[6], head)
    _put(obj, maker.offsets[7], fields[7])
    _put(obj, maker.offsets[8], fields[9])
    _put(obj, maker.offsets[9], lineno)
    return obj


cdef bint _word_id(str ident):
    """Whether ``ident`` is a word's ID, ``[1-9][0-9]*`` in ASCII digits (``Line.is_word``)."""
    cdef _Chars text = _chars(ident)
    cdef Py_ssize_t k, n = len(ident)
    cdef Py_UCS4 c
    if n == 0 or _at(text, 0) == u"0":
        return False
    for k in range(n):
        c = _at(text, k)
        if c < 48 or c > 57:
            return False
    return True


def has_tree(list lines):
    """Whether no word line among ``lines`` has HEAD ``_`` (``treebank.has_tree_reference``
    of a sentence with these lines)."""
    for line in lines:
        fields = line.fields
        if _word_id(fields[0]) and fields[6] == "_":
            return False
    return True
