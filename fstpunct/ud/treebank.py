"""CoNLL-U reading and writing that loses nothing.

A :class:`Sentence` keeps every comment and every token line as written (multiword-token ranges
``1-2`` and empty nodes ``8.1`` included), so writing it back reproduces the input byte for byte;
only the fields a caller changes are re-serialised. Syntactic words are parsed into :class:`Word`
and the tree is validated (10 columns, integer heads in range, one root, no cycles); any problem
raises :class:`~fstpunct.errors.ConlluError` naming file, line and sentence id.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TextIO

from ..errors import ConlluError
from ..files import not_utf8, open_input, output
from ..wording import counted
from ._reader import has_tree as _has_tree
from ._reader import read_usual, sentence_words, usual_line

__all__ = ["NO_SPACE", "RELATIONS", "Line", "Sentence", "Word", "has_tree",
           "has_tree_reference", "mixed_line_ends", "punct_relation", "read_conllu",
           "read_conllu_reference", "read_file", "rebuild", "space_after", "universal",
           "with_arcs", "with_space_after", "write_conllu", "write_file"]


RELATIONS = frozenset((
    # UD v2's universal relations ...
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det "
    "discourse dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl "
    "orphan parataxis punct reparandum root vocative xcomp "
    # ... and those of v1 that v2 retired (releases up to 1.4, e.g. UD 1.4 Chinese)
    "auxpass csubjpass dobj foreign mwe name neg nsubjpass remnant").split())
"""The universal dependency relations of UD v1 and v2 (what :func:`universal` returns)."""


def universal(deprel: str) -> str:
    """A relation without its subtype: ``acl:relcl`` → ``acl``."""
    return deprel.partition(":")[0]


def punct_relation(deprel: str) -> bool:
    """Whether a relation makes its dependent punctuation (``punct``, subtypes included)."""
    return universal(deprel) == "punct"


FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
_WORD_ID = re.compile(r"[1-9][0-9]*\Z")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\Z")
_EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.[1-9][0-9]*\Z")
_HEAD = re.compile(r"(0|[1-9][0-9]*)\Z")
_DEPS_ITEM = r"(0|[1-9][0-9]*(\.[1-9][0-9]*)?):[^\s|]+"
_DEPS = re.compile(rf"{_DEPS_ITEM}(\|{_DEPS_ITEM})*\Z")
_FEATS = re.compile(r"[^|=\s]+=[^|\s]+(\|[^|=\s]+=[^|\s]+)*\Z")
# A word line that passes every check of _field_error: ID, five fields, HEAD, DEPREL, DEPS
# '_', MISC '_' or without empty items; fields without spaces at their ends (FEATS and DEPS
# with their own checks when not '_').
_FIELD = r"[^\t ](?:[^\t]*[^\t ])?"
_QUICK = re.compile(rf"[1-9][0-9]*\t(?:{_FIELD}\t){{4}}(?:_|{_FEATS.pattern[:-2]})\t"
                    rf"(?:0|[1-9][0-9]*)\t{_FIELD}\t(?:_|{_DEPS.pattern[:-2]})\t"
                    r"(?:_|[^\t| ](?:[^\t|]|\|(?!\|))*(?<![| ]))\Z")
_SENT_ID = re.compile(r"#\s*sent_id\s*=\s*(.*\S)")


@lru_cache(maxsize=64)
def _comment_key(key: str) -> re.Pattern[str]:
    """The pattern of a ``# key = …`` comment line."""
    return re.compile(rf"#\s*{re.escape(key)}\s*=")


@dataclass(slots=True)  # made per token: slots make it cheaper to build and read
class Line:
    """One token line: its ten fields as strings and its line number in the source."""

    fields: list[str]
    lineno: int

    @property
    def id(self) -> str:
        return self.fields[0]

    @property
    def is_word(self) -> bool:
        """Whether the ID is a word's (``[1-9][0-9]*``, ASCII digits), not a range or an
        empty node's (a test of the string's characters: the reader asks it of every line)."""
        ident = self.fields[0]
        return ident.isascii() and ident.isdigit() and ident[0] != "0"


@dataclass(slots=True)
class Word:
    """A syntactic word (integer ID) with its head and relation parsed."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int
    deprel: str
    misc: str
    lineno: int

    @property
    def is_punct(self) -> bool:
        """Punctuation = UPOS ``PUNCT`` or relation ``punct`` (DESIGN §2): the one definition,
        which the parser keeps too (:mod:`fstpunct.parser.punct`)."""
        return self.upos == "PUNCT" or punct_relation(self.deprel)

    @property
    def space_after(self) -> bool:
        return space_after(self.misc)

    def with_arc(self, head: int, deprel: str) -> Word:
        """A copy with another head and relation (``dataclasses.replace``: about 4× as long)."""
        return Word(self.id, self.form, self.lemma, self.upos, self.xpos, self.feats, head,
                    deprel, self.misc, self.lineno)


@dataclass
class Sentence:
    """A CoNLL-U sentence: comments, all token lines, and the syntactic words."""

    comments: list[str]
    lines: list[Line]
    path: str = "<stdin>"
    lineno: int = 0
    words: list[Word] = field(default_factory=list)
    index: int = 0  # 1-based number of the sentence in its file
    newline: str = "\n"  # the file's line end, written back (LF or CRLF)
    folded: dict[str, str] | None = field(default=None, compare=False, repr=False)
    """Punctuation forms a model reads as their width twins, by word ID, while a command runs
    (:mod:`fstpunct.ud.width`); None outside."""
    blank_after: int = field(default=0, compare=False, repr=False)
    """The blank lines after the last sentence of text input, which text output writes back:
    set by :class:`~fstpunct.ud.text.TextReader` once the input has ended (after the sentence was
    given); 0 for every other sentence."""

    @property
    def sent_id(self) -> str | None:
        """The ``# sent_id`` comment's value, if there is one."""
        for c in self.comments:
            m = _SENT_ID.match(c) if "sent_id" in c else None  # (most comments: no match)
            if m:
                return m.group(1)
        return None

    @property
    def name(self) -> str:
        """The sentence's name for messages and outputs: its sent_id, else ``FILE#N`` (N its
        1-based number in the file)."""
        return self.sent_id or f"{self.path}#{self.index}"

    @property
    def place(self) -> str:
        """Where the sentence is, for messages, as :class:`ConlluError` names it:
        ``FILE:LINE (sent_id ID)``, or ``FILE:LINE (sentence FILE#N)`` without a sent_id."""
        return self.error("").where

    def error(self, message: str, lineno: int | None = None) -> ConlluError:
        """A :class:`ConlluError` ``message`` naming this sentence and line ``lineno`` (default:
        the sentence's first line), for the caller to raise."""
        return ConlluError(message, self.path, lineno if lineno is not None else self.lineno,
                           self.sent_id, self.index)

    def comment(self, key: str) -> str | None:
        """The value of the ``# key = value`` comment, or None."""
        pattern = _comment_key(key)
        return next((c.split("=", 1)[1].strip() for c in self.comments
                     if key in c and pattern.match(c)), None)

    def set_comment(self, key: str, value: str) -> None:
        """Set ``# key = value``, replacing an existing comment with that key."""
        text = f"# {key} = {value}"
        pattern = _comment_key(key)
        for i, c in enumerate(self.comments):
            if key in c and pattern.match(c):  # (the test of ``key`` first: faster)
                self.comments[i] = text
                return
        self.comments.append(text)

    def set_head(self, word_id: int, head: int) -> bool:
        """Give word ``word_id`` a new HEAD, in its line and in :attr:`words`; DEPS entries
        that named the old head name the new one. Whether anything changed."""
        word = self.words[word_id - 1]
        if word.head == head:
            return False
        fields = next(ln.fields for ln in self.lines if ln.fields[0] == str(word_id))
        old, fields[6] = fields[6], str(head)
        if fields[8] != "_":
            fields[8] = "|".join(f"{head if h == old else h}:{rel}" for h, rel in
                                 (entry.split(":", 1) for entry in fields[8].split("|")))
        self.words[word_id - 1] = replace(word, head=head)
        return True

    def text(self) -> str:
        """The sentence as CoNLL-U, with its terminating blank line."""
        out = self.comments + ["\t".join(ln.fields) for ln in self.lines]
        return self.newline.join(out) + self.newline * 2


NO_SPACE = "SpaceAfter=No"  # the MISC item of a token that no space follows


def space_after(misc: str) -> bool:
    """Whether a space follows the token whose MISC column is ``misc``."""
    return NO_SPACE not in misc.split("|")


def with_space_after(misc: str, space: bool) -> str:
    """``misc`` with ``SpaceAfter=No`` added (``space`` False) or removed (True)."""
    if space_after(misc) == space:
        return misc
    items = [m for m in misc.split("|") if m not in ("_", NO_SPACE)]
    return "|".join(items if space else items + [NO_SPACE]) or "_"


def _one_field_hint(line: str) -> str:
    """What a token line without a tab likely is: CoNLL-U with spaces for tabs (ten or more
    fields, the first an ID and the seventh a HEAD, 0, a word ID or ``_``), else plain text
    (which may begin with a numeral: "3 men went to the shop and ...")."""
    words = line.split()
    if (len(words) >= 10 and any(p.match(words[0]) for p in (_WORD_ID, _RANGE_ID, _EMPTY_ID))
            and (words[6] == "_" or _HEAD.match(words[6]))):
        return " (fields separated by spaces? CoNLL-U separates them by tabs)"
    return " (plain text? decode and restore read it with --text, the API with text=True)"


def _field_error(fields: list[str], tree: bool | None) -> str | None:
    """What is wrong with one token line on its own, if anything (see :func:`read_conllu`)."""
    if len(fields) != 10:
        found = f"expected 10 tab-separated fields, found {len(fields)}"
        return found + _one_field_hint(fields[0]) if len(fields) == 1 else found
    if "" in fields:
        return f"{FIELDS[fields.index('')].upper()} is empty (write '_' for no value)"
    for k, value in enumerate(fields):
        if value[0] == " " or value[-1] == " ":
            return f"{FIELDS[k].upper()} {_short(value)!r} begins or ends with a space"
    ident, head, deps = fields[0], fields[6], fields[8]
    if _WORD_ID.match(ident):
        if not (_HEAD.match(head) or head == "_" and tree is not True):
            return f"HEAD must be 0 or a word ID (ASCII digits), found {_short(head)!r}"
    elif _RANGE_ID.match(ident) or _EMPTY_ID.match(ident):
        kind = "a multiword-token range" if "-" in ident else "an empty node"
        for k in (6, 7, 8) if "-" in ident else (6, 7):
            if fields[k] != "_":
                return f"{kind} must have '_' as {FIELDS[k].upper()}, found {_short(fields[k])!r}"
    else:
        return f"ID {_short(ident)!r} is not a word, range or empty-node ID"
    if deps != "_" and not _DEPS.match(deps):
        return f"DEPS {_short(deps)!r} is not '_' or HEAD:RELATION items joined by '|'"
    if fields[5] != "_" and not _FEATS.match(fields[5]):
        return f"FEATS {_short(fields[5])!r} is not '_' or Feature=Value items joined by '|'"
    misc = fields[9]
    if misc != "_" and (misc[0] == "|" or misc[-1] == "|" or "||" in misc):
        return f"MISC {_short(misc)!r} has an empty item"
    return None


def _check_order(sent: Sentence) -> None:
    """Word IDs run 1, 2, ...; a multiword range comes just before its first word and ranges do
    not overlap; empty nodes ``i.1, i.2, ...`` come right after word i."""
    expected, covered, last_empty = 1, 0, (0, 0)
    for ln in sent.lines:
        ident = ln.fields[0]  # its syntax is checked: a word ID has neither '-' nor '.'
        if "-" not in ident and "." not in ident:
            if ident != str(expected):
                raise sent.error(f"word IDs must run 1, 2, ... in order; expected {expected}, "
                                 f"found {_short(ident)}", ln.lineno)
            last_empty = (expected, 0)
            expected += 1
            continue
        if "-" in ident:
            first, last = ident.split("-")
            if first != str(expected):
                raise sent.error(f"range {ident} must come just before word {first}; expected "
                                 f"a range starting at {expected}", ln.lineno)
            if len(last) > 9 or int(last) <= expected:
                raise sent.error(f"range {ident} must end after it starts", ln.lineno)
            if expected <= covered:
                raise sent.error(f"range {ident} overlaps the range before it", ln.lineno)
            covered = int(last)
            continue
        node, _, k = ident.partition(".")
        if node != str(expected - 1) or k != str(last_empty[1] + 1):
            want = f"{expected - 1}.{last_empty[1] + 1}"
            raise sent.error(f"empty node {ident} out of place; expected {want} or a word",
                             ln.lineno)
        last_empty = (expected - 1, last_empty[1] + 1)
    n = expected - 1
    if covered > n:
        raise sent.error(f"a range ends at word {covered} but the sentence has "
                         f"{counted(n, 'word')}",
                         next(ln.lineno for ln in reversed(sent.lines) if "-" in ln.fields[0]))


def _parse_word(line: Line, n: int, sent: Sentence) -> Word:
    f = line.fields
    head = f[6]
    if head == "_":  # unparsed input (read with tree=False)
        head = "0"
    if len(head) > len(str(n)) or int(head) > n:
        raise sent.error(f"HEAD {_short(head)} is out of range (the sentence has "
                         f"{counted(n, 'word')})", line.lineno)
    return Word(int(f[0]), f[1], f[2], f[3], f[4], f[5], int(head), f[7], f[9], line.lineno)


def _check_deps(sent: Sentence) -> None:
    """Every DEPS head names a node of the sentence (0, a word or an empty node)."""
    nodes = {"0"} | {ln.fields[0] for ln in sent.lines if "-" not in ln.fields[0]}
    for ln in sent.lines:
        if ln.fields[8] != "_":
            for item in ln.fields[8].split("|"):
                head = item.partition(":")[0]
                if head not in nodes:
                    raise sent.error(f"DEPS head {head} is not a node of the sentence",
                                     ln.lineno)


def _validate_tree(sent: Sentence) -> None:
    words = sent.words
    n = len(words)
    for w in words:
        if w.head == w.id:
            raise sent.error(f"word {w.id} is its own head", w.lineno)
    roots = [w for w in words if w.head == 0]
    if not roots:
        raise sent.error("the sentence has no root (no word with HEAD 0)", words[0].lineno)
    if len(roots) > 1:
        raise sent.error(f"the sentence has {len(roots)} roots (words "
                         f"{', '.join(str(w.id) for w in roots)} have HEAD 0); UD allows one",
                         roots[1].lineno)
    heads = [0] + [w.head for w in words]
    rooted = [True] + [False] * n  # words known to reach 0
    for w in words:  # walk up from every word; a cycle never reaches 0
        seen, h = set(), w.id
        while not rooted[h]:
            if h in seen:
                raise sent.error(f"the tree has a cycle through word {h}", words[h - 1].lineno)
            seen.add(h)
            h = heads[h]
        for h in seen:
            rooted[h] = True


def _finish(sent: Sentence, tree: bool | None = True) -> Sentence:
    """``sent`` with its words parsed, every sentence check passed (compiled for a sentence
    with a tree, :mod:`._reader`; else, and for the error of a failed check, the reference)."""
    words = None if tree is False else sentence_words(sent, Word, _check_order)
    if words is None:
        return _finish_reference(sent, tree)
    sent.words = words
    return sent


def _finish_reference(sent: Sentence, tree: bool | None = True) -> Sentence:
    """:func:`_finish` step by step in Python (the tests' oracle)."""
    if not sent.lines:
        raise sent.error("sentence has comments but no token lines")
    _check_order(sent)
    word_lines = [ln for ln in sent.lines if ln.is_word]
    if not word_lines:
        raise sent.error("sentence has no syntactic words")
    sent.words = [_parse_word(ln, len(word_lines), sent) for ln in word_lines]
    _check_deps(sent)
    if tree is None:  # optional: a sentence is parsed (every HEAD given) or not (none given)
        unparsed = [ln for ln in word_lines if ln.fields[6] == "_"]
        if unparsed and len(unparsed) < len(word_lines):
            raise sent.error("HEAD must be 0 or a word ID (ASCII digits), found '_' (only a "
                             "sentence without a tree may have HEAD '_', on every word)",
                             unparsed[0].lineno)
        tree = not unparsed
    if tree:
        _validate_tree(sent)
    return sent


def has_tree(sent: Sentence) -> bool:
    """Whether ``sent`` came with a tree: no word has HEAD ``_`` (see :func:`read_conllu`);
    compiled (:func:`has_tree_reference`'s answer)."""
    return _has_tree(sent.lines)


def has_tree_reference(sent: Sentence) -> bool:
    """:func:`has_tree` in Python (the tests' oracle)."""
    return all(ln.fields[6] != "_" for ln in sent.lines if ln.is_word)


def rebuild(sent: Sentence, comments: list[str], lines: list[Line],
            tree: bool | None = True) -> Sentence:
    """A new sentence from edited comments and token lines of ``sent`` (same file and place),
    parsed and validated like read input (``tree``: see :func:`read_conllu`)."""
    return _finish(Sentence(comments, lines, sent.path, sent.lineno, index=sent.index,
                            newline=sent.newline, blank_after=sent.blank_after), tree)


def with_arcs(sent: Sentence, arcs: Mapping[int, tuple[int, str]]) -> Sentence:
    """A copy of ``sent`` in which each word of ``arcs`` (ID: (HEAD, DEPREL)) has that arc, in
    its token line and its :class:`Word` together; the other words and fields (DEPS, ranges,
    empty nodes) are as they were, and ``sent`` is not changed. An ID of ``arcs`` that is no
    word of ``sent``: a ValueError."""
    unknown = arcs.keys() - {w.id for w in sent.words}
    if unknown:
        raise ValueError(f"{sent.place}: arcs of no word of the sentence (IDs "
                         f"{', '.join(map(str, sorted(unknown)))})")
    lines = []
    for ln in sent.lines:
        fields = list(ln.fields)
        if ln.is_word and int(fields[0]) in arcs:
            head, rel = arcs[int(fields[0])]
            fields[6], fields[7] = str(head), rel
        lines.append(Line(fields, ln.lineno))
    words = [w.with_arc(*arcs[w.id]) if w.id in arcs else w for w in sent.words]
    return replace(sent, lines=lines, words=words)


def read_conllu(stream: Iterable[str], path: str = "<stdin>",
                tree: bool | None = True) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U stream one at a time (streaming, never whole-file).

    Lines may keep their line ends. The policy for every malformed input is a
    :class:`ConlluError` naming file, line and sentence (see README, "Guarantees"); the only
    input accepted but not written back byte for byte is a missing blank line at the end (and
    a UTF-8 byte-order mark, dropped by :func:`fstpunct.files.open_input`). With ``tree=False``
    (input to parse) HEAD may be ``_`` and the tree is not checked (roots, cycles); with
    ``tree=None`` (input a command tags and parses as needed) a sentence may have HEAD ``_`` on
    every word (no tree: :func:`has_tree` tells) and any other's tree is checked.

    The loop over the lines is compiled (:func:`._reader.read_usual`); from the first line
    that is not usual input on, :func:`read_conllu_reference` reads the rest."""
    return read_usual(stream, path, tree, _finish, Sentence, Line, _QUICK.match, _field_error,
                      _BAD_CHAR.search, read_conllu_reference)


def read_conllu_reference(stream: Iterable[str], path: str = "<stdin>", tree: bool | None = True,
                          read: int = 0, index: int = 0, newline: str | None = None
                          ) -> Iterator[Sentence]:
    """:func:`read_conllu` step by step in Python (the tests' oracle), from the state given:
    ``read`` lines and ``index`` sentences read before ``stream``, line ends ``newline``
    (None: none seen yet)."""
    comments: list[str] = []
    lines: list[Line] = []
    start = 0
    lineno = read

    def probe() -> Sentence:
        return Sentence(comments, lines, path, start, index=index + 1)

    for lineno, raw in enumerate(stream, read + 1):
        if raw[-1:] == "\n":
            text, end = (raw[:-2], "\r\n") if raw[-2:-1] == "\r" else (raw[:-1], "\n")
        else:
            text, end = raw, ""
        if end and end != newline:
            if newline is not None:
                raise probe().error(mixed_line_ends(end, newline), lineno)
            newline = end
        # (an ASCII line can only hold NUL or CR: two quick scans spare it the search)
        if "\x00" in text or "\r" in text or not text.isascii():
            bad = _BAD_CHAR.search(text)
            if bad:
                raise probe().error(_bad_char(bad.group()), lineno)
        if not text:
            if not (comments or lines):
                raise ConlluError("empty line outside a sentence (one empty line ends each "
                                  "sentence; none may precede the first)", path, lineno)
            index += 1
            yield _finish(Sentence(comments, lines, path, start, index=index,
                                   newline=newline or "\n"), tree)
            comments, lines = [], []
            continue
        if not comments and not lines:
            start = lineno
        if text.startswith("#"):
            if lines:
                raise probe().error("comment line inside a sentence's token lines", lineno)
            comments.append(text)
            continue
        if not text.strip():
            raise probe().error("line of only spaces (an empty line ends a sentence)", lineno)
        fields = text.split("\t")
        if not (usual_line(text) or _QUICK.match(text)):  # the usual word line passes at once
            error = _field_error(fields, tree)
            if error:
                raise probe().error(error, lineno)
        lines.append(Line(fields, lineno))
    if comments or lines:  # the last sentence lacks its empty line: accepted
        index += 1
        yield _finish(Sentence(comments, lines, path, start, index=index,
                               newline=newline or "\n"), tree)
    if index == 0:
        raise ConlluError("no sentences (the input is empty)", path, lineno or None)


_NAMES = {"\n": "LF", "\r\n": "CRLF"}


def mixed_line_ends(end: str, newline: str) -> str:
    """The refusal of a line ending with ``end`` after lines ending with ``newline`` (LF or
    CRLF), as the CoNLL-U and text readers word it."""
    return (f"line ends with {_NAMES[end]} but earlier lines with {_NAMES[newline]}; use one "
            "kind of line end")


# NUL, a lone CR (old Mac line ends) and bytes that are not UTF-8 (lone surrogates, from
# fstpunct.files.open_input)
_BAD_CHAR = re.compile("[\x00\r\ud800-\udfff]")


def _short(value: str) -> str:
    """A value for a message: long ones cut (an integer of thousands of digits)."""
    return value if len(value) <= 20 else f"{value[:20]}… ({len(value)} characters)"


def _bad_char(char: str) -> str:
    if char == "\x00":
        return "NUL byte (binary data, not CoNLL-U text)"
    if char == "\r":
        return "CR inside a line (CR-only line ends are not supported: use LF or CRLF)"
    return not_utf8(char)


def read_file(path: str | Path | None, tree: bool | None = True) -> Iterator[Sentence]:
    """Stream sentences from a file (or stdin), with errors naming the file (``tree``: see
    :func:`read_conllu`)."""
    lines, name = open_input(path)
    yield from read_conllu(lines, name, tree)


def write_conllu(sentences: Iterable[Sentence], out: TextIO) -> None:
    """Write sentences to an open text stream, each as :meth:`Sentence.text` gives it."""
    out.writelines(s.text() for s in sentences)


def write_file(sentences: Iterable[Sentence], path: str | Path | None) -> None:
    """Write sentences to ``path`` (``None`` or ``-``: stdout); a file appears only once every
    sentence is written (:func:`fstpunct.files.output`)."""
    with output(path) as out:
        write_conllu(sentences, out)
