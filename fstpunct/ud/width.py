"""Punctuation of either width: a model reads a mark it does not know as the mark's width twin,
and the marks a command writes come back in the input's width and quote style.

Chinese text today writes ``，。；：？！（）`` where UD 1.4 Chinese, the bundled zh model's
training data, writes ``, . ; : ? ! ( )``. The **twins** of a punctuation token:

* its half-width form (:func:`half`): every character of the Fullwidth Forms block U+FF01–U+FF5E
  as NFKC gives it (``，`` → ``,``, ``．`` → ``.``), and the ideographic full stop ``。`` as ``.``
  (:data:`IDEOGRAPHIC`; NFKC leaves it alone); other characters unchanged;
* its full-width form (:func:`full`): for the one-character marks of :data:`FULL`, the form
  Chinese writes (``.`` → ``。``, not ``．``); any other token unchanged (``...`` and ``-`` stay).

**Reading** (:meth:`Widths.read`): a punctuation token the model does not know whose twin it
knows is read as the twin: its sentence is given as a copy with that FORM changed, the original
kept in the copy's :attr:`~fstpunct.ud.treebank.Sentence.folded`. The sentence read is never
changed, so a caller that keeps its own sentences sees them as written, however the run ends
(read to the end, abandoned, an exception) and whatever it writes (nothing: perplexity, show,
draw); a command that changes its sentences in place (decode, normalise) changes and gives
back the copy of a sentence read so. A token the model knows is never changed, so input written
in the model's own forms (UD 1.4, every other language's treebanks) reads exactly as before.

**Writing** (:meth:`Widths.write`): a sentence a command changed in place or copied with its
fields (decode, normalise; ``parse --punct-model``'s ``dataclasses.replace``) gets its folded
tokens back as the input wrote them. In a sentence the command made anew
(restore, correct, rephrase) every punctuation token is written in the run's width
(:data:`WIDTHS`): ``full`` or ``half`` when forced, else (``input``) the width of the input's
punctuation: of most of the twin-bearing marks of its first sentences that have any, read on
while the two widths tie (looked for among the first :data:`LOOKAHEAD` sentences, read ahead
before the first is given), else the model's own forms. One width for the whole input of a run,
not one per ``# newdoc``. Its quotes likewise, whatever the width: in the input's **quote
style** (:func:`quote_style`; straight ``" '`` or curly ``“ ” ‘ ’``, decided as the width is, in the
same read-ahead, which a forced width makes for it too), else as the model wrote them; a straight
quote is written curly in the direction :func:`~fstpunct.ud.slots.quote_symbols` gives it, as the
model reads it, and a curly one straight only where that direction reads back from the straight
form (a lone closing quote before its head stays curly), so that what is written reads (and
scores) as the model wrote it. Only punctuation tokens are written so (an apostrophe in a word is
never changed). A run that makes no new sentence (no width) streams: it only writes folded tokens
back. ``# text`` is rebuilt where the command had built it from the marks.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..errors import refuse_choice
from .slots import CURLY, STRAIGHT_QUOTES, quote_symbols
from .text import surface
from .treebank import Line, Sentence, Word

__all__ = ["FULL", "IDEOGRAPHIC", "LOOKAHEAD", "WIDTHS", "Widths", "checked", "full",
           "half", "quote_style", "width_of", "written"]

WIDTHS = ("input", "full", "half")
LOOKAHEAD = 1000  # sentences read ahead, at most, for the input's width
FULL = {",": "，", ".": "。", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"}
"""Half-width marks → the full-width forms Chinese writes for them."""
IDEOGRAPHIC = {"。": "."}
"""Full-width marks outside the Fullwidth Forms block → their half-width twins."""
_BLOCK = range(0xFF01, 0xFF5F)  # Fullwidth Forms: U+FF01–U+FF5E = U+0021–U+007E + 0xFEE0


_HALF = str.maketrans({**{chr(c): chr(c - 0xFEE0) for c in _BLOCK}, **IDEOGRAPHIC})


def half(token: str) -> str:
    """``token`` with its full-width characters half-width (module docstring)."""
    return token.translate(_HALF)


def full(token: str) -> str:
    """The full-width form Chinese writes for ``token`` (:data:`FULL`), else ``token``."""
    return FULL.get(token, token)


def width_of(token: str) -> str | None:
    """``full`` or ``half`` for a token that has a twin of the other width, else None."""
    if half(token) != token:
        return "full"
    return "half" if full(token) != token else None


def quote_style(token: str) -> str | None:
    """``straight`` or ``curly`` for a quote token of :data:`CURLY`, else None."""
    if token in STRAIGHT_QUOTES:
        return "straight"
    return "curly" if token in CURLY else None


def written(sent: Sentence, ids: Sequence[int], tokens: Sequence[str]) -> tuple[str, ...]:
    """``tokens``, the model's reading of the words ``ids`` of ``sent`` (one each; 0: none), as
    the input wrote them: a word's form the model reads as its twin (``sent.folded``) back as
    written, any other token as it is. What pictures print as a sentence's surface."""
    if not sent.folded:
        return tuple(tokens)
    return tuple(sent.folded.get(str(k), t) for k, t in zip(ids, tokens, strict=True))


def checked(width: str) -> str:
    """``width`` if it is one of :data:`WIDTHS`, else InputError."""
    refuse_choice("width", width, WIDTHS)
    return width


class Widths:
    """One run of a command: reads sentences for a model that knows the tokens ``known``, then
    writes the command's output sentences in ``width`` (:data:`WIDTHS`, or None: only folded
    tokens written back) and in the input's quote style (:attr:`quotes`; module docstring)."""

    def __init__(self, known: Iterable[str], width: str | None = None) -> None:
        """``width`` None: a run that makes no new sentence (decode, normalise, …): it only
        writes folded tokens back, and streams (no read-ahead)."""
        self.known = frozenset(known)
        self.width = None if width is None or checked(width) == "input" else width  # None: model's
        self.quotes: str | None = None  # the input's quote style; None: the model's
        self._decided = width is None
        self._input_width = width == "input"
        # an ASCII token has no full-width character: its one twin is full()'s
        self._ascii = {t: f for t, f in FULL.items() if t not in self.known and f in self.known}

    @property
    def _writing(self) -> bool:
        """Whether new sentences are written in a width or a quote style (not the model's)."""
        return self.width is not None or self.quotes is not None

    def fold(self, token: str) -> str:
        """How the model reads ``token``: itself if known, else a known twin, else itself."""
        if token.isascii():
            return self._ascii.get(token, token)
        twin = half(token)  # (full() of a token not ASCII is itself)
        return twin if token not in self.known and twin in self.known else token

    def read(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """``sentences`` with their punctuation folded (a copy of each that has any to fold,
        and in a run that writes a width or quote style of each other one too, its ``folded``
        ``{}``: the caller's sentences keep None); in a run with a width (``input``, ``full`` or
        ``half``), the input's quote style and (in an ``input`` run) its width decided, reading
        ahead, before the first one is given; a sentence given is not kept here."""
        items = iter(sentences)
        ahead = deque(() if self._decided else self._ahead(items))
        ascii_twins = self._ascii
        for sent in itertools.chain(_drained(ahead), items):
            for word in sent.words:  # (inline and the cheapest test: it reads every word)
                if not word.form.isascii():
                    sent = self._folded(sent)
                    break
            else:  # every form ASCII: only full()'s twins can fold, and most models have none
                if ascii_twins and not ascii_twins.keys().isdisjoint(
                        [word.form for word in sent.words]):
                    sent = self._folded(sent)
                else:
                    sent = self._unchanged(sent)
            yield sent

    def _ahead(self, items: Iterator[Sentence]) -> list[Sentence]:
        """Sentences of ``items`` up to the first where, for the width (in an ``input`` run) and
        for the quote style alike, more of the marks read so far show one than the other (at
        most :data:`LOOKAHEAD`), those decided (module docstring)."""
        ahead = []
        looked_for = {"quotes": quote_style, **({"width": width_of} if self._input_width else {})}
        counts: dict[str, Counter[str]] = {kind: Counter() for kind in looked_for}
        for sent in itertools.islice(items, LOOKAHEAD):
            ahead.append(sent)
            for form in _forms(sent):
                for kind, of in looked_for.items():
                    if value := of(form):
                        counts[kind][value] += 1
            for kind in list(looked_for):
                ranked = counts[kind].most_common(2)
                if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
                    setattr(self, kind, ranked[0][0])
                    del looked_for[kind]
            if not looked_for:
                break
        self._decided = True
        return ahead

    def _unchanged(self, sent: Sentence) -> Sentence:
        """``sent`` when none of its marks folds: in a run that writes a width or quote style,
        a shallow copy whose ``folded`` is ``{}`` (the caller's sentence keeps None); else
        ``sent`` itself."""
        return dataclasses.replace(sent, folded={}) if self._writing else sent

    def _folded(self, sent: Sentence) -> Sentence:
        """``sent`` as the model reads it: a copy with its punctuation folded, the originals in
        its ``folded``, if any folds (``sent`` itself is never changed); else, in a run that writes
        a width or quote style, a shallow copy whose ``folded`` is ``{}`` (none folded); else
        ``sent`` (None, all the write-back would learn)."""
        changed = [(k, twin) for k, word in enumerate(sent.words)
                   if word.is_punct and (twin := self.fold(word.form)) != word.form]
        if not changed:
            return self._unchanged(sent)
        words = list(sent.words)
        twins, folded = {}, {}
        for k, twin in changed:
            word = words[k]
            twins[str(word.id)], folded[str(word.id)] = twin, word.form
            words[k] = dataclasses.replace(word, form=twin)
        lines = [Line([ln.fields[0], twins[ln.fields[0]], *ln.fields[2:]]
                      if ln.fields[0] in twins else ln.fields.copy(), ln.lineno)
                 for ln in sent.lines]
        return dataclasses.replace(sent, comments=list(sent.comments), lines=lines, words=words,
                                   folded=folded)

    def apply(self, step: Callable[[Iterator[Sentence]], Iterable[Sentence]],
              sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The run: ``step`` over ``sentences`` as read (:meth:`read`), its output written
        back (:meth:`write`)."""
        return self.write(step(self.read(sentences)))

    def write(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The output ``sentences`` with their punctuation written back (module docstring)."""
        for sent in sentences:
            if sent.folded is not None or self._writing:  # else nothing to write
                self._unfold(sent)
            yield sent

    def _unfold(self, sent: Sentence) -> None:
        folded, sent.folded = sent.folded, None
        if folded:  # read by the model: its folded FORMs back as the input wrote them
            self._change(sent, [(ln, original) for ln in sent.lines
                                if (original := folded.get(ln.fields[0])) is not None
                                and self.fold(original) == ln.fields[1]], lemma=False)
        elif folded is None and self._writing:  # a new sentence, in the run's width and quotes
            changed = self._styled(sent)
            if changed:  # (the lines looked at only then: most sentences have none)
                self._change(sent, [(ln, changed[ln.fields[0]]) for ln in sent.lines
                                    if ln.fields[0] in changed], lemma=True)

    def _styled(self, sent: Sentence) -> dict[str, str]:
        """The punctuation forms of the new sentence ``sent`` that the run's width and quote
        style change, by word ID, as written in them."""
        forms = {w.id: w.form for w in sent.words if w.is_punct}
        if self.width is not None:
            twin = full if self.width == "full" else half
            forms = {k: twin(form) for k, form in forms.items()}
        if self.quotes == "straight":
            forms.update(_straightened(sent.words, forms))
        elif self.quotes == "curly" and not STRAIGHT_QUOTES.isdisjoint(forms.values()):
            forms.update(quote_symbols(sent.words))
        return {str(w.id): forms[w.id] for w in sent.words
                if w.id in forms and forms[w.id] != w.form}

    @staticmethod
    def _change(sent: Sentence, changes: list[tuple[Line, str]], lemma: bool) -> None:
        """Write each ``(line, form)`` of ``changes`` in ``sent``'s lines and words (with
        ``lemma``, a LEMMA equal to the FORM too); ``# text`` rebuilt if it was the surface."""
        if not changes:
            return
        before = surface(sent.lines)
        words = {str(w.id): w for w in sent.words}
        for ln, form in changes:
            if lemma and ln.fields[2] == ln.fields[1]:
                ln.fields[2] = form
            ln.fields[1] = form
            words[ln.fields[0]].form, words[ln.fields[0]].lemma = form, ln.fields[2]
        text = sent.comment("text")
        if text is not None and text == before.strip():
            sent.set_comment("text", surface(sent.lines))


def _straightened(words: Sequence[Word], forms: dict[int, str]) -> dict[int, str]:
    """The straight forms of the curly quotes of ``forms`` (punctuation forms of ``words`` by
    ID) whose direction reads back from them (:func:`~fstpunct.ud.slots.quote_symbols`, as the
    model and the score read a sentence); a quote whose would not (a lone closing quote before
    its head) keeps its curly form, and then so may others of its group."""
    straight = {k: CURLY[form] for k, form in forms.items() if form in CURLY}
    while straight:
        read = quote_symbols([dataclasses.replace(w, form=straight[w.id]) if w.id in straight
                              else w for w in words])
        kept = {k: form for k, form in straight.items() if read.get(k) == forms[k]}
        if kept == straight:
            break
        straight = kept
    return straight


def _drained(items: deque[Sentence]) -> Iterator[Sentence]:
    """The items of ``items``, each taken out as it is given (none kept)."""
    while items:
        yield items.popleft()


def _forms(sent: Sentence) -> Iterator[str]:
    return (w.form for w in sent.words if w.is_punct)
