"""Training a model folder from Python, as ``fstpunct train`` does (the command is a thin layer
over :func:`train`): the data read, the grammar chosen (the language's rule file, else the
default grammar written from the training data), EM in the grammar's direction or in both, and
the folder written whole with its training record."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import (
    InputError,
    check_seed,
    refuse_choice,
    refuse_count,
    refuse_type,
    refuse_unused,
)
from ..files import model_target
from ..fst.channel import DIRECTIONS
from ..fst.default_grammar import GRAMMARS, default_rules
from ..fst.grammar import load_grammar, parse_grammar
from ..model.punct import Settings
from ..model.store import FILES, KIND, save_model
from ..parallel import Pool
from ..ud.recorded import named, ranges
from ..ud.release import Source, resolve_one, split_source
from ..ud.slots import SlotSentence, to_slots
from ..ud.treebank import Sentence
from ..wording import counted
from .choice import language_of
from .data import is_text, one_tokenlist
from .model import Folder, Model, load

if TYPE_CHECKING:  # the tagger: imported when one is trained
    from ..parser.tagger import Tagger

__all__ = ["DEFAULT_GRAMMAR", "train", "train_tagger"]

DEFAULT_GRAMMAR = "default"  # grammar=: the default grammar even where a rule file exists


def _told_language(sources: list[Source]) -> str | None:
    """The language the training files' UD release names tell, if they all tell the same;
    else None. Only names with ``-ud-`` tell one (``en_ewt-ud-train.conllu``; a split name such
    as ``en:train`` or ``en_ewt-train`` is read from such a file): ``my-train.conllu`` or
    ``fce-train.conllu`` would otherwise be language 'my' or 'fce' in the model's record, its
    default grammar and its channel."""
    told = {language_of(s.path) if "-ud-" in Path(s.path).name else None for s in sources}
    return told.pop() if len(told) == 1 else None


def _slots(sources: list[Source]) -> list[SlotSentence]:
    return [to_slots(s) for s in _gold_tagged(sources)]


def _gold_tagged(sources: list[Source]) -> Iterator[Sentence]:
    """The sources' sentences, the first with a UPOS ``_`` refused: training reads gold tags
    (the Attach features and the tagger's labels are the UPOS)."""
    from ..apps.text import refuse_untagged
    return refuse_untagged((s for src in sources for s in src.sentences()),
                           "training reads tagged sentences: give every word its UPOS "
                           "(fstpunct decode --lang L tags them)")


def train(output: Folder, data: Folder | Source | Sequence[Folder | Source] = (), *,
          lang: str | None = None, dev: Folder | Source | Sequence[Folder | Source] = (),
          grammar: Folder | None = None,
          init: str = "nunberg", direction: str | None = None, iterations: int = 10,
          attach_iterations: int | None = None, settings: Settings | None = None,
          seed: int = 0, pool: Pool | Callable[[], AbstractContextManager[Pool]] | None = None,
          ud_dir: Folder | None = None, command: str | None = None,
          log: Callable[[str], None] = lambda _: None,
          started: Callable[[str | None, int], None] | None = None,
          report: Callable[[int, float, float], None] | None = None,
          progress: Callable[[int], None] | None = None, patience: int | None = None) -> Model:
    """Train a punctuation model on the CoNLL-U files, split names or :func:`fstpunct.split`
    sources ``data`` (one or several; without them, language ``lang``'s standard train split,
    and its dev split unless ``dev`` is given), write it to the folder ``output`` and return it
    loaded.

    ``grammar``: a rule file, or ``"default"``; by default ``grammars/LANG.rules`` where it
    exists (LANG: ``lang``, else what the files' UD names tell when they agree), else the
    default grammar, whose direction is chosen by perplexity on ``dev`` (both are trained) unless
    ``direction`` is given. ``init``, ``iterations``, ``attach_iterations``, ``settings``,
    ``seed``, ``patience``: as ``fstpunct train``'s options (``attach_iterations`` None: its
    default; ``patience`` None: every iteration runs and the last is kept). The
    E-steps run on ``pool``: a pool, or a function that opens one (called once the data and
    the grammar are read, the pool closed after training). ``log`` receives a line on the data
    and one on the saved model; ``started(direction, sentences)`` is called before each EM run
    (``direction`` None when only one is trained), ``report`` and ``progress`` as
    :func:`fstpunct.model.fit.train` calls them. ``command`` is recorded in ``model.json``.
    The arguments, the output folder, the files' names and the rule file are checked before
    any data is read (InputError). If something is put into ``output`` while training runs,
    the model is written to a new folder beside it and
    :class:`~fstpunct.errors.SavedAside` (an InputError) names that folder as its ``saved``
    (:func:`~fstpunct.files.model_folder`)."""
    # imported here: training brings the M-step and its workers, which the API's other
    # methods (and the commands that import it) never need
    from ..model.fit import check_directions, check_patience
    from ..model.fit import train as fit
    from ..model.train import ATTACH_ITERATIONS, INITS, check_iterations
    refuse_type("train", "settings", settings, Settings,
                "a fstpunct.model.punct.Settings (Settings(lexical=0))")
    refuse_type("train", "grammar", grammar, (str, os.PathLike),
                f"a rule file's path, {DEFAULT_GRAMMAR!r},")
    refuse_type("train", "pool", None if callable(pool) else pool, Pool,
                "a fstpunct.parallel.Pool, a function that opens one,")
    settings = settings or Settings()
    attach_iterations = ATTACH_ITERATIONS if attach_iterations is None else attach_iterations
    check_iterations(iterations, attach_iterations)
    refuse_choice("init", init, INITS)
    if direction is not None:
        refuse_choice("direction", direction, DIRECTIONS)
    seed = check_seed(seed)
    model_target(output, FILES, KIND)  # said before training, not after
    sources, dev_sources = _sources(data, dev, lang, ud_dir, "train")
    lang = lang or _told_language(sources)
    rule_file = grammar or (GRAMMARS / f"{lang}.rules" if lang else None)
    rules = None
    if rule_file not in (None, DEFAULT_GRAMMAR) and (grammar or Path(rule_file).is_file()):
        rules = load_grammar(rule_file)
        directions = [direction or rules.direction]
    else:  # the default grammar, written from the training data once it is read
        # the identity channel (Attach) reads the same either way
        directions = ([direction] if direction else
                      [DIRECTIONS[0]] if init == "identity" else list(DIRECTIONS))
    check_directions(directions, bool(dev_sources))
    check_patience(patience, bool(dev_sources))
    prepared = _slots(sources)
    usable = [s for s in prepared if s.trainable]
    log(f"training on {counted(len(usable), 'sentence')} ({len(prepared) - len(usable)} omitted: "
        "punctuation with dependents)")
    rules_text = None
    if rules is None:
        rules_text = default_rules(usable, lang or "und")
        rules = parse_grammar(rules_text, "<default>")
    held_out = _slots(dev_sources)
    opening = nullcontext(pool) if pool is None or isinstance(pool, Pool) else pool()
    begun = time.time()
    with opening as opened:
        trained = fit(usable, rules, directions, dev=held_out, init=init, settings=settings,
                      iterations=iterations, attach_iterations=attach_iterations, seed=seed,
                      pool=opened, report=report, progress=progress, patience=patience,
                      started=started and (lambda d: started(d if len(directions) > 1 else None,
                                                             len(usable))))
    model, history = trained.model, trained.history
    record = {"fstpunct": __version__, "command": command or "fstpunct.train",
              "language": lang or rules.language,
              "data": named(sources), "sentences": len(usable),
              "omitted": len(prepared) - len(usable),
              "grammar": DEFAULT_GRAMMAR if rules_text else str(rule_file),
              "init": init, "direction": model.channel.direction,
              "iterations": iterations, "seed": seed,
              "objective": history.objective, "log_likelihood": history.log_likelihood,
              "seconds": round(time.time() - begun, 1)}
    if held_out:
        record["dev"] = named(dev_sources)
        record["dev_perplexity"] = trained.dev_perplexity
    if history.kept is not None:  # stopped by dev perplexity: the kept model's, and each one's
        record.update(patience=patience, kept_iteration=history.kept,
                      dev_perplexity_by_iteration=history.scores)
    parts = ranges(sources, dev_sources)
    if parts:
        record["ranges"] = parts
    if rules_text:
        record["default_grammar"] = rules_text.splitlines()
    save_model(model, output, record, history.edit_counts)
    chosen = (f", direction {model.channel.direction} by dev perplexity "
              + " / ".join(f"{d} {p:.4f}" for d, p in trained.dev_perplexity.items())
              if len(directions) > 1 else "")
    final = -1 if history.kept is None else history.kept
    kept = ("" if history.kept is None else f", iteration {final} kept (of "
            f"{len(history.scores) - 1} run) by dev perplexity {history.scores[final]:.4f}")
    log(f"saved {output} (objective {history.objective[final]:.1f}, "
        f"{record['seconds']} s{kept}{chosen})")
    return load(Path(output))


def train_tagger(output: Folder, data: Folder | Source | Sequence[Folder | Source] = (), *,
                 lang: str | None = None, dev: Folder | Source | Sequence[Folder | Source] = (),
                 lowercase: bool = False, epochs: int = 6, min_count: int = 2, seed: int = 0,
                 ud_dir: Folder | None = None, log: Callable[[str], None] = lambda _: None,
                 progress: bool = False) -> Tagger:
    """Train the UPOS tagger that plain text goes through (``--text``: a model folder's
    ``tagger/``, or with ``lowercase`` its ``tagger-lc/``), as ``fstpunct tagger train`` does,
    on the words of the CoNLL-U files, split names or :func:`fstpunct.split` sources ``data``
    without their punctuation (:func:`fstpunct.parser.tagger.depunctuated`); without them, on
    language ``lang``'s standard train split, and its dev split unless ``dev`` is given (with
    ``data``, ``lang`` is refused: the tagger records no language). The
    epoch of best ``dev`` accuracy is kept (no dev: the last); ``epochs`` and ``min_count``
    default to the bundled taggers'. ``log`` receives a line per epoch, ``progress`` draws a
    bar of each epoch on a terminal. The tagger is written whole to the folder ``output`` (a
    new or empty folder, or a tagger's) and returned. The arguments, the output folder and the
    files' names are checked (InputError) before any data is read. If something is put into
    ``output`` while training runs, the tagger is written to a new folder beside it and
    :class:`~fstpunct.errors.SavedAside` names that folder as its ``saved``."""
    from ..parser.tagger import FILES as TAGGER_FILES
    from ..parser.tagger import KIND as TAGGER_KIND
    from ..parser.tagger import depunctuated
    from ..parser.tagger import train_tagger as fit
    refuse_count(1, epochs=epochs)
    refuse_count(0, min_count=min_count)
    seed = check_seed(seed)
    refuse_unused({"lang": bool(lang and data)}, "names the standard splits to train on; with "
                  "data (--train), give dev with dev (--dev)")
    model_target(output, TAGGER_FILES, TAGGER_KIND)
    sources, dev_sources = _sources(data, dev, lang, ud_dir, "train_tagger")
    train = [depunctuated(s) for s in _gold_tagged(sources)]
    if not any(words for words, _ in train):
        raise InputError(f"{', '.join(str(s.path) for s in sources)}: no word to train a tagger on")
    held = [depunctuated(s) for s in _gold_tagged(dev_sources)]
    tagger = fit(train, held, epochs, lowercase, min_count, seed, log, progress)
    tagger.info.update(train=named(sources), dev=named(dev_sources), seed=seed)
    tagger.save(output)
    return tagger


def _sources(data: Folder | Source | Sequence[Folder | Source],
             dev: Folder | Source | Sequence[Folder | Source], lang: str | None,
             ud_dir: Folder | None, trainer: str) -> tuple[list[Source], list[Source]]:
    """A trainer's training and dev sources: ``data`` and ``dev`` (:func:`_names`), else
    ``lang``'s standard train split, and its dev split unless ``dev`` or ``data`` is given."""
    data, dev = (_names(f, what) for f, what in ((data, "data"), (dev, "dev")))
    sources = ([_source(f, ud_dir) for f in data] if data
               else [split_source(lang, "train", ud_dir)] if lang else [])
    if not sources:
        raise InputError(f"{trainer} needs data (files or split names) or lang")
    dev_sources = ([_source(f, ud_dir) for f in dev] if dev
                   else [split_source(lang, "dev", ud_dir)] if lang and not data else [])
    return sources, dev_sources


def _names(files: Folder | Source | Sequence[Folder | Source], what: str
           ) -> list[str | Source]:
    """The file or split names or :class:`Source` objects (``fstpunct.split``) ``files`` (one or
    several); InputError for anything else (a CoNLL-U string, ``conllu.TokenList`` sentences:
    :class:`Model`'s methods take those)."""
    # a bytes or a TokenList is named, not its items
    one = (isinstance(files, (str, os.PathLike, bytes, bytearray, Source))
           or one_tokenlist(files) or not isinstance(files, Iterable))
    names = [files] if one else list(files)
    for name in names:
        if isinstance(name, Source):
            continue
        if not isinstance(name, (str, os.PathLike)) or is_text(name):
            kind = "CoNLL-U text" if isinstance(name, str) else type(name).__name__
            raise InputError(f"{what}: CoNLL-U files or split names, not {kind} (write the "
                             "sentences to a file)")
    return [name if isinstance(name, Source) else os.fspath(name) for name in names]


def _source(name: str | Source, ud_dir: Folder | None) -> Source:
    return name if isinstance(name, Source) else resolve_one(name, ud_dir)
