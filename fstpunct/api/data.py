"""What the API's methods take and give back: the kinds of data users hold.

* a CoNLL-U **string** (it has a line break, or is empty): the answer is a whole value too, a
  CoNLL-U string (or a list of numbers);
* a **path** (``str`` without a line break, or ``os.PathLike``) of a CoNLL-U file, or a standard
  split by name (``"zh:dev"``, ``"en_ewt-test"``; UD folder from ``$FSTPUNCT_UD_DIR``) or as
  :func:`split` gives it (a UD folder of your choice): the answer streams, an iterator of
  ``conllu.TokenList`` (or of numbers), reading the file as it goes;
* an **iterable of** ``conllu.TokenList`` (the ``conllu`` library's sentences): an iterator of new
  TokenLists (the input is not changed), streaming;
* an iterable of :class:`~fstpunct.ud.treebank.Sentence` (fstpunct's own lossless sentences, what
  the command line passes): an iterator of sentences; use the ones given back. A method that
  changes sentences (decode, normalise) changes your objects in place, except one with marks the
  model reads as their width twins, read as a copy (the answer is made from that, yours left as
  written: :mod:`fstpunct.ud.width`), and all of them on a parallel pool (each a worker's copy);
  one that makes sentences anew (restore, correct, rephrase) gives new ones.

With ``text`` (a :class:`~fstpunct.ud.text.Tokeniser`: the data is plain text, one sentence a
line, said explicitly since a one-line string may be either), the data is a **string** of text
(never a path), an ``os.PathLike`` text file, or an iterable of strings (one line each). The
answer is the same kind in ``format`` ``text`` (the default for text: a string, else an
iterator of lines without their line ends) or ``conllu``; an iterable of fstpunct sentences
(read from text already) gives back sentences, or in ``format`` ``text`` their lines, line for
line as below, the blank lines after the last sentence too (the reader sets their count on it,
``blank_after``, once the input has ended: a list of the sentences, pickled or not, or a
generator over the reader keeps them).

Empty input of any kind (an empty string, file or iterable) is a
:class:`~fstpunct.errors.ConlluError`, "no sentences", as the command line's empty file is
(but for text output, below): for
an empty iterable of sentences (read ahead by one to tell its kind) when the method is called,
for an empty string, file or text when the first answer is read (an iterator's first item, or
at once for an answer given whole). But text given back as text is line for line: an input of
blank lines only (white space: ``""``, ``" "``, ``"\n\n"``) comes back as its lines, blank, as
the blank lines of any text do (:func:`~fstpunct.ud.text.text_lines`), on the command line too
(``--format text``: exit 0); given back as CoNLL-U it is the error, as it has no sentence to
write.

One method = one *step* over fstpunct sentences; :func:`rewrite` and :func:`values` turn it into a
method over every kind.
"""
from __future__ import annotations

import io
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar, Union

from ..errors import ConlluError, InputError, refuse_choice
from ..files import has_separator
from ..ud.release import Source, names_file, read_one, resolve_one
from ..ud.text import (
    LastSeen,
    NoWords,
    Tokeniser,
    read_text,
    read_text_file,
    surface,
    text_lines,
)
from ..ud.treebank import Sentence, read_conllu

if TYPE_CHECKING:  # imported when TokenLists are met: this module is on every command's path
    import conllu

__all__ = ["FORMATS", "Data", "Step", "is_text", "one_sentence", "one_tokenlist", "output_format",
           "rewrite", "sentences", "split", "values"]

FORMATS = ("conllu", "text")

Data = Union[str, "os.PathLike[str]", Source, Iterable["conllu.TokenList"], Iterable[Sentence]]
Step = Callable[[Iterator[Sentence]], Iterator[Sentence]]
T = TypeVar("T")
_END = object()  # an iterator's end, told from a None in it


def is_text(data: object) -> bool:
    """Whether ``data`` is CoNLL-U text rather than a path: a string with a line break (or
    empty)."""
    return isinstance(data, str) and ("\n" in data or not data)


def one_tokenlist(data: object) -> bool:
    """Whether ``data`` is one ``conllu.TokenList`` (one sentence, whose items are tokens),
    told without importing conllu."""
    return type(data).__name__ == "TokenList"


def split(name: str, ud_dir: str | os.PathLike[str] | None = None) -> Source:
    """The standard split ``name`` (``"en:dev"``, ``"en_ewt-test"``) of the UD release in
    ``ud_dir`` (else ``$FSTPUNCT_UD_DIR``, ``$UD_DIR``, ``./ud``, ``../shared/ud``), old or new
    layout, as every data method reads it: a :class:`fstpunct.Source` (``.path``,
    its file; ``.first``..``.last``, its sentences there when the split is part of a file)."""
    if not isinstance(name, str):
        raise TypeError(f"split: name must be a split name like 'en:dev', not "
                        f"{type(name).__name__}")
    if names_file(name):
        raise InputError(f"split: {name!r} names a file, not a split (pass the path itself)")
    return resolve_one(name, ud_dir)


def _like_a_sentence(name: str) -> bool:
    """Whether a string that names no file or split looks like a line of text rather than a
    file's name: words with a space, no path separator, no ``.conllu``, no folder."""
    return (" " in name and not has_separator(name) and not names_file(name)
            and not os.path.isdir(name))


def _from_tokenlists(lists: Iterable[conllu.TokenList], tree: bool | None
                     ) -> Iterator[Sentence]:
    """fstpunct sentences of ``lists`` (``tree``: see :func:`~fstpunct.ud.treebank.read_conllu`)."""
    for k, tokens in enumerate(lists, 1):
        if isinstance(tokens, Sentence):
            yield tokens
            continue
        import conllu
        if not isinstance(tokens, conllu.TokenList):
            raise TypeError(f"sentence {k}: expected a conllu.TokenList, got "
                            f"{type(tokens).__name__}")
        yield from read_conllu(io.StringIO(tokens.serialize()), f"<TokenList {k}>", tree)


def _to_tokenlist(sent: Sentence) -> conllu.TokenList:
    import conllu
    return conllu.parse(sent.text())[0]


def _open(data: Data, text: Tokeniser | None = None, tree: bool | None = True
          ) -> tuple[Iterator[Sentence], bool]:
    """The sentences of ``data`` (``tree``: see :func:`~fstpunct.ud.treebank.read_conllu`) and
    whether the answer goes back as TokenLists."""
    if isinstance(data, Source):
        if text is not None:
            raise InputError(f"{data.name}: a UD split is CoNLL-U, not plain text: pass no text")
        return data.sentences(tree), True
    if isinstance(data, (bytes, bytearray)) or not isinstance(data, (str, os.PathLike,
                                                                     Iterable)):
        raise TypeError(f"expected a string, a path or an iterable of sentences, not "
                        f"{type(data).__name__}")
    if one_tokenlist(data):  # one sentence: its tokens are not sentences
        raise TypeError("expected an iterable of sentences, not one conllu.TokenList: pass "
                        "[sentence]")
    if text is not None:
        if isinstance(data, str):
            return read_text(io.StringIO(data), "<string>", text), False
        if isinstance(data, os.PathLike):
            return read_text_file(data, text), True
        items = iter(data)
        try:
            first = next(items, _END)
        except NoWords as e:  # the command line's text of blank lines only: raised when read,
            return _raising(e), False  # where text output gives back its blank lines
        if isinstance(first, Sentence):  # already read (the command line reads text itself)
            return itertools.chain([first], items), False  # type: ignore[list-item]
        lines = itertools.chain([] if first is _END else [first], items)
        return read_text(lines, "<lines>", text), True  # type: ignore[arg-type]
    if is_text(data):
        return read_conllu(io.StringIO(data), "<string>", tree), False  # type: ignore[arg-type]
    if isinstance(data, (str, os.PathLike)):
        try:
            return read_one(os.fspath(data), tree=tree), True
        except InputError as e:
            if isinstance(data, str) and _like_a_sentence(data):
                raise InputError(f"{e}; if it is plain text: pass text=True (CoNLL-U text "
                                 "has a line break)") from None
            raise
    items = iter(data)
    first = next(items, _END)
    if first is _END:  # as an empty string or file is
        raise ConlluError("no sentences (the input is empty)", "<sentences>")
    return _from_tokenlists(itertools.chain([first], items), tree), not isinstance(first, Sentence)


def _raising(error: Exception) -> Iterator[Sentence]:
    """No sentence: ``error`` raised when the first is read."""
    yield from ()
    raise error


def sentences(data: Data, text: Tokeniser | None = None) -> Iterator[Sentence]:
    """fstpunct sentences of any kind of data; with ``text``, of plain text (split by it),
    which has no trees."""
    return _open(data, text, None if text else True)[0]


def one_sentence(data: Data, which: int | str = 1, name: str | None = None) -> Sentence:
    """Sentence ``which`` of ``data``: its number counting from 1, or its ``sent_id`` (a string
    of digits is a number); InputError naming ``name`` (by default a path's or split's name,
    else "the input") if there is none."""
    which = str(which)
    for k, sent in enumerate(sentences(data), 1):
        if which == (str(k) if which.isdigit() else sent.sent_id):
            return sent
    if name is None and isinstance(data, Source):
        name = data.name
    if name is None:
        path = isinstance(data, (str, os.PathLike)) and not is_text(data)
        name = os.fspath(data) if path else "the input"  # type: ignore[arg-type]
    raise InputError(f"{name}: has no sentence {which}")


def output_format(format: str | None, text: bool) -> str:
    """The output format ``format`` names (one of :data:`FORMATS`), else the input's: ``text``
    for ``text`` input, else ``conllu``."""
    format = format or ("text" if text else "conllu")
    refuse_choice("format", format, FORMATS)
    return format


def rewrite(data: Data, step: Step, text: Tokeniser | None = None, format: str | None = None,
            line: Callable[[Sentence], str] = lambda s: surface(s.lines), tree: bool | None = True
            ) -> str | Iterator[conllu.TokenList] | Iterator[Sentence] | Iterator[str]:
    """``step`` applied to ``data``, given back as the same kind (module docstring); in
    ``format`` ``text``, each sentence as ``line(sentence)``."""
    format = output_format(format, text is not None)
    sents, streamed = _open(data, text, tree)
    whole = is_text(data) or text is not None and isinstance(data, str)
    if format == "text":
        read = LastSeen(sents)  # the step's answers may be copies made before the input ended
        lines = text_lines(step(read), text is not None, line, read)
        return "".join(lines) if whole else (ln.rstrip("\r\n") for ln in lines)
    out = step(sents)
    if whole:
        return "".join(s.text() for s in out)
    return map(_to_tokenlist, out) if streamed else out


def values(data: Data, compute: Callable[[Iterator[Sentence]], Iterator[T]]
           ) -> list[T] | Iterator[T]:
    """``compute`` (one value per sentence) over ``data``: a list for a CoNLL-U string, else an
    iterator."""
    out = compute(sentences(data))
    return list(out) if is_text(data) else out
