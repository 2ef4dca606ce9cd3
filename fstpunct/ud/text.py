"""Plain text in: one sentence a line, tokens separated by white space, as CoNLL-U sentences.

Every line with a token is one sentence (Chinese: words separated by spaces). Punctuation is
split off the edges of each white-space token (:class:`Tokeniser`): a run of mark characters at
its start or end becomes tokens of the language's marks (longest first, else one character
each; a variation selector or zero-width joiner after a mark is part of it, ``‼️``), with UPOS
``PUNCT``; the rest of the token is one word. Some characters stay on the word:
a final ``.`` after a word with a ``.`` inside (``U.S.``, ``a.m.``) or, before the sentence's
last word, after letters (``Dr.``, ``Inc.``: a line is one sentence, so a dot inside it ends an
abbreviation), a sign, point or apostrophe just before a digit (``-5``, ``.5``, ``'67``: UD
English writes a year so, never a quote before a digit), unless that ``'`` opens a quote: none
is open and an apostrophe ends the token or a later one in the line (``'5'``, ``'90 percent of
them'``; inside a quote, ``'in the summer of '67'``, the year, then the quote's close), which a
decade's never does (``the '60s' music``: ``'60s``, as UD English writes it), and an
apostrophe before a clitic (``'s``, ``'ll``, ``’ve``, ``'em``: UD tokens of their own,
:data:`_CLITICS`) or an elision of a few letters (``'twas``, ``'til``, ``'sup``, in any case:
:data:`_ELISIONS`; part of the word's spelling, not a mark, so restoration keeps it); before
other short words, ``'USA``, ``'the``, it opens a quote, as in UD English. A token that is a
word in angle brackets, a transcript's tag (``<unk>``, ``<laugh>``), is one word: UD writes no
such token, and its brackets are no punctuation to restore. In English
(``Tokeniser(possessive=True)``: the model's language is ``en``), an apostrophe (``'``,
``’``) just after a word ending in ``s``, ``x`` or ``z``, when a word follows in the line, is
a possessive's (``thames' presentation``, ``Cox' files``): a word of its own with UPOS
``PART``, as UD English writes it (UD German keeps it on the word, ``Darius'``; Spanish has
none: there it is a mark), unless an opening quote (``'``, ``‘`` starting a token) before it
in the line is still open (``'boys' club``: then it closes that quote, a mark); so is a lone
apostrophe after such a word (``thames ' presentation``, as UD tokenises it). A ``'``
starting a word opens a quote (``'NATO sources' who``: a closing quote), but an elision's
is the word's (``wait 'til James' car``: a possessive). Pieces of one white-space token are
written ``SpaceAfter=No`` but the last, so ``# text`` is the line with its spacing normalised.
Text is read in Unicode NFC (canonical composition: ``e`` and a combining acute accent are
``é``), as UD's validator requires of CoNLL-U and as the treebanks the models learned from are
written.

A sentence has ``# sent_id`` = its line number, ``# text``, and its words with FORM (and UPOS
``PUNCT`` for marks; a straight quote glued to the start of a word XPOS ``\u0060\u0060``, to
its end ``''``: it opens, it closes, :meth:`Tokeniser.xpos`; one standing alone closes an open
one of its kind, else opens, :meth:`Tokeniser.line_xpos`); every other column ``_`` (no
tree: HEAD ``_``,
:func:`~fstpunct.ud.treebank.has_tree` is false). Blank lines (only white space) separate
paragraphs: the next sentence gets ``# newpar``; text output (:func:`text_lines`) keeps them,
so line N out is line N in (those after the last sentence too: each sentence is given as soon
as its line is read, :class:`TextReader`, which sets their count on the last one, its
``blank_after``, once the input has ended, so a list of the sentences keeps them, and
:class:`LastSeen` gives it to a writer of copies). A tab
(CoNLL-U given as text), a NUL byte, a lone CR or bytes that are not UTF-8 are errors naming
the file and line, as is an input of blank lines only (white space) or an empty one (no sentence,
:class:`NoWords`), but in text output such an input comes back as its lines, blank
(:func:`text_lines`), as the blank lines of any other text do; a line of punctuation only is a
sentence.
"""
from __future__ import annotations

import collections
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ..errors import ConlluError
from ..files import input_name, open_input
from .slots import ABBV, BOUNDARY, CLOSE_XPOS, OPEN_XPOS, STRAIGHT_QUOTES, UNK
from .treebank import NO_SPACE, Line, Sentence, mixed_line_ends, rebuild, space_after

__all__ = ["GoldSplit", "LastSeen", "NoWords", "TextReader", "Tokeniser", "line_by_line",
           "read_text", "read_text_file", "surface", "text_lines"]

_NOT_MARKS = frozenset("&%#@")  # punctuation characters that UD writes as words (SYM, CCONJ)
# characters that stay with the one before them: variation selectors (an emoji's U+FE0F) and the
# zero-width joiner; after a mark, part of it
_JOINERS = frozenset([*map(chr, range(0xFE00, 0xFE10)), "\u200d"])
_SPECIAL = frozenset((ABBV, BOUNDARY, UNK))
_APOSTROPHES = ("'", "’")
_OPENING_QUOTES = frozenset("'‘")  # a quote they start is open until an apostrophe ends one
_POSSESSIVE = "PART"  # the UPOS of a possessive's apostrophe (UD English)
_POSSESSIVE_ENDS = frozenset("sSxXzZ")  # a possessive's apostrophe follows them (en_ewt: Cox')
# the words that a leading apostrophe makes clitics, UD tokens of their own (en_ewt's, in any
# case: 's, 'S, 'LL); before any other word it is a mark
_CLITICS = frozenset(("s", "m", "d", "ll", "ve", "re", "em", "n"))
# a decade after a leading ' ('60s): an elision, as a year's ('67), that opens no quote
_DECADE = re.compile(r"\d\d[sS]")
# words after a leading ' that elides letters, not clitics (in any case): the ' is the word's
_ELISIONS = frozenset(("twas", "twere", "tis", "til", "cause", "bout", "round", "sup", "ya",
                       "nuff", "cept", "ol"))
_KEEP_APOSTROPHE = _CLITICS | _ELISIONS  # a leading apostrophe before them is no mark
_TAG = re.compile(r"\w[\w-]*")  # in angle brackets, a transcript's tag (<unk>): one word


class Tokeniser:
    """Splits a white-space token into words and marks (module docstring). ``marks``: the
    language's punctuation tokens (a punctuation model's vocabulary; tokens with a letter or
    digit are ignored); any other Unicode punctuation character is a mark of its own.
    ``possessive``: a possessive's apostrophe is a word (English only, module docstring)."""

    def __init__(self, marks: Iterable[str] = (), possessive: bool = False) -> None:
        self.possessive = possessive
        self.marks = frozenset(m for m in marks if m not in _SPECIAL and
                               not any(c.isalnum() for c in m))
        self.longest = max(map(len, self.marks), default=1)
        self.chars = frozenset(c for m in self.marks for c in m)

    def is_mark_char(self, c: str) -> bool:
        return c in self.chars or (unicodedata.category(c)[0] == "P" and c not in _NOT_MARKS)

    def split_run(self, run: str) -> list[str]:
        """A run of mark characters as marks, longest known mark first."""
        out, i = [], 0
        while i < len(run):
            k = next((k for k in range(min(self.longest, len(run) - i), 1, -1)
                      if run[i:i + k] in self.marks), 1)
            while i + k < len(run) and run[i + k] in _JOINERS:  # they stay with their mark
                k += 1
            out.append(run[i:i + k])
            i += k
        return out

    def line(self, tokens: Sequence[str]) -> Iterator[list[tuple[str, bool]]]:
        """Each white-space token of a line split (:meth:`__call__`), told whether a word follows
        it and whether a quote opened before it is still open; a lone apostrophe after a word
        ending in ``s``, ``x`` or ``z`` is a possessive's as one glued to it is (module
        docstring)."""
        last = next((k for k in range(len(tokens) - 1, -1, -1) if _has_word(tokens[k])), -1)
        quotes = 0  # the quotes opened and not yet closed
        close = None  # the last token ending in an apostrophe (_last_closing), once one has '
        pieces: list[tuple[str, bool]] = []  # the previous token's
        for n, token in enumerate(tokens):
            inside = n < last
            if inside and not quotes and token in _APOSTROPHES and self._apart(token, pieces):
                pieces = [(token, False)]
            else:
                if close is None and "'" in token:  # it may open a quote before a digit
                    close = _last_closing(tokens)
                pieces = self(token, inside, quotes > 0, n < (close or 0))
                if len(pieces) > 1 or pieces[0][1]:  # not a word alone: a quote may open
                    quotes = _open_quotes(pieces, quotes)
            yield pieces

    def _apart(self, token: str, previous: Sequence[tuple[str, bool]]) -> bool:
        """Whether ``token``, an apostrophe alone (:meth:`line` asks of no other), after a
        token split into ``previous``, is a possessive's written apart (``thames '
        presentation``, as UD tokenises it), when a word follows and no quote is open: after a
        word ending in ``s``, ``x`` or ``z`` (English: ``possessive``)."""
        return (self.possessive and bool(previous) and not previous[-1][1]
                and previous[-1][0][-1] in _POSSESSIVE_ENDS)

    @staticmethod
    def xpos(pieces: Sequence[tuple[str, bool]]) -> list[str]:
        """The XPOS text input gives each of a token's ``pieces``: a straight quote before the
        token's word opens, :data:`~fstpunct.ud.slots.OPEN_XPOS`, one after it closes,
        :data:`~fstpunct.ud.slots.CLOSE_XPOS` (as UD English writes them;
        :func:`~fstpunct.ud.slots.quote_symbols` reads them, not the parser's heads); ``_`` for any
        other piece and in a token of marks only (:meth:`line_xpos` decides a quote's there)."""
        word = next((k for k, (_, mark) in enumerate(pieces) if not mark), None)
        if word is None:
            return ["_"] * len(pieces)
        return [("_" if not mark or piece not in STRAIGHT_QUOTES else CLOSE_XPOS if k > word
                 else OPEN_XPOS) for k, (piece, mark) in enumerate(pieces)]

    @classmethod
    def line_xpos(cls, tokens: Sequence[Sequence[tuple[str, bool]]]) -> list[list[str]]:
        """:meth:`xpos` of each of a line's ``tokens`` (their pieces), and for a straight quote
        in a token of marks only (``he said " hello " to me``) whether it opens or closes, by
        the quotes of its kind before it in the line: it closes one that is open, else it
        opens (glued quotes open and close as :meth:`xpos` says). The heads of a parse decided
        before, and put right fewer of them: of en_ewt dev and test's 313 ``"`` and 41 ``'``,
        257 and 29 by the bundled parser's trees, 297 and 39 by this count
        (``scripts/quote_directions.py``)."""
        out, open_ = [], dict.fromkeys(STRAIGHT_QUOTES, False)
        for pieces in tokens:
            xposes = cls.xpos(pieces)
            for k, (piece, mark) in enumerate(pieces):
                if not mark or piece not in STRAIGHT_QUOTES:
                    continue
                if xposes[k] == "_":
                    xposes[k] = CLOSE_XPOS if open_[piece] else OPEN_XPOS
                open_[piece] = xposes[k] == OPEN_XPOS
            out.append(xposes)
        return out

    @staticmethod
    def upos(piece: str, mark: bool) -> str:
        """The UPOS text input gives a piece: ``PUNCT`` for a mark, ``PART`` for an
        apostrophe that is a word (a possessive's: the only word of punctuation characters
        :class:`Tokeniser` makes; :class:`GoldSplit`'s others get ``_``), else ``_`` (to be
        tagged)."""
        if mark:
            return "PUNCT"
        return _POSSESSIVE if piece in _APOSTROPHES else "_"

    def __call__(self, token: str, inside: bool = False, quoted: bool = False,
                 closing: bool = False) -> list[tuple[str, bool]]:
        """(piece, is a mark) for each piece of ``token``, in order; ``inside``: a word follows
        it in its sentence (a final dot is then an abbreviation's, a final apostrophe after
        ``s``, ``x`` or ``z`` a possessive's, with ``possessive``, unless ``quoted``: a quote
        opened before it is still open); ``closing``: a later token of its line ends in an
        apostrophe (then a ``'`` before a digit opens a quote, unless ``quoted``, as it does
        when an apostrophe ends ``token``)."""
        if token.isalnum():  # a word alone, the common case (no character of it is a mark)
            return [(token, False)]
        i, j = 0, len(token)
        while i < j and self.is_mark_char(token[i]):
            i += 1
            while i < j and token[i] in _JOINERS:  # a mark's variation selector or joiner
                i += 1
        while j > i:
            k = j
            while k > i and token[k - 1] in _JOINERS:
                k -= 1
            if k == i or not self.is_mark_char(token[k - 1]):
                break
            j = k - 1
        if i == j:  # only marks
            return [(m, True) for m in self.split_run(token)]
        if i and token[i - 1] == "<" and token[j:j + 1] == ">" and _TAG.fullmatch(token[i:j]):
            i, j = i - 1, j + 1  # <unk>, <laugh>
        elif i and token[i - 1] in "-+.'’" and token[i].isdigit() and not (
                token[i - 1] == "'" and not quoted and not _DECADE.fullmatch(token[i:j]) and
                (closing or any(c in _APOSTROPHES for c in token[j:]))):
            i -= 1  # -5, .5, '67, '60s (not a quote's opening '5')
        elif (i and token[i - 1] in _APOSTROPHES and token[i:j].lower() in _KEEP_APOSTROPHE
              and token[j:j + 1] not in _APOSTROPHES):
            i -= 1  # a clitic ('s, 'll, 've) or an elision ('til)
        if token[j:j + 1] == "." and token[j:j + 2] != ".." and (
                "." in token[i:j] or inside and token[i:j].isalpha()):
            j += 1
        k = j + (self.possessive and inside and token[j:j + 1] in _APOSTROPHES and
                 token[j - 1] in _POSSESSIVE_ENDS and not quoted and
                 not any(c in _OPENING_QUOTES for c in token[:i]))
        return ([(m, True) for m in self.split_run(token[:i])] + [(token[i:j], False)]
                + [(token[j:k], False)] * (k > j)  # a possessive's apostrophe
                + [(m, True) for m in self.split_run(token[k:])])


def _has_word(token: str) -> bool:
    """Whether a white-space token has a word in it (a letter or digit)."""
    return token.isalnum() or any(c.isalnum() for c in token)


_CLOSING = re.compile(r"['’][^\w]*\Z")  # an apostrophe, maybe marks after it, ending a token


def _last_closing(tokens: Sequence[str]) -> int:
    """The index of the last of ``tokens`` that ends in an apostrophe, maybe with marks after
    it (``them'``, ``them',``, a lone ``'``: a quote may close there); -1 if none."""
    return next((k for k in range(len(tokens) - 1, -1, -1) if _CLOSING.search(tokens[k])), -1)


def _open_quotes(pieces: Sequence[tuple[str, bool]], quotes: int) -> int:
    """How many quotes are open after a token's ``pieces`` (``quotes`` before it): each ``‘``
    or ``'`` among the marks before its first word opens one, each apostrophe among those after
    closes one; in a token of marks only, ``‘`` opens, ``’`` closes and ``'`` closes one if one
    is open, else opens."""
    word = next((k for k, (_, mark) in enumerate(pieces) if not mark), None)
    if word is None:
        for c in "".join(p for p, _ in pieces):
            if c in _OPENING_QUOTES and not (c == "'" and quotes):
                quotes += 1
            elif c in _APOSTROPHES:
                quotes = max(quotes - 1, 0)
        return quotes
    quotes += sum(c in _OPENING_QUOTES for p, _ in pieces[:word] for c in p)
    closed = sum(c in _APOSTROPHES for p, mark in pieces[word + 1:] if mark for c in p)
    return max(quotes - closed, 0)


class GoldSplit(Tokeniser):
    """A :class:`Tokeniser` for a prediction scored against ``gold`` (its sentences, in order):
    each token is split at gold's words, so every other character is a mark, as the restorer
    wrote it (a ``.`` inside a line, a ``'`` before a short word); a token in which gold's next
    words are not found is split as :class:`Tokeniser` splits it (the word check then fails)."""

    def __init__(self, marks: Iterable[str], gold: Iterable[Sentence],
                 possessive: bool = False) -> None:
        super().__init__(marks, possessive)
        self.gold = ([w.form for w in s.words if w.upos != "PUNCT"] for s in gold)
        self.words: collections.deque[str] = collections.deque()

    def _apart(self, token: str, previous: Sequence[tuple[str, bool]]) -> bool:
        return False  # gold's words say it: a lone apostrophe that is one is found there

    def __call__(self, token: str, inside: bool = False, quoted: bool = False,
                 closing: bool = False) -> list[tuple[str, bool]]:
        if self.words and token == self.words[0]:  # a word of marks only (a possessive's ')
            return [(self.words.popleft(), False)]
        if all(map(self.is_mark_char, token)):
            return super().__call__(token, inside, quoted, closing)
        if not self.words:  # a new line with words: the next gold sentence with words
            self.words.extend(next((w for w in self.gold if w), ()))
        out: list[tuple[str, bool]] = []
        i = start = 0
        while i < len(token):
            if self.words and token.startswith(self.words[0], i):
                word = self.words.popleft()
                out += [(m, True) for m in self.split_run(token[start:i])] + [(word, False)]
                i = start = i + len(word)
            elif self.is_mark_char(token[i]):
                i += 1
            else:
                return super().__call__(token, inside, quoted, closing)
        return out + [(m, True) for m in self.split_run(token[start:])]


_BAD = re.compile("[\t\n\x00\r\ud800-\udfff]")
_BAD_MESSAGES = {"\t": "a tab in a line of text (is this CoNLL-U? then leave out --text)",
                 "\n": "a line break inside a line (one sentence a line)",
                 "\x00": "NUL byte (binary data, not text)",
                 "\r": "CR inside a line (CR-only line ends are not supported: use LF or CRLF)"}


def _check(text: str, path: str, lineno: int) -> None:
    bad = _BAD.search(text)
    if bad:
        c = bad.group()
        raise ConlluError(_BAD_MESSAGES.get(c) or f"not UTF-8 (byte 0x{ord(c) - 0xDC00:02X}); "
                          "fstpunct reads UTF-8 text", path, lineno)


class NoWords(ConlluError):
    """An input of blank lines only (white space), or empty: no sentences. ``lines``, how many
    it has, and ``newline``, their line end, let text output give them back
    (:func:`text_lines`)."""

    def __init__(self, path: str, lines: int, newline: str | None) -> None:
        super().__init__("no sentences: " + ("an input of blank lines only (white space)"
                                             if lines else "the input is empty"),
                         path, lines or None)
        self.lines, self.newline = lines, newline or "\n"


class TextReader(Iterator[Sentence]):
    """The sentences of a text stream (lines may keep their line ends), one at a time, each
    given as soon as its line is read: nothing is read ahead, so a process that writes a line
    and waits for its answer gets it. Once they are all read, the last sentence's
    ``blank_after`` (set after it was given: whoever holds it sees it) is the count of blank
    lines after it, so text output (:func:`text_lines`) gives them back too. An item that is
    not a string is a TypeError naming its line. :attr:`by_line` gives every line's sentence,
    None for a blank one (iterate the reader or it, not both)."""

    def __init__(self, lines: Iterable[str], path: str = "<stdin>",
                 tokenise: Tokeniser | None = None) -> None:
        self.path = path
        self.newline: str | None = None  # the input's line end (None: none read yet)
        self.by_line = self._read(lines, tokenise or Tokeniser())
        self._sentences = (sent for sent in self.by_line if sent is not None)

    def __next__(self) -> Sentence:
        return next(self._sentences)

    def _read(self, lines: Iterable[str], tokenise: Tokeniser) -> Iterator[Sentence | None]:
        """Each line's sentence as soon as it is read, None for a blank line."""
        path, upos = self.path, tokenise.upos
        index = previous = 0  # previous: the last sentence's line
        sent: Sentence | None = None  # the last sentence given
        lineno = 0
        for lineno, raw in enumerate(lines, 1):
            if not isinstance(raw, str):
                raise TypeError(f"{path}: line {lineno}: expected a string, got "
                                f"{type(raw).__name__}")
            text = raw.rstrip("\n")
            end = raw[len(text):]
            if text.endswith("\r") and end:
                text, end = text[:-1], "\r\n"
            if end and self.newline and end != self.newline:  # as CoNLL-U is refused
                raise ConlluError(mixed_line_ends(end, self.newline), path, lineno)
            self.newline = self.newline or end or None
            _check(text, path, lineno)
            tokens = unicodedata.normalize("NFC", text).split()
            if not tokens:
                yield None
                continue
            newpar = lineno > previous + 1  # a blank line before this one: a paragraph
            previous = lineno
            rows: list[Line] = []
            split = list(tokenise.line(tokens))
            for pieces, xposes in zip(split, tokenise.line_xpos(split)):
                for k, ((form, mark), xpos) in enumerate(zip(pieces, xposes)):
                    last = k == len(pieces) - 1
                    rows.append(Line([str(len(rows) + 1), form, "_", upos(form, mark),
                                      xpos, "_", "_", "_", "_", "_" if last else NO_SPACE],
                                     lineno))
            index += 1
            comments = (["# newpar"] if newpar else []) + [f"# sent_id = {lineno}",
                                                          f"# text = {' '.join(tokens)}"]
            sent = rebuild(Sentence(comments, rows, path, lineno, index=index,
                                    newline=self.newline or "\n"), comments, rows,
                            tree=None)
            yield sent
        if sent is None:
            raise NoWords(path, lineno, self.newline)
        sent.blank_after = lineno - sent.lineno  # given already: its holder sees it now


class LastSeen(Iterator[Sentence]):
    """Sentences as a step reads them (a :class:`TextReader`'s; on the command line CoNLL-U's
    too), keeping the last one read. Once they end, :attr:`lines` is how many lines the input
    had: that sentence's line and its ``blank_after``. :func:`text_lines` writes the blank
    lines after the step's answers from it, as those may be copies made before the input
    ended (a pool's)."""

    def __init__(self, sentences: Iterable[Sentence]) -> None:
        self._sentences = iter(sentences)
        self._last: Sentence | None = None

    def __next__(self) -> Sentence:
        self._last = next(self._sentences)
        return self._last

    @property
    def lines(self) -> int:
        last = self._last
        return 0 if last is None else last.lineno + last.blank_after


def read_text(lines: Iterable[str], path: str = "<stdin>",
              tokenise: Tokeniser | None = None) -> TextReader:
    """The sentences of a text stream, each as soon as its line is read (:class:`TextReader`)."""
    return TextReader(lines, path, tokenise)


def read_text_file(path: str | Path | None, tokenise: Tokeniser | None = None) -> TextReader:
    """Stream the sentences of a text file (``None`` or ``-``: stdin), opened when the first
    is read."""
    def lines() -> Iterator[str]:
        yield from open_input(path)[0]
    return TextReader(lines(), input_name(path), tokenise)


def surface(lines: Sequence[Line]) -> str:
    """The text of token lines: each token's form (a multiword token's once), then a space
    unless its MISC says ``SpaceAfter=No``."""
    parts, end = [], 0
    for ln in lines:
        ident = ln.fields[0]
        if "-" in ident:
            end = int(ident.split("-")[1])
        elif not ln.is_word or int(ident) <= end:
            continue
        parts.append(ln.fields[1] + (" " if space_after(ln.fields[9]) else ""))
    return "".join(parts).rstrip(" ")


def text_lines(sentences: Iterable[Sentence], aligned: bool = False,
               line: Callable[[Sentence], str] = lambda s: surface(s.lines),
               source: LastSeen | None = None) -> Iterator[str]:
    """Each sentence as ``line(sentence)`` with its line end, as soon as it comes; if
    ``aligned`` (the sentences of :func:`read_text`, all of them, in order), with the blank
    lines the input had before and between them, and, once they end, those after the last: its
    ``blank_after``, set by the reader when the input ended, or, given ``source`` (the
    :class:`LastSeen` over what the step that made these sentences read), the input's lines
    after the last one written (for copies made before the input ended). So line N out is
    line N in: text of blank lines only (:class:`NoWords`) gives them back."""
    previous, sent = 0, None
    try:
        for sent in sentences:
            if aligned:
                yield from itertools.repeat(sent.newline, max(sent.lineno - previous - 1, 0))
                previous = sent.lineno
            yield line(sent) + sent.newline
    except NoWords as e:  # raised before any sentence: nothing is written yet
        if not aligned:
            raise
        yield from itertools.repeat(e.newline, e.lines)
        return
    if aligned and sent is not None:
        after = sent.blank_after if source is None else source.lines - previous
        yield from itertools.repeat(sent.newline, after)


def line_by_line(reader: TextReader, step: Callable[[list[Sentence]], Iterable[Sentence]],
                 conllu: bool = False) -> Iterator[str]:
    """One answer for each line of ``reader``, given before the next line is read (so a process
    that writes a line and waits for its answer gets it): a line's sentence as ``step`` gives
    it back, run on it alone to its end (a warning on the line's marks is the line's), a text
    line with its line end (with ``conllu``, its CoNLL-U); a blank line as its line end (with
    ``conllu``, ``""``: the paragraph it starts is the next sentence's ``# newpar``). Text of
    blank lines only gives them back; with ``conllu`` it is :class:`NoWords` after them (no
    sentences)."""
    try:
        for sent in reader.by_line:
            if sent is None:
                yield "" if conllu else reader.newline or "\n"
            else:
                (done,) = step([sent])
                yield done.text() if conllu else surface(done.lines) + done.newline
    except NoWords:
        if conllu:
            raise
