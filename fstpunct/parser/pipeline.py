"""Text to trees: a UPOS tagger and a parser used together.

A bundled model folder ``fstpunct/models/<lang>/`` may hold, beside the punctuation model,
``tagger/`` (a :class:`~.tagger.Tagger`), ``tagger-lc/`` (one trained on lower-cased text),
``parser/`` (a :class:`~.model.Model` trained on depunctuated sentences with predicted tags)
and ``parser-lc/`` (the same on lower-cased text; without it lower-cased input uses
``parser/``). :func:`load_pipeline` finds them (any part may be given explicitly instead);
:meth:`Pipeline.analyse` gives a sentence what it lacks: UPOS where it is ``_``, a tree where
every HEAD is ``_``. Unless told the text's case, a pipeline tags a sentence without capital
letters (but with lower-case ones) with the lower-case tagger, if there is one: on en dev
lower-cased, the cased tagger is right on 89.3% of the words, the lower-case one on 93.0%
(and on the 242 dev sentences that have no capital letter, 92.5% against 92.9%).

The bundled parsers are ``removed``-mode; a parser given instead parses in its own punctuation
mode (:func:`~.decode.parse`). Restore takes only a ``removed``-mode one (its sentences are
stripped of their marks) and checks it; decode takes any (its sentences keep their marks).
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..model.store import model_path
from ..ud.text import Tokeniser
from ..ud.treebank import Line, Sentence, has_tree, punct_relation
from .decode import parse
from .model import Model
from .tagger import Tagger

__all__ = ["Pipeline", "load_pipeline", "pipeline_folders"]

Folder = str | os.PathLike[str]
_MARK = Tokeniser()  # any Unicode punctuation character


def _is_mark(form: str) -> bool:
    return all(_MARK.is_mark_char(c) for c in form)


def _load(kind: type[Tagger] | type[Model], folder: Path) -> Tagger | Model:
    """The tagger or parser (``kind``) in ``folder``: :func:`load_pipeline`'s default reader."""
    return kind.load(folder)


@dataclass
class Pipeline:
    """A tagger and a parser (beam ``beam``, by default the parser's training beam)."""

    tagger: Tagger
    parser: Model | None  # None: a pipeline that only tags (load_pipeline's parse=False)
    beam: int | None = None
    lowercase_tagger: Tagger | None = None  # for sentences without capital letters

    def tagger_for(self, words: Sequence[str]) -> Tagger:
        """The lower-case tagger for words with lower-case letters but no capital, if there is
        one; else the tagger."""
        text = "".join(words)
        if self.lowercase_tagger is not None and text.lower() == text != text.upper():
            return self.lowercase_tagger
        return self.tagger

    def analyse(self, sent: Sentence) -> Sentence:
        """``sent`` :meth:`tagged` if a word's UPOS is ``_`` and :meth:`parsed` if it has no
        tree; ``sent`` itself is not changed, and a sentence with both is returned as it is."""
        if any(w.upos == "_" for w in sent.words):
            sent = self.tagged(sent)
        return sent if has_tree(sent) else self.parsed(sent)

    def tagged(self, sent: Sentence) -> Sentence:
        """A copy of ``sent`` with UPOS for every word whose UPOS is ``_``: ``PUNCT`` for a
        word of punctuation characters only or with relation ``punct``, else the tagger's tag
        (never ``PUNCT``) in the depunctuated sentence (:meth:`tagger_for`)."""
        upos = ["PUNCT" if w.upos == "_" and (punct_relation(w.deprel) or
                                        _is_mark(w.form)) else w.upos
                for w in sent.words]
        words = [k for k, t in enumerate(upos) if t != "PUNCT"]
        forms = [sent.words[k].form for k in words]
        for k, tag in zip(words, self.tagger_for(forms).tag(forms, punct=False)):
            if upos[k] == "_":
                upos[k] = tag
        by_id = {str(w.id): t for w, t in zip(sent.words, upos)}
        lines = [Line(ln.fields[:3] + [by_id[ln.id]] + ln.fields[4:], ln.lineno)
                 if ln.is_word else ln for ln in sent.lines]
        words_out = [dataclasses.replace(w, upos=t) for w, t in zip(sent.words, upos)]
        return dataclasses.replace(sent, comments=list(sent.comments), lines=lines,
                                   words=words_out)

    def parsed(self, sent: Sentence) -> Sentence:
        """A copy of ``sent`` parsed by the parser in its own punctuation mode
        (:func:`~.decode.parse`: a ``removed``-mode parser leaves the marks out, and they are
        attached after as :func:`~.punct.reattach` does; the other modes read them)."""
        if self.parser is None:
            raise ValueError("a pipeline loaded without its parser (parse=False) only tags")
        return parse(self.parser, sent, self.beam)


def pipeline_folders(lang_or_folder: Folder, lowercase: bool | None = None
                     ) -> tuple[Path, Path]:
    """The tagger and parser folders of a bundled language (``"en"``) or of a folder laid out
    like one (module docstring); for ``lowercase`` text, the lower-case ones. A bundled
    language is a name as :func:`~fstpunct.model.store.model_path` reads one, as for models:
    ``"."``, ``".."``, ``"./en"`` and a ``Path`` are folders, and a bundled name wins over a
    local folder of that name, with a warning."""
    base = model_path(lang_or_folder)
    parser = base / "parser"
    if lowercase and (base / "parser-lc").is_dir():
        parser = base / "parser-lc"
    return base / ("tagger-lc" if lowercase else "tagger"), parser


def load_pipeline(lang_or_folder: Folder, lowercase: bool | None = None,
                  tagger: Folder | Tagger | None = None, parser: Folder | Model | None = None,
                  beam: int | None = None,
                  read: Callable[[type[Tagger] | type[Model], Path], Tagger | Model] = _load,
                  parse: bool = True) -> Pipeline:
    """The tagger and parser of :func:`pipeline_folders`, each replaceable by a folder or a
    loaded model of its own. ``lowercase``: True for lower-cased text (the lower-case tagger
    and parser), False for cased text (the cased ones only), None (not known): the cased
    ones, and for sentences without capital letters the lower-case tagger if the folder has
    one (and no ``tagger`` is given). ``read(kind, folder)`` reads a part from one of
    ``lang_or_folder``'s own folders (default ``kind.load(folder)``; a :class:`fstpunct.Model`
    gives its own, which reads each folder once, so that a call per line does not read them
    again). Without ``parse``, the tagger alone (for tagging, :meth:`Pipeline.tagged`): no
    parser is read or needed."""
    base = model_path(lang_or_folder)  # once: a bundled name's lookup may warn
    folders = pipeline_folders(base, lowercase)

    def part(given: Folder | Tagger | Model | None, folder: Path, kind: type[Tagger] | type[Model],
             what: str) -> Tagger | Model:
        if isinstance(given, kind):
            return given
        if given is not None:
            return kind.load(Path(given))
        if not folder.is_dir():
            raise ModelError(f"no {what} for {os.fspath(lang_or_folder)!r}: {folder} does not "
                             f"exist (give one with --{what} DIR)")
        return read(kind, folder)

    tagging = part(tagger, folders[0], Tagger, "tagger")
    parsing = part(parser, folders[1], Model, "parser") if parse else None
    auto = None
    if lowercase is None and tagger is None:
        lower = pipeline_folders(base, True)[0]
        auto = read(Tagger, lower) if lower.is_dir() else None
    return Pipeline(tagging, parsing, beam=beam,  # type: ignore[arg-type]
                    lowercase_tagger=auto)
