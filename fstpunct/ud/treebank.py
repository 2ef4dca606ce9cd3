"""CoNLL-U reading and writing that loses nothing.

A :class:`Sentence` keeps every comment and every token line as written (multiword-token ranges
``1-2`` and empty nodes ``8.1`` included), so writing it back reproduces the input byte for byte;
only the fields a caller changes are re-serialised. Syntactic words are parsed into :class:`Word`
and the tree is validated (10 columns, integer heads in range, one root, no cycles); any problem
raises :class:`~fstpunct.errors.ConlluError` naming file, line and sentence id.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TextIO

from ..errors import ConlluError
from ..files import open_input, output

__all__ = ["Line", "Sentence", "Word", "batches", "read_conllu", "read_file",
           "rebuild", "write_conllu", "write_file"]

FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
_WORD_ID = re.compile(r"[1-9][0-9]*\Z")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\Z")
_EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.[1-9][0-9]*\Z")
_SENT_ID = re.compile(r"#\s*sent_id\s*=\s*(.*\S)")


@lru_cache(maxsize=64)
def _comment_key(key: str) -> re.Pattern[str]:
    """The pattern of a ``# key = …`` comment line."""
    return re.compile(rf"#\s*{re.escape(key)}\s*=")


@dataclass
class Line:
    """One token line: its ten fields as strings and its line number in the source."""

    fields: list[str]
    lineno: int

    @property
    def id(self) -> str:
        return self.fields[0]

    @property
    def is_word(self) -> bool:
        return _WORD_ID.match(self.fields[0]) is not None

    def text(self) -> str:
        return "\t".join(self.fields)


@dataclass
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
        """Punctuation = UPOS ``PUNCT`` or relation ``punct`` (DESIGN §2)."""
        return self.upos == "PUNCT" or self.deprel.partition(":")[0] == "punct"

    @property
    def space_after(self) -> bool:
        return "SpaceAfter=No" not in self.misc.split("|")


@dataclass
class Sentence:
    """A CoNLL-U sentence: comments, all token lines, and the syntactic words."""

    comments: list[str]
    lines: list[Line]
    path: str = "<stdin>"
    lineno: int = 0
    words: list[Word] = field(default_factory=list)

    @property
    def sent_id(self) -> str | None:
        for c in self.comments:
            m = _SENT_ID.match(c)
            if m:
                return m.group(1)
        return None

    def error(self, message: str, lineno: int | None = None) -> ConlluError:
        return ConlluError(message, self.path, lineno if lineno is not None else self.lineno,
                           self.sent_id)

    def set_comment(self, key: str, value: str) -> None:
        """Set ``# key = value``, replacing an existing comment with that key."""
        text = f"# {key} = {value}"
        pattern = _comment_key(key)
        for i, c in enumerate(self.comments):
            if pattern.match(c):
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
        out = self.comments + [ln.text() for ln in self.lines]
        return "\n".join(out) + "\n\n"


def batches(sentences: Iterable[Sentence], size: int) -> Iterator[list[Sentence]]:
    """``sentences`` in lists of ``size`` (the last one shorter), read as they are needed."""
    batch: list[Sentence] = []
    for sent in sentences:
        batch.append(sent)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _parse_word(line: Line, sent: Sentence) -> Word:
    f = line.fields
    head = f[6]
    if not head.isdigit():
        raise sent.error(f"HEAD must be a non-negative integer, found {head!r}", line.lineno)
    return Word(int(f[0]), f[1], f[2], f[3], f[4], f[5], int(head), f[7], f[9], line.lineno)


def _validate_tree(sent: Sentence) -> None:
    words = sent.words
    n = len(words)
    for i, w in enumerate(words, 1):
        if w.id != i:
            raise sent.error(f"word IDs must run 1, 2, ... in order; expected {i}, found {w.id}",
                             w.lineno)
        if w.head > n:
            raise sent.error(f"HEAD {w.head} is out of range (the sentence has {n} words)",
                             w.lineno)
        if w.head == w.id:
            raise sent.error(f"word {w.id} is its own head", w.lineno)
    roots = [w for w in words if w.head == 0]
    if not roots:
        raise sent.error("the sentence has no root (no word with HEAD 0)", words[0].lineno)
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


def _finish(sent: Sentence) -> Sentence:
    if not sent.lines:
        raise sent.error("sentence has comments but no token lines")
    sent.words = [_parse_word(ln, sent) for ln in sent.lines if ln.is_word]
    if not sent.words:
        raise sent.error("sentence has no syntactic words")
    _validate_tree(sent)
    return sent


def rebuild(sent: Sentence, comments: list[str], lines: list[Line]) -> Sentence:
    """A new sentence from edited comments and token lines of ``sent`` (same file and place),
    parsed and validated like read input."""
    return _finish(Sentence(comments, lines, sent.path, sent.lineno))


def read_conllu(stream: Iterable[str], path: str = "<stdin>") -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U stream one at a time (streaming, never whole-file)."""
    comments: list[str] = []
    lines: list[Line] = []
    start = 0
    lineno = 0
    for lineno, raw in enumerate(stream, 1):
        text = raw.rstrip("\n").rstrip("\r")
        if not text.strip():
            if comments or lines:
                yield _finish(Sentence(comments, lines, path, start))
            comments, lines = [], []
            continue
        if not comments and not lines:
            start = lineno
        if text.startswith("#"):
            if lines:
                raise ConlluError("comment line inside a sentence's token lines", path, lineno)
            comments.append(text)
            continue
        fields = text.split("\t")
        if len(fields) != 10:
            probe = Sentence(comments, lines, path, start)
            raise probe.error(f"expected 10 tab-separated fields, found {len(fields)}", lineno)
        if not (_WORD_ID.match(fields[0]) or _RANGE_ID.match(fields[0])
                or _EMPTY_ID.match(fields[0])):
            probe = Sentence(comments, lines, path, start)
            raise probe.error(f"ID {fields[0]!r} is not a word, range or empty-node ID", lineno)
        lines.append(Line(fields, lineno))
    if comments or lines:
        yield _finish(Sentence(comments, lines, path, start or lineno))


def read_file(path: str | Path | None) -> Iterator[Sentence]:
    """Stream sentences from a file (or stdin), with errors naming the file."""
    lines, name = open_input(path)
    yield from read_conllu(lines, name)


def write_conllu(sentences: Iterable[Sentence], out: TextIO) -> None:
    out.writelines(s.text() for s in sentences)


def write_file(sentences: Iterable[Sentence], path: str | Path | None) -> None:
    """Write sentences to ``path`` (``None`` or ``-``: stdout); a file appears only once every
    sentence is written (:func:`fstpunct.files.output`)."""
    with output(path) as out:
        write_conllu(sentences, out)
