"""Jackknifed parses: every sentence of a training set parsed by a parser that did not see it.

A model trained on a parser's trees of its own training sentences sees trees better than it
will get at test time (the parser was trained on them). Jackknifing splits the sentences into
folds and parses each fold with the parser (:func:`~fstpunct.parser.train.train`) trained on the
other folds, so the training trees carry the parser's held-out errors.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InputError
from ..ud.treebank import Sentence
from .decode import parse
from .model import Model
from .train import train

__all__ = ["jackknifed"]


def jackknifed(sentences: Sequence[Sentence], folds: Sequence[int], dev: Sequence[Sentence],
               mode: str, beam: int, work: str | Path,
               log: Callable[[str], None] | None = None,
               held_dev: Sequence[bool] | None = None, parsed: Sequence[Sentence] | None = None,
               **settings) -> list[Sentence]:
    """Each of ``sentences`` parsed (at ``beam``) by the parser trained on the sentences whose
    fold (``folds``, one per sentence) is not its own, with ``dev`` choosing its epoch and
    ``settings`` passed to :func:`~fstpunct.parser.train.train`. With ``held_dev`` (one flag
    per sentence; ``dev`` then empty) the flagged sentences train no parser: fold k's parser
    chooses its epoch on the flagged sentences of the other folds, so that no sentence of fold
    k is seen at all, and is trained on their unflagged ones. ``parsed`` (one per sentence, the
    same tokens, e.g. with predicted tags) are parsed in place of ``sentences``, which then
    only train. Fold k's parser is saved in
    ``work``/fold{k}, and loaded from there, not trained, when that folder exists and holds the
    parser of fold k of as many folds and training sentences (else an error: it may have seen
    the fold's sentences)."""
    if len(folds) != len(sentences):
        raise InputError(f"{len(folds)} folds given for {len(sentences)} sentences")
    if len(set(folds)) < 2:
        raise InputError("jackknifing needs at least two folds")
    if held_dev is not None and (len(held_dev) != len(sentences) or dev):
        raise InputError(f"{len(held_dev)} dev flags given for {len(sentences)} sentences"
                         + (" and a dev set besides" if dev else ""))
    if parsed is not None and len(parsed) != len(sentences):
        raise InputError(f"{len(parsed)} sentences to parse given for {len(sentences)}")
    flags = held_dev if held_dev is not None else [False] * len(sentences)
    read = sentences if parsed is None else parsed
    out: list[Sentence | None] = [None] * len(sentences)
    for fold in sorted(set(folds)):
        folder = Path(work) / f"fold{fold}"
        rest = [s for s, f, d in zip(sentences, folds, flags) if f != fold and not d]
        fold_dev = dev if held_dev is None else [s for s, f, d in zip(sentences, folds, flags)
                                                 if f != fold and d]
        if not fold_dev:
            raise InputError(f"fold {fold}: no dev sentence to choose its parser's epoch"
                             + ("" if held_dev is None else " (none flagged in the other folds)"))
        if folder.is_dir():
            model = Model.load(folder)
            saved = [model.info.get(k) for k in ("jackknife_fold", "folds", "train_sentences")]
            if saved != [fold, len(set(folds)), len(rest)]:
                raise InputError(f"{folder}: a parser of other folds (fold, folds, training "
                                 f"sentences {saved}, not {[fold, len(set(folds)), len(rest)]})"
                                 f": remove it or give another work folder")
        else:
            model = train(rest, fold_dev, mode, beam, folder, log=log, progress=False,
                          info={"jackknife_fold": fold, "folds": len(set(folds))}, **settings)
            model = Model.load(folder)  # the best epoch's weights, as saved
        for j, f in enumerate(folds):
            if f == fold:
                out[j] = parse(model, read[j], beam)
    return [s for s in out if s is not None]
