"""What a trained model learned, against a hand-written grammar (paper §5).

* :func:`compare_rules` — §5.1: for every underlying bigram ab the model saw often enough
  (expected count ≥ 25), is its most probable edit confident (p > 0.75), and is it the grammar's?
  And for each of the grammar's non-KEEP rules, the rank of its edit among the four, with the
  mean reciprocal rank over all rules and over those whose bigram has some edit with p > 0.5.
* :func:`rule_bars` — Figure 3: for each of the grammar's rules, the four edit probabilities
  of its window under the grammar's initial channel and as learned, with its expected count.
* :func:`relation_pairs` — Table 4: the most probable (l, r) pairs of chosen relations, averaged
  over the nodes of that relation in some sentences.
* :func:`learned_rules` — both for a trained model, against the grammar it was trained from by
  default, over its language's dev split (``fstpunct rules --model``, ``Model.rules``).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..fst.channel import EDITS, Channel
from ..fst.default_grammar import model_grammar
from ..fst.grammar import Grammar, load_grammar
from ..model.features import render
from ..model.punct import Batch, PunctModel
from ..model.store import read_record
from ..ud.recorded import recorded_sources
from ..ud.release import LANGUAGES, split_source
from ..ud.slots import to_slots
from ..ud.treebank import RELATIONS, universal

__all__ = ["PAPER_RELATIONS", "Bigram", "Comparison", "LearnedRules", "RuleBar", "RuleRank",
           "check_relations", "compare_rules", "folder_language", "learned_rules", "model_language",
           "relation_pairs", "rule_bars"]

KEEP = EDITS.index("KEEP")
PAPER_RELATIONS = ("parataxis", "appos", "list", "advcl", "ccomp")  # the paper's Table 4


@dataclass(frozen=True)
class Bigram:
    """A window ab whose expected count reaches ``min_count`` and whose most probable
    learned edit is confident (:func:`compare_rules`)."""

    a: str
    b: str
    count: float
    edit: str          # the most probable learned edit
    p: float
    grammar_edit: str  # the grammar's rule for ab, KEEP where it has none


@dataclass(frozen=True)
class RuleRank:
    """One grammar rule (ab → edit): its learned probability and the rank of that edit among
    the four learned for ab (1 = the model's most probable)."""

    a: str
    b: str
    edit: str
    p: float
    rank: int
    confident_bigram: bool  # some edit of ab has p > 0.5


@dataclass(frozen=True)
class Comparison:
    """What a model learned against a grammar: the confident learned edits, the rank of every
    rule, and the mean reciprocal ranks (the paper's §5.1 statistics)."""

    confident: list[Bigram]
    ranks: list[RuleRank]
    skipped: int  # grammar rules over marks the model never uses

    @staticmethod
    def _mrr(ranks: Sequence[RuleRank]) -> float:
        return float(np.mean([1.0 / r.rank for r in ranks])) if ranks else float("nan")

    @property
    def mrr(self) -> float:
        return self._mrr(self.ranks)

    @property
    def mrr_confident(self) -> float:
        return self._mrr([r for r in self.ranks if r.confident_bigram])


def compare_rules(channel: Channel, edit_counts: np.ndarray | None, grammar: Grammar,
                  min_count: float = 25.0, confident: float = 0.75) -> Comparison:
    """The §5.1 statistics; ``edit_counts`` are expected counts per (a, b, edit) (None: a
    model that stores none, whose confident edits cannot be told: none)."""
    rules = {(r.a, r.b): r.edit for r in grammar.rules}
    phi, symbols = channel.phi, channel.symbols
    window = edit_counts.sum(axis=2) if edit_counts is not None else np.zeros(phi.shape[:2])
    best = phi.argmax(axis=2)
    out = []
    for a, b in zip(*np.nonzero(window >= min_count)):
        p = phi[a, b, best[a, b]]
        if p > confident:
            out.append(Bigram(symbols[a], symbols[b], float(window[a, b]), EDITS[best[a, b]],
                              float(p), rules.get((symbols[a], symbols[b]), "KEEP")))
    ranks, skipped = [], 0
    index = {s: k for k, s in enumerate(symbols)}
    for (a, b), edit in rules.items():
        if a not in index or b not in index:
            skipped += 1
            continue
        probs = phi[index[a], index[b]]
        e = EDITS.index(edit)
        ranks.append(RuleRank(a, b, edit, float(probs[e]), 1 + int(np.sum(probs > probs[e])),
                              bool(probs.max() > 0.5)))
    out.sort(key=lambda g: -g.count)
    return Comparison(out, ranks, skipped)


@dataclass(frozen=True)
class RuleBar:
    """One rule ``a b → …`` of a grammar: its edit, the expected count of the window ``a b`` on
    the training data, and p(edit | a b) for the four edits (:data:`EDITS` order) in the
    grammar's initial channel and in the learned one."""

    a: str
    b: str
    edit: str
    count: float
    initial: tuple[float, float, float, float]
    learned: tuple[float, float, float, float]


def rule_bars(channel: Channel, edit_counts: np.ndarray | None, grammar: Grammar,
              min_count: float = 25.0) -> tuple[list[RuleBar], int]:
    """The grammar's rules whose window the model saw at least ``min_count`` times (every rule
    over the model's marks when ``edit_counts`` is None), most frequent first, and how many
    rules were left out (rare windows, marks the model lacks)."""
    initial = grammar.channel(direction=channel.direction)
    index, start = {s: k for k, s in enumerate(channel.symbols)}, initial.symbols
    bars, left = [], 0
    for r in grammar.rules:
        if r.a not in index or r.b not in index:
            left += 1
            continue
        a, b = index[r.a], index[r.b]
        count = float(edit_counts[a, b].sum()) if edit_counts is not None else float("nan")
        if edit_counts is not None and count < min_count:
            left += 1
            continue
        first = initial.phi[start.index(r.a), start.index(r.b)]
        bars.append(RuleBar(r.a, r.b, r.edit, count, tuple(map(float, first)),
                            tuple(map(float, channel.phi[a, b]))))  # type: ignore[arg-type]
    bars.sort(key=lambda bar: -bar.count if edit_counts is not None else 0.0)
    return bars, left


def check_relations(relations: Sequence[str]) -> None:
    """An InputError unless every relation is a UD universal one (not a typo, not a subtype:
    :func:`relation_pairs` counts nodes by universal relation)."""
    unknown = [rel for rel in relations if rel not in RELATIONS]
    if unknown:
        raise InputError(f"not a UD universal relation: {', '.join(unknown)} (the table "
                         "counts nodes by universal relation, without subtypes: appos, acl)")


Pairs = dict[str, tuple[int, list[tuple[str, float]]]]
"""Per relation: its count of nodes and its most probable pairs ``l | r`` with their mean
probability."""


def relation_pairs(model: PunctModel, batch: Batch, relations: Sequence[str],
                   top: int = 5) -> Pairs:
    """For each relation (base name, e.g. ``appos``): how many nodes it has in ``batch`` and its
    ``top`` most probable pairs ``l | r`` with their mean probability p_θ(l, r | w).
    A relation that is not a UD universal one is an InputError (:func:`check_relations`)."""
    check_relations(relations)
    probs = model.attach_probabilities(batch.data)
    data, vocab = batch.data, model.vocab
    deprels = [d for s in batch.sentences for d in (s.deprels if s.n else ("<empty>",))]
    out: Pairs = {}
    for rel in relations:
        nodes = [k for k, d in enumerate(deprels) if universal(d) == rel]
        mass: dict[int, float] = {}
        for k in nodes:
            rows = range(data.node_offsets[k], data.node_offsets[k + 1])
            for row in rows:
                mass[data.pairs[row]] = mass.get(data.pairs[row], 0.0) + probs[row]
        ranked = sorted(mass.items(), key=lambda kv: -kv[1])[:top]
        out[rel] = (len(nodes), [(" | ".join(render(p) for p in vocab.pair_strings(pair)),
                                  m / len(nodes)) for pair, m in ranked])
    return out


@dataclass(frozen=True)
class LearnedRules:
    """What a model learned against a grammar (:func:`learned_rules`)."""

    comparison: Comparison  # its confident edits: none when the model stores no edit counts
    counted: bool           # whether the model stores expected edit counts
    lang: str               # whose split ``pairs`` are averaged over
    split: str
    pairs: Pairs            # :func:`relation_pairs` per relation


def model_language(record: object, name: str, trained: Grammar | None = None) -> str | None:
    """A model's language among those with standard splits (``LANGUAGES``), by its
    ``model.json`` ``record`` and its ``name``: the one recorded, else that of the grammar it
    was trained from (``trained``, else :func:`model_grammar`'s, read only if needed), else its
    name's (a bundled model's, ``"en"``); else None (``und``, a language without splits)."""
    recorded = record.get("language") if isinstance(record, dict) else None
    if recorded in LANGUAGES:
        return str(recorded)
    trained = trained or model_grammar(record)
    return next((g for g in (trained.language if trained else None, name) if g in LANGUAGES),
                None)


def folder_language(folder: Path, name: str) -> str | None:
    """The language of the model in ``folder`` by the name ``name`` (:func:`model_language` of
    its ``model.json``): :attr:`fstpunct.Model.language`, without reading the model's weights."""
    return model_language(read_record(folder).get("record"), name)


def learned_rules(model: PunctModel, record: object, counts: np.ndarray | None,
                  name: str, grammar: str | os.PathLike[str] | None = None,
                  lang: str | None = None, split: str | None = None,
                  relations: Sequence[str] | None = None,
                  ud_dir: str | os.PathLike[str] | None = None) -> LearnedRules:
    """Model ``name`` (its ``model.json`` training ``record``, its expected edit ``counts`` or
    None) against ``grammar`` (default: the one it was trained from, by its record), and the
    most probable pairs of ``relations`` (default :data:`PAPER_RELATIONS`; none: no split is
    read) over the ``split`` (default dev) of ``lang``. By default ``lang`` is the model's
    language (:func:`model_language`: the one recorded, its training grammar's, or its
    name's), never ``grammar``'s.
    For a language without standard splits, and for a model whose record says ``und`` (its
    files' names told no one language) or no language, the pairs are read over the model's own
    dev or training files, as its record names them; where it names none, a language is refused
    (InputError), und or none is read over en's. Relations are checked first. A ``record`` that
    is not a JSON object (a correction model's learner saved before 1e10b99 recorded the folder
    it was copied from) records nothing (:func:`~fstpunct.fst.default_grammar.model_grammar`).
    """
    relations = list(PAPER_RELATIONS if relations is None else relations)
    split = split or "dev"
    check_relations(relations)
    recorded = record.get("language") if isinstance(record, dict) else None
    if grammar is None:
        rules = trained = model_grammar(record)
        if rules is None:
            raise InputError(f"{name}: its training record names no rule file that can be "
                             "read; give one with compare=GRAMMAR (--compare GRAMMAR)")
    else:  # the training grammar is read only if its language is needed (model_language)
        rules, trained = load_grammar(grammar), None
    lang = lang or model_language(record, name, trained)
    sources = [] if lang or not relations else recorded_sources(record, split, ud_dir)
    if not lang:  # a language without standard splits: the files its model recorded
        if relations and not sources and isinstance(recorded, str) and recorded != "und":
            raise InputError(f"{name}: its language {recorded!r} has no standard splits and "
                             f"its model.json records no {split} file; give a language's "
                             "split with lang= (--lang)")
        lang = str(recorded or "und") if sources else "en"
    pairs: Pairs = {}
    if relations:
        sents = [to_slots(s) for source in sources or [split_source(lang, split, ud_dir)]
                 for s in source.sentences()]
        pairs = relation_pairs(model, model.prepare(sents), relations)
    return LearnedRules(compare_rules(model.channel, counts, rules), counts is not None, lang,
                        split, pairs)
