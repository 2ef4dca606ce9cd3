"""A punctuation model as users meet it: :func:`load` it, then call its methods on their data.

Every method takes any kind of data of :mod:`fstpunct.api.data` (a CoNLL-U string, a path or
split name, an iterable of ``conllu.TokenList``) and gives back the same kind. A method is one
*step* over fstpunct sentences (an app function of :mod:`fstpunct.apps`) wrapped by
:func:`~fstpunct.api.data.rewrite` (sentences out; through ``Model._rewrite``, which gives the
step the sentences as the model reads them and writes their marks back in the input's width,
:mod:`fstpunct.ud.width`) or :func:`~fstpunct.api.data.values` (a number per sentence, read
through ``Model._watched``); so a new method is a few lines (see ``Model.decode``), and a method for
plain text (sentences without trees) parses the text into sentences and calls the same steps.
"""
from __future__ import annotations

import functools
import inspect
import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..apps.decode import annotate, scored
from ..errors import (
    InputError,
    ModelError,
    refuse_choice,
    refuse_count,
    refuse_missing,
    refuse_unused,
    warn_user,
)
from ..files import CORRECTION_RECORD, is_correction_model
from ..model.punct import PunctModel
from ..model.store import (
    BUNDLED,
    EDIT_COUNTS,
    found_model,
    load_edit_counts,
    load_model,
    read_record,
)
from ..parallel import Pool
from ..ud.slots import punct_tokens
from ..ud.treebank import Sentence
from ..ud.width import Widths, checked
from ..wording import counted
from .data import Data, Step, one_sentence, output_format, rewrite, sentences, values

if TYPE_CHECKING:
    import graphviz

    from ..apps.correction.model import CorrectionModel
    from ..apps.normalise import Counts
    from ..apps.restoration import Restorer
    from ..apps.restoration.crf import CrfModel
    from ..apps.rules import LearnedRules
    from ..parser import Model as ParserModel
    from ..parser.pipeline import Pipeline
    from ..parser.tagger import Tagger
    from ..ud.text import TextReader, Tokeniser

Folder = str | os.PathLike[str]

__all__ = ["TEXT_DECODER", "TEXT_MIXTURE", "TEXT_MODEL", "UNKNOWN_SHARE", "Model", "Perplexity",
           "load"]

TEXT_MODEL = "text"  # a model folder's sub-folder with its punctuation model for plain text
TEXT_MIXTURE = "mixture.json"  # in TEXT_MODEL: the CRF and weight plain text is restored with
TEXT_DECODER = "balanced"  # the exact decoder plain text is restored with by default
UNKNOWN_SHARE = 0.1   # warn when more of the input's punctuation tokens than this are unknown
_WATCHED = 1000       # ... counted over the first sentences (at most this many)
_PREDICTED = ("it and every such sentence are tagged by the model's tagger, so the score is of "
              "predicted tags, not comparable with one of gold tags")


@dataclass(frozen=True)
class Perplexity:
    """Per-slot perplexity exp(−log p / slots) of a corpus, every sentence counted:
    ``sentences`` and ``slots`` counted, ``log_prob`` the natural log p(x | T) summed over the
    sentences, ``value`` the perplexity (also ``float(...)``)."""

    sentences: int
    slots: int
    log_prob: float

    @property
    def value(self) -> float:
        """The perplexity (NaN for a corpus without slots)."""
        return math.exp(-self.log_prob / self.slots) if self.slots else math.nan

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return (f"<fstpunct.Perplexity {self.value:.4f} ({self.sentences} sentences, "
                f"{self.slots} slots, log p {self.log_prob:.4f})>")


class Model:
    """A trained punctuation model (see :func:`load`): decode, restore, normalise and rephrase
    punctuation (and, a correction model's, correct it), score it (``log_prob``,
    ``perplexity``), show and draw it. Every method's ``data`` is a CoNLL-U string (the answer
    is a string too), a path or standard split name (``"hi:dev"``) or an iterable of
    ``conllu.TokenList`` (the answer is an iterator of new TokenLists, streamed):
    :mod:`fstpunct.api.data`. Bad CoNLL-U raises :class:`~fstpunct.errors.ConlluError`, an
    unusable option or file :class:`~fstpunct.errors.InputError` (both ``ValueError``)."""

    def __init__(self, punct: PunctModel, folder: Path, name: str,
                 correction: CorrectionModel | None = None) -> None:
        self.punct, self.folder, self.name = punct, folder, name
        self.correction = correction  # a correction model's (punct is its learners' model)
        self._text_parts: dict[str, Any] = {}  # for_text's model, _text_crf's CRF: read once
        self._pipeline_parts: dict[Path, Tagger | ParserModel] = {}  # read once: _pipeline_part
        self._reading = threading.Lock()  # threads' first calls read each part once between them

    def __getstate__(self) -> dict[str, Any]:
        """A pickle (for a process pool's workers) without the lock, which cannot be pickled,
        and without the tagger and parser read so far (each copy reads its own when needed)."""
        state = self.__dict__.copy()
        del state["_reading"], state["_pipeline_parts"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._pipeline_parts = {}
        self._reading = threading.Lock()

    def __repr__(self) -> str:
        return f"<fstpunct.Model {self.name!r} ({self.direction})>"

    @property
    def record(self) -> dict[str, Any]:
        """``model.json``: settings, how the model was trained, and any evaluation."""
        return read_record(self._punct_folder)

    @cached_property
    def language(self) -> str | None:
        """The model's language, if it has standard splits (``"en"``): the one its
        :attr:`record` names, its training grammar's or its name's, as :meth:`rules` reads it
        (:func:`~fstpunct.apps.rules.model_language`); None if none is known."""
        from ..apps.rules import folder_language
        return folder_language(self._punct_folder, self.name)

    @property
    def _punct_folder(self) -> Path:
        """The folder of :attr:`punct`: a correction model's ``learner/``, else :attr:`folder`."""
        return self.folder / "learner" if self.correction else self.folder

    def edit_counts(self) -> np.ndarray | None:
        """The expected edit counts per (a, b, edit) the channel was trained with, or None when
        the folder stores none (a correction model's learner does not); damaged ones are a
        :class:`~fstpunct.errors.ModelError`."""
        if not (self._punct_folder / EDIT_COUNTS).is_file():
            return None
        return load_edit_counts(self._punct_folder, self.punct.channel.phi.shape)

    @property
    def direction(self) -> str:
        """The channel's direction, ``ltr`` or ``rtl``."""
        return self.punct.channel.direction

    def decode(self, data: Data, *, posteriors: int = 0, pool: Pool | None = None,
               text: bool = False, format: str | None = None, lowercase: bool | None = None,
               tagger: Folder | Tagger | None = None, parser: Folder | ParserModel | None = None,
               beam: int | None = None, text_model: bool = True) -> Any:
        """The most probable underlying punctuation of every sentence: ``PunctL``/``PunctR``
        in each word's MISC (``PunctPost``: the ``posteriors`` most probable pairs),
        ``# underlying`` and ``# punct_logprob`` comments; earlier such annotations are
        replaced, everything else is kept. On ``pool`` (:func:`fstpunct.parallel.make_pool`),
        chunks of sentences in parallel, with the same output.

        A sentence without UPOS or tree (HEAD ``_``) is first tagged and parsed (see
        :meth:`pipeline`: ``lowercase``, True for ``--lowercase-input``, False for
        ``--cased-input``; ``tagger``, ``parser``, ``beam``; a parser of any
        punctuation mode, as the sentence keeps its marks, unlike :meth:`restore`'s). With
        ``text``, ``data`` is punctuated plain text (:mod:`fstpunct.api.data`): punctuation is
        split off the words by the marks the model knows; ``format="text"`` (the default for
        text) gives each sentence's T′ (``# underlying``) as a line (``posteriors`` are refused
        then: only CoNLL-U has them), and the model is :meth:`for_text`'s (unless
        ``text_model`` is false); text of blank lines only comes back blank, as
        :meth:`restore`'s does.

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read)."""
        from ..apps.text import analysed, refuse_hidden_posteriors, underlying
        refuse_count(0, posteriors=posteriors)
        refuse_hidden_posteriors(posteriors, output_format(format, text))
        _check_pool(pool)
        _check_pipeline(tagger, parser, beam)
        pipeline = self._pipeline_loader(lowercase, tagger, parser, beam)
        punct = self._model_for(text and text_model)
        return self._rewrite(data, lambda s: annotate(punct, analysed(s, pipeline), posteriors,
                                                      pool=pool),
                             punct=punct, text=self.tokeniser() if text else None, format=format,
                             line=underlying, tree=None)

    def for_text(self) -> PunctModel:
        """The punctuation model for plain text: the folder's ``text/`` model if it has one (a
        bundled language's model trained on the trees the bundled tagger and parser give its
        training sentences, jackknifed; RESULTS.md, "Restoration from text"), else this one;
        read once per model (by one thread, as the tagger and parser)."""
        folder = self.folder / TEXT_MODEL
        return self._read_once(self._text_parts, "model", lambda: load_model(folder)
                               if (folder / "model.json").is_file() else self.punct)

    def text_mixture(self) -> tuple[Path, float] | None:
        """The CRF folder and the model's weight that :meth:`restore` mixes with for plain text
        by default (``text/mixture.json``: for a bundled language, the choice of fewest edits
        on plain dev text; RESULTS.md, "Restoration from text"), or None (no mixture); read
        once per model."""
        return self._stored_mixture

    @cached_property
    def _stored_mixture(self) -> tuple[Path, float] | None:
        path = self.folder / TEXT_MODEL / TEXT_MIXTURE
        if not path.is_file():
            return None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return path.parent / stored["crf"], float(stored["weight"])
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise ModelError(f"{path}: not a text mixture (JSON with 'crf' and 'weight'): "
                             f"{e}") from e

    def _text_crf(self) -> CrfModel | None:
        """:meth:`text_mixture`'s CRF (None: no mixture), loaded once per model (not at every
        restore call; by one thread, as the tagger and parser: cached_property takes no lock
        from Python 3.12 on)."""
        from ..apps.restoration.crf import CrfModel
        mixture = self.text_mixture()
        if mixture is None:
            return None
        return self._read_once(self._text_parts, "crf", lambda: CrfModel.load(mixture[0]))

    def _model_for(self, text: bool) -> PunctModel:
        """:meth:`for_text`'s model for ``text``, else this one."""
        return self.for_text() if text else self.punct

    def pipeline(self, *, lowercase: bool | None = None, tagger: Folder | Tagger | None = None,
                 parser: Folder | ParserModel | None = None, beam: int | None = None
                 ) -> Pipeline:
        """The tagger and parser that text and unparsed CoNLL-U go through: those in this
        model's folder (``tagger/``, ``parser/``; for ``lowercase`` text
        ``tagger-lc/`` and ``parser-lc/`` if there is one; ``lowercase=None``, the case not
        known: ``tagger-lc/`` for the sentences without capital letters; see
        :func:`fstpunct.parser.pipeline.load_pipeline`), or the folders (or loaded models)
        ``tagger`` and ``parser``; parser beam ``beam`` (default: the parser's). The bundled
        parser is ``removed``-mode; a given ``parser`` parses in its own mode (:meth:`restore`
        checks that it is ``removed``-mode, :meth:`decode` takes any). The folder's own are
        read once per model (what :meth:`restore` and :meth:`decode` use for text too) and shared:
        the pipeline's tagger and parser are the model's own, so a change to them (``weights``)
        is seen by every later call; a ``tagger`` or ``parser`` given as a folder is read at
        each call: pass a loaded one to a service's calls."""
        _check_pipeline(tagger, parser, beam)
        return self._pipeline_loader(lowercase, tagger, parser, beam)()

    def _pipeline_loader(self, lowercase: bool | None, tagger: Folder | Tagger | None,
                         parser: Folder | ParserModel | None, beam: int | None
                         ) -> Callable[[], Pipeline]:
        """:meth:`pipeline`, loaded when first called; its arguments checked by
        :func:`_check_pipeline` first."""
        def load() -> Pipeline:
            from ..parser.pipeline import load_pipeline  # here: the parser imports scipy
            return load_pipeline(self.folder, lowercase, tagger, parser, beam, self._pipeline_part)
        return load

    def _tagging(self) -> Pipeline:
        """The folder's own tagger (and lower-case tagger) as :meth:`pipeline` loads them,
        without its parser: what tagging alone needs."""
        from ..parser.pipeline import load_pipeline  # here: the parser imports scipy
        return load_pipeline(self.folder, read=self._pipeline_part, parse=False)

    def _pipeline_part(self, kind: type[Tagger] | type[ParserModel], folder: Path
                       ) -> Tagger | ParserModel:
        """The tagger or parser in the folder's own ``folder``, read once per model (by one
        thread: a copy is about 100 MiB); a part read already is returned without waiting for
        another thread's reading."""
        return self._read_once(self._pipeline_parts, folder, lambda: kind.load(folder))

    def _read_once(self, cache: dict, key: object, read: Callable[[], Any]) -> Any:
        """``cache[key]``, ``read()`` once per model: by one thread while the others wait (a
        first call's reading); a part read already is returned without taking the lock."""
        part = cache.get(key)
        if part is None:
            with self._reading:
                part = cache.get(key)
                if part is None:
                    part = cache[key] = read()
        return part

    def tokeniser(self) -> Tokeniser:
        """How plain text is split for this model (``text=True``): at its marks, a
        possessive's apostrophe a word if its :attr:`language` is English
        (:func:`~fstpunct.apps.text.tokeniser`); for :func:`~fstpunct.ud.text.read_text`."""
        from ..apps.text import tokeniser
        return tokeniser(self.language, self.punct.vocab.tokens)

    def restore(self, data: Data, *, decoder: str | None = None, samples: int | None = None,
                mbr: str | None = None, seed: int | None = None,
                parsers: Folder | ParserModel | Sequence[Folder | ParserModel] = (),
                beam: int | None = None, pool: Pool | None = None, text: bool = False,
                format: str | None = None, lowercase: bool | None = None,
                tagger: Folder | Tagger | None = None, mix_crf: Folder | CrfModel | None = None,
                mix_weight: float | None = None, text_model: bool = True, width: str = "input"
                ) -> Any:
        """Strip every sentence's punctuation and restore it given the tree, or given the trees
        of ``parsers`` (folders of ``removed``-mode parsers, or one, beam ``beam``; the first
        one's tree is kept; the command's ``--parser``, given once per parser, so one keyword
        holds them all): by default the exact minimum-Bayes-risk choice under the model, no
        sampling (``decoder``: ``slot``, each slot's least-risk string, or ``balanced``, paired
        marks kept balanced; the default: ``balanced`` with ``text`` and ``text_model``, the
        text path's model and mixture, else ``slot``); with ``samples``, minimum Bayes risk
        (``mbr``: ``sentence``, the default, or ``slot``) over that many samples, reproducible
        for a ``seed`` (default 0). ``decoder``, ``mix_crf`` and ``mix_weight`` are refused
        with ``samples``, ``mbr`` and ``seed`` without, ``mix_weight`` without a CRF to weigh
        (``mix_crf`` or text's bundled mixture) (an InputError: they would be ignored).
        On ``pool``, chunks of sentences in parallel, with the same output.

        A sentence without UPOS or tree (HEAD ``_``) is first tagged by :meth:`pipeline` (with
        ``lowercase``: True for ``--lowercase-input``, False for ``--cased-input``; and
        ``tagger``) and parsed once: by ``parsers`` if any, else by the
        pipeline's parser. A ``tagger`` that is no folder, then a ``beam`` that is not a whole
        number of at least 1, is refused before any of ``parsers`` loads (as the command line
        does; a folder that is not a parser model is the error after them).
        With ``text``, ``data`` is plain text, one sentence a line (:mod:`fstpunct.api.data`;
        any punctuation in it is split off the words, then replaced like any other), given back
        as text (``format="conllu"``: CoNLL-U), and restored by :meth:`for_text`'s model mixed
        as :meth:`text_mixture` says (unless ``text_model`` is false: this model, unmixed).
        Text is given back line for line: a blank line (white space only) as an empty one, a
        line of punctuation only as it is (with a warning), and a string of blank lines only
        (no sentence) as its lines, blank (``""`` as ``""``, ``" "`` as ``"\\n"``), where
        CoNLL-U output is a :class:`~fstpunct.errors.ConlluError`, no sentences.

        ``mix_crf`` (a CRF folder of ``fstpunct crf train``, or a loaded one): the exact decoder
        chooses under each slot's mixture of the model's distribution (weight ``mix_weight``,
        by default :meth:`text_mixture`'s for text, else 0.5; 1: the model alone, the CRF not
        run) and the CRF's marginals (:mod:`fstpunct.apps.restoration.mixture`); by default
        :meth:`text_mixture`'s CRF for text restored by an exact decoder, else none.

        ``width`` (``input``, ``full``, ``half``): the width the marks are written in; ``input``:
        that of the input's punctuation, else the model's forms. Quotes are written straight
        (``"``) or curly (``“ ”``) as the input's are, else in the model's forms, whatever the
        width. Both are found by reading up to 1,000 sentences ahead before the first answer
        (:mod:`fstpunct.ud.width`; :meth:`restore_lines` decides them per line, reading none
        ahead).

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read): for a text
        file or lines of text, in the default ``format``, of lines without their line ends
        (:meth:`restore_lines` gives each with its line end)."""
        step, punct = self._restoring(decoder, samples, mbr, seed, parsers, beam, pool, text,
                                      lowercase, tagger, mix_crf, mix_weight, text_model)
        return self._rewrite(data, step, width, punct, text=self.tokeniser() if text else None,
                             format=format, tree=None)

    # restore_lines' options: restore's keywords but text and pool (plain text, a line at a time)
    _LINE_OPTIONS = frozenset(inspect.signature(restore).parameters) - {"self", "data", "text",
                                                                        "pool"}

    def restore_lines(self, lines: Iterable[str] | os.PathLike[str] | TextReader, *,
                      format: str | None = None, width: str = "input", **options: Any
                      ) -> Iterator[str]:
        """Plain text restored line by line, for a process that writes a line and waits for its
        answer (``restore --text --line-buffered``): each line's answer is given before the
        next line is read, as :meth:`restore` gives a one-line string (``text=True``) back: the
        line restored with its line end, a blank line as its line end (with
        ``format="conllu"``: the sentence's CoNLL-U, ``""`` for a blank line; text of blank
        lines only is then the error "no sentences"). Width and quotes are decided line by line
        as for such a string (:meth:`restore`'s ``width``), not once for the text (with
        ``samples``, the k-th sentence draws from stream k, as in one call on the whole
        text). ``lines``: an iterable of strings (a file, ``sys.stdin``, a list), a text
        file's ``os.PathLike`` (a ``str`` is refused: it could be a line) or a
        :class:`~fstpunct.ud.text.TextReader` (read as it is, its tokeniser too); ``options``:
        :meth:`restore`'s (but ``text`` and ``pool``). It costs more CPU per line than one
        call on the text: no batching (README, "Lines")."""
        from ..ud.text import TextReader, line_by_line, read_text, read_text_file
        for name in options:
            if name not in self._LINE_OPTIONS:
                raise TypeError(f"restore_lines() got an unexpected keyword argument {name!r}")
        if isinstance(lines, (str, bytes)):
            raise TypeError("restore_lines: lines are an iterable of strings (a file, "
                            "sys.stdin, a list) or a pathlib.Path, not one "
                            f"{type(lines).__name__}")
        conllu = output_format(format, True) == "conllu"
        step, punct = self._restoring(text=True, **options)
        run = self._run(step, width, punct)
        reader = (lines if isinstance(lines, TextReader) else
                  read_text_file(lines, self.tokeniser()) if isinstance(lines, os.PathLike)
                  else read_text(lines, "<lines>", self.tokeniser()))
        return line_by_line(reader, run, conllu)

    def _restoring(self, decoder: str | None = None, samples: int | None = None,
                   mbr: str | None = None, seed: int | None = None,
                   parsers: Folder | ParserModel | Sequence[Folder | ParserModel] = (),
                   beam: int | None = None, pool: Pool | None = None, text: bool = False,
                   lowercase: bool | None = None, tagger: Folder | Tagger | None = None,
                   mix_crf: Folder | CrfModel | None = None, mix_weight: float | None = None,
                   text_model: bool = True) -> tuple[Step, PunctModel]:
        """:meth:`restore`'s step over sentences (its options checked, its parsers loaded) and
        the model that reads them; the tagger and parser loaded at the step's first sentence
        that needs them, once for every run of the step."""
        from ..apps.text import restored_text
        from ..parser import Model as ParserModel
        from .parsing import load_parser
        _check_pool(pool)
        refuse_missing({"parsers (--parser)": parsers})  # before any of them loads
        method = self.restorer(decoder=decoder, samples=samples, mbr=mbr, seed=seed,
                               text=text and text_model, mix_crf=mix_crf,
                               mix_weight=mix_weight)
        # the tagger and the beam (the parsers' too) checked once, before any parser loads
        _check_pipeline(tagger, None, beam)
        if isinstance(parsers, (str, os.PathLike, ParserModel)):
            parsers = [parsers]
        loaded = [load_parser(p) for p in parsers]
        for p in loaded:  # they parse the stripped sentences
            p.expect_mode("removed", "restoration with a parser")
        if samples is not None and len(loaded) > samples:
            raise InputError(f"samples must be at least the number of parsers, {len(loaded)}, "
                             f"not {samples}")
        pipeline = functools.cache(self._pipeline_loader(
            lowercase, tagger, loaded[0] if loaded else None, beam))  # the first parses text
        return (lambda s: restored_text(s, method, loaded, beam, pipeline, text, pool=pool),
                self._model_for(text and text_model))

    def restorer(self, *, decoder: str | None = None, samples: int | None = None,
                 mbr: str | None = None, seed: int | None = None, text: bool = False,
                 mix_crf: Folder | CrfModel | None = None, mix_weight: float | None = None
                 ) -> Restorer:
        """The restoration method of :meth:`restore` (same arguments; ``text``: the plain-text
        path's, i.e. :meth:`for_text`'s model, :meth:`text_mixture`'s defaults and the
        ``balanced`` decoder by default)."""
        # imported here: restoration brings the parser, with scipy and tqdm (slow to import)
        from ..apps.restoration.crf import CrfModel, installed
        from ..apps.restoration.exact import EXACT_DECODERS, ExactRestorer
        from ..apps.restoration.generative import ModelRestorer, check_sampling
        from ..apps.restoration.mixture import MixedRestorer
        mbr, seed = check_sampling(samples, {"decoder": decoder, "mix_crf": mix_crf,
                                             "mix_weight": mix_weight}, mbr, seed)
        if decoder is None:  # text: no unpaired mark, edits not significantly worse (RESULTS.md)
            decoder = TEXT_DECODER if text else "slot"
        refuse_choice("decoder", decoder, sorted(EXACT_DECODERS))
        punct = self._model_for(text)
        stored = self.text_mixture() if text and samples is None else None
        refuse_unused({"mix_weight": mix_weight is not None and mix_crf is None and not stored},
                      "only with mix_crf (--mix-crf) or the bundled mixture of plain text, the "
                      "CRF it weighs the model against")
        if stored and mix_crf is None and not installed():
            unused = "" if mix_weight is None else f"; mix_weight={mix_weight} is unused"
            warn_user("python-crfsuite is not installed: plain text is restored without "
                      f"the bundled CRF mixture (pip install python-crfsuite){unused}")
        elif stored:
            mix_crf = self._text_crf() if mix_crf is None else mix_crf
            mix_weight = stored[1] if mix_weight is None else mix_weight
        if mix_crf is not None:
            crf = mix_crf if isinstance(mix_crf, CrfModel) else CrfModel.load(mix_crf)
            return MixedRestorer(punct, crf, 0.5 if mix_weight is None else mix_weight, decoder)
        return ExactRestorer(punct, decoder) if samples is None else \
            ModelRestorer(punct, samples, mbr, seed)

    def normalise(self, data: Data, *, counts: Counts | None = None,
                  pool: Pool | None = None) -> Any:
        """Re-attach every punctuation token to the word whose underlying puncteme wrote it
        (Tse & Curran 2010); ``counts`` (a :class:`fstpunct.apps.normalise.Counts`) tallies
        what moved. On ``pool``, chunks of sentences in parallel, with the same output. A
        sentence whose UPOS is ``_`` is tagged first (:meth:`_tagged`; so are rephrase's,
        show's and the drawings').

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read);
        ``counts`` is complete once the answer is read to its end."""
        from ..apps.normalise import Counts, normalise
        _check_pool(pool)
        if counts is not None and not isinstance(counts, Counts):  # before any sentence is read
            raise TypeError("counts: a fstpunct.apps.normalise.Counts (Counts()), or None, not "
                            f"{type(counts).__name__}")
        return self._rewrite(data, lambda s: normalise(self.punct, self._tagged(s), counts,
                                                       pool=pool))

    def rephrase(self, data: Data, *, method: str = "full", order: str | os.PathLike[str] |
                 None = None, seed: int = 0, samples: int = 1, permute: bool | None = None,
                 delete: str | Iterable[str] = (), delete_parens: bool = False,
                 best_surface: bool = False, tree: str = "viterbi",
                 rewrite_all: bool = False, balance: bool = True, width: str = "input") -> Any:
        """Rephrase every sentence (paper §6.3) ``samples`` times: self-permute it (the
        dependents of every NOUN and VERB re-ordered by sampling the ordering model ``order``,
        by default the one beside this model; ``permute`` defaults to yes unless deleting)
        and/or delete the constituents with the relations ``delete`` (names, or one string of
        them joined by commas, ``"appos,parataxis"``; ``delete_parens``: those
        whose underlying punctemes are brackets), then write the punctuation: ``method`` full
        (T′ transformed — ``tree`` ``viterbi``: the Viterbi T′, ``sample``: a posterior draw
        per sample — each changed slot drawn through the channel, or every slot with
        ``rewrite_all``; ``best_surface``: its most probable output), half (the underlying marks
        as they are) or base (punctuation tokens moved like words; with ``delete_parens``
        the bracketed constituents are found on the model's T′, so ``tree`` and ``balance``
        apply). When deleting, ``balance`` (full and half) takes the best T′ whose paired
        marks match and prints both marks of every pair in a shortened sentence (an orphaned
        quote whose partner the input's channel absorbed gets it back). Reproducible for a
        ``seed``. ``width``: as :meth:`restore`'s.

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read)."""
        from ..apps.rephrase.order import NoOrderingModel, OrderModel, order_path
        from ..apps.rephrase.rephrase import Options, deleted_relations, rephrase
        delete = deleted_relations(delete)
        if permute is None:
            permute = not (delete or delete_parens)
        refuse_unused({"order": order is not None and not permute},
                      "only when permuting (by default, unless deleting; permute=True, "
                      "--permute yes)")
        options = Options(method, seed, samples, permute, delete, delete_parens,
                          best_surface=best_surface, tree=tree, rewrite_all=rewrite_all,
                          balance=balance)
        if permute and order is None and \
                not Path(order_path(self.folder)).with_suffix(".json").is_file():
            shipped = ", ".join(sorted(p.name for p in BUNDLED.iterdir()
                                       if Path(order_path(p)).with_suffix(".json").is_file()))
            raise NoOrderingModel(f"{self.name!r} has no ordering model to re-order with (no "
                                  f"order.json in its folder; bundled for {shipped})")
        ordering = OrderModel.load(order_path(order or self.folder)) if permute else None
        return self._rewrite(data, lambda s: rephrase(self._tagged(s), self.punct, ordering,
                                                      options), width)

    def correct(self, data: Data, *, decoder: str | None = None, samples: int | None = None,
                mbr: str | None = None, seed: int | None = None,
                parser: str | os.PathLike[str] | ParserModel | None = None,
                beam: int | None = None, edit_cost: float | None = None,
                support: float | None = None, width: str = "input") -> Any:
        """Correct every sentence's punctuation (paper §6.2; a correction model only, as
        ``scripts/correction.py train`` writes): given its tree, or the tree ``parser`` (a
        ``tokens``-mode parser trained on learner English, beam ``beam``) gives the punctuated
        sentence, the learner's underlying punctuation T_e′, then the minimum-Bayes-risk
        punctuation under the corrector: exact (``decoder``: ``balanced``, ``slot``, or
        ``learner``: balanced where the learner's own marks balance; default: the one stored
        in the model with its decoding, else ``balanced``) or, with
        ``samples``, over that many samples (``mbr``: ``sentence``, the default, or ``slot``;
        ``seed``, default 0). The exact decoders charge ``edit_cost`` per token edited away
        from the learner's string and keep a learner string whose probability is below
        ``support`` (default: the values stored in the model for the trees' source — with
        ``parser``, those chosen on a parser's trees if stored —, chosen on dev; else 0 and
        0). Words and tree are kept; ``# text`` is rebuilt. ``width``: as :meth:`restore`'s.
        An option that would be ignored is an InputError: ``decoder``, ``edit_cost``,
        ``support`` with ``samples``, ``mbr`` and ``seed`` without, ``beam`` without
        ``parser``.

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read)."""
        from ..apps.correction.correct import corrected
        from ..apps.text import refuse_untagged
        from ..parser import parse
        if self.correction is None:
            raise ModelError(f"{self.name!r} is not a correction model (a folder with "
                             f"{CORRECTION_RECORD})")
        refuse_unused({"beam": beam is not None and parser is None},
                      "only with parser (--parser), the beam it parses with")
        refuse_missing({"parser (--parser)": parser})
        from .parsing import load_parser
        p = None
        if parser is not None:  # it parses the learner's punctuated sentences
            refuse_count(1, beam=beam)  # before the parser loads
            p = load_parser(parser)
            p.expect_mode("tokens", "correction with a parser")
        correction = self.correction

        def step(sents: Iterator[Sentence]) -> Iterator[Sentence]:
            sents = refuse_untagged(sents, "correct reads tagged sentences (a correction model "
                                           "has no tagger): give every word its UPOS")
            if p is not None:
                sents = (parse(p, s, beam) for s in sents)
            return corrected(sents, correction, decoder, samples, mbr, seed,
                             edit_cost=edit_cost, support=support, parsed=p is not None)
        return self._rewrite(data, step, width)

    def parse(self, data: Data, parser: str | os.PathLike[str] | ParserModel, *,
              beam: int | None = None, punct_weight: float = 32.0) -> Any:
        """Punctuation as a constraint on parsing (Jones 1994), as ``fstpunct parse
        --punct-model`` does with this model: every sentence's tree chosen among the k best of
        ``parser`` (``--model``: a ``removed``-mode parser's folder or loaded model; beam
        ``beam``, ``--beam``, default the parser's own, at least 2) by parser score +
        ``punct_weight`` (``--punct-weight``: a finite number ≥ 0; 0 is the parser alone;
        default 32, chosen on en dev) · log p(x | T) under this model (a correction model's:
        its learners'). Lines and columns but HEAD and DEPREL are kept, as by
        :func:`fstpunct.parse` (the parser alone), but a UPOS ``_``, which this model's tagger
        fills in first (:meth:`_tagged`). Options are checked before any sentence is read.

        Returns the same kind as ``data`` (:class:`Model`): a string for a string, else an
        iterator, computed as it is read (no sentence is processed until it is read)."""
        from ..apps.constraint import check_constraint, constrained
        from .parsing import load_parser
        refuse_count(1, beam=beam)  # before the parser loads
        p = load_parser(parser)
        check_constraint(p, beam, punct_weight)
        return self._rewrite(data, lambda s: constrained(p, self.punct, self._tagged(s), beam,
                                                         punct_weight), tree=False)

    def rules(self, compare: str | os.PathLike[str] | None = None, *, lang: str | None = None,
              split: str | None = None, relations: Sequence[str] | None = None,
              ud_dir: str | os.PathLike[str] | None = None) -> LearnedRules:
        """What the model learned against the grammar ``compare`` (default: the one it was
        trained from), as ``fstpunct rules --model`` prints it (paper §5.1, Table 4): a
        :class:`~fstpunct.apps.rules.LearnedRules` (``.comparison``: confident learned edits
        and the rank of each grammar rule; ``.pairs``: the most probable (l, r) pairs of
        ``relations`` over ``lang``'s ``split``, by default the model's language's dev, none
        for ``relations=()``, no split read; a
        correction model: its learner model's, which stores no edit counts: ``.counted``)."""
        from ..apps.rules import learned_rules
        return learned_rules(self.punct, self.record.get("record"), self.edit_counts(),
                             self.name, compare, lang, split, relations, ud_dir)

    def log_prob(self, data: Data) -> Any:
        """log p(x | T) of every sentence's surface punctuation given its tree (natural log):
        a list for a CoNLL-U string, else an iterator. A sentence whose UPOS is ``_`` is tagged
        first, with a warning (:meth:`perplexity`)."""
        return values(data, lambda s: (lp for lp, _ in self._scored(s)))

    def perplexity(self, data: Data, *, pool: Pool | None = None) -> Perplexity:
        """Per-slot perplexity of the whole input (the paper's Table 3 measure), a
        :class:`Perplexity` (``.value``; ``.sentences``, ``.slots``, ``.log_prob``); on
        ``pool``, chunks of sentences in parallel (the same value). A sentence whose UPOS is
        ``_`` is tagged first (:meth:`_tagged`), with a warning: the value is then of predicted
        tags, not comparable with one of gold tags."""
        _check_pool(pool)
        sentences = slots = 0
        log_p = 0.0
        for lp, n in values(data, lambda s: self._scored(s, pool)):
            sentences, slots, log_p = sentences + 1, slots + n, log_p + lp
        return Perplexity(sentences, slots, log_p)

    def show(self, data: Data, path: str | os.PathLike[str] | None, *, pairs: int = 5,
             page_size: int = 200, grammar: str | os.PathLike[str] | None = None,
             title: str | None = None) -> int:
        """Write the HTML viewer of ``data`` to ``path`` (stdout for None or ``-``), whole or
        not at all (:mod:`fstpunct.show.report`): every sentence's underlying punctuation with
        each word's ``pairs`` most probable (l, r) pairs, ``page_size`` sentences a page, and
        what the channel learned against ``grammar`` (default: the one it was trained from).
        Returns how many sentences it shows."""
        from ..fst.default_grammar import model_grammar
        from ..fst.grammar import load_grammar
        from ..show.report import write_report
        refuse_count(0, pairs=pairs)
        refuse_count(1, page_size=page_size)
        counts = self.edit_counts()
        rules = load_grammar(grammar) if grammar else model_grammar(self.record.get("record", {}))
        return write_report(self.punct, self._watched(sentences(data)), path,
                            title or f"fstpunct · model {self.name}", rules, counts, pairs,
                            page_size)

    def draw_tree(self, data: Data, which: int | str = 1, name: str | None = None) -> str:
        """An SVG document of sentence ``which`` of ``data`` (its number from 1, or its
        ``sent_id``): its Viterbi underlying tree in word order, as ``fstpunct draw tree``
        draws it; ``name`` heads the caption (default: ``sentence WHICH``)."""
        from ..show.tree import sentence_svg
        sent = self._one_read(data, which)
        return sentence_svg(self.punct, sent, _caption(which, name))

    def draw_lattice(self, data: Data, slot: int, which: int | str = 1, *,
                     paths: int | None = None, samples: int | None = None, full: bool = False,
                     min_prob: float | None = None, name: str | None = None
                     ) -> graphviz.Digraph:
        """The ``graphviz.Digraph`` of slot ``slot`` of sentence ``which`` of ``data``, as
        ``fstpunct draw lattice`` draws it: its ``paths`` most probable underlying strings
        (default 10; posteriors from ``samples`` samples of T′, default 1000), or with ``full``
        the whole lattice (arcs of p ≥ ``min_prob``, default 0.01; refused when large; paths
        and samples refused with it, min_prob without it); ``.source`` is its dot text,
        ``.render`` draws it (with Graphviz's ``dot``); ``name``: as :meth:`draw_tree`'s."""
        from ..show.lattice import sentence_lattice
        sent = self._one_read(data, which)
        return sentence_lattice(self.punct, sent, slot, _caption(which, name), paths, samples,
                                full, min_prob)

    def _one_read(self, data: Data, which: int | str) -> Sentence:
        """Sentence ``which`` of ``data`` as the model reads it (:meth:`_watched`)."""
        return next(self._watched([one_sentence(data, which)]))

    def unknown_share(self, sentences: Iterable[Sentence]) -> tuple[int, int]:
        """(punctuation tokens, tokens unknown to the model) in ``sentences``."""
        return self._unknown([t for sent in sentences for t in punct_tokens(sent)])

    def _unknown(self, tokens: list[str]) -> tuple[int, int]:
        """(tokens, those unknown to the model) of the punctuation tokens ``tokens``."""
        return len(tokens), sum(m != t for t, m in zip(tokens, self.punct.vocab.map_slot(tokens)))

    def _scored(self, sents: Iterator[Sentence],
                pool: Pool | None = None) -> Iterator[tuple[float, int]]:
        """(log p(x | T), slots) of every sentence, one whose UPOS is ``_`` tagged first."""
        return scored(self.punct, self._watched(sents, _PREDICTED), pool=pool)

    def _rewrite(self, data: Data, step: Step, width: str | None = None,
                 punct: PunctModel | None = None, **options: Any) -> Any:
        """:func:`~fstpunct.api.data.rewrite` of ``step`` (``options``: its own) over the
        sentences as ``punct`` (default: this model) reads them, their punctuation written
        back as read; ``width``: that of the new sentences of a step that makes them (restore,
        correct, rephrase), None for one that makes none (:class:`~fstpunct.ud.width.Widths`)."""
        return rewrite(data, self._run(step, width, punct), **options)

    def _run(self, step: Step, width: str | None = None, punct: PunctModel | None = None
             ) -> Step:
        """``step`` over sentences as ``punct`` (default: this model) reads them, each run
        with its own :class:`~fstpunct.ud.width.Widths` (:meth:`_rewrite`)."""
        if width is not None:
            checked(width)

        def run(sents: Iterator[Sentence]) -> Iterator[Sentence]:
            widths = Widths((punct or self.punct).vocab.tokens, width)
            return widths.apply(lambda read: step(self._warned(read)), sents)
        return run

    def _watched(self, sents: Iterable[Sentence], predicted: str = "") -> Iterator[Sentence]:
        """``sents`` as the model reads them (marks it does not know read as their width twins:
        :mod:`fstpunct.ud.width`), :meth:`_warned` and :meth:`_tagged` (``predicted``: its
        warning)."""
        return self._tagged(self._warned(Widths(self.punct.vocab.tokens).read(sents)), predicted)

    def _tagged(self, sents: Iterable[Sentence], predicted: str = "") -> Iterator[Sentence]:
        """``sents`` (with trees), each :func:`~fstpunct.apps.text.untagged` one tagged as
        :meth:`decode` tags it by default: by the model's own tagger (:meth:`_tagging`), loaded
        at the first such sentence (refused if the model has none); ``predicted``: what is then
        warned (a score of predicted tags is not one of gold tags)."""
        from ..apps.text import untagged, untagged_error
        pipeline: Pipeline | None = None
        for sent in sents:
            if untagged(sent):
                if pipeline is None:
                    if not (self.folder / "tagger").is_dir():
                        raise untagged_error(sent, f"model {self.name!r} has no tagger (tagger/) "
                                                   "to tag it: give every word its UPOS")
                    if predicted:
                        warn_user(f"{sent.place}: UPOS is '_'; {predicted}")
                    pipeline = self._tagging()
                sent = pipeline.tagged(sent)
            yield sent

    def _warned(self, sents: Iterable[Sentence]) -> Iterator[Sentence]:
        """``sents`` (as read), with a warning when many of the first ones' punctuation tokens
        are unknown to the model (a model of another language, say)."""
        seen: list[str] | None = []  # the first sentences' tokens, as read (not written back)
        read = 0
        for sent in sents:
            if seen is not None:
                seen += punct_tokens(sent)
                read += 1
                if read == _WATCHED:
                    self._check(seen, f" in the first {_WATCHED:,} sentences")
                    seen = None
            yield sent
        if seen is not None:
            self._check(seen)

    def _check(self, seen: list[str], where: str = "") -> None:
        """Warn when more than UNKNOWN_SHARE of the tokens ``seen`` (those of the whole input,
        else ``where`` says which sentences) are unknown to the model."""
        tokens, unknown = self._unknown(seen)
        if tokens and unknown > UNKNOWN_SHARE * tokens:
            warn_user(f"{unknown} of {counted(tokens, 'punctuation token')}{where} "
                      f"({100 * unknown / tokens:.0f}%) {'is' if unknown == 1 else 'are'} "
                      "unknown to the model "
                      f"{self.name!r}: is it the input's language?")


def _check_pipeline(tagger: Folder | Tagger | None, parser: Folder | ParserModel | None,
                    beam: int | None) -> None:
    """The tagger, parser and beam of a pipeline (:meth:`Model.pipeline`) checked before any
    file or sentence is read: a folder that is not one, a beam that is not a whole number of
    at least 1 (an InputError)."""
    refuse_missing({"tagger (--tagger)": tagger, "parser (--parser)": parser})
    refuse_count(1, beam=beam)


def _check_pool(pool: Pool | None) -> None:
    """A TypeError if ``pool`` is not a Pool or None, saying what it should be (before any
    sentence is read)."""
    if pool is not None and not isinstance(pool, Pool):
        raise TypeError("pool: a fstpunct.parallel.Pool (fstpunct.parallel.make_pool(jobs)), "
                        f"not {type(pool).__name__}")


def _caption(which: int | str, name: str | None) -> str:
    """What a drawing of sentence ``which`` calls it: ``name``, by default ``sentence WHICH``."""
    return f"sentence {which}" if name is None else name


def load(name: str | os.PathLike[str]) -> Model:
    """A model by bundled name (``"en"``; :func:`fstpunct.bundled_models` lists them) or folder
    (what ``fstpunct train`` writes). A bare name is the bundled model even where a local folder
    of that name exists (with a warning); write ``./en`` or pass a ``pathlib.Path`` for the
    folder."""
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"load: name must be a model name or folder, not {type(name).__name__}")
    folder = found_model(name)  # (refused as given: ./en keeps its ./)
    if is_correction_model(folder):  # a correction model: its learners' model
        from ..apps.correction.model import CorrectionModel
        correction = CorrectionModel.load(folder)
        return Model(correction.learner, folder, os.fspath(name), correction)
    return Model(load_model(name, folder), folder, os.fspath(name))
