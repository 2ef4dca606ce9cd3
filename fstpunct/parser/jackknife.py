"""Jackknifed parses: every sentence of a training set parsed by a parser that did not see it.

A model trained on a parser's trees of its own training sentences sees trees better than it
will get at test time (the parser was trained on them). Jackknifing splits the sentences into
folds and parses each fold with the parser (:func:`~fstpunct.parser.train.train`) trained on the
other folds, so the training trees carry the parser's held-out errors.
"""
from __future__ import annotations

import hashlib
import inspect
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TypeVar

from ..errors import InputError
from ..ud.treebank import Sentence, universal, with_arcs
from .decode import parse
from .model import Model
from .train import PATIENCE, train

__all__ = ["jackknifed", "checked_flags", "checked_extra", "fold_parts", "cut_relations"]

T = TypeVar("T")


def checked_flags(n: int, folds: Sequence[int], dev: Sequence[object],
                  held_dev: Sequence[bool] | None) -> list[bool]:
    """The dev flag of each of ``n`` sentences (all False without ``held_dev``), after checking
    ``folds`` (one per sentence, at least two distinct) and ``held_dev`` (one per sentence,
    ``dev`` then empty): an :class:`InputError` if not."""
    if len(folds) != n:
        raise InputError(f"{len(folds)} folds given for {n} sentences")
    if len(set(folds)) < 2:
        raise InputError("jackknifing needs at least two folds")
    if held_dev is not None and (len(held_dev) != n or dev):
        raise InputError(f"{len(held_dev)} dev flags given for {n} sentences"
                         + (" and a dev set besides" if dev else ""))
    return [False] * n if held_dev is None else list(held_dev)


def checked_extra(sentences: Sequence[Sentence], extra: Sequence[Sentence],
                  dev: Sequence[Sentence] = ()) -> None:
    """An :class:`InputError` naming the first sentence of ``extra`` (training sentences of no
    fold, added to every fold's) that has the sent_id of one of ``sentences`` (it would train
    the parser or tagger of its own fold) or of ``dev`` (it would train the one its copy
    chooses the epoch of). Sentences without a sent_id are not compared."""
    jackknifed = {s.sent_id for s in sentences} - {None}
    held = {s.sent_id for s in dev} - {None}
    for s in extra:
        if s.sent_id in jackknifed:
            raise InputError(f"{s.place}: extra training sentence with the sent_id of one of "
                             "the sentences jackknifed: it would train its own fold")
        if s.sent_id in held:
            raise InputError(f"{s.place}: extra training sentence with the sent_id of a dev "
                             "sentence: it would train the folds it chooses the epoch of")


def fold_parts(items: Sequence[T], folds: Sequence[int], fold: int, flags: Sequence[bool],
               dev: Sequence[T], held: bool, what: str) -> tuple[list[T], list[T]]:
    """Fold ``fold``'s training items (the other folds' unflagged ones) and the items choosing
    its ``what``'s epoch: ``dev``, or with ``held`` (``flags`` from ``held_dev``) the other
    folds' flagged ones, of which there must be one (else an :class:`InputError`)."""
    rest = [x for x, f, d in zip(items, folds, flags) if f != fold and not d]
    if not held:
        return rest, list(dev)
    fold_dev = [x for x, f, d in zip(items, folds, flags) if f != fold and d]
    if not fold_dev:
        raise InputError(f"fold {fold}: no dev sentence to choose its {what}'s epoch "
                         "(none flagged in the other folds)")
    return rest, fold_dev


def cut_relations(sentences: Sequence[Sentence], inventory: Collection[str]
                  ) -> tuple[list[Sentence], Counter[str]]:
    """``sentences`` with every relation (DEPREL) that is not in ``inventory`` cut to its base
    relation (the part before ':', :func:`~fstpunct.ud.treebank.universal`), and how many arcs
    of each relation were cut. A relation whose base is not in ``inventory`` either is kept as
    it is (nothing of the inventory to put in its place). Only DEPREL changes (DEPS is kept:
    the parser reads HEAD and DEPREL); ``sentences`` are not changed."""
    cut: Counter[str] = Counter()
    out = []
    for sent in sentences:
        new = {}
        for w in sent.words:
            base = universal(w.deprel)
            if w.deprel not in inventory and base in inventory:
                new[w.id] = (w.head, base)
                cut[w.deprel] += 1
        out.append(with_arcs(sent, new) if new else sent)
    return out, cut


def _digest(sentences: Sequence[Sentence]) -> str:
    """A fingerprint of the sentences' ids, words, tags and trees (UPOS, HEAD and DEPREL: which
    sentences, annotated how, trained a parser)."""
    h = hashlib.sha1()
    for s in sentences:
        words = " ".join(f"{w.form}/{w.upos}/{w.head}/{w.deprel}" for w in s.words)
        h.update(f"{s.sent_id}\t{words}\n".encode())
    return h.hexdigest()


_TRAIN = inspect.signature(train)  # (train itself may be replaced: tests spy on it)


def _train_settings(mode: str, beam: int, settings: dict) -> dict:
    """The settings :func:`~fstpunct.parser.train.train` trains with: ``mode``, ``beam`` and
    ``settings`` with its defaults for the rest (patience None as :data:`PATIENCE`), sorted;
    not its sentences, folder, log or ``info``."""
    bound = _TRAIN.bind_partial(mode=mode, beam=beam, **settings)
    bound.apply_defaults()
    used = {key: value for key, value in bound.arguments.items()
            if key not in ("log", "progress", "info")}
    used["patience"] = PATIENCE if used["patience"] is None else used["patience"]
    return dict(sorted(used.items()))


def jackknifed(sentences: Sequence[Sentence], folds: Sequence[int], dev: Sequence[Sentence],
               mode: str, beam: int, work: str | Path,
               log: Callable[[str], None] | None = None,
               held_dev: Sequence[bool] | None = None, parsed: Sequence[Sentence] | None = None,
               extra: Sequence[Sentence] = (), cut: bool = False, **settings
               ) -> list[Sentence]:
    """Each of ``sentences`` parsed (at ``beam``) by the parser trained on the sentences whose
    fold (``folds``, one per sentence) is not its own, with ``dev`` choosing its epoch and
    ``settings`` passed to :func:`~fstpunct.parser.train.train`. With ``held_dev`` (one flag
    per sentence; ``dev`` then empty) the flagged sentences train no parser: fold k's parser
    chooses its epoch on the flagged sentences of the other folds, so that no sentence of fold
    k is seen at all, and is trained on their unflagged ones. ``parsed`` (one per sentence, the
    same word forms, e.g. with predicted tags) are parsed in place of ``sentences``, which then
    only train. ``extra`` (sentences of no fold, e.g. another treebank's train split; none of
    ``sentences`` or ``dev``, by sent_id) are added to every fold's training sentences; with
    ``cut``, each fold's copy of ``extra`` has the relations that fold's own training sentences
    (of ``sentences``) do not use cut to their base (:func:`cut_relations`; ``sentences`` are
    never changed). Each tree carries ``# jackknife_folds`` and ``# jackknife_fold`` comments.
    Fold k's parser is saved in ``work``/fold{k} with its fold, the folds' count, its training
    settings (``mode``, ``beam``, ``settings`` and the defaults of the others), fingerprints of
    its training sentences (``extra`` included) and dev ones (ids, words, UPOS, HEAD and
    DEPREL) and, with ``cut``, the arcs cut by relation (None without), and loaded from there,
    not trained, when that folder exists and holds the same record (else an error: it may have
    seen the fold's sentences, chosen its epoch on other ones, or been trained otherwise) from
    a training that ended (else an error: a checkpoint of a run cut short)."""
    flags = checked_flags(len(sentences), folds, dev, held_dev)
    checked_extra(sentences, extra, dev)
    if parsed is not None and len(parsed) != len(sentences):
        raise InputError(f"{len(parsed)} sentences to parse given for {len(sentences)}")
    for j, (s, p) in enumerate(zip(sentences, parsed or ())):
        if [w.form for w in s.words] != [w.form for w in p.words]:
            raise InputError(f"sentence {j + 1} to parse ({p.sent_id}) has other words than "
                             f"its training sentence ({s.sent_id})")
    if held_dev is None and not dev:  # (with held_dev, fold_parts needs one in each fold)
        raise InputError("no dev sentence to choose the parsers' epoch")
    read = sentences if parsed is None else parsed
    k = len(set(folds))
    training = _train_settings(mode, beam, settings)
    out: list[Sentence | None] = [None] * len(sentences)
    for fold in sorted(set(folds)):
        folder = Path(work) / f"fold{fold}"
        rest, fold_dev = fold_parts(sentences, folds, fold, flags, dev, held_dev is not None,
                                    "parser")
        if cut:
            added, arcs = cut_relations(extra, {w.deprel for s in rest for w in s.words})
        else:
            added, arcs = list(extra), None
        rest += added
        record = {"jackknife_fold": fold, "folds": k, "train_settings": training,
                  "train_digest": _digest(rest),
                  "dev_held_out": held_dev is not None, "dev_digest": _digest(fold_dev),
                  "relations_cut": None if arcs is None else dict(sorted(arcs.items()))}
        if folder.is_dir():
            model = Model.load(folder)
            saved = {key: model.info.get(key) for key in record}
            if saved != record:
                differ = ", ".join(f"{key} {saved[key]!r} not {record[key]!r}"
                                   for key in record if saved[key] != record[key])
                raise InputError(f"{folder}: a parser of other folds, settings, or training or "
                                 f"dev sentences ({differ}): remove it or give another work folder")
            if not model.info.get("finished"):
                raise InputError(f"{folder}: training cut short (its last checkpoint at epoch "
                                 f"{model.info['history'][-1]['epoch']}): remove it")
        else:
            train(rest, fold_dev, mode, beam, folder, log=log, progress=False, info=record,
                  **settings)
            model = Model.load(folder)  # the best epoch's weights, as saved
        for j, f in enumerate(folds):
            if f == fold:
                tree = parse(model, read[j], beam)
                tree.set_comment("jackknife_folds", str(k))
                tree.set_comment("jackknife_fold", str(fold))
                out[j] = tree
    return [s for s in out if s is not None]
