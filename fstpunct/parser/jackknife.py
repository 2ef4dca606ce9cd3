"""Jackknifed parses: every sentence of a training set parsed by a parser that did not see it.

A model trained on a parser's trees of its own training sentences sees trees better than it
will get at test time (the parser was trained on them). Jackknifing splits the sentences into
folds and parses each fold with the parser (:func:`~fstpunct.parser.train.train`) trained on the
other folds, so the training trees carry the parser's held-out errors.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import TypeVar

from ..errors import InputError
from ..ud.treebank import Sentence, universal, with_arcs
from ..wording import counted
from .decode import parse
from .model import Model
from .train import check_arc_weights, resolved_defaults, train, train_settings

__all__ = ["jackknifed", "nested_jackknifed", "checked_flags", "checked_extra", "fold_parts",
           "cut_relations", "digest", "weights_digest"]

T = TypeVar("T")


def checked_flags(n: int, folds: Sequence[int], dev: Sequence[object],
                  held_dev: Sequence[bool] | None) -> list[bool]:
    """The dev flag of each of ``n`` sentences (all False without ``held_dev``), after checking
    ``folds`` (one per sentence, at least two distinct) and ``held_dev`` (one per sentence,
    ``dev`` then empty): an :class:`InputError` if not."""
    if len(folds) != n:
        raise InputError(f"{counted(len(folds), 'fold')} given for {counted(n, 'sentence')}")
    if len(set(folds)) < 2:
        raise InputError("jackknifing needs at least two folds")
    if held_dev is not None and (len(held_dev) != n or dev):
        raise InputError(f"{counted(len(held_dev), 'dev flag')} given for "
                         f"{counted(n, 'sentence')}"
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


def fold_parts(items: Sequence[T], folds: Sequence[int], fold: int | Collection[int],
               flags: Sequence[bool], dev: Sequence[T], held: bool, what: str
               ) -> tuple[list[T], list[T]]:
    """The training items of the parser or tagger that sees no item of ``fold`` (one fold, or
    several: a nested jackknife's pair; the other folds' unflagged items) and the items
    choosing its ``what``'s epoch: ``dev``, or with ``held`` (``flags`` from ``held_dev``) the
    other folds' flagged ones, of which there must be one (else an :class:`InputError`)."""
    out = {fold} if isinstance(fold, int) else set(fold)
    rest = [x for x, f, d in zip(items, folds, flags) if f not in out and not d]
    if not held:
        return rest, list(dev)
    fold_dev = [x for x, f, d in zip(items, folds, flags) if f not in out and d]
    if not fold_dev:
        name = f"fold{'s' if len(out) > 1 else ''} {', '.join(map(str, sorted(out)))}"
        raise InputError(f"{name}: no dev sentence to choose its {what}'s epoch "
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


def digest(sentences: Sequence[Sentence]) -> str:
    """A fingerprint of the sentences' ids, words, tags and trees (UPOS, HEAD and DEPREL: which
    sentences, annotated how, trained a parser)."""
    h = hashlib.sha1()
    for s in sentences:
        words = " ".join(f"{w.form}/{w.upos}/{w.head}/{w.deprel}" for w in s.words)
        h.update(f"{s.sent_id}\t{words}\n".encode())
    return h.hexdigest()


def weights_digest(arc_weights: Sequence[Mapping[int, int] | None]) -> str:
    """A fingerprint of per-sentence arc weights (:func:`jackknifed`'s ``arc_weights``)."""
    h = hashlib.sha1()
    for weights in arc_weights:
        h.update(f"{sorted((weights or {}).items())}\n".encode())
    return h.hexdigest()


def _as_recorded(saved: object) -> object:
    """A saved record's ``train_settings`` with ``learning`` None resolved as :func:`train`
    resolves it (records written before it was resolved hold None there: train's default for
    the beam, the learning those parsers were trained with), so their parsers are still
    reused. Nothing else is filled in: a record lacking settings (written before 92c5347,
    which recorded them all) differs, and is refused."""
    if isinstance(saved, dict) and "beam" in saved and "learning" in saved \
            and saved["learning"] is None:
        return {**saved, "learning": resolved_defaults(saved["beam"], None, None)[1]}
    return saved


def jackknifed(sentences: Sequence[Sentence], folds: Sequence[int], dev: Sequence[Sentence],
               mode: str, beam: int, work: str | Path,
               log: Callable[[str], None] | None = None,
               held_dev: Sequence[bool] | None = None, parsed: Sequence[Sentence] | None = None,
               extra: Sequence[Sentence] = (), cut: bool = False,
               arc_weights: Sequence[Mapping[int, int] | None] | None = None, **settings
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
    never changed). ``arc_weights`` (one per sentence, ``{word id: weight}`` or None; the
    ``extra`` sentences none) weigh each parser's updates on its training sentences' arcs
    (:func:`~fstpunct.parser.train.train`'s). Each tree carries ``# jackknife_folds`` and
    ``# jackknife_fold`` comments. Fold k's parser is saved in ``work``/fold{k} with its fold, the
    folds' count, its training settings (:func:`~fstpunct.parser.train.train_settings`: those given,
    the defaults of the others, patience and learning resolved; a record with learning None, older,
    is read as train's default for its beam, the learning it trained with), fingerprints of its
    training sentences (``extra`` included) and dev ones (ids, words, UPOS, HEAD and DEPREL), with
    ``cut``, the arcs cut by relation (None without), with ``arc_weights`` a fingerprint of its
    training sentences' (:func:`weights_digest`; no entry without), and loaded from there, not
    trained, when that folder exists and holds the same record (else an error: it may have seen the
    fold's sentences, chosen its epoch on other ones, or been trained otherwise) from a training
    that ended (else an error: a checkpoint of a run cut short)."""
    jk = _Jackknife(sentences, folds, dev, mode, beam, Path(work), log, held_dev, parsed,
                    extra, cut, arc_weights, settings)
    out: list[Sentence | None] = [None] * len(sentences)
    for fold in jk.names:
        model = jk.parser((fold,), {"jackknife_fold": fold}, f"fold{fold}")
        for j, f in enumerate(folds):
            if f == fold:
                out[j] = jk.parse(model, j, fold)
    return [s for s in out if s is not None]


def nested_jackknifed(sentences: Sequence[Sentence], folds: Sequence[int],
                      dev: Sequence[Sentence], mode: str, beam: int, work: str | Path,
                      log: Callable[[str], None] | None = None,
                      held_dev: Sequence[bool] | None = None,
                      parsed: Sequence[Sentence] | None = None, extra: Sequence[Sentence] = (),
                      cut: bool = False,
                      arc_weights: Sequence[Mapping[int, int] | None] | None = None,
                      **settings) -> list[Sentence]:
    """The training trees of a model cross-validated on ``folds`` that is to be tested on
    :func:`jackknifed` trees: for each outer fold k (ascending), every sentence of another fold
    j (in order) parsed by the parser trained as :func:`jackknifed`'s (the same arguments) but
    on the folds other than j and k, so that neither the sentence's fold nor the fold the
    model is tested on trained it or chose its epoch (one parser for each pair {j, k}, saved in
    ``work``/fold{j}-{k}, j < k, with ``jackknifed``'s record, ``nested_folds`` [j, k] in place
    of ``jackknife_fold``). Each tree carries ``# jackknife_folds``, ``# jackknife_fold`` (j)
    and ``# jackknife_outer_fold`` (k); each sentence is there once for each fold not its own.
    At least three folds (else an :class:`InputError`)."""
    jk = _Jackknife(sentences, folds, dev, mode, beam, Path(work), log, held_dev, parsed,
                    extra, cut, arc_weights, settings)
    if len(jk.names) < 3:
        raise InputError("a nested jackknife needs at least three folds")
    trees: dict[tuple[int, int], Sentence] = {}  # (outer fold, sentence): its tree
    for a, b in combinations(jk.names, 2):
        model = jk.parser((a, b), {"nested_folds": [a, b]}, f"fold{a}-{b}")
        for j, f in enumerate(folds):
            if f in (a, b):
                outer = b if f == a else a
                tree = jk.parse(model, j, f)
                tree.set_comment("jackknife_outer_fold", str(outer))
                trees[outer, j] = tree
    return [tree for _, tree in sorted(trees.items())]


class _Jackknife:
    """What :func:`jackknifed` and :func:`nested_jackknifed` share: the arguments checked,
    a parser trained (or loaded) without some folds, a sentence parsed."""

    def __init__(self, sentences: Sequence[Sentence], folds: Sequence[int],
                 dev: Sequence[Sentence], mode: str, beam: int, work: Path,
                 log: Callable[[str], None] | None, held_dev: Sequence[bool] | None,
                 parsed: Sequence[Sentence] | None, extra: Sequence[Sentence], cut: bool,
                 arc_weights: Sequence[Mapping[int, int] | None] | None,
                 settings: dict) -> None:
        self.flags = checked_flags(len(sentences), folds, dev, held_dev)
        checked_extra(sentences, extra, dev)
        if parsed is not None and len(parsed) != len(sentences):
            raise InputError(f"{counted(len(parsed), 'sentence')} to parse given for "
                             f"{counted(len(sentences), 'sentence')}")
        for j, (s, p) in enumerate(zip(sentences, parsed or ())):
            if [w.form for w in s.words] != [w.form for w in p.words]:
                raise InputError(f"sentence {j + 1} to parse ({p.sent_id}) has other words than "
                                 f"its training sentence ({s.sent_id})")
        check_arc_weights(arc_weights, len(sentences))
        if held_dev is None and not dev:  # (with held_dev, fold_parts needs one in each fold)
            raise InputError("no dev sentence to choose the parsers' epoch")
        self.sentences, self.folds, self.dev, self.held = sentences, folds, dev, held_dev
        self.read = sentences if parsed is None else parsed
        self.names = sorted(set(folds))
        self.beam, self.mode, self.work, self.log = beam, mode, work, log
        self.extra, self.cut, self.settings = extra, cut, settings
        self.arc_weights = arc_weights
        self.training = train_settings(mode, beam, **settings)

    def parser(self, out: tuple[int, ...], which: dict, name: str) -> Model:
        """The parser that saw no sentence of the folds ``out`` (recorded as ``which``), in
        ``work``/``name``: loaded if saved with the same record, else trained and saved."""
        folder = self.work / name
        each = self.arc_weights or [None] * len(self.sentences)  # split with their sentences
        trained, dev_pairs = fold_parts(list(zip(self.sentences, each)), self.folds, out,
                                        self.flags, [(s, None) for s in self.dev],
                                        self.held is not None, "parser")
        rest, fold_dev = [s for s, _ in trained], [s for s, _ in dev_pairs]
        if self.cut:
            added, arcs = cut_relations(self.extra, {w.deprel for s in rest for w in s.words})
        else:
            added, arcs = list(self.extra), None
        rest += added
        weights = (None if self.arc_weights is None
                   else [w for _, w in trained] + [None] * len(added))
        record = {**which, "folds": len(self.names), "train_settings": self.training,
                  "train_digest": digest(rest),
                  "dev_held_out": self.held is not None, "dev_digest": digest(fold_dev),
                  "relations_cut": None if arcs is None else dict(sorted(arcs.items())),
                  **({} if weights is None else {"arc_weights": weights_digest(weights)})}
        if folder.is_dir():
            model = Model.load(folder)
            expected = {"arc_weights": None, **record}  # (an unweighted record has no entry)
            saved = {key: model.info.get(key) for key in expected}
            saved["train_settings"] = _as_recorded(saved["train_settings"])
            if saved != expected:
                differ = ", ".join(f"{key} {saved[key]!r} not {expected[key]!r}"
                                   for key in expected if saved[key] != expected[key])
                raise InputError(f"{folder}: a parser of other folds, settings, or training or "
                                 f"dev sentences ({differ}): remove it or give another work folder")
            if not model.info.get("finished"):
                raise InputError(f"{folder}: training cut short (its last checkpoint at epoch "
                                 f"{model.info['history'][-1]['epoch']}): remove it")
            return model
        train(rest, fold_dev, self.mode, self.beam, folder, log=self.log, progress=False,
              info=record, arc_weights=weights, **self.settings)
        return Model.load(folder)  # the best epoch's weights, as saved

    def parse(self, model: Model, j: int, fold: int) -> Sentence:
        """Sentence ``j`` (of fold ``fold``) parsed by ``model``, with the fold comments."""
        tree = parse(model, self.read[j], self.beam)
        tree.set_comment("jackknife_folds", str(len(self.names)))
        tree.set_comment("jackknife_fold", str(fold))
        return tree
