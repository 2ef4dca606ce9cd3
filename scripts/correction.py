"""Punctuation correction of learner English (paper §6.2, issue 19): train, calibrate, table,
cross-validation.

    python scripts/learner_corpus.py --tle ../shared/ud/UD_English-ESL --fce ../shared/fce \\
        -o learner
    fstpunct train --train learner/en_esl-ud-train.conllu --dev learner/en_esl-ud-dev.conllu \\
        --grammar grammars/en.rules --jobs 1 --lexical 0 --iterations 6 -o models/esl-learner
    python scripts/correction.py train --learner models/esl-learner \\
        --original learner/en_esl-ud-train.conllu --corrected learner/en_cesl-ud-train.conllu \\
        --copy 8 --reference models/esl-learner -o models/esl-correct-c8L
    python scripts/correction.py calibrate --model models/esl-correct-c8L --data learner \\
        -o models/esl-correct-c8L-cal
    python scripts/correction.py calibrate --model models/esl-correct-c8L-cal --data learner \\
        --parser models/esl-parser -o models/esl-correct-c8L-cal2
    python scripts/correction.py table --model models/esl-correct-c8L-cal --data learner \\
        --split dev --split test -o results/tmp/correction-gold.json
    python scripts/correction.py cv --folds 4 --weight W --copy 8 --reference learner \\
        --edit-cost C --support P --work models/esl-cv -o results/tmp/correction-cv.json

The corrector is trained on the (learner, corrected) pairs of the isomorphic train sentences
(:func:`fstpunct.apps.correction.model.train`) with a prior that copies the learner's punctemes
(``--copy``); its channel starts from, and is drawn towards, the channel of ``--reference``
(the bundled English model, a model folder, or ``learner``: the learner model's own);
``--lexical K`` (train, cv) gives the corrector the lexical contexts of its K most frequent
words (the node's word and the words beside its span's edge slots, conjoined with the side pair
features, as ``fstpunct train --lexical``; default 0, unlexicalised); ``--sharpen BETA``
(train, cv) reads T_e′ under the learner channel sharpened to the power BETA
(:func:`fstpunct.apps.correction.model.sharpened`; default 1, as it is); ``--readings D``
(train, cv) reads T_e′ as D exact draws from the learner model's posterior, mixed equally in
training and decoding (:func:`fstpunct.apps.correction.model.drawn`; default 0, the Viterbi
T_e′), from random stream ``--readings-seed S`` (default 0). ``edits`` lists a cv run's
edits at each fold's nested edit cost (``--edit-cost C``: at the fixed cost C of the sweep),
right or wrong, by kind, marks and how the learner model reads the slot
(:mod:`fstpunct.apps.correction.readings`), each with the fold corrector's probability of the
written string (``corrector_p``), and prints their counts by edit and slot (final or inner)
and by that probability.
``calibrate`` chooses the decoding (edit cost of the MBR loss, support of the learner's string)
on the dev pairs (:mod:`fstpunct.apps.correction.calibrate`) and writes the model with it: for
gold trees, or with ``--parser`` for that parser's trees (stored beside the gold one; ``table
--parser`` and ``fstpunct correct --parser`` decode with it); with ``--cv``, the edit cost of
least AED in a ``cv`` run's sweep instead (gold trees).

``table`` is the paper's Table 5 analog on the isomorphic sentences of each split: every system
reads the learner's sentence (its tree gold, or with ``--parser`` the tree a ``tokens``-mode
parser gives the punctuated sentence) and is scored against the corrected punctuation (on the
learner's words): AED, P/R/F0.5 of punctuation edits, per-mark P/R/F1 and the recall of the
gold edits by FCE code; paired tests against keeping the input, the correction model and the
two CRF correctors. Systems: keep the input; trivial (a final period); restoration from scratch
with the bundled English model (+NC, exact MBR) and with a CRF trained on the corrected train
sentences; the correction model (with the decoding stored in it for the trees' source, and
with plain MBR when that differs); the CRF corrector, and the same with the keep tag
(:func:`fstpunct.apps.correction.crf.labels`; L2 ``KEEP_C2``); the CRF corrector with the
English model's slot posteriors as features; and the product of each CRF corrector's slot
marginals and the correction model's slot distribution, log p_crf + w log p_gen per slot, w
chosen on dev (a slot whose learner string the correction model cannot explain, below its
support, is kept).

``--extra`` (train, table, cv) adds the punctuation-only pairs of the non-isomorphic sentences
(``en_pesl``) to every trained system's training pairs; ``table --evaluate pesl`` scores those
pairs of dev and test instead (an additional evaluation); ``table --weights-from`` takes the
products' weights that a ``cv`` run chose (its pooled held-out F0.5) instead of dev's, ``table
--pool-weights`` chooses them on dev with a ``cv`` run's held-out edit counts added to dev's.

``--fce all`` (cv, train; or ``isomorphic``: those pairs only) adds to the training of every
model (cv: the learner model, the corrector and the CRFs) the pairs of the FCE sentences outside
the TLE (``learner_corpus.py --parser P --tagger T``: parsed trees, never tested on): in ``cv``
those whose FCE script holds none of the fold's held-out documents (a script without TLE
sentences trains every fold), in ``train`` those whose script holds no sentence of the aligned
TLE dev or test files (``en_esl``: the sentences evaluated; a TLE dev or test sentence that did
not align is in no file and excludes nothing).
``cv --fce K --fce-corrector-only`` (a diagnostic) gives those pairs to
the corrector and the CRFs only: every fold's learner model trains on the TLE sentences alone.
``--fce-edited`` (cv, train; with ``--fce``) keeps only the outside pairs with at least one
punctuation edit (the scorer's: a slot whose scored string the correction changes,
:attr:`Outside.edited`), as negative subsampling; the outside learner sentences (learner model,
vocabulary) are all kept. ``cv`` prints per fold how many outside pairs it kept.
Folds are by FCE document: the TLE spreads most documents' sentences over its three splits, and
all of a document's sentences are in one fold.

``cv`` (an additional evaluation) pools the isomorphic pairs of train, dev and test and splits
them by FCE document into ``--folds`` folds; for each fold every trained model is retrained on
the other folds — the learner model (on every learner sentence of the other folds' documents,
isomorphic or not), the corrector, the CRFs — with the hyper-parameters given (``--copy``, the
products' ``--weight`` and ``--keep-weight``, the decoding's ``--edit-cost`` and ``--support``,
the keep tag's ``--keep-c2``, the restoration CRF's ``--c2``), so every pair gets one held-out
output of every system; the pooled outputs are scored and tested as in ``table`` (gold trees
only: the parser is not retrained), and the correction model's pooled outputs are decoded again
at every edit cost (the sweep ``calibrate --cv`` chooses from). By default only keep, the
correction model, the two CRF correctors and their products (``--all-systems``: the others
too); ``--split train`` pools the train pairs only (for choices made by cross-validation over
train pairs, blind to dev and test). Every ``cv`` run also fits the gate of the correction
model's edits (:mod:`fstpunct.apps.correction.gate`: on all held-out edits, written as ``gate``,
and nested per fold for its row, ``correction, gated``); ``--crossfit`` gives every pair the
correction model's slot features from the fold corrector trained without it (``WORK/crossfit.json``)
and trains the CRF correctors with them. ``table --gate-from CV.json`` and ``table --crossfit
WORK/crossfit.json`` add those systems to the table (the CRFs trained on the train pairs'
cross-fitted features, applied with the full corrector's). ``table --bilstm`` adds the
BiLSTM-CRF corrector (:mod:`fstpunct.apps.correction.bilstm`; torch). ``crossfit --parser
P`` computes those features again with the same fold correctors on the trees of a parser
(``table --parser P --crossfit``: the CRFs trained on parsed train trees read features of
parsed trees).

``jackknife`` parses every learner train sentence with a tokens-mode parser trained on the other
folds' (``--folds``, by FCE document; the settings of the parsed rows' parser), so that ``table
--parser P --train-trees FILE`` and ``crossfit --parser P --train-trees FILE`` train the parsed
trees' CRFs on held-out parses of the train pairs instead of P's parses of its own training
sentences; ``--split train --split dev --split test`` parses every learner sentence by ``cv``'s
folds (no parser sees its fold's documents, dev included), ``--tags`` on the UPOS of taggers
jackknifed on the same folds, for ``compare --after-trees FILE``, which decodes the after side
on those trees (the before side on the gold ones). ``--mode removed`` trains and runs those
parsers without punctuation (the learner's marks attached to a neighbour after: they mislead no
parse). ``jackknife --nested`` writes the training trees to match (in either mode): for each
outer fold k, every sentence of another fold j parsed by the parser that saw neither j nor k
(one parser per pair of folds), and ``cv --train-trees FILE --correctors-only`` trains fold k's
learner model and corrector on them (the corrections' punctuation read on the learner
sentence's tree) instead of the gold trees.

``rerank`` re-ranks each CRF corrector's k-best corrections (:mod:`fstpunct.apps.correction.rerank`:
log p_crf + w · log p_gen, p_gen the correction model's p(y | T, T_e') or the English model's
p(y | T)) on a finished ``cv`` run's held-out pairs with its fold models, and chooses the
generator, k (RERANK_K) and w (RERANK_WEIGHTS) of highest pooled F0.5; ``table --rerank
RERANK.json`` adds the re-ranked correctors with those choices. ``cv --bilstm`` and ``table
--bilstm`` add the BiLSTM-CRF correctors (with and without the keep tag) and their products.

``agree`` chooses, on a finished ``cv`` run's held-out pairs with its fold models, the
agreement of a CRF corrector and the correction model (:class:`Agreement`,
:mod:`fstpunct.apps.correction.combine`: an edit only where both back it) of least pooled AED,
and reports the same choice nested per fold, and the correction model's edit cost nested so
too; over a cv run pooling several splits, also every row on each split's held-out pairs (e.g.
the standard test's documents). ``table --agree AGREE.json`` adds the hard agreements and the
chosen one (of an agree run with table's ``--decoder``). ``cv --models-only`` trains every
fold's models and stops (for ``agree``, ``rerank`` and ``compare``, which score the held-out
pairs themselves). ``cv --correctors-only``: the learner models and the correctors only (for
``compare``). ``cv --bags B`` also trains B bagged correctors a fold
(:mod:`fstpunct.apps.correction.bagging`), each on a bootstrap resample of the fold
corrector's training pairs, untrainable ones included, which training then leaves out, so a
bag may train on a few pairs fewer (random stream ``--bag-seed S``, fold, bag; S from 0 to
2**32 - 1) with the fold's learner model, into ``WORK/foldK/bagB``.

``compare --before WORK1 --after WORK2`` decodes the held-out pairs of two cv runs over the same
folds with each run's fold correctors (old against new correction model) at every edit cost,
and writes the rows of each at ``--edit-cost`` and at the cost chosen nested as ``agree``
chooses it, tested against keep and the before side, pooled and per split, and the after
rows' edits dropped, added and kept against the before rows'; ``--platt`` decodes
the after side with the Platt map of the learner string's probability
(:mod:`fstpunct.apps.correction.platt`), each fold's fitted on the other folds' held-out slots;
``--after-decoder learner`` (``--before-decoder learner``: the before side) decodes it
balancing the paired marks only in sentences whose learner punctuation balances
(:mod:`fstpunct.apps.correction.correct`); ``--after-bags B``: the after side is the vote of
each fold's first B bagged correctors (an edit where more than half of them make it);
``--mix-trees FILE`` (with ``--after-trees``, repeatable): the after side reads every sentence
on those files' trees too, its slot distributions the equal mixture over all the trees.
``slots --trees FILE`` decodes a cv run's held-out pairs at ``--edit-cost`` on the gold trees
and on FILE's, and sets each inner slot's edit on either tree beside the parsed tree at the
slot and T_e′ there (:mod:`fstpunct.apps.correction.slot_trees`).
``--decoder learner``
(agree, rerank, table, calibrate) decodes the correction model so in every row and agreement
that reads its decoding, and in calibrate's choice on dev (default ``balanced``; calibrate
stores it with the chosen decoding, and ``fstpunct correct`` decodes with it by default).

``channel`` decodes a finished ``cv`` run's held-out pairs (run with ``--extra``) by the
noisy-channel corrector (:mod:`fstpunct.apps.correction.noisy`): the prior a model of correct
English (``--reference``, default the bundled ``en``), each fold's error model counted on the
pairs its corrector trained on; every λ of LAMBDAS, λ chosen nested (least AED on the other
folds, ties to the smaller) and λ = 1, against keep and the run's correction model at its nested
edit cost (``--decoder``, default learner).

``heldout`` trains the models as one ``cv`` fold holding no document out (the learner model on
every aligned TLE learner sentence, the corrector and the two CRF correctors on every TLE pair;
no sentence outside the TLE; its settings recorded in ``WORK/heldout.json``, a folder of
others refused) and scores them on data no setting was chosen on: the isomorphic pairs of the
FCE scripts that hold no TLE sentence (parsed trees), their scripts sorted by name and dealt
round-robin into 3 parts. Part 0 (*calibration*) chooses the edit cost (least AED; ties: the
cost nearest ``--edit-cost``, then the higher) and the agreement (as ``agree`` chooses);
parts 1 and 2 (*test*) score keep, the correction model at ``--edit-cost`` and at the
calibrated cost, the two CRF correctors and the chosen agreement, with ``agree``'s tests.
``units`` describes the units of the TLE pairs and of heldout's parts, decoding nothing (their
endings, tokens, gold edits at the final slot and inside; ``--heldout JSON``: that run's edits
so split).

``channel-heldout`` decodes heldout's parts by the noisy channel: one error model counted on
the TLE pairs that ``heldout --extra``'s corrector trained on (its record checked: extra, no
``--fce``, no fold, as many pairs), the prior ``--reference`` (default en), every λ of LAMBDAS
on both parts; on the test part keep, λ = 1 and the calibration part's λ of least AED (ties to
the smaller), tested against keep.
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import asdict, astuple, dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NamedTuple, NoReturn, TypeVar

import numpy as np

from fstpunct.apps.correction import noisy
from fstpunct.apps.correction.bagging import PURPOSE, Bagged, resampled
from fstpunct.apps.correction.bilstm import BilstmCorrector
from fstpunct.apps.correction.bilstm import train as bilstm_train
from fstpunct.apps.correction.calibrate import COSTS, Trial, best, calibrated, nearness
from fstpunct.apps.correction.combine import agreed, combined, joint
from fstpunct.apps.correction.correct import DECODERS_CORRECT, Prepared, decided
from fstpunct.apps.correction.crf import CrfCorrector, generative_features, slot_features
from fstpunct.apps.correction.crf import train as crf_corrector_train
from fstpunct.apps.correction.gate import FEATURES, examples, fit
from fstpunct.apps.correction.model import (
    FILES,
    KIND,
    PART_FILES,
    SUPPORT,
    CorrectionModel,
    Decoding,
    read_correction_record,
    train,
)
from fstpunct.apps.correction.platt import examples as platt_examples
from fstpunct.apps.correction.platt import fitted as platt_fitted
from fstpunct.apps.correction.readings import SlotReading, readings
from fstpunct.apps.correction.rerank import (
    Chain,
    Nbest,
    correction_log_probs,
    english_log_probs,
    nbest,
)
from fstpunct.apps.correction.slot_trees import (
    COUNTS,
    OUTCOMES,
    SLOT_CLASSES,
    TREE_KINDS,
    SlotRow,
    Trees,
    by_kind,
    inner_slots,
    slot_rows,
)
from fstpunct.apps.correction.slot_weights import corrected_slots, slot_arc_weights
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.crf import train as crf_train
from fstpunct.apps.restoration.exact import ExactRestorer
from fstpunct.apps.restoration.metrics import (
    EditScore,
    edit_score,
    f_randomisation_p,
    has_edit,
    score,
    scores,
    sign_flip_p,
    slot_strings,
)
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.apps.restoration.strip import insert
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.errors import FstpunctError, InputError, check_stream_seed
from fstpunct.files import model_target, output
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.fit import train as fit_train
from fstpunct.model.punct import PunctModel, Settings
from fstpunct.model.store import load_model, read_record, save_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser import score as parse_score
from fstpunct.parser.jackknife import digest, jackknifed, nested_jackknifed
from fstpunct.parser.tagger import jackknifed as tag_jackknifed
from fstpunct.ud.release import read_one
from fstpunct.ud.slots import SlotSentence, on_tree, to_slots
from fstpunct.ud.treebank import Line, Sentence, read_file, rebuild, write_file
from fstpunct.wording import counted


def _fail(message: str) -> NoReturn:
    """Bad input: one line on stderr, exit status 2."""
    print(f"correction: {message}", file=sys.stderr)
    raise SystemExit(2)


def _stream_seed(command: str, **seeds: int) -> None:
    """Refuse (:func:`_fail`) a seed of ``command`` that is not one 32-bit word
    (:func:`~fstpunct.errors.check_stream_seed`), before anything is read: ``bag_seed`` names
    ``--bag-seed``."""
    try:
        for name, seed in seeds.items():
            check_stream_seed(seed, "--" + name.replace("_", "-"))
    except InputError as e:
        _fail(f"{command}: {e}")


def _sweep_cost(command: str, cost: float) -> None:
    """Refuse (:func:`_fail`) a ``--edit-cost`` of ``command`` that is not one of COSTS."""
    if cost not in COSTS:
        _fail(f"{command}: --edit-cost must be one of the sweep's costs 0, 0.05, ..., 1, "
              f"not {cost}")


def pairs(original: str, *corrected: str) -> tuple[list[tuple[Sentence, Sentence]],
                                                  list[Sentence]]:
    """The (original, corrected) sentence pairs of the corrected files (their originals by
    sent_id) and every original sentence; :func:`trainable_pairs` and :func:`trainable` keep
    those usable for training."""
    by_id = {s.sent_id: s for s in read_file(original)}
    out = []
    for path in corrected:
        for c in read_file(path):
            o = by_id.get(c.sent_id)
            if o is None:
                _fail(f"{path}: sent_id {c.sent_id} is not in {original}")
            out.append((o, c))
    return out, list(by_id.values())


UNTRAINABLE = "a punctuation token with dependents, DESIGN §2"


def trainable(sentences: Iterable[Sentence]) -> tuple[list[SlotSentence], int]:
    """The slot sentences usable for training (no punctuation token with dependents) and the
    number of the others, left out."""
    slots = list(map(to_slots, sentences))
    kept = [ss for ss in slots if ss.trainable]
    return kept, len(slots) - len(kept)


SlotPair = tuple[SlotSentence, SlotSentence]


def slot_pairs(sentence_pairs: Iterable[tuple[Sentence, Sentence]],
               trees: dict[str, Sentence] | None = None) -> list[SlotPair]:
    """The (learner, corrected) pairs as slot sentences; with ``trees`` (by sent_id), on the
    learner sentence's tree there, the correction's punctuation read on it too
    (:func:`on_tree`)."""
    if trees is None:
        return [(to_slots(s), to_slots(g)) for s, g in sentence_pairs]
    out = []
    for s, g in sentence_pairs:
        tree = to_slots(trees[s.sent_id])
        out.append((tree, on_tree(to_slots(g), tree)))
    return out


def trainable_pairs(sentence_pairs: Iterable[tuple[Sentence, Sentence]]
                    ) -> tuple[list[SlotSentence], list[SlotSentence], int]:
    """The learner and corrected slot sentences of the pairs usable for training (both sides
    :func:`trainable`) and the number of the others, left out."""
    return trainable_slots(slot_pairs(sentence_pairs))


def trainable_slots(slots: Sequence[SlotPair]
                    ) -> tuple[list[SlotSentence], list[SlotSentence], int]:
    """:func:`trainable_pairs` of pairs already :func:`slot_pairs`."""
    kept = [(a, b) for a, b in slots if a.trainable and b.trainable]
    return [a for a, _ in kept], [b for _, b in kept], len(slots) - len(kept)


WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
CRF = "CRF corrector"
KEEP = "CRF corrector, keep tag"
PRODUCT, KEEP_PRODUCT = f"{CRF} x correction", f"{KEEP} x correction"
CRF_CORR, KEEP_CORR = f"{CRF} + correction features", f"{KEEP} + correction features"
GATED = "correction, gated"
BILSTM = "BiLSTM-CRF corrector"
BILSTM_KEEP = f"{BILSTM}, keep tag"
KEEP_C2 = 0.1  # the keep-tag corrector's L2, chosen by cross-validation over train pairs
SPLITS = ("train", "dev", "test")


def with_words(gold: Sentence, source: Sentence) -> Sentence:
    """``gold`` with the source's word forms (the corrected words replaced one for one)."""
    forms = iter(w.form for w in source.words if not w.is_punct)
    punct = {w.id for w in gold.words if w.is_punct}
    lines = [Line([ln.fields[0], next(forms)] + ln.fields[2:], ln.lineno)
             if ln.is_word and int(ln.id) not in punct else ln for ln in gold.lines]
    return rebuild(gold, list(gold.comments), lines)


def fce_codes(sent: Sentence) -> dict[int, list[str]]:
    """Slot -> FCE codes of its punctuation edits (``# fce_punct_edits``)."""
    out: dict[int, list[str]] = {}
    for item in (sent.comment("fce_punct_edits") or "").split():  # written once a sentence
        slot, code = item.split(":")
        out.setdefault(int(slot), []).append(code)
    return out


def evaluate(name: str, source: list[Sentence], gold: list[Sentence], pred: list[Sentence]
             ) -> dict:
    aed, edits = scores(gold, pred, source)
    by_code: dict[str, list[int]] = {}
    for g, p in zip(gold, pred):
        gs, ps = slot_strings(to_slots(g)), slot_strings(to_slots(p))
        for slot, codes in fce_codes(g).items():
            for code in codes:
                hit = by_code.setdefault(code, [0, 0])
                hit[0] += ps[slot] == gs[slot]
                hit[1] += 1
    return {"system": name, "aed": aed.average_edit_distance,
            "sentence_edits": aed.sentence_edits, **edits.to_dict(),
            "edit_counts": [edits.correct, edits.proposed, edits.gold],
            "marks": aed.to_dict()["marks"], "by_code": by_code}


def product(read: Reading, crf: str, w: float, support: float) -> list[Sentence]:
    """The sentences corrected by the product of the CRF corrector ``crf``'s and the
    generative model's slot distributions (``combined``), the generative one weighted ``w``;
    a learner string below the generative model's ``support`` is kept."""
    return [insert(t, combined(m, d, w, own=o, support=support))
            for t, o, m, d in zip(read.prepared.stripped, read.prepared.own, read.margs[crf],
                                  read.prepared.dists)]


ISOMORPHIC, PUNCTUATION_ONLY = "cesl", "pesl"  # learner_corpus.py's corrected files


@functools.cache
def sentences_of(path: Path) -> tuple[Sentence, ...]:
    """The sentences of a CoNLL-U file, read once per run (the learner files are read by every
    split's pairs, their folds and trees). No caller changes a sentence: the restoration
    baselines' :func:`~fstpunct.ud.annotations.forget` and the parser write copies. An empty
    file (a split without pairs: ``learner_corpus.py`` writes one) has none."""
    return tuple(read_file(path)) if path.stat().st_size else ()


def split_pairs(data: Path, split: str, parser: ParserModel | None = None,
                kind: str = ISOMORPHIC, trees: dict[str, Sentence] | None = None,
                prefix: str = "") -> tuple[list[Sentence], list[Sentence]]:
    """The learner's sentences of a split's isomorphic subset (``kind`` PUNCTUATION_ONLY: of
    the other sentences, with only their punctuation edits; with their trees from ``trees``
    if given (:func:`on_trees`: the learner file is not read), else parsed by ``parser`` if
    given) and their corrections on the learner's words; ``prefix`` "x": of the FCE sentences
    outside the TLE (:class:`Outside`)."""
    gold = sentences_of(data / f"en_{prefix}{kind}-ud-{split}.conllu")
    if trees is not None:
        source = on_trees(gold, trees)  # a correction has its learner sentence's sent_id
    else:
        originals = {s.sent_id: s
                     for s in sentences_of(data / f"en_{prefix}esl-ud-{split}.conllu")}
        source = [originals[g.sent_id] for g in gold]
        if parser is not None:
            source = [parse(parser, s, int(parser.info.get("beam", 1))) for s in source]
    return source, [with_words(g, s) for g, s in zip(gold, source)]


def read_trees(path: str, learner_text: dict[str, list[Sentence]],
               fold_of: dict[str, int] | None = None) -> dict[str, Sentence]:
    """The learner sentences (``learner_text``, by split: :func:`learner_sentences`) with the
    trees of the CoNLL-U file ``path`` (e.g. ``jackknife``'s), by sent_id; every sentence of
    those splits must be there with the same tokens and, given ``fold_of`` (each document's
    fold), say it was parsed by the jackknife parser of its document's fold of as many folds,
    for no outer fold (``jackknife``'s comments; a ``jackknife --nested`` file's are training
    trees, refused, as is a sentence given twice: one line naming the file and sentence)."""
    trees: dict[str, Sentence] = {}
    for t in read_file(path):
        if t.comment("jackknife_outer_fold") is not None:
            _fail(f"{t.place}: a tree for jackknife_outer_fold "
                  f"{t.comment('jackknife_outer_fold')} (a jackknife --nested file's training "
                  "trees: cv --train-trees reads those)")
        if t.sent_id in trees:
            _fail(f"{t.place}: a second tree of sentence {t.sent_id}")
        trees[t.sent_id] = t
    k = None if fold_of is None else str(len(set(fold_of.values())))
    for split, sentences in learner_text.items():
        for s in sentences:
            t = trees.get(s.sent_id)
            if t is None or [w.form for w in t.words] != [w.form for w in s.words]:
                _fail(f"{path}: sentence {s.sent_id} of {split} is "
                      + ("missing" if t is None else "not the learner's (other tokens)"))
            if fold_of is not None and (t.comment("jackknife_folds"), t.comment(
                    "jackknife_fold")) != (k, str(fold_of[_document(s)])):
                _fail(f"{path}: sentence {s.sent_id} of {split} was not parsed by the jackknife "
                      f"parser of its fold {fold_of[_document(s)]} of {k} (its comments: "
                      f"jackknife_folds {t.comment('jackknife_folds')}, jackknife_fold "
                      f"{t.comment('jackknife_fold')})")
    return trees


def fold_trees(path: str, learner_text: dict[str, list[Sentence]], fold_of: dict[str, int]
               ) -> list[dict[str, Sentence]]:
    """For each outer fold k of ``fold_of``'s (each document's fold), the trees that the CoNLL-U
    file ``path`` (``jackknife --nested``'s) gives the learner sentences (``learner_text``, by
    split: :func:`document_folds`') in the other folds, by sent_id: each tree must say its
    sentence's fold j, k (not j) and as many folds (``jackknife_fold``,
    ``jackknife_outer_fold``, ``jackknife_folds``), once, with the learner's tokens, and every
    sentence of fold j must be there for every k ≠ j; else one line naming the file and
    sentence."""
    k = len(set(fold_of.values()))
    splits = list(learner_text)
    learner = {s.sent_id: s for split in splits for s in learner_text[split]}
    trees: list[dict[str, Sentence]] = [{} for _ in range(k)]
    for t in read_file(path):
        s = learner.get(t.sent_id)
        if s is None or [w.form for w in t.words] != [w.form for w in s.words]:
            _fail(f"{t.place}: not a learner sentence of {'+'.join(splits)}"
                  + ("" if s is None else " (other tokens)"))
        fold, outer = fold_of[_document(s)], t.comment("jackknife_outer_fold")
        if (t.comment("jackknife_folds"), t.comment("jackknife_fold")) != (str(k), str(fold)) \
                or outer not in {str(f) for f in range(k) if f != fold}:
            _fail(f"{t.place}: not parsed for an outer fold of {k} by a parser that saw neither "
                  f"it nor its fold {fold} (its comments: jackknife_folds "
                  f"{t.comment('jackknife_folds')}, jackknife_fold {t.comment('jackknife_fold')}, "
                  f"jackknife_outer_fold {outer})")
        if t.sent_id in trees[int(outer)]:
            _fail(f"{t.place}: a second tree for outer fold {outer}")
        trees[int(outer)][t.sent_id] = t
    for sent_id, s in learner.items():
        for outer in range(k):
            if outer != fold_of[_document(s)] and sent_id not in trees[outer]:
                _fail(f"{path}: no tree of sentence {sent_id} for outer fold {outer}")
    return trees


@dataclass
class Crfs:
    """The CRFs of the table: restoration (trained on corrected sentences), the corrector and
    the corrector with the English model's slot posteriors as features."""

    corrector: CrfCorrector
    keep: CrfCorrector
    restorer: CrfModel | None
    with_gen: CrfCorrector | None
    with_corr: dict[str, CrfCorrector] = field(default_factory=dict)  # name: with CORR_FEATURES
    bilstm: BilstmCorrector | None = None
    bilstm_keep: BilstmCorrector | None = None  # with the keep tag


def train_crfs(source: list[Sentence], gold: list[Sentence], dev: list[Sentence],
               english: PunctModel, work: Path, c2_grid: tuple[float, ...] = (0.1, 1.0, 10.0),
               corrector_only: bool = False, keep_c2: float = KEEP_C2,
               corr: list[list[list[str]]] | None = None, bilstm: bool = False) -> Crfs:
    """The four CRFs (or the two correctors only) trained on (learner, corrected) pairs; the
    restoration CRF's c2 chosen on the corrected ``dev`` sentences among ``c2_grid``, the
    keep-tag corrector's ``keep_c2``; given ``corr`` (every pair's cross-fitted correction
    features, :func:`crossfit`), the two correctors again with them. Folders already in
    ``work`` are loaded, not retrained; with ``bilstm``, the BiLSTM-CRF corrector too (with
    and without the keep tag)."""
    train_s, train_g = [to_slots(s) for s in source], [to_slots(g) for g in gold]

    def made(name: str, build: Callable[[Path], object], load: Callable[[Path], object]):
        folder = work / name
        return load(folder) if folder.is_dir() else build(folder)

    corrector = made("crf-correct", lambda f: crf_corrector_train(train_s, train_g, f),
                     CrfCorrector.load)
    keep = made(f"crf-keep-c2-{keep_c2:g}",
                lambda f: crf_corrector_train(train_s, train_g, f, c2=keep_c2, keep=True),
                CrfCorrector.load)
    with_corr = {} if corr is None else {
        CRF_CORR: made("crf-correct-corr",
                       lambda f: crf_corrector_train(train_s, train_g, f, corr),
                       CrfCorrector.load),
        KEEP_CORR: made(f"crf-keep-corr-c2-{keep_c2:g}",
                        lambda f: crf_corrector_train(train_s, train_g, f, corr, c2=keep_c2,
                                                      keep=True), CrfCorrector.load)}
    lstm, lstm_keep = (made(name, lambda f, k=k: bilstm_train(train_s, train_g, f, keep=k),
                            BilstmCorrector.load) if bilstm else None
                       for name, k in (("bilstm-crf", False), ("bilstm-keep", True)))
    if corrector_only:
        return Crfs(corrector, keep, None, None, with_corr, lstm, lstm_keep)
    return Crfs(
        corrector, keep,
        made("crf-restore", lambda f: crf_train(train_g, [to_slots(g) for g in dev], f, "en",
                                                c2_grid, log=lambda m: None), CrfModel.load),
        made("crf-gen", lambda f: crf_corrector_train(train_s, train_g, f,
                                                      generative_features(english, train_s)),
             CrfCorrector.load), with_corr, lstm, lstm_keep)


@dataclass
class Reading:
    """What the systems reading the correction model and the CRF correctors share, computed
    once per sentence: the sentences :class:`Prepared` for the correction model, each CRF
    corrector's slot marginals and its Viterbi correction (its insertions), by name."""

    prepared: Prepared
    margs: dict[str, list]
    viterbi: dict[str, list]


def systems(source: list[Sentence], model: CorrectionModel, crfs: Crfs, english: PunctModel,
            weights: dict[str, float] | None, gold: list[Sentence] | None = None,
            parsed: bool = False, gate: tuple[float, ...] = (),
            prepared: Prepared | None = None, prior: WeightCounts | None = None
            ) -> tuple[dict[str, list[Sentence]], dict[str, float], Reading, WeightCounts]:
    """Every system's output on ``source`` (only keep, the correction model, the two CRF
    correctors and their products when ``crfs`` has no restoration CRF), the weight of each
    product (by name), the :class:`Reading` and, when ``weights`` is None, every weight's
    edit counts on ``source``: ``weights`` of None are chosen among WEIGHTS by F0.5 against
    ``gold`` (dev; with ``prior``'s counts added, :func:`chosen_weights`). The correction
    model decodes with its decoding for the trees' source (a parser's if ``parsed``), decoder
    included."""
    slots = [to_slots(s) for s in source]
    out = {"keep": source}
    if crfs.restorer is not None:
        out |= {"trivial": list(restored(source, Trivial.for_language("en"))),
                "restore +NC": list(restored(source, ExactRestorer(english))),
                "restore CRF": list(restored(source, crfs.restorer))}
    decoding = model.decoding_for(parsed)
    chains = {name: crf for name, crf in ((CRF, crfs.corrector), (KEEP, crfs.keep),
                                          (BILSTM, crfs.bilstm), (BILSTM_KEEP, crfs.bilstm_keep))
              if crf is not None}
    read = Reading(prepared or Prepared.of(model, source),
                   {name: [crf.marginals(ss) for ss in slots] for name, crf in chains.items()},
                   {name: [crf.correct(ss) for ss in slots] for name, crf in chains.items()})
    stripped = read.prepared.stripped
    out["correction"] = read.prepared.corrected_with(decoding)
    plain = Decoding(decoder=decoding.decoder)
    if decoding != plain:
        out[PLAIN] = read.prepared.corrected_with(plain)
    if gate:
        out[GATED] = read.prepared.corrected_with(replace(plain, support=decoding.support,
                                                          gate=gate))
    for name in (CRF, KEEP):
        out[name] = [insert(t, v) for t, v in zip(stripped, read.viterbi[name])]
    if crfs.with_gen is not None:
        gen = generative_features(english, slots)
        out["CRF corrector + gen"] = [insert(t, crfs.with_gen.correct(ss, g))
                                      for t, ss, g in zip(stripped, slots, gen)]
    for name in (BILSTM, BILSTM_KEEP):
        if name in chains:
            out[name] = [insert(t, v) for t, v in zip(stripped, read.viterbi[name])]
    if crfs.with_corr:
        corr = [slot_features(ss, d, "c") for ss, d in zip(slots, read.prepared.dists)]
        for name, crf in crfs.with_corr.items():
            out[name] = [insert(t, crf.correct(ss, f)) for t, ss, f in zip(stripped, slots, corr)]
    support = decoding.support
    tried: WeightCounts = {}
    if weights is None:
        assert gold is not None
        weights, tried = chosen_weights(source, gold,
                                        lambda crf, w: product(read, crf, w, support), prior,
                                        list(chains))
    for crf in chains:
        if crf in weights:  # (weights given without a BiLSTM's: no product of it)
            out[f"{crf} x correction"] = product(read, crf, weights[crf], support)
    return out, weights, read, tried


PLAIN = "correction (plain MBR)"


WeightCounts = dict[str, dict[float, list[int]]]  # CRF -> weight -> [right, proposed, gold]


def chosen_weights(source: list[Sentence], gold: list[Sentence],
                   products: Callable[[str, float], list[Sentence]],
                   prior: WeightCounts | None = None,
                   names: tuple[str, ...] | list[str] = (CRF, KEEP)
                   ) -> tuple[dict[str, float], WeightCounts]:
    """Per CRF corrector of ``names``, the weight of WEIGHTS whose product (``products(crf,
    w)``: the corrections of ``source``) has the highest F0.5 against ``gold`` (ties: the lower
    weight)
    — with ``prior``'s edit counts (another evaluation's, e.g. a cv run's pooled held-out
    pairs) added to its own first, if given — and every weight's own edit counts."""
    tried = {crf: {w: [sum(c) for c in astuple(edit_score(source, gold, products(crf, w)))]
                   for w in WEIGHTS} for crf in names}

    def f05(crf: str, w: float) -> float:
        counts = np.add(tried[crf][w], prior[crf][w]) if prior and crf in prior else tried[
            crf][w]
        return EditScore.prf(*counts)[2]

    return {crf: max(WEIGHTS, key=lambda w: (f05(crf, w), -w)) for crf in tried}, tried


def weight_counts(path: str) -> WeightCounts:
    """The per-weight edit counts of the products that a cv run wrote."""
    done = json.loads(Path(path).read_text(encoding="utf-8"))
    if "product_weight_counts" not in done:
        _fail(f"{path}: no product_weight_counts (a cv run of older code): run cv again")
    return {crf: {float(w): c for w, c in ws.items()}
            for crf, ws in done["product_weight_counts"].items()}


RERANK_K = (1, 2, 5, 10, 20, 50)  # the n-best sizes tried (the lists built once, of the largest)
RERANK_WEIGHTS = WEIGHTS + (8.0, 16.0)  # of the generative model in a re-ranking
GENERATORS = ("correction", "english")  # p(y | T, T_e') of the correction model; p(y | T) of en


def reranked_name(crf: str) -> str:
    return f"{crf}, n-best reranked"


@dataclass(frozen=True)
class Rerank:
    """A re-ranking of a CRF corrector's n-best: the generative model, k and its weight."""

    generator: str
    k: int
    weight: float


def nbest_scores(source: list[Sentence], stripped: list[Sentence], model: CorrectionModel,
                 english: PunctModel, crfs: dict[str, CrfCorrector], k: int,
                 generators: dict[str, tuple[str, ...]] | None = None
                 ) -> dict[str, tuple[list[Nbest], dict[str, list[list[float]]]]]:
    """Per CRF corrector: every sentence's k-best corrections and their log-probabilities under
    each of its ``generators`` (by CRF name; default: each of GENERATORS)
    (:mod:`fstpunct.apps.correction.rerank`)."""
    scorers = {"correction": lambda lists: correction_log_probs(model, source, stripped, lists),
               "english": lambda lists: english_log_probs(english, stripped, lists)}
    out = {}
    for name, crf in crfs.items():
        chain = Chain(crf)
        lists = [nbest(chain, to_slots(s), k) for s in source]
        out[name] = (lists, {g: scorers[g](lists)
                             for g in (generators or {}).get(name, GENERATORS)})
    return out


def reranked_systems(source: list[Sentence], stripped: list[Sentence], model: CorrectionModel,
                     english: PunctModel, crfs: dict[str, CrfCorrector],
                     chosen: dict[str, Rerank]) -> dict[str, list[Sentence]]:
    """Each CRF corrector's n-best re-ranked as ``chosen`` (by a ``rerank`` run)."""
    out = {}
    for name, (lists, gen) in nbest_scores(
            source, stripped, model, english, crfs, max(r.k for r in chosen.values()),
            {name: (r.generator,) for name, r in chosen.items()}).items():
        r = chosen[name]
        out[reranked_name(name)] = [insert(t, nb.choose(g, r.weight, r.k)) for t, nb, g in
                                    zip(stripped, lists, gen[r.generator])]
    return out


REFS = ("keep", "correction", CRF, KEEP)  # the systems rows are tested against by default


def scored(outputs: dict[str, list[Sentence]], source: list[Sentence], gold: list[Sentence],
           refs: tuple[str, ...] = REFS) -> list[dict]:
    """One row per system: its scores and paired tests against each system of ``refs`` (by
    default keep, the correction model and the two CRF correctors) and the BiLSTM-CRF
    corrector if there (AED: sign flips; F0.5: approximate randomisation, two-sided, and in
    the JSON one-sided for the alternative that the row's system is better)."""
    rows = [evaluate(name, source, gold, pred) for name, pred in outputs.items()]
    by = {r["system"]: r for r in rows}
    for r in rows:
        for ref in refs + ((BILSTM,) if BILSTM in by else ()):
            r[f"p_aed_vs_{ref}"] = sign_flip_p(by[ref]["sentence_edits"], r["sentence_edits"])
            r[f"p_f_vs_{ref}"] = f_randomisation_p(EditScore(*by[ref]["edit_counts"]),
                                                   EditScore(*r["edit_counts"]))
            r[f"p_f_better_than_{ref}"] = f_randomisation_p(
                EditScore(*by[ref]["edit_counts"]), EditScore(*r["edit_counts"]), one_sided=True)
    return rows


def print_weights(title: str, tried: WeightCounts, chosen: dict[str, float]) -> None:
    print(f"{title}: " + "; ".join(
        f"{crf}: " + ", ".join(f"{w:g} {EditScore.prf(*c)[2]:.1f}" for w, c in ws.items())
        for crf, ws in tried.items()) + f"; chosen {chosen}", flush=True)


# print_rows' default tests: AED against keep and the correction model, F0.5 against the CRFs
ROW_TESTS = (("aed", "keep"), ("aed", "correction"), ("f", CRF), ("f", KEEP))


def print_rows(title: str, rows: list[dict], tests: tuple[tuple[str, str], ...] = ROW_TESTS
               ) -> None:
    """The rows of :func:`scored` as a table, with the p values of ``tests`` ((``aed`` or
    ``f``, the system tested against))."""
    print(title)
    print("| system | AED | P | R | F0.5 | right/proposed edits | " + " | ".join(
        f"p {'AED' if what == 'aed' else 'F0.5'} vs {'keep-tag CRF' if ref == KEEP else ref}"
        for what, ref in tests) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(tests))
    for r in rows:
        right, proposed, _ = (sum(c) for c in r["edit_counts"])
        print(f"| {r['system']} | {r['aed']:.4f} | {r['precision']:.1f} | {r['recall']:.1f} | "
              f"{r['f0.5']:.1f} | {right}/{proposed} | "
              + " | ".join(f"{r[f'p_{what}_vs_{ref}']:.3f}" for what, ref in tests) + " |",
              flush=True)


MARKS = ("comma", "period", "quotes", "all")
CODES = ("MP", "RP", "UP")


def print_breakdown(title: str, rows: list[dict]) -> None:
    """Per system: P/R/F1 of each mark class (token level) and the gold edits set right by
    FCE code (right of all)."""
    print(title)
    print("| system | " + " | ".join(f"{m} P/R/F1" for m in MARKS) + " | "
          + " | ".join(CODES) + " |")
    print("|---|" + "---|" * (len(MARKS) + len(CODES)))
    for r in rows:
        marks = [r["marks"][m] for m in MARKS]
        codes = [r["by_code"].get(c, [0, 0]) for c in CODES]
        print(f"| {r['system']} | "
              + " | ".join(f"{m['precision']:.1f}/{m['recall']:.1f}/{m['f1']:.1f}"
                           for m in marks) + " | "
              + " | ".join(f"{right}/{every}" for right, every in codes) + " |")


def breakdown(args: argparse.Namespace) -> None:
    """Print the per-mark and FCE-code breakdown of a table or cv run's JSON."""
    done = json.loads(Path(args.json).read_text(encoding="utf-8"))
    for name in ("dev", "test", "rows"):
        if name in done:
            print_breakdown(f"### {args.json}: {'pooled' if name == 'rows' else name}",
                            done[name])


def power(args: argparse.Namespace) -> None:
    """Print what a table's paired F0.5 test can show for one system against another: its p
    on the split as scored, on the split replicated m times (every sentence's counts repeated:
    the same observed difference on m times the gold edits), and with r sentences added, each
    holding one gold edit that the system sets right and the other does not (until p < 0.05)."""
    done = json.loads(Path(args.json).read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in done.get(args.split, [])}
    for name in (args.system, args.against):
        if name not in rows:
            _fail(f"{args.json}: no row {name!r} in {args.split} (rows: {', '.join(rows)})")
    a, b = (EditScore(*rows[n]["edit_counts"]) for n in (args.against, args.system))

    def report(what: str, x: EditScore, y: EditScore) -> float:
        p = f_randomisation_p(x, y)
        print(f"{what}: {sum(y.gold)} gold edits, {args.system} {sum(y.correct)}/"
              f"{sum(y.proposed)} right, F0.5 {y.scores()[2]:.1f}; {args.against} "
              f"{sum(x.correct)}/{sum(x.proposed)}, {x.scores()[2]:.1f}; p {p:.4f}")
        return p

    for m in range(1, args.copies + 1):
        report(f"x{m}", *(EditScore(e.correct * m, e.proposed * m, e.gold * m) for e in (a, b)))
    for r in range(1, args.add + 1):
        if report(f"+{r} right",
                  EditScore(a.correct + [0] * r, a.proposed + [0] * r, a.gold + [1] * r),
                  EditScore(b.correct + [1] * r, b.proposed + [1] * r, b.gold + [1] * r)) < 0.05:
            break


def calibrate(args: argparse.Namespace) -> None:
    """Choose the decoding on the dev pairs, each edit cost decoded by ``--decoder`` (or from a
    cv run's edit costs), and write the model with it."""
    if args.cv and args.parser:
        _fail("calibrate: --cv chooses for gold trees (cv does not parse): no --parser")
    if args.cv and args.decoder != "balanced":
        _fail("calibrate: a cv run's edit costs are the balanced decoder's: no --decoder")
    model_target(args.output, FILES, KIND, PART_FILES)  # before any work, as train's
    model = CorrectionModel.load(args.model)
    parser = ParserModel.load(args.parser) if args.parser else None
    if args.cv:
        done = json.loads(Path(args.cv).read_text(encoding="utf-8"))
        trials = [Trial(**t) for t in done["edit_costs"]]
        won = best(trials)
        chosen = model.decoded_with(Decoding(won.edit_cost, done["support"]),
                                    chosen_by=f"cross-validation {args.cv}",
                                    sentences=len(done["rows"][0]["sentence_edits"]),
                                    aed=won.aed, f05=won.f05)
    else:
        source, gold = split_pairs(Path(args.data), "dev", parser)
        chosen, trials = calibrated(model, source, gold, support=args.support,
                                    decoder=args.decoder, parsed=parser is not None)
    print_trials(trials)
    decoding = chosen.decoding_for(parser is not None)
    print(f"chosen for {'parsed' if parser else 'gold'} trees: edit cost {decoding.edit_cost}, "
          f"support {decoding.support}, decoder {decoding.decoder}")
    chosen.save(args.output)


def table(args: argparse.Namespace) -> None:
    model = CorrectionModel.load(args.model)
    english = load_model(args.reference)
    data, work = Path(args.data), Path(args.work)
    parser = ParserModel.load(args.parser) if args.parser else None
    if args.train_trees and parser is None:
        _fail("table: --train-trees are a parser's trees of train: give --parser too")
    parsed = parser is not None
    if args.decoder:  # else the decoder stored with the model's decoding
        model = model.decoded_with(replace(model.decoding_for(parsed), decoder=args.decoder),
                                   parsed)
    decoder = model.decoding_for(parsed).decoder
    agreed = json.loads(Path(args.agree).read_text(encoding="utf-8")) if args.agree else {}
    if args.agree and agreed.get("decoder", "balanced") != decoder:
        _fail(f"{args.agree}: an agree run with --decoder {agreed.get('decoder', 'balanced')}, "
              f"not {decoder}: give table the same --decoder")
    trees = read_trees(args.train_trees, learner_sentences(data, ["train"])) \
        if args.train_trees else None
    train_src, train_gold = split_pairs(data, "train", parser, trees=trees)
    keys = [_key("train", ISOMORPHIC, s) for s in train_src]
    if args.extra:
        extra_src, extra_gold = split_pairs(data, "train", parser, PUNCTUATION_ONLY, trees)
        train_src, train_gold = train_src + extra_src, train_gold + extra_gold
        keys += [_key("train", PUNCTUATION_ONLY, s) for s in extra_src]
    corr = None
    if args.crossfit:
        crossfitted = json.loads(Path(args.crossfit).read_text(encoding="utf-8"))
        if any(key not in crossfitted for key in keys):
            _fail(f"{args.crossfit}: not every train pair has cross-fitted features "
                  "(cv --split train --crossfit, with --extra as here)")
        corr = [crossfitted[key] for key in keys]
    crfs = train_crfs(train_src, train_gold, split_pairs(data, "dev", parser)[1], english,
                      work, corr=corr, bilstm=args.bilstm)
    gate: tuple[float, ...] = ()
    if args.gate_from:
        gate = tuple(json.loads(Path(args.gate_from).read_text(encoding="utf-8"))["gate"])
    results: dict[str, object] = {"gate": list(gate), "decoder": decoder}
    weights = None  # of the generative model in the products, chosen on dev
    if args.weights_from:
        weights = json.loads(Path(args.weights_from).read_text(encoding="utf-8"))[
            "chosen_weights"]
    prior = weight_counts(args.pool_weights) if args.pool_weights else None
    chosen: dict[str, Rerank] = {}
    if args.rerank:
        chosen = {crf: Rerank(**r) for crf, r in json.loads(
            Path(args.rerank).read_text(encoding="utf-8"))["chosen"].items()}
        results["rerank"] = {crf: asdict(r) for crf, r in chosen.items()}
    agreements: list[Agreement] = []
    if args.agree:
        won = Agreement(**agreed["chosen"])
        agreements = [v for v in AGREEMENTS if v.kind != "joint"] + (
            [won] if won.kind == "joint" else [])
        results["agree"] = asdict(won)
    for split in args.split:
        if weights is None and split != "dev":
            _fail("table: give --split dev first (it chooses the weights)")
        source, gold = split_pairs(data, split, parser, args.evaluate)
        outputs, weights, read, tried = systems(source, model, crfs, english, weights, gold,
                                                parsed, gate, prior=prior)
        if tried:
            print_weights("product weights, dev F0.5", tried, weights)
            results["dev_weight_counts"] = tried
            if prior:
                print_weights("pooled with the cv run's held-out pairs",
                              {crf: {w: list(np.add(c, prior[crf][w])) for w, c in ws.items()}
                               for crf, ws in tried.items() if crf in prior}, weights)
        if agreements:
            outputs |= agreement_outputs(read, model.decoding_for(parsed), agreements)
        if args.rerank:
            outputs |= reranked_systems(source, read.prepared.stripped, model, english,
                                        {CRF: crfs.corrector, KEEP: crfs.keep}, chosen)
        rows = scored(outputs, source, gold)
        results[split] = rows
        print_rows(f"### {split} ({len(source)} {args.evaluate} sentences, "
                   f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; trees "
                   f"{'parsed' if parser else 'gold'}; decoder {decoder}; "
                   f"product weights {weights})", rows)
    results["weights"] = weights
    with output(args.output) as f:
        f.write(json.dumps(results, indent=1) + "\n")


def _document(sent: Sentence) -> str:
    """The FCE document of a learner sentence (its sent_id's TLE document: one FCE script,
    whose sentences the TLE spreads over its three splits)."""
    return sent.sent_id.rsplit("-", 1)[0]


def learner_sentences(data: Path, splits: Sequence[str]) -> dict[str, list[Sentence]]:
    """The learner sentences of each of ``splits`` (``en_esl-ud-SPLIT.conllu``)."""
    return {split: list(sentences_of(data / f"en_esl-ud-{split}.conllu")) for split in splits}


def document_folds(data: Path, splits: list[str], k: int
                   ) -> tuple[dict[str, list[Sentence]], dict[str, int]]:
    """The learner sentences of ``splits`` and the fold of each of their FCE documents
    (:func:`_document`): the documents sorted by name and dealt round-robin into ``k``."""
    learner_text = learner_sentences(data, splits)
    return learner_text, dealt({_document(s) for split in splits for s in learner_text[split]},
                               k)


def dealt(names: Iterable[str], k: int) -> dict[str, int]:
    """Each name's part: the names sorted and dealt round-robin into ``k`` parts."""
    return {d: j % k for j, d in enumerate(sorted(names))}


def keyed_pairs(pooled: list[tuple[str, Sentence, Sentence]],
                extra: list[tuple[str, Sentence, Sentence]]
                ) -> list[tuple[str, str, Sentence, Sentence]]:
    """The (key, kind, learner, corrected) rows of the isomorphic pairs ``pooled``, then of the
    punctuation-only ones ``extra`` (kind ISOMORPHIC, PUNCTUATION_ONLY), keyed as
    :func:`crossfit` keys their features (:func:`_key`)."""
    return [(_key(split, kind, s), kind, s, g)
            for kind, part in ((ISOMORPHIC, pooled), (PUNCTUATION_ONLY, extra))
            for split, s, g in part]


def fold_pairs(pooled: list[tuple[str, Sentence, Sentence]],
               extra: list[tuple[str, Sentence, Sentence]], fold_of: dict[str, int], k: int
               ) -> list[list[tuple[str, Sentence, Sentence]]]:
    """Per fold of ``k``, the (key, learner, corrected) rows (:func:`keyed_pairs`, keyed once
    for all folds) of the pairs whose FCE document is not in the fold: what ``cv`` trains the
    fold's models on, with the fold's outside FCE pairs."""
    rows = [(fold_of[_document(s)], (key, s, g)) for key, _, s, g in keyed_pairs(pooled, extra)]
    return [[row for f, row in rows if f != fold] for fold in range(k)]


def held_of(pooled: list[tuple[str, Sentence, Sentence]], fold_of: dict[str, int], k: int
            ) -> list[list[int]]:
    """Per fold, the indices of its held-out pairs among the ``pooled`` ones."""
    return [[j for j, (_, s, _) in enumerate(pooled) if fold_of[_document(s)] == fold]
            for fold in range(k)]


def on_trees(sentences: Iterable[Sentence], trees: dict[str, Sentence]) -> list[Sentence]:
    """The learner sentence of each of ``sentences`` (a learner sentence or its correction) on
    its tree of ``trees``, by sent_id (:func:`read_trees`'s, which checked its tokens: the
    correction's words, the learner's, are the same)."""
    return [trees[s.sent_id] for s in sentences]


def pooled_pairs(data: Path, splits: list[str], extra: bool, parser: ParserModel | None = None,
                 trees: dict[str, Sentence] | None = None
                 ) -> tuple[list[tuple[str, Sentence, Sentence]],
                            list[tuple[str, Sentence, Sentence]]]:
    """(split, learner sentence, correction) of every isomorphic pair of ``splits`` and, if
    ``extra``, of every punctuation-only pair (:func:`split_pairs`, parsed by ``parser`` or
    with the ``trees`` given)."""
    return ([(split, s, g) for split in splits
             for s, g in zip(*split_pairs(data, split, parser, trees=trees))],
            [(split, s, g) for split in splits if extra
             for s, g in zip(*split_pairs(data, split, parser, PUNCTUATION_ONLY, trees))])


FCE_KINDS = {"isomorphic": (ISOMORPHIC,), "all": (ISOMORPHIC, PUNCTUATION_ONLY)}


def tle_document(sent: Sentence) -> str | None:
    """The TLE document of a sentence outside the TLE (``# tle_document``: its FCE script
    holds that document's TLE sentences), or None (a script without TLE sentences)."""
    return sent.comment("tle_document")


@dataclass
class Outside:
    """The FCE sentences outside the TLE (``learner_corpus.py --parser``: ``en_xesl`` of every
    FCE file, parsed) and their pairs of the kinds asked for, training data only."""

    learners: list[Sentence]
    pairs: list[tuple[Sentence, Sentence]]

    @classmethod
    def read(cls, data: Path, kind: str) -> Outside:
        learners, out = [], []
        for split in SPLITS:
            files = [data / f"en_x{k}-ud-{split}.conllu" for k in ("esl",) + FCE_KINDS[kind]]
            for path in files:
                if not path.is_file():
                    _fail(f"{path}: not found (learner_corpus.py --parser P --tagger T writes it)")
            learners += sentences_of(files[0])
            for k in FCE_KINDS[kind]:
                out += zip(*split_pairs(data, split, kind=k, prefix="x"))
        return cls(learners, out)

    @functools.cached_property
    def edited(self) -> Outside:
        """The same sentences, and of the pairs only those with at least one punctuation edit
        (the scorer's, :func:`~fstpunct.apps.restoration.metrics.has_edit`: a slot whose
        scored string differs between the pair's sides); their :attr:`documents` are this
        one's, not read again."""
        learners, pairs = self.documents
        kept = [k for k, (s, g) in enumerate(self.pairs) if has_edit(s, g)]
        edited = Outside(self.learners, [self.pairs[k] for k in kept])
        # the cached property's value, set as functools documents it: derived from this one's
        edited.__dict__["documents"] = (learners, [pairs[k] for k in kept])
        return edited

    @functools.cached_property
    def documents(self) -> tuple[list[str | None], list[str | None]]:
        """The TLE document (:func:`tle_document`) of each learner sentence and of each pair's
        learner side, read once per :class:`Outside` and its :attr:`edited` (:meth:`without`
        runs once a fold)."""
        return ([tle_document(s) for s in self.learners],
                [tle_document(s) for s, _ in self.pairs])

    def without(self, held: set[str]) -> Outside:
        """The sentences and pairs whose FCE script holds none of the ``held`` TLE documents
        (a held-out fold's, or the standard dev and test documents): a script without TLE
        sentences trains every model."""
        learners, pairs = self.documents
        return Outside([s for s, d in zip(self.learners, learners) if d not in held],
                       [p for p, d in zip(self.pairs, pairs) if d not in held])


def kept_outside(outside: Outside, edited: bool, held: set[str], what: str,
                 file: IO[str] | None = None) -> Outside:
    """The sentences and pairs of ``outside`` that may train ``what`` (a fold, or the standard
    split's model): none of the ``held`` documents'. With ``edited``, of the pairs only those
    of :attr:`Outside.edited` (found once for every fold), saying how many were kept on
    ``file`` (None: stdout)."""
    mine = outside.without(held)
    if not edited:
        return mine
    kept = outside.edited.without(held)
    print(f"{what}: {len(kept.pairs)} of {len(mine.pairs)} outside pairs kept (those with a "
          f"punctuation edit)", file=file, flush=True)
    return kept


FCE_EDITED_HELP = ("with --fce: only the outside pairs with at least one punctuation edit (the "
                   "outside learner sentences all kept)")


def tested_documents(data: Path) -> set[str]:
    """The FCE documents of the aligned TLE dev and test sentences (``en_esl``: the standard
    split's evaluated side; most also have train sentences). A document whose dev or test
    sentences did not align is not among them: none of its sentences is evaluated."""
    return {_document(s) for split in ("dev", "test")
            for s in sentences_of(data / f"en_esl-ud-{split}.conllu")}


def learner_fce(args: argparse.Namespace) -> str | None:
    """The ``--fce`` kind the fold learner models train on (none with
    ``--fce-corrector-only``)."""
    return None if args.fce_corrector_only else args.fce


def cv(args: argparse.Namespace) -> None:
    """k-fold cross-validation over every isomorphic pair of every split (module docstring)."""
    if args.fce and args.crossfit:
        _fail("cv: --fce and --crossfit do not go together")
    if args.fce_corrector_only and not args.fce:
        _fail("cv: --fce-corrector-only needs --fce")
    if args.fce_edited and not args.fce:
        _fail("cv: --fce-edited needs --fce")
    if args.bags < 0:
        _fail(f"cv: --bags must be at least 0, not {args.bags}")
    if args.bag_seed and not args.bags:
        _fail("cv: --bag-seed needs --bags")
    if args.train_trees and not (args.correctors_only or args.learners_only):
        _fail("cv: --train-trees trains the learner models and correctors only: give "
              "--correctors-only or --learners-only")
    if args.train_trees and args.fce:
        _fail("cv: --fce and --train-trees do not go together (the outside pairs have no "
              "nested trees)")
    _stream_seed("cv", bag_seed=args.bag_seed, readings_seed=args.readings_seed)
    data, work, k = Path(args.data), Path(args.work), args.folds
    english, grammar = load_model("en"), load_grammar(args.grammar)
    splits = args.splits or list(SPLITS)
    learner_text, fold_of = document_folds(data, splits, k)
    pooled, extra = pooled_pairs(data, splits, args.extra)
    trees = fold_trees(args.train_trees, learner_text, fold_of) if args.train_trees else None
    tree_records = [{"train_trees": args.train_trees, "train_trees_digest": digest(
        [fold_tree[i] for i in sorted(fold_tree)])} for fold_tree in trees] if trees else [{}] * k
    outside = Outside.read(data, args.fce) if args.fce else Outside([], [])
    fold_outside = [kept_outside(outside, args.fce_edited,
                                 {d for d, f in fold_of.items() if f == fold}, f"fold {fold}")
                    for fold in range(k)]
    learners = [  # the learner models first: they need no hyper-parameter
        learner_model(args, work / f"fold{fold}" / "learner", grammar, f"fold {fold}",
                      {"fold": fold, "folds": k, **tree_records[fold]},
                      [s if trees is None else trees[fold][s.sent_id]
                       for split in splits for s in learner_text[split]
                       if fold_of[_document(s)] != fold]
                      + (fold_outside[fold].learners if learner_fce(args) else []))
        for fold in range(k)]
    if args.learners_only:
        return
    outputs: dict[str, list[Sentence | None]] = {}
    by_cost: dict[float, list[Sentence | None]] = {}
    per_fold: list[dict] = []
    folds: list[tuple[list[Sentence], list[Sentence], Reading]] = []
    keyed = fold_pairs(pooled, extra, fold_of, k)
    rests = [[(s, g) for _, s, g in rows] + fold_outside[fold].pairs
             for fold, rows in enumerate(keyed)]
    slotted = [slot_pairs(rest, None if trees is None else trees[fold])
               for fold, rest in enumerate(rests)]  # read once, for the corrector and its bags
    models = [fold_model(args, work / f"fold{fold}", fold, learner, own, grammar, slotted[fold],
                         trees=tree_records[fold])
              for fold, (own, learner) in enumerate(learners)]
    for b in range(args.bags):  # bag by bag: every fold has its first b bags at any time
        for fold, (own, learner) in enumerate(learners):
            fold_model(args, work / f"fold{fold}" / f"bag{b}", fold, learner, own, grammar,
                       [slotted[fold][i] for i in resampled(len(slotted[fold]), args.bag_seed,
                                                            fold, b)], (b, args.bag_seed),
                       tree_records[fold])
    if args.correctors_only:
        return
    crossfitted = crossfit(work / "crossfit.json", models, pooled, extra,
                           fold_of) if args.crossfit else None
    helds = held_of(pooled, fold_of, k)
    for fold, (model, held) in enumerate(zip(models, helds)):
        folder = work / f"fold{fold}"
        src, gold = [s for s, _ in rests[fold]], [g for _, g in rests[fold]]
        model = model.decoded_with(Decoding(args.edit_cost, args.support))
        corr = None if crossfitted is None else [  # no outside pairs: rests[fold]'s rows
            crossfitted[0][key] for key, _, _ in keyed[fold]]
        crfs = train_crfs(src, gold, gold, english, folder, (args.c2,), not args.all_systems,
                          args.keep_c2, corr, args.bilstm)
        if args.models_only:
            print(f"fold {fold}: models trained", flush=True)
            continue
        source, fold_gold = [pooled[j][1] for j in held], [pooled[j][2] for j in held]
        out, _, read, _ = systems(source, model, crfs, english,
                               {CRF: args.weight, KEEP: args.keep_weight,
                                BILSTM: args.weight, BILSTM_KEEP: args.keep_weight},
                               prepared=None if crossfitted is None else crossfitted[1][fold])
        folds.append((source, fold_gold, read))
        place(outputs, held, out, len(pooled))
        place(by_cost, held, cost_outputs(read.prepared, Decoding(0.0, args.support)),
              len(pooled))
        fold_rows = [evaluate(name, source, fold_gold, pred) for name, pred in out.items()]
        per_fold.append({r["system"]: [r["aed"], r["f0.5"]] for r in fold_rows})
        print(f"fold {fold}: {len(held)} held-out pairs, "
              + ", ".join(f"{name} F0.5 {v[1]:.1f}" for name, v in per_fold[-1].items()
                          if name in ("correction", CRF, PRODUCT, KEEP, KEEP_PRODUCT)),
              flush=True)
    if args.models_only:
        return
    gate, gates = gated_folds(folds, args.support, outputs, helds)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    rows = scored({name: [p for p in pred if p is not None] for name, pred in outputs.items()},
                  source, gold)
    print_rows(f"### {k}-fold cross-validation ({len(pooled)} sentences, "
               f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; gold trees; "
               f"product weights {args.weight}, keep tag {args.keep_weight})", rows)
    costs, _, _ = cost_sweep(by_cost, helds, source, gold)
    weights, tried = chosen_weights(
        [s for src, _, _ in folds for s in src], [g for _, golds, _ in folds for g in golds],
        lambda crf, w: [p for _, _, read in folds for p in product(read, crf, w, args.support)],
        names=list(folds[0][2].margs))
    print_weights("product weights, pooled F0.5", tried, weights)
    with output(args.output) as f:
        f.write(json.dumps({"folds": k, "weight": args.weight, "keep_weight": args.keep_weight,
                            "keep_c2": args.keep_c2, "copy": args.copy, "extra": args.extra,
                            "fce": args.fce, "fce_learner": learner_fce(args),
                            "fce_edited": args.fce_edited,
                            "fce_pairs": [len(o.pairs) for o in fold_outside],
                            "edit_cost": args.edit_cost, "support": args.support,
                            "rows": rows, "per_fold": per_fold, "chosen_weights": weights,
                            "product_weights": {crf: {w: EditScore.prf(*c)[2]
                                                      for w, c in ws.items()}
                                                for crf, ws in tried.items()},
                            "product_weight_counts": tried, "gate": gate, "fold_gates": gates,
                            "edit_costs": [asdict(t) for t in costs]}, indent=1) + "\n")


def _trees_of(record: dict) -> str:
    """The training trees a learner model's or corrector's ``record`` names, for messages."""
    if not record.get("train_trees"):
        return "gold"
    return f"{record['train_trees']} (digest {record.get('train_trees_digest')})"


def same_trees(stored: dict, asked: dict) -> bool:
    """Whether the records ``stored`` and ``asked`` name the same training trees: both gold, or
    both cv --train-trees trees of one digest (``train_trees_digest``), whatever path
    (``train_trees``, kept for the messages) named the file."""
    return (bool(stored.get("train_trees")) == bool(asked.get("train_trees"))
            and stored.get("train_trees_digest") == asked.get("train_trees_digest"))


def learner_model(args: argparse.Namespace, folder: Path, grammar, what: str, record: dict,
                  sentences: list[Sentence]) -> tuple[list[SlotSentence], PunctModel]:
    """``what``'s learner model (:func:`trainable` ``sentences``, and the model loaded from
    ``folder``, refused if of old folds, of another learner ``--fce`` or of other training
    trees than ``record``'s (:func:`same_trees`); or trained on them and saved with
    ``record``, their count, the ``--fce`` kind and FOLD_KEY)."""
    own, dropped = trainable(sentences)
    if not folder.is_dir():
        model = fit_train(own, grammar, [grammar.direction], settings=Settings(lexical=0),
                          iterations=args.learner_iterations).model
        save_model(model, folder, {**record, "sentences": len(own), "fce": learner_fce(args),
                                   "fold_key": FOLD_KEY})
        print(f"{what}: learner model trained on {len(own)} sentences ({dropped} left "
              f"out: {UNTRAINABLE})", flush=True)
    else:
        stored = read_record(folder)["record"]
        refuse_old_folds(folder, stored)
        if stored.get("fce") != learner_fce(args):
            _fail(f"{folder}: trained with --fce {stored.get('fce')}, "
                  f"not {learner_fce(args)}: name another --work")
        if not same_trees(stored, record):
            _fail(f"{folder}: trained on the trees of {_trees_of(stored)}, not "
                  f"{_trees_of(record)}: name another --work")
    return own, load_model(folder)


def rerank_outputs(ranked: list[tuple[Nbest, Sentence, dict[str, list[float]]]], r: Rerank,
                   made: dict[tuple[int, int], Sentence]) -> list[Sentence]:
    """The sentences re-ranked as ``r`` from each one's (n-best, stripped sentence, generative
    scores); ``made``: the corrected sentences already written, by (sentence, correction)."""
    out = []
    for j, (nb, stripped, gen) in enumerate(ranked):
        c = nb.best(gen[r.generator], r.weight, r.k)
        if (j, c) not in made:
            made[j, c] = insert(stripped, nb.corrections[c])
        out.append(made[j, c])
    return out


@dataclass
class HeldOut:
    """One fold of a finished ``cv`` run read again: its held-out pairs (indices into the
    pooled pairs, and the learner sentences), its models (loaded) and the systems' outputs on
    them (:func:`systems`)."""

    held: list[int]
    source: list[Sentence]
    model: CorrectionModel
    crfs: Crfs
    read: Reading


@dataclass
class CvRun:
    """A finished ``cv`` run read again (``args``: its ``--data``, ``--split``, ``--folds``,
    ``--work``): its pooled held-out pairs, the model of correct English and every system's
    outputs by pooled pair, filled in by :meth:`folds`."""

    args: argparse.Namespace
    splits: list[str]
    pooled: list
    helds: list[list[int]]
    english: PunctModel
    outputs: dict[str, list[Sentence | None]] = field(default_factory=dict)

    @classmethod
    def of(cls, args: argparse.Namespace) -> CvRun:
        pairs = held_out_pairs(args)
        return cls(args, args.splits or list(SPLITS), pairs.pooled, pairs.helds,
                   load_model(args.reference))

    def folds(self) -> Iterator[HeldOut]:
        """Every fold (its correction model decoded with ``--edit-cost``, ``--support`` and
        ``--decoder``, its two CRF correctors), the systems' outputs placed into
        :attr:`outputs` (the products at ``--weight`` and ``--keep-weight``)."""
        args, pooled, work = self.args, self.pooled, Path(self.args.work)
        for fold, held in enumerate(self.helds):
            fold_folders(work, fold, ("correct", "crf-correct", f"crf-keep-c2-{args.keep_c2:g}"),
                         args.folds)
            h, out = held_out(args, loaded(args, work / f"fold{fold}"), held,
                              [pooled[j][1] for j in held], self.english)
            place(self.outputs, held, out, len(pooled))
            yield h


def loaded(args: argparse.Namespace, folder: Path) -> tuple[CorrectionModel, Crfs]:
    """The models of ``folder``: its correction model decoded with ``--edit-cost``,
    ``--support`` and ``--decoder``, and its two CRF correctors."""
    model = CorrectionModel.load(folder / "correct").decoded_with(
        Decoding(args.edit_cost, args.support, decoder=args.decoder))
    return model, Crfs(CrfCorrector.load(folder / "crf-correct"),
                       CrfCorrector.load(folder / f"crf-keep-c2-{args.keep_c2:g}"), None, None)


def held_out(args: argparse.Namespace, models: tuple[CorrectionModel, Crfs], held: list[int],
             source: list[Sentence], english: PunctModel
             ) -> tuple[HeldOut, dict[str, list[Sentence]]]:
    """The held-out learner sentences ``source`` read by the ``models`` (:func:`loaded`) and
    the systems' outputs on them (the products at ``--weight`` and ``--keep-weight``)."""
    model, crfs = models
    out, _, read, _ = systems(source, model, crfs, english,
                              {CRF: args.weight, KEEP: args.keep_weight})
    return HeldOut(held, source, model, crfs, read), out


def fold_folders(work: Path, fold: int, names: tuple[str, ...], folds: int) -> None:
    """Fail unless the cv run's fold folder in ``work`` has its learner model and every model
    folder ``names``, and the learner model was made by a cv run of ``folds`` folds."""
    folder = work / f"fold{fold}"
    missing = [f for f in ("learner", *names) if not (folder / f).is_dir()]
    if missing:
        _fail(f"{folder}: no {', '.join(missing)} (run cv with --work {work} first)")
    record = read_record(folder / "learner").get("record", {})
    if record.get("folds") != folds:
        _fail(f"{folder / 'learner'}: made by a cv run with --folds {record.get('folds')}, "
              f"not {folds}")
    refuse_old_folds(folder / "learner", record)


FOLD_KEY = "FCE document"  # what cv's folds are made of (:func:`document_folds`)


def refuse_old_folds(folder: Path, record: dict) -> None:
    """Fail unless the fold learner model's ``record`` is of a cv run whose folds are by FCE
    document (``fold_key``; a record with ``fce`` but no ``fold_key`` is of 7148b46 or later,
    already by document): older runs' folds were by split/document, which can split one FCE
    document between folds."""
    key = record.get("fold_key", FOLD_KEY if "fce" in record else "split/document")
    if key != FOLD_KEY:
        _fail(f"{folder}: made by a cv run with folds by {key}, not by {FOLD_KEY}: "
              "name another --work and run cv again")


def place(outputs: dict[K, list[Sentence | None]], held: list[int],
          out: dict[K, list[Sentence]], n: int) -> None:
    """Each system's outputs ``out`` on the pairs ``held`` into ``outputs`` (n pairs each)."""
    for name, pred in out.items():
        slots = outputs.setdefault(name, [None] * n)
        for j, p in zip(held, pred):
            slots[j] = p


def rerank_cv(args: argparse.Namespace) -> None:
    """Choose each CRF corrector's n-best re-ranking (generator, k, weight) on the held-out
    pairs of a ``cv`` run's fold models (its ``--work``; the fold correctors and CRF
    correctors are loaded, not trained): the highest pooled F0.5 (ties: the lower k, the lower
    weight, GENERATORS' order); every setting's edit counts and AED, and the rows of keep,
    the correction model, the CRF correctors, their products and the chosen re-rankings."""
    run = CvRun.of(args)
    pooled, outputs, english, k = run.pooled, run.outputs, run.english, args.folds
    ranked: dict[str, dict[int, tuple]] = {CRF: {}, KEEP: {}}  # crf -> pair -> its n-best
    for fold, h in enumerate(run.folds()):
        held = h.held
        for name, (lists, gen) in nbest_scores(h.source, h.read.prepared.stripped, h.model,
                                               english, {CRF: h.crfs.corrector, KEEP: h.crfs.keep},
                                               max(RERANK_K)).items():
            for pos, j in enumerate(held):
                ranked[name][j] = (lists[pos], h.read.prepared.stripped[pos],
                                   {g: gen[g][pos] for g in GENERATORS})
        print(f"fold {fold}: {len(held)} held-out pairs re-ranked", flush=True)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    grid: dict[str, dict] = {}
    chosen: dict[str, Rerank] = {}
    for name in (CRF, KEEP):
        lists = [ranked[name][j] for j in range(len(pooled))]
        trials = {}
        made: dict[tuple[int, int], Sentence] = {}
        for r in (Rerank(g, kk, w) for g in GENERATORS for kk in RERANK_K
                  for w in RERANK_WEIGHTS):
            pred = rerank_outputs(lists, r, made)
            aed, edits = scores(gold, pred, source)
            trials[r] = ([sum(c) for c in astuple(edits)], aed.average_edit_distance)
        won = max(trials, key=lambda r: (EditScore.prf(*trials[r][0])[2], -r.k, -r.weight,
                                         -GENERATORS.index(r.generator)))
        chosen[name] = won
        grid[name] = [{**asdict(r), "edit_counts": c, "aed": a, "f0.5": EditScore.prf(*c)[2]}
                      for r, (c, a) in trials.items()]
        print(f"{name}: F0.5 (AED) by generator, k, weight "
              + "; ".join(f"{r.generator} {r.k} {r.weight:g}: {EditScore.prf(*c)[2]:.1f} "
                          f"({a:.4f})" for r, (c, a) in trials.items()), flush=True)
        print(f"{name}: chosen {won}", flush=True)
        outputs[reranked_name(name)] = rerank_outputs(lists, won, made)
    rows = scored({name: [p for p in pred if p is not None] for name, pred in outputs.items()},
                  source, gold)
    print_rows(f"### re-ranking, {k}-fold cross-validation ({len(pooled)} sentences, "
               f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; gold trees; "
               f"product weights {args.weight}, keep tag {args.keep_weight})", rows)
    with output(args.output) as f:
        f.write(json.dumps({"folds": k, "splits": run.splits, "edit_cost": args.edit_cost,
                            "support": args.support, "keep_c2": args.keep_c2,
                            "chosen": {crf: asdict(r) for crf, r in chosen.items()},
                            "grid": grid, "rows": rows}, indent=1) + "\n")


NESTED = "agreement, nested choice"
NESTED_COST = "correction, nested edit cost"
K = TypeVar("K", bound=Hashable)  # a candidate of a choice by least AED
V = TypeVar("V")
AGREE_KINDS = ("decoded", "mbr", "joint")  # with the decoding's or MBR's edits; joint p
AGREE_THRESHOLDS = (0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5,
                    0.6, 0.7, 0.8, 0.9)  # first grid from 0.05; widened once (RESULTS)


@dataclass(frozen=True)
class Agreement:
    """An agreement of a CRF corrector and the correction model
    (:mod:`fstpunct.apps.correction.combine`): ``decoded`` — an edit where the CRF's Viterbi
    correction and the correction model's (its decoding) write the same string; ``mbr`` — the
    same with the correction model's MBR without edit cost (its support kept); ``joint`` — the
    edit of highest p_crf · p_gen where that exceeds ``threshold``."""

    crf: str
    kind: str
    threshold: float = 0.0

    @property
    def name(self) -> str:
        if self.kind == "joint":
            return f"{self.crf} and correction, joint p > {self.threshold:g}"
        return f"{self.crf} and correction{' (MBR)' if self.kind == 'mbr' else ''}, agreed"


AGREEMENTS = tuple(Agreement(crf, kind) for crf in (CRF, KEEP) for kind in AGREE_KINDS[:2]) + \
    tuple(Agreement(crf, "joint", t) for crf in (CRF, KEEP) for t in AGREE_THRESHOLDS)


def agreement_outputs(read: Reading, decoding: Decoding,
                      variants: tuple[Agreement, ...] | list[Agreement]
                      ) -> dict[str, list[Sentence]]:
    """Every agreement of ``variants`` on the :class:`Reading`'s sentences (with each CRF
    corrector's Viterbi corrections), by its name; the correction model decodes with
    ``decoding`` (``mbr``: its support and decoder, no edit cost)."""
    prep = read.prepared
    mbr = Decoding(0.0, decoding.support, decoder=decoding.decoder)
    decoded = {kind: [decided(prep.model, d, o, dec) for d, o in zip(prep.dists, prep.own)]
               for kind, dec in (("decoded", decoding), ("mbr", mbr))
               if any(v.kind == kind for v in variants)}
    out = {}
    for v in variants:
        if v.kind == "joint":
            made = [joint(m, d, o, v.threshold, decoding.support)
                    for m, d, o in zip(read.margs[v.crf], prep.dists, prep.own)]
        else:
            made = [agreed(a, b, o) for a, b, o in zip(decoded[v.kind], read.viterbi[v.crf],
                                                       prep.own)]
        out[v.name] = [insert(t, i) for t, i in zip(prep.stripped, made)]
    return out


def agreements_and_costs(h: HeldOut) -> tuple[dict[str, list[Sentence]],
                                              dict[float, list[Sentence]]]:
    """Every agreement of AGREEMENTS on the held-out sentences (by name; the correction model
    decoded as loaded) and the correction model's corrections at every edit cost of COSTS."""
    return (agreement_outputs(h.read, h.model.decoding, AGREEMENTS),
            cost_outputs(h.read.prepared, replace(h.model.decoding, edit_cost=0.0)))


def least_aed(candidates: list[K], edits: dict[K, list[int]], counts: dict[K, EditScore],
              by_f05: bool = True) -> K:
    """The candidate (an agreement, an edit cost, a λ) of least summed token edits over the
    sentences ``edits`` and ``counts`` hold (ties: the higher F0.5 unless not ``by_f05``, then
    the earlier in ``candidates``)."""
    return min(candidates, key=lambda v: (sum(edits[v]),
                                          -counts[v].scores()[2] if by_f05 else 0.0,
                                          candidates.index(v)))


def others(parts: Sequence[Sequence[V]], fold: int) -> list[V]:
    """The items of every part but ``fold``'s, in order (what a fold is chosen or fitted on)."""
    return [x for f, part in enumerate(parts) if f != fold for x in part]


def nested_choices(helds: list[list[int]], candidates: list[K], edits: dict[K, list[int]],
                   counts: dict[K, EditScore], by_f05: bool = True) -> list[K]:
    """Per fold (``helds``: its pooled pairs), the candidate of :func:`least_aed` (``by_f05``)
    on the other folds' pairs (``edits``, ``counts``: every candidate's, by pooled pair)."""
    out = []
    for fold in range(len(helds)):
        rest = others(helds, fold)
        out.append(least_aed(candidates, {v: [edits[v][j] for j in rest] for v in candidates},
                             {v: EditScore(*([c[j] for j in rest] for c in astuple(counts[v])))
                              for v in candidates}, by_f05))
    return out


def nested_outputs(helds: list[list[int]], chosen: list[Sequence[Sentence | None]], n: int
                   ) -> list[Sentence | None]:
    """The ``n`` pooled pairs' outputs, each fold's held-out pairs (``helds``) taken from its
    ``chosen`` outputs (per fold, by pooled pair, those of the fold's choice of
    :func:`nested_choices`)."""
    nested: list[Sentence | None] = [None] * n
    for held, outputs in zip(helds, chosen):
        for j in held:
            nested[j] = outputs[j]
    return nested


def grid_of(candidates: Iterable[K], outputs: Callable[[K], list[Sentence]],
            source: list[Sentence], gold: list[Sentence]
            ) -> tuple[dict[K, list[int]], dict[K, EditScore]]:
    """Every candidate's token edits by sentence and its edit counts (its ``outputs``, scored
    once)."""
    both = {v: scores(gold, outputs(v), source) for v in candidates}
    return ({v: r.sentence_edits for v, (r, _) in both.items()},
            {v: e for v, (_, e) in both.items()})


def print_grid(what: str, candidates: Iterable[K], name: Callable[[K], str],
               edits: dict[K, list[int]], counts: dict[K, EditScore]) -> None:
    print(f"| {what} | AED | right/proposed edits | F0.5 |\n|---|---|---|---|")
    for v in candidates:
        right, proposed, _ = (sum(c) for c in astuple(counts[v]))
        print(f"| {name(v)} | {sum(edits[v]) / len(edits[v]):.4f} | {right}/{proposed} | "
              f"{counts[v].scores()[2]:.1f} |", flush=True)


def cost_outputs(prepared: Prepared | Bagged, decoding: Decoding) -> dict[float, list[Sentence]]:
    """The sentences corrected at every edit cost of COSTS (``decoding``'s other fields)."""
    return {c: prepared.corrected_with(replace(decoding, edit_cost=c)) for c in COSTS}


def cost_sweep(by_cost: dict[float, list[Sentence | None]], helds: list[list[int]],
               source: list[Sentence], gold: list[Sentence]
               ) -> tuple[list[Trial], list[float], list[Sentence | None]]:
    """The correction model's edit costs on the pooled held-out pairs (``by_cost``: its
    outputs at every cost of COSTS, by pooled pair): every cost's pooled scores (printed), the
    cost chosen nested per fold (:func:`nested_choices`: least AED on the other folds) and
    the outputs at those nested costs."""
    edits, counts = grid_of(COSTS, by_cost.__getitem__, source, gold)
    trials = [Trial.counted(c, edits[c], counts[c]) for c in COSTS]
    print_trials(trials)
    fold_costs = nested_choices(helds, list(COSTS), edits, counts)
    return trials, fold_costs, nested_outputs(helds, [by_cost[c] for c in fold_costs],
                                              len(source))


class HeldOutPairs(NamedTuple):
    """A finished cv run's pairs (:func:`held_out_pairs`)."""

    pooled: list[tuple[str, Sentence, Sentence]]  # (split, learner sentence, correction)
    helds: list[list[int]]  # per fold, the indices of its held-out pairs in pooled
    fold_of: dict[str, int]  # each FCE document's fold
    learner_text: dict[str, list[Sentence]]  # the learner sentences of the splits, by split


def held_out_pairs(args: argparse.Namespace) -> HeldOutPairs:
    """A finished cv run's pooled pairs (``--data``, ``--split``), the pairs each of its
    ``--folds`` folds holds out, the fold of each FCE document and the learner sentences of
    the splits, by split (:func:`document_folds`)."""
    data, splits = Path(args.data), args.splits or list(SPLITS)
    learner_text, fold_of = document_folds(data, splits, args.folds)
    pooled = pooled_pairs(data, splits, False)[0]
    return HeldOutPairs(pooled, held_of(pooled, fold_of, args.folds), fold_of, learner_text)


def fold_models(work: Path, folds: int, names: tuple[str, ...],
                checked: Callable[[Path], None] = lambda folder: None
                ) -> list[list[CorrectionModel]]:
    """A finished cv run's (``work``, ``folds`` folds) correction models ``names`` of each
    fold, loaded once every fold's folder is checked (:func:`fold_folders`, then ``checked``
    on it): a refusal comes before any load."""
    folders = [work / f"fold{fold}" for fold in range(folds)]
    for fold, folder in enumerate(folders):
        fold_folders(work, fold, names, folds)
        checked(folder)
    return [[CorrectionModel.load(folder / name) for name in names] for folder in folders]


def prepared_folds(work: Path, source: list[Sentence], helds: list[list[int]], bags: int = 0,
                   mixed: Sequence[list[Sentence]] = ()) -> list[Prepared | Bagged]:
    """A finished cv run's fold correctors (its ``work``), each with its held-out learner
    sentences (of ``source``) prepared (:class:`Prepared`); with ``mixed`` (the same sentences
    on other trees), each fold's corrector reading every sentence on all the trees, mixed
    (:meth:`Prepared.over_trees`); with ``bags``, each fold's first ``bags`` bagged correctors
    instead (cv --bags), voting (:class:`Bagged`): a fold's sentences stripped and read (T_e′)
    once for all its bags (:meth:`Prepared.sharing`, which refuses a bag whose learner model or
    readings differ from its fold's first bag's); not both (a ValueError)."""
    if bags and mixed:
        raise ValueError("prepared_folds: bagged correctors read one tree per sentence, not "
                         "mixed trees")
    names = tuple(f"bag{b}/correct" for b in range(bags)) or ("correct",)
    out: list[Prepared | Bagged] = []
    seed = None  # fold 0's bag 0's: every bag of every fold must have it
    for fold, (models, held) in enumerate(zip(fold_models(work, len(helds), names), helds)):
        for b, model in enumerate(models if bags else ()):
            got = (model.record.get("fold"), model.record.get("bag"),
                   model.record.get("bag_seed"))
            seed = got[2] if seed is None else seed
            if got != (fold, b, seed):
                _fail(f"{work / f'fold{fold}' / names[b]}: recorded as fold {got[0]}, bag "
                      f"{got[1]}, seed {got[2]}: not fold {fold}'s bag {b} of fold0/bag0's "
                      f"seed {seed}")
        try:
            prepared = ([Prepared.over_trees(models[0], [[p[j] for j in held]
                                                         for p in (source, *mixed)])]
                        if mixed else Prepared.sharing(models, [source[j] for j in held], names))
        except InputError as e:
            _fail(f"{work / f'fold{fold}'}: {e}")
        out.append(Bagged(prepared) if bags else prepared[0])
    return out


def swept(prepared: list[Prepared | Bagged], decodings: list[Decoding], helds: list[list[int]],
          source: list[Sentence], gold: list[Sentence]
          ) -> tuple[dict[float, list[Sentence | None]], list[Trial], list[float],
                     list[Sentence | None]]:
    """Every fold's held-out pairs decoded at every edit cost of COSTS (fold k by
    ``decodings[k]``), then :func:`cost_sweep`: the outputs by cost, the trials (printed), the
    costs chosen nested and the outputs at them."""
    by_cost: dict[float, list[Sentence | None]] = {}
    for prep, held, decoding in zip(prepared, helds, decodings):
        place(by_cost, held, cost_outputs(prep, decoding), len(source))
    return (by_cost, *cost_sweep(by_cost, helds, source, gold))


def agree_cv(args: argparse.Namespace) -> None:
    """Choose the agreement of a CRF corrector and the correction model (:class:`Agreement`)
    on the held-out pairs of a ``cv`` run's fold models (its ``--work``; loaded, not trained):
    the least pooled AED (ties: the higher F0.5, then AGREEMENTS' order); and the same choice
    nested (each fold decoded with the agreement chosen on the other folds), and the correction
    model's edit cost (of COSTS) chosen so too (:data:`NESTED_COST`). Prints every agreement's
    and edit cost's pooled scores; writes the choices and the rows of keep, the correction
    model, the CRF correctors, their products, every hard agreement, the chosen and the nested
    ones; when the pairs pool several splits, the same rows on each split's pairs too
    (``rows_by_split``)."""
    run = CvRun.of(args)
    pooled, outputs, k, splits, helds = run.pooled, run.outputs, args.folds, run.splits, run.helds
    by_cost: dict[float, list[Sentence | None]] = {}
    for fold, h in enumerate(run.folds()):
        agreements, costs = agreements_and_costs(h)
        place(outputs, h.held, agreements, len(pooled))
        place(by_cost, h.held, costs, len(pooled))
        print(f"fold {fold}: {len(h.held)} held-out pairs", flush=True)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    edits, counts = grid_of(AGREEMENTS, lambda v: outputs[v.name], source, gold)
    chosen = least_aed(list(AGREEMENTS), edits, counts)
    print_grid("agreement", AGREEMENTS, lambda v: v.name, edits, counts)
    print(f"chosen: {chosen.name} (keep {score(gold, outputs['keep']).average_edit_distance:.4f})",
          flush=True)
    fold_choices = nested_choices(helds, list(AGREEMENTS), edits, counts)
    trials, fold_costs, nested_cost = cost_sweep(by_cost, helds, source, gold)
    nested = nested_outputs(helds, [outputs[v.name] for v in fold_choices], len(pooled))
    for fold, won in enumerate(fold_choices):
        print(f"fold {fold}: nested choice {won.name}; edit cost {fold_costs[fold]:g}",
              flush=True)
    shown = {name: pred for name, pred in outputs.items()
             if name not in {v.name for v in AGREEMENTS}
             or any(v.name == name and (v.kind != "joint" or v == chosen) for v in AGREEMENTS)}
    shown[NESTED], shown[NESTED_COST] = nested, nested_cost
    title = f"{k}-fold cross-validation ({'+'.join(splits)}; decoder {args.decoder}"
    rows = scored({name: [p for p in pred if p is not None] for name, pred in shown.items()},
                  source, gold)
    print_rows(f"### agreement, {title}: {len(pooled)} sentences, "
               f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; gold trees)", rows)
    rows_by_split = split_rows(shown, pooled, splits, f"agreement, {title})")
    with output(args.output) as f:
        f.write(json.dumps({"folds": k, "splits": splits, "edit_cost": args.edit_cost,
                            "support": args.support, "decoder": args.decoder,
                            "keep_c2": args.keep_c2, "chosen": asdict(chosen),
                            "nested": [asdict(v) for v in fold_choices],
                            "nested_costs": fold_costs,
                            "grid": [{**asdict(v), "aed": sum(edits[v]) / len(gold),
                                      "edit_counts": [sum(c) for c in astuple(counts[v])],
                                      "f0.5": counts[v].scores()[2]} for v in AGREEMENTS],
                            "cost_grid": [asdict(t) for t in trials],
                            "rows": rows, "rows_by_split": rows_by_split}, indent=1) + "\n")


def split_rows(outputs: dict[str, list[Sentence | None]], pooled: list, splits: list[str],
               title: str, refs: tuple[str, ...] = REFS,
               tests: tuple[tuple[str, str], ...] = ROW_TESTS) -> dict[str, list[dict]]:
    """When the pooled pairs pool several splits, the rows of :func:`scored` (against
    ``refs``) on each split's pairs, printed (:func:`print_rows` with ``tests``), by split."""
    out = {}
    for split in splits if len(splits) > 1 else ():
        js = [j for j, (sp, _, _) in enumerate(pooled) if sp == split]
        out[split] = scored({name: [pred[j] for j in js] for name, pred in outputs.items()},
                            [pooled[j][1] for j in js], [pooled[j][2] for j in js], refs)
        print_rows(f"### {title}, the held-out pairs of {split} ({len(js)} sentences, "
                   f"{sum(out[split][0]['edit_counts'][2])} gold punctuation edits)", out[split],
                   tests)
    return out


BEFORE, AFTER = "before", "after"  # compare's two sides


def nested_platt(prepared: list[Prepared], golds: list[list[Sentence]], support: float
                 ) -> list[tuple[float, ...]]:
    """Per fold, the Platt map (:mod:`fstpunct.apps.correction.platt`) fitted on the other
    folds' held-out slots (``prepared``, ``golds``: every fold's held-out pairs, decoded by
    that fold's corrector, and their corrections)."""
    per_fold = []
    for prep, gold in zip(prepared, golds):
        x: list = []
        offset: list = []
        y: list = []
        for dists, own, g in zip(prep.dists, prep.own, gold):
            for got, more in zip((x, offset, y), platt_examples(
                    dists, own, slot_strings(to_slots(g)), support)):
                got += more
        per_fold.append((x, offset, y))
    return [platt_fitted(*(others([part[i] for part in per_fold], fold) for i in range(3)))
            for fold in range(len(per_fold))]


def compare(args: argparse.Namespace) -> None:
    """Two cv runs' fold correctors (``--before``, ``--after``: their ``--work``, the same
    folds) on the same held-out pairs: each decodes every fold's pairs at every edit cost of
    COSTS (with ``--support``; the before side by ``--before-decoder``, the after side by
    ``--after-decoder``; ``--platt``: the after side with the Platt map fitted nested,
    :func:`nested_platt`); rows of keep and of each side at ``--edit-cost`` and at the cost
    chosen nested as ``agree`` chooses it (:func:`cost_sweep`), tested against keep and the
    before side at ``--edit-cost`` and at its nested cost (AED: sign flips; F0.5: approximate
    randomisation), pooled and on each split's pairs, every row's edits split into the
    final slot's and the inner slots' (right/proposed, :func:`final_or_inner`), and each
    after row's edits against the before row's of its kind (at ``--edit-cost``; at each side's
    nested costs) (:func:`edit_overlap`). With
    ``--after-trees`` the after side decodes the learner sentences on that file's trees
    (:func:`read_trees`: jackknife's of the same folds) instead of the gold trees, and with
    ``--mix-trees`` on those files' trees too, mixed (:meth:`Prepared.over_trees`); with
    ``--after-bags B``, by the vote of each fold's first B bagged correctors
    (:class:`~fstpunct.apps.correction.bagging.Bagged`) instead of its corrector. With
    ``--platt`` the nested cost is only singly nested: fold k's cost is chosen on the other
    folds decoded with maps fitted partly on fold k's pairs."""
    splits, k = args.splits or list(SPLITS), args.folds
    _sweep_cost("compare", args.edit_cost)
    if args.after_bags < 0:
        _fail(f"compare: --after-bags must be at least 0, not {args.after_bags}")
    if args.platt and args.after_bags:
        _fail("compare: --platt and --after-bags do not go together")
    pooled, helds, fold_of, learner_text = held_out_pairs(args)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    works = {BEFORE: Path(args.before), AFTER: Path(args.after)}
    inputs = {BEFORE: source, AFTER: source}
    if args.mix_trees and (not args.after_trees or args.after_bags or args.platt):
        _fail("compare: --mix-trees needs --after-trees, and goes with neither --after-bags "
              "nor --platt")
    trees: dict = {}
    mixed: list[list[Sentence]] = []  # on each file's trees: --after-trees', --mix-trees'
    if args.after_trees:
        scores = []
        for path in (args.after_trees, *args.mix_trees):
            mixed.append(on_trees(source, read_trees(path, learner_text, fold_of)))
            parsed = parse_score(source, mixed[-1])
            scores.append((path, parsed.words.uas, parsed.words.las))
            print(f"after side on the trees of {path}: word UAS {parsed.words.uas:.2f}, "
                  f"LAS {parsed.words.las:.2f} on the held-out pairs", flush=True)
        inputs[AFTER] = mixed.pop(0)
        (path, uas, las), *more = scores
        trees = {"after_trees": path, "after_trees_uas": uas, "after_trees_las": las}
        if more:
            trees.update({f"mix_trees{what}": [m[k] for m in more]
                          for k, what in enumerate(("", "_uas", "_las"))})

    def prepared(side: str, bags: int = 0) -> list[Prepared | Bagged]:
        folds = prepared_folds(works[side], inputs[side], helds, bags,
                               mixed if side == AFTER else ())
        print(f"{works[side]}: {len(pooled)} held-out pairs prepared"
              + (f" for {bags} bagged correctors a fold" if bags else ""), flush=True)
        return folds
    of_side = {BEFORE: prepared(BEFORE)}  # a folder on both sides, on the same trees: once
    of_side[AFTER] = (of_side[BEFORE] if works[AFTER] == works[BEFORE] and not args.after_trees
                      and not args.after_bags else prepared(AFTER, args.after_bags))
    bagging = {"after_bags": args.after_bags,  # prepared_folds checked every bag's seed
               "bag_seed": of_side[AFTER][0].bags[0].model.record["bag_seed"]
               } if args.after_bags else {}
    maps: list[tuple[float, ...]] = [()] * k
    if args.platt:
        maps = nested_platt(of_side[AFTER], [[gold[j] for j in held] for held in helds],
                            args.support)
        for fold, w in enumerate(maps):
            print(f"fold {fold}: Platt map " + ", ".join(f"{v:.3f}" for v in w), flush=True)
    outputs: dict[str, list[Sentence | None]] = {"keep": list(source)}
    sides = {}
    decodings = {BEFORE: [Decoding(0.0, args.support, decoder=args.before_decoder)] * k,
                 AFTER: [Decoding(0.0, args.support, platt=w, decoder=args.after_decoder)
                         for w in maps]}
    for side, work in works.items():
        print(f"{side} ({work}):", flush=True)
        by_cost, trials, fold_costs, nested = swept(of_side[side], decodings[side], helds,
                                                    source, gold)
        outputs[f"{side} (cost {args.edit_cost:g})"] = by_cost[args.edit_cost]
        outputs[f"{side}, nested edit cost"] = nested
        sides[side] = {"work": str(work), "cost_grid": [asdict(t) for t in trials],
                       "nested_costs": fold_costs}
    refs = ("keep", f"{BEFORE} (cost {args.edit_cost:g})", f"{BEFORE}, nested edit cost")
    tests = (("aed", refs[0]), ("aed", refs[1]), ("f", refs[1]), ("aed", refs[2]),
             ("f", refs[2]))
    title = (f"{BEFORE} {works[BEFORE]} against {AFTER} {works[AFTER]}, {k}-fold "
             f"({'+'.join(splits)})")
    rows = scored({name: [p for p in pred if p is not None] for name, pred in outputs.items()},
                  source, gold, refs)
    print_rows(f"### {title}: {len(pooled)} sentences, {sum(rows[0]['edit_counts'][2])} gold "
               "punctuation edits; gold trees"
               + (f", the after side's from {args.after_trees}" if args.after_trees else "")
               + (f", mixed with {', '.join(args.mix_trees)}" if args.mix_trees else ""),
               rows, tests)
    rows_by_split = split_rows(outputs, pooled, splits, title, refs, tests)
    edits = {name: written_edits(source, gold, pred) for name, pred in outputs.items()}
    where = {name: final_or_inner(e) for name, e in edits.items()}
    print("| system | final slot: right/proposed | inner slots: right/proposed |\n|---|---|---|")
    for name, counts in where.items():
        print(f"| {name} | {'/'.join(map(str, counts['final']))} | "
              f"{'/'.join(map(str, counts['inner']))} |", flush=True)
    overlap = {f"{AFTER}{row}": edit_overlap(edits[f"{BEFORE}{row}"], edits[f"{AFTER}{row}"])
               for row in (f" (cost {args.edit_cost:g})", ", nested edit cost")}
    print(f"| {AFTER} row, against {BEFORE}'s | " + " | ".join(OVERLAP) + " |\n|---"
          + "|---" * len(OVERLAP) + "|")
    for name, counts in overlap.items():
        print(f"| {name} | " + " | ".join(str(counts[c]) for c in OVERLAP) + " |", flush=True)
    with output(args.output) as f:
        f.write(json.dumps({"folds": k, "splits": splits, "edit_cost": args.edit_cost,
                            "support": args.support, "platt": [list(w) for w in maps],
                            "before_decoder": args.before_decoder,
                            "after_decoder": args.after_decoder, **trees, **bagging,
                            **sides, "rows": rows, "rows_by_split": rows_by_split,
                            "final_or_inner": where, "overlap": overlap},
                           indent=1) + "\n")


def tree_slots(args: argparse.Namespace) -> None:
    """``slots``: a finished cv run's fold correctors (``--work``) decode the held-out pairs
    at ``--edit-cost`` on the gold trees and on a jackknife's (``--trees``, as ``compare
    --after-trees`` reads them); for every inner slot where the gold correction or either
    decoding edits, the edit on each tree, the parsed tree at the slot and T_e′ there
    (:func:`~fstpunct.apps.correction.slot_trees.slot_rows`), with the corrector's
    probability of the gold string on each tree; then the edits right on the gold trees and
    those lost on the parsed ones by the tree's kind at the slot, against the kinds of every
    inner slot (printed, and the rows written to the JSON)."""
    splits, work = args.splits or list(SPLITS), Path(args.work)
    pooled, helds, fold_of, learner_text = held_out_pairs(args)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    inputs = {"gold": source, "parsed": on_trees(source, read_trees(
        args.trees, learner_text, fold_of))}  # refused before any fold's corrector is loaded

    def one_reading(folder: Path) -> None:
        if read_correction_record(folder / "correct").get("readings", 0):
            _fail(f"slots: {folder} reads drawn readings of T_e', not one")
    models = [m for m, in fold_models(work, len(helds), ("correct",), one_reading)]  # once each
    decoding = Decoding(args.edit_cost, args.support, decoder=args.decoder)
    n = len(pooled)
    written: dict[str, list[Sentence | None]] = {}
    read: dict[str, list] = {side: [None] * n for side in inputs}
    dists: dict[str, list] = {side: [None] * n for side in inputs}
    for side, sents in inputs.items():
        for model, held in zip(models, helds):
            prep = Prepared.of(model, [sents[j] for j in held], keep_readings=True)
            place(written, held, {side: prep.corrected_with(decoding)}, n)
            assert prep.readings is not None  # kept, as asked
            for j, reading, d in zip(held, prep.readings[0], prep.dists):
                read[side][j], dists[side][j] = reading, d
    edits = grid_of(inputs, written.__getitem__, source, gold)[0]  # type: ignore[arg-type]
    print(f"{n} held-out pairs of {work}, edit cost {args.edit_cost:g}, support "
          f"{args.support:g}, decoder {args.decoder}; trees {args.trees}")
    print("| trees | AED | right/proposed | final slot | inner slots |\n|---|---|---|---|---|")
    for side in inputs:
        where = final_or_inner(written_edits(source, gold, written[side]))
        right, proposed = (where["final"][m] + where["inner"][m] for m in (0, 1))
        print(f"| {side} | {sum(edits[side]) / n:.4f} | {right}/{proposed} | "
              f"{'/'.join(map(str, where['final']))} | "
              f"{'/'.join(map(str, where['inner']))} |", flush=True)
    slots: list[SlotRow] = []
    rows: list[dict] = []
    base: Counter[tuple[str, str]] = Counter()  # (slot class, tree kind) of every inner slot
    for j in range(n):
        trees = Trees(read["gold"][j], read["parsed"][j])
        gold_strings = slot_strings(to_slots(gold[j]))
        base.update(inner_slots(trees, gold_strings))
        for row in slot_rows(trees, gold_strings, *(slot_strings(to_slots(written[side][j]))
                                                    for side in inputs)):
            slots.append(row)
            rows.append({"pair": j, **asdict(row),
                         **{f"p_gold_on_{side}": dists[side][j][row.slot].prob(
                             gold_strings[row.slot]) for side in inputs}})
    print_slot_tables(slots, base, rows)
    with output(args.output) as f:
        f.write(json.dumps({"work": str(work), "trees": args.trees, "folds": args.folds,
                            "splits": splits, "edit_cost": args.edit_cost,
                            "support": args.support, "decoder": args.decoder,
                            "inner_slots": [[c, k, m] for (c, k), m in base.items()],
                            "rows": rows},
                           indent=1) + "\n")


def print_slot_tables(slots: list[SlotRow], base: Counter[tuple[str, str]], rows: list[dict]
                      ) -> None:
    """The tree's kinds at every inner slot (``base``: by slot class, :func:`inner_slots`);
    ``slots``' counts by the kind (:func:`by_kind`); every slot's outcome on the gold trees
    against the parsed ones; and each edit right on the gold trees (``rows``: with the
    corrector's probability of the gold string on either tree)."""
    of = {c: sum(m for (c2, _), m in base.items() if c2 == c) for c in SLOT_CLASSES}
    print("| tree at the slot | inner slots | " + " | ".join(SLOT_CLASSES) + " |\n|---|---|"
          + "---|" * len(SLOT_CLASSES))
    for kind in TREE_KINDS:
        print(f"| {kind} | {sum(base[c, kind] for c in SLOT_CLASSES)} | " + " | ".join(
            f"{base[c, kind]} ({100 * base[c, kind] / max(of[c], 1):.1f} %)"
            for c in SLOT_CLASSES) + " |")
    print(f"| all | {sum(of.values())} | " + " | ".join(str(of[c]) for c in SLOT_CLASSES)
          + " |")
    counts = by_kind(slots)
    print("| tree at the slot | " + " | ".join(COUNTS) + " |\n|---|" + "---|" * len(COUNTS))
    for kind in (*TREE_KINDS, "all"):
        here = ({c: sum(counts[k][c] for k in TREE_KINDS) for c in COUNTS} if kind == "all"
                else counts[kind])
        print(f"| {kind} | " + " | ".join(str(here[c]) for c in COUNTS) + " |")
    print("| on gold trees → on parsed trees | gold correction edits | slots |\n|---|---|---|")
    seen = Counter((r.on_gold, r.on_parsed, r.gold_edit) for r in slots)
    for (a, b, e), count in sorted(seen.items(), key=lambda kv: (
            OUTCOMES.index(kv[0][0]), OUTCOMES.index(kv[0][1]), not kv[0][2])):
        print(f"| {a} → {b} | {'yes' if e else 'no'} | {count} |")
    print("| tree at the slot | features differing | on parsed trees | T_e' at the slot / "
          "elsewhere | head errors in the sentence | p(gold string), gold trees | parsed trees "
          "|\n|---|---|---|---|---|---|---|")
    for r in sorted((r for r in rows if r["on_gold"] == "right"),
                    key=lambda r: (TREE_KINDS.index(r["tree"]), r["on_parsed"] == "right")):
        print(f"| {r['tree']} | {' '.join(r['templates']) or '—'} | {r['on_parsed']} | "
              f"{'same' if r['reading_same'] else 'differs'} / "
              f"{'same' if r['reading_same_elsewhere'] else 'differs'} | {r['head_errors']} | "
              f"{r['p_gold_on_gold']:.3f} | {r['p_gold_on_parsed']:.3f} |", flush=True)


LAMBDAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)  # the noisy channel's prior weights
CHANNEL_NESTED, CHANNEL_BAYES = "noisy channel, nested λ", "noisy channel, λ = 1"
REFERENCE_NESTED = "reference arm, nested edit cost"


def lambda_grid(source: list[Sentence], scores: list[noisy.SlotScores], english: PunctModel
                ) -> tuple[dict[float, list[Sentence]], dict[float, int]]:
    """The noisy channel's sentences at every λ of LAMBDAS (:func:`noisy.corrected`, the
    prior's symmetric marks balanced) and, per λ, how many had paired marks given back."""
    return noisy.corrected(source, scores, LAMBDAS, english.attach.symmetric)


def lambda_rows(edits: dict[float, list[int]], counts: dict[float, EditScore],
                kept: dict[float, int]) -> list[dict]:
    """Print the λ grid (:func:`print_grid`) and its balance counts; its rows for the JSON."""
    print_grid("λ", LAMBDAS, lambda w: f"{w:g}", edits, counts)
    print("pairs whose paired marks were given back (balance), by λ: "
          + ", ".join(f"{w:g} {kept[w]}" for w in LAMBDAS), flush=True)
    return [{"lambda": w, "aed": sum(edits[w]) / len(edits[w]),
             "edit_counts": [sum(c) for c in astuple(counts[w])],
             "f0.5": counts[w].scores()[2], "balance_kept": kept[w]} for w in LAMBDAS]


class LambdaGrid(NamedTuple):
    """The noisy channel's sentences at every λ of LAMBDAS (:func:`lambda_grid`), their token
    edits and edit counts (:func:`grid_of`), and the λ grid's rows for the JSON
    (:func:`lambda_rows`)."""

    by_weight: dict[float, list[Sentence]]
    edits: dict[float, list[int]]
    counts: dict[float, EditScore]
    rows: list[dict]


def lambda_scored(source: list[Sentence], gold: list[Sentence], scores: list[noisy.SlotScores],
                  english: PunctModel) -> LambdaGrid:
    """The λ grid of the learner sentences ``source`` (their slot ``scores`` under the noisy
    channel, the prior ``english``) against their corrections ``gold``, printed."""
    by_weight, kept = lambda_grid(source, scores, english)
    edits, counts = grid_of(LAMBDAS, by_weight.__getitem__, source, gold)
    return LambdaGrid(by_weight, edits, counts, lambda_rows(edits, counts, kept))


def print_final_or_inner(outputs: dict[str, list[Sentence | None]], source: list[Sentence],
                         gold: list[Sentence]) -> dict[str, dict[str, list[int]]]:
    """Every system's edits (:func:`written_edits`) right/proposed in the final slot and in the
    inner slots, printed and returned."""
    where = {name: final_or_inner(written_edits(source, gold, pred))
             for name, pred in outputs.items()}
    print("| system | final slot: right/proposed | inner slots: right/proposed |\n|---|---|---|")
    for name, c in where.items():
        print(f"| {name} | {'/'.join(map(str, c['final']))} | "
              f"{'/'.join(map(str, c['inner']))} |", flush=True)
    return where


def refuse_other_pairs(folder: Path, record: dict[str, Any], pairs: int, fold: int | None
                       ) -> None:
    """Fail unless the corrector in ``folder`` (its ``record``: a loaded model's, or read
    without loading it, :func:`~fstpunct.apps.correction.model.read_correction_record`) was
    trained with
    ``--extra``, without ``--fce``, as cv fold ``fold`` (None: heldout's, no fold) on these
    ``pairs`` pairs: the pairs that channel (a cv fold's corrector) and channel-heldout count
    their error model on."""
    want = {"extra": True, "fce": None, "fold": fold, "pairs": pairs}
    got = {key: record.get(key) for key in want}
    if got != want:
        what = ("as heldout --extra" if fold is None
                else f"as fold {fold} with the punctuation-only pairs")
        _fail(f"{folder}: trained with extra {got['extra']}, fce {got['fce']}, fold "
              f"{got['fold']} on {got['pairs']} pairs, not {what} on these {pairs}")


def channel(args: argparse.Namespace) -> None:
    """The noisy-channel corrector (:mod:`fstpunct.apps.correction.noisy`) on a finished cv
    run's held-out pairs (its ``--work``, run with ``--extra`` and no ``--fce``): per fold, the
    error model counted on the pairs its corrector trained on (checked against the corrector's
    record), the prior ``--reference`` (default en), every λ of LAMBDAS; λ chosen nested
    (:func:`nested_choices`, ties to the smaller λ), λ = 1, keep and the cv run's correction
    model at its nested edit cost (``--decoder``, ``--support``), tested against keep and that
    model. The fold correctors are loaded and their held-out sentences prepared first
    (:func:`prepared_folds`), so that an unreadable one is refused before any scoring."""
    data, splits, k = Path(args.data), args.splits or list(SPLITS), args.folds
    work = Path(args.work)
    _, fold_of = document_folds(data, splits, k)
    pooled, extra = pooled_pairs(data, splits, True)
    helds = held_of(pooled, fold_of, k)
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    prepared = prepared_folds(work, source, helds)
    trainable = [trainable_pairs([(s, g) for _, s, g in rows])
                 for rows in fold_pairs(pooled, extra, fold_of, k)]
    for fold, (_, corrected, _) in enumerate(trainable):  # every fold's, before any scoring
        refuse_other_pairs(work / f"fold{fold}" / "correct", prepared[fold].model.record,
                           len(corrected), fold)
    english = load_model(args.reference)
    found: dict[int, noisy.SlotScores] = {}
    folds = []
    for fold, ((learner, corrected, _), held) in enumerate(zip(trainable, helds)):
        errors = noisy.ErrorModel.counted(zip(learner, corrected))
        found.update(zip(held, noisy.slot_scores(english, errors,
                                                 [to_slots(source[j]) for j in held])))
        folds.append({"pairs": len(corrected), "k": errors.k,
                      "candidates": sum(len(c) for j in held for c in found[j].candidates)})
        print(f"fold {fold}: error model on {len(corrected)} pairs (K {errors.k}), "
              f"{folds[-1]['candidates']} candidates in {len(held)} held-out pairs", flush=True)
    grid = lambda_scored(source, gold, [found[j] for j in range(len(pooled))], english)
    chosen = nested_choices(helds, list(LAMBDAS), grid.edits, grid.counts, by_f05=False)
    print("nested λ by fold: " + "/".join(f"{w:g}" for w in chosen), flush=True)
    _, trials, costs, reference = swept(
        prepared, [Decoding(0.0, args.support, decoder=args.decoder)] * k, helds, source, gold)
    outputs = {"keep": list(source), REFERENCE_NESTED: reference,
               CHANNEL_NESTED: nested_outputs(helds, [grid.by_weight[w] for w in chosen],
                                              len(pooled)),
               CHANNEL_BAYES: grid.by_weight[1.0]}
    refs = ("keep", REFERENCE_NESTED)
    rows = scored({name: [p for p in pred if p is not None] for name, pred in outputs.items()},
                  source, gold, refs)
    print_rows(f"### noisy channel on {work}'s {k} folds: {len(pooled)} sentences, "
               f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; gold trees", rows,
               tuple((what, ref) for ref in refs for what in ("aed", "f")))
    where = print_final_or_inner(outputs, source, gold)
    with output(args.output) as f:
        f.write(json.dumps({
            "folds": k, "splits": splits, "work": str(work), "reference": args.reference,
            "decoder": args.decoder, "support": args.support, "fold_error_models": folds,
            "lambda_grid": grid.rows,
            "nested_lambdas": chosen, "reference_costs": costs,
            "reference_cost_grid": [asdict(t) for t in trials], "rows": rows,
            "final_or_inner": where}, indent=1) + "\n")


HELD_NONE = "no document held out"  # heldout's models: one cv fold holding none out
PARTS = 3  # heldout: part 0 calibrates, parts 1 and 2 test
CALIBRATED, AGREED = "correction, calibrated edit cost", "agreement, chosen on calibration"


def outside_parts(data: Path, parts: int = PARTS) -> list[list[tuple[Sentence, Sentence]]]:
    """The isomorphic pairs of the FCE sentences outside the TLE (:class:`Outside`, every FCE
    file) whose script holds no TLE sentence (no ``# tle_document``), by part: the scripts of
    those pairs (``# fce_document``) sorted by name and dealt round-robin into ``parts``."""
    pairs = [p for p in Outside.read(data, "isomorphic").pairs if tle_document(p[0]) is None]
    scripts = [s.comment("fce_document") for s, _ in pairs]
    for (s, _), script in zip(pairs, scripts):
        if script is None:
            _fail(f"{data}: outside sentence {s.sent_id} has no # fce_document")
    part_of = dealt(set(scripts), parts)
    return [[p for p, script in zip(pairs, scripts) if part_of[script] == k]
            for k in range(parts)]


def calibration_cost(trials: Sequence[Trial], near: float) -> float:
    """The edit cost of least AED (ties: the cost nearest ``near`` by
    :func:`~fstpunct.apps.correction.calibrate.nearness`, then the higher)."""
    return min(trials, key=lambda t: (t.aed, nearness(t.edit_cost, near),
                                      -t.edit_cost)).edit_cost


HELDOUT_SETTINGS = ("data", "extra", "copy", "reference", "sharpen", "lexical", "readings",
                    "readings_seed", "iterations", "learner_iterations", "prior", "l2",
                    "token_cost", "grammar", "keep_c2")  # what heldout's models depend on


def heldout_pairs(data: Path, extra: bool) -> list[tuple[Sentence, Sentence]]:
    """The (learner, corrected) TLE pairs heldout's corrector trains on: every isomorphic pair
    (``extra``: and every punctuation-only pair) of every split; no sentence outside the
    TLE."""
    pooled, more = pooled_pairs(data, list(SPLITS), extra)
    return [(s, g) for _, s, g in pooled + more]


def heldout_models(args: argparse.Namespace, english: PunctModel) -> None:
    """Train (or check and keep) heldout's models in ``--work`` as one cv fold holding no
    document out: the learner model on every aligned TLE learner sentence, the corrector and
    the two CRF correctors on every isomorphic (``--extra``: and punctuation-only) TLE pair; no
    sentence outside the TLE. Its settings are recorded in ``WORK/heldout.json``; a folder of
    other settings, or a non-empty one without that record, is refused."""
    data, work = Path(args.data), Path(args.work)
    settings = {name: getattr(args, name) for name in HELDOUT_SETTINGS}
    record = work / "heldout.json"
    if record.is_file():
        stored = json.loads(record.read_text(encoding="utf-8"))
        differ = "; ".join(f"{k} {stored.get(k)!r}, not {v!r}" for k, v in settings.items()
                           if stored.get(k) != v)
        if differ:
            _fail(f"{record}: trained with {differ}: name another --work")
    else:
        if work.is_dir() and any(work.iterdir()):
            _fail(f"{work}: not empty and without heldout.json (not a heldout folder): "
                  f"name another --work")
        work.mkdir(parents=True, exist_ok=True)
        with output(record) as f:
            f.write(json.dumps(settings, indent=1) + "\n")
    grammar = load_grammar(args.grammar)
    own, learner = learner_model(args, work / "learner", grammar, HELD_NONE,
                                 {"fold": None, "folds": None},
                                 [s for split in SPLITS
                                  for s in sentences_of(data / f"en_esl-ud-{split}.conllu")])
    rest = heldout_pairs(data, args.extra)
    fold_model(args, work, None, learner, own, grammar, slot_pairs(rest))
    train_crfs([s for s, _ in rest], [g for _, g in rest], [], english, work,
               corrector_only=True, keep_c2=args.keep_c2)


def heldout(args: argparse.Namespace) -> None:
    """The models trained with no document held out (:func:`heldout_models`) on the isomorphic
    pairs of the FCE scripts without TLE sentences (:func:`outside_parts`): on the calibration
    part the edit cost (:func:`calibration_cost`) and the agreement (:func:`least_aed`) are
    chosen; on the test part keep, the correction model at ``--edit-cost`` and at the
    calibrated cost, the two CRF correctors and the chosen agreement are scored and tested
    (against keep, the correction model and the CRF correctors), by FCE code too."""
    _sweep_cost("heldout", args.edit_cost)
    _stream_seed("heldout", readings_seed=args.readings_seed)
    english = load_model("en")
    heldout_models(args, english)
    parts = outside_parts(Path(args.data))
    results: dict = {"edit_cost": args.edit_cost, "support": args.support,
                     "decoder": args.decoder, "weight": args.weight,
                     "keep_weight": args.keep_weight}
    cost, agreement = args.edit_cost, AGREEMENTS[0]
    models = loaded(args, Path(args.work))
    for name, pairs in (("calibration", parts[0]), ("test", parts[1] + parts[2])):
        source, gold = [s for s, _ in pairs], [g for _, g in pairs]
        h, out = held_out(args, models, list(range(len(pairs))), source, english)
        agreements, by_cost = agreements_and_costs(h)
        edits, counts = grid_of(COSTS, by_cost.__getitem__, source, gold)
        print(f"{name} part: {len(pairs)} pairs", flush=True)
        trials = [Trial.counted(c, edits[c], counts[c]) for c in COSTS]
        print_trials(trials)
        if name == "calibration":
            cost = calibration_cost(trials, args.edit_cost)
            agreed_edits, agreed_counts = grid_of(AGREEMENTS, lambda v, a=agreements: a[v.name],
                                                  source, gold)
            print_grid("agreement", AGREEMENTS, lambda v: v.name, agreed_edits,
                       agreed_counts)
            agreement = least_aed(list(AGREEMENTS), agreed_edits, agreed_counts)
            print(f"calibrated: edit cost {cost:g}; agreement {agreement.name}", flush=True)
            results |= {"calibrated_cost": cost, "agreement": asdict(agreement)}
        rows = scored({"keep": out["keep"], "correction": out["correction"],
                       CALIBRATED: by_cost[cost], CRF: out[CRF], KEEP: out[KEEP],
                       AGREED: agreements[agreement.name]}, source, gold)
        title = (f"### {name} part ({len(pairs)} pairs of "
                 f"{len({s.comment('fce_document') for s in source})} FCE scripts, "
                 f"{sum(rows[0]['edit_counts'][2])} gold punctuation edits; parsed trees; "
                 f"correction at cost {args.edit_cost:g}, calibrated {cost:g}; {AGREED}: "
                 f"{agreement.name})")
        print_rows(title, rows)
        print_breakdown(title, rows)
        edits = written_edits(source, gold, out["correction"])
        print(f"the correction model's edits at cost {args.edit_cost:g}, {name} part:")
        counts_by(edits, "kind, final slot or not",
                  lambda r: f"{r['kind']}, {'final' if r['final'] else 'inner'}")
        counts_by(edits, "edit (learner -> written)", by_marks)
        results[name] = {"pairs": len(pairs), "sent_ids": [s.sent_id for s in source],
                         "cost_grid": [asdict(t) for t in trials], "rows": rows,
                         "edits": edits}
    with output(args.output) as f:
        f.write(json.dumps(results, indent=1) + "\n")


CHANNEL_CALIBRATED = "noisy channel, λ chosen on calibration"


def channel_heldout(args: argparse.Namespace) -> None:
    """The noisy-channel corrector (:mod:`fstpunct.apps.correction.noisy`) on heldout's parts
    (:func:`outside_parts`): one error model counted on the TLE pairs heldout's corrector
    trained on (:func:`heldout_pairs` with ``--extra``; checked against ``--work``'s
    corrector record), the prior ``--reference`` (default en); every λ of LAMBDAS on both
    parts; on the test part keep, λ = 1 and the calibration part's λ of least AED (ties to
    the smaller), tested against keep."""
    data, work = Path(args.data), Path(args.work) / "correct"
    record = read_correction_record(work)
    learner, corrected, _ = trainable_pairs(heldout_pairs(data, True))
    refuse_other_pairs(work, record, len(corrected), None)
    errors = noisy.ErrorModel.counted(zip(learner, corrected))
    print(f"error model on {len(corrected)} TLE pairs (K {errors.k})", flush=True)
    english = load_model(args.reference)
    parts = outside_parts(data)
    results: dict = {"reference": args.reference, "work": str(work),
                     "error_model": {"pairs": len(corrected), "k": errors.k}}
    results["calibration"], chosen = channel_calibrated(parts[0], english, errors)
    results["calibrated_lambda"] = chosen
    results["test"] = channel_tested(parts[1] + parts[2], english, errors, chosen)
    with output(args.output) as f:
        f.write(json.dumps(results, indent=1) + "\n")


class LambdaPart(NamedTuple):
    """A part of heldout's pairs under the noisy channel (:func:`lambda_part`): its learner
    sentences, their corrections, their λ grid and the part's JSON."""

    source: list[Sentence]
    gold: list[Sentence]
    grid: LambdaGrid
    result: dict


def lambda_part(name: str, pairs: list[tuple[Sentence, Sentence]], english: PunctModel,
                errors: noisy.ErrorModel) -> LambdaPart:
    """The ``name`` part of heldout's ``pairs`` under the noisy channel (the prior ``english``,
    the error model ``errors``) at every λ of LAMBDAS, printed (pairs, candidates, the λ grid),
    with its JSON (pairs, sent_ids, λ grid)."""
    source, gold = [s for s, _ in pairs], [g for _, g in pairs]
    scores = noisy.slot_scores(english, errors, [to_slots(s) for s in source])
    print(f"{name} part: {len(pairs)} pairs, "
          f"{sum(len(c) for s in scores for c in s.candidates)} candidates", flush=True)
    grid = lambda_scored(source, gold, scores, english)
    return LambdaPart(source, gold, grid, {"pairs": len(pairs),
                                           "sent_ids": [s.sent_id for s in source],
                                           "lambda_grid": grid.rows})


def channel_calibrated(pairs: list[tuple[Sentence, Sentence]], english: PunctModel,
                       errors: noisy.ErrorModel) -> tuple[dict, float]:
    """The calibration part's JSON (:func:`lambda_part`) and the λ it chooses: least AED, ties
    to the smaller (printed)."""
    part = lambda_part("calibration", pairs, english, errors)
    chosen = least_aed(list(LAMBDAS), part.grid.edits, part.grid.counts, by_f05=False)
    print(f"calibrated: λ {chosen:g}", flush=True)
    return part.result, chosen


def channel_tested(pairs: list[tuple[Sentence, Sentence]], english: PunctModel,
                   errors: noisy.ErrorModel, chosen: float) -> dict:
    """The test part's JSON (:func:`lambda_part`) with keep, λ = 1 and the calibrated λ
    ``chosen`` scored against keep, and their edits at the final and inner slots (printed)."""
    part = lambda_part("test", pairs, english, errors)
    outputs = {"keep": part.source, CHANNEL_BAYES: part.grid.by_weight[1.0],
               CHANNEL_CALIBRATED: part.grid.by_weight[chosen]}
    rows = scored(outputs, part.source, part.gold, ("keep",))
    print_rows(f"### test part ({len(pairs)} pairs, {sum(rows[0]['edit_counts'][2])} gold "
               f"punctuation edits; parsed trees; calibrated λ {chosen:g})", rows,
               (("aed", "keep"), ("f", "keep")))
    return part.result | {"rows": rows,
                          "final_or_inner": print_final_or_inner(outputs, part.source, part.gold)}


ENDINGS = ("`,`", "no mark", "`.` `?` `!`", "other mark")  # units' description: the last mark


def ending(final: tuple[str, ...]) -> str:
    """Which of ENDINGS a unit's final slot string (the learner's) ends in."""
    if not final:
        return ENDINGS[1]
    return {",": ENDINGS[0], ".": ENDINGS[2], "?": ENDINGS[2], "!": ENDINGS[2]}.get(
        final[-1], ENDINGS[3])


def described(pairs: Sequence[tuple[Sentence, Sentence]]) -> dict:
    """What the (learner, corrected) pairs are made of: the units' count, their mean tokens
    (punctuation included), the share ending in each of ENDINGS (the learner's final slot),
    the share of units ending in `,` whose comma the correction keeps (counted kept only when
    the final slot's whole scored string is unchanged), and the gold edits (slots
    whose scored string the correction changes) at the final slot and at inner slots."""
    ends = dict.fromkeys(ENDINGS, 0)
    tokens, kept_commas = 0, 0
    for s, g in pairs:
        mine, theirs = slot_strings(to_slots(s)), slot_strings(to_slots(g))
        end = ending(mine[-1])
        ends[end] += 1
        kept_commas += end == ENDINGS[0] and theirs[-1] == mine[-1]
        tokens += len(s.words)
    gold = [g for _, g in pairs]  # the correction's own edits: those it proposes, as written
    gold_edits = {where: c[1] for where, c in
                  final_or_inner(written_edits([s for s, _ in pairs], gold, gold)).items()}
    n = len(pairs)
    return {"units": n, "tokens_per_unit": tokens / n,
            "ends": {e: 100 * c / n for e, c in ends.items()},
            "comma_kept": 100 * kept_commas / max(ends[ENDINGS[0]], 1),
            "gold_edits": gold_edits}


def units(args: argparse.Namespace) -> None:
    """A description of the pairs' units, no decoding (:func:`described`): the TLE's isomorphic
    pairs (every split) and the two parts of :func:`outside_parts`; with ``--heldout`` (a
    ``heldout`` run's JSON, whose parts must be these pairs, by sent_id), its correction
    model's edits at its edit cost, right/proposed at the final slot and inner slots
    (:func:`final_or_inner`)."""
    data = Path(args.data)
    parts = outside_parts(data)
    sources = {"TLE": [(s, g) for _, s, g in pooled_pairs(data, list(SPLITS), False)[0]],
               "calibration": parts[0], "test": parts[1] + parts[2]}
    result = {name: described(pairs) for name, pairs in sources.items()}
    if args.heldout:
        run = json.loads(Path(args.heldout).read_text(encoding="utf-8"))
        for name in ("calibration", "test"):
            if run.get(name, {}).get("sent_ids") != [s.sent_id for s, _ in sources[name]]:
                _fail(f"{args.heldout}: its {name} part is not these pairs (sent_ids differ)")
            if "edits" not in run[name]:
                _fail(f"{args.heldout}: no edit list (a heldout run before a53a633)")
            result[name]["heldout_edits"] = final_or_inner(run[name]["edits"])
            result[name]["heldout_edit_cost"] = run["edit_cost"]
    print("| pairs | units | tokens per unit | " + " | ".join(f"ends in {e}" for e in ENDINGS)
          + " | final `,` kept by the correction | gold edits: final slot / inner | "
          "heldout's edits, right/proposed: final / inner |\n|---|---|---|"
          + "---|" * (len(ENDINGS) + 3))
    for name, r in result.items():
        made = r.get("heldout_edits")
        print(f"| {name} | {r['units']} | {r['tokens_per_unit']:.1f} | "
              + " | ".join(f"{r['ends'][e]:.1f} %" for e in ENDINGS)
              + f" | {r['comma_kept']:.1f} % | {r['gold_edits']['final']} / "
              f"{r['gold_edits']['inner']} | "
              + ("—" if made is None else " / ".join("/".join(map(str, made[w]))
                                                      for w in ("final", "inner"))) + " |")
    with output(args.output) as f:
        f.write(json.dumps(result, indent=1) + "\n")


def edit_kind(source: tuple[str, ...], pred: tuple[str, ...]) -> str:
    """An edit's kind: ``insert`` (the learner wrote nothing there), ``delete`` (nothing is
    written) or ``substitute``."""
    return "insert" if not source else "delete" if not pred else "substitute"


def slot_edits(args: argparse.Namespace) -> None:
    """Every edit that a cv run's fold correctors (``--work``) make on their held-out pairs at
    the edit cost chosen nested, or at ``--edit-cost`` (decoded as ``compare`` decodes one
    side: ``--support``, ``--decoder``), classified: right or wrong, its kind
    (:func:`edit_kind`), marks and slot (final or inner), the fold corrector's probability of
    the written string there, and how the fold's learner model reads the slot in T_e′
    (:func:`readings`: a reading artifact or not, and the share of ``--draws`` draws of T′
    that read it so). Prints the counts; writes every edit (JSON)."""
    if args.edit_cost is not None:
        _sweep_cost("edits", args.edit_cost)
    pairs = held_out_pairs(args)
    pooled, helds = pairs.pooled, pairs.helds
    source, gold = [s for _, s, _ in pooled], [g for _, _, g in pooled]
    work, k = Path(args.work), args.folds
    prepared = prepared_folds(work, source, helds)
    read: list[list[SlotReading] | None] = [None] * len(pooled)
    for prep, held in zip(prepared, helds):
        for j, r in zip(held, readings(prep.model.learner, [to_slots(source[j]) for j in held],
                                       args.draws)):
            read[j] = r
    by_cost, _, fold_costs, nested = swept(prepared, [Decoding(0.0, args.support,
                                                               decoder=args.decoder)] * k,
                                           helds, source, gold)
    place_of = {j: (f, i) for f, held in enumerate(helds) for i, j in enumerate(held)}
    rows = []
    for row in written_edits(source, gold,
                             nested if args.edit_cost is None else by_cost[args.edit_cost]):
        r = read[row["pair"]][row["slot"]]  # type: ignore[index]
        fold, i = place_of[row["pair"]]
        dist = prepared[fold].dists[i][row["slot"]]  # type: ignore[union-attr]
        rows.append({"fold": fold, **row, "artifact": r.artifact,
                     "reading": None if r.reading is None else " ".join(r.reading),
                     "posterior": r.posterior,
                     "corrector_p": dist.prob(tuple(row["written"].split()))})
    print_edits(rows)
    with output(args.output) as f:
        f.write(json.dumps({"work": str(work), "folds": k, "nested_costs": fold_costs,
                            "edit_cost": args.edit_cost, "decoder": args.decoder,
                            "support": args.support, "draws": args.draws, "edits": rows},
                           indent=1) + "\n")


def written_edits(source: list[Sentence], gold: list[Sentence],
                  pred: Sequence[Sentence | None]) -> list[dict]:
    """Every slot where ``pred`` changes the learner's (scored) string: its pair and slot
    (indices), kind (:func:`edit_kind`), the learner's and the written string, whether it is
    right (the gold string) and whether it is the sentence's final slot."""
    rows = []
    for j, (s, g, p) in enumerate(zip(source, gold, pred)):
        assert p is not None
        strings = [slot_strings(to_slots(x)) for x in (s, g, p)]
        for i, (a, b, c) in enumerate(zip(*strings)):
            if c != a:
                rows.append({"pair": j, "slot": i, "kind": edit_kind(a, c),
                             "learner": " ".join(a), "written": " ".join(c), "right": c == b,
                             "final": i == len(strings[0]) - 1})
    return rows


def final_or_inner(edits: list[dict]) -> dict[str, list[int]]:
    """[right, proposed] of the edits (:func:`written_edits`) at the sentence's final slot and
    at its inner slots."""
    out = {"final": [0, 0], "inner": [0, 0]}
    for e in edits:
        counts = out["final" if e["final"] else "inner"]
        counts[0] += e["right"]
        counts[1] += 1
    return out


OVERLAP = ("dropped right", "dropped wrong", "added right", "added wrong", "kept right",
           "kept wrong")


def edit_overlap(before: list[dict], after: list[dict]) -> dict[str, int]:
    """How the edits ``after`` (:func:`written_edits`) differ from ``before``'s on the same
    pairs, counted (OVERLAP): before's edits that after does not make (dropped), after's that
    before does not make (added) and those both make (kept), right and wrong. An edit is the
    same if it writes the same string at the same slot of the same pair."""
    def keyed(edits: list[dict]) -> dict[tuple, bool]:
        return {(e["pair"], e["slot"], e["written"]): e["right"] for e in edits}
    old, new = keyed(before), keyed(after)
    counts = dict.fromkeys(OVERLAP, 0)
    for kind, mine, other, keep in (("dropped", old, new, False), ("added", new, old, False),
                                    ("kept", new, old, True)):
        for key, right in mine.items():
            if (key in other) == keep:
                counts[f"{kind} {'right' if right else 'wrong'}"] += 1
    return counts


def counts_by(rows: list[dict], title: str, key: Callable[[dict], str]) -> None:
    """The edits' right/proposed counts by ``key``, most frequent first."""
    groups: dict[str, list[bool]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row["right"])
    print(f"| {title} | right/proposed |\n|---|---|")
    for name, right in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"| {name} | {sum(right)}/{len(right)} |", flush=True)


P_BINS = ((0.5, "0-0.5"), (0.7, "0.5-0.7"), (0.9, "0.7-0.9"), (math.inf, "0.9-1"))  # p(written)


def by_marks(r: dict) -> str:
    return f"`{r['learner'] or 'ε'}` -> `{r['written'] or 'ε'}`"


def print_edits(rows: list[dict]) -> None:
    """The edits' right/proposed counts by kind, by reading and by posterior, and by marks."""
    counts_by(rows, "kind", lambda r: r["kind"])
    counts_by(rows, "T_e' at the slot",
              lambda r: "reading artifact" if r["artifact"] else "faithful")
    counts_by(rows, "posterior of the reading",
              lambda r: "< 0.9" if r["posterior"] < 0.9 else ">= 0.9")
    counts_by(rows, "reading, posterior", lambda r: ("artifact" if r["artifact"] else "faithful")
              + (", < 0.9" if r["posterior"] < 0.9 else ", >= 0.9"))
    counts_by(rows, "edit (learner -> written)", by_marks)
    counts_by(rows, "edit, slot", lambda r: f"{by_marks(r)}, {'final' if r['final'] else 'inner'}")
    counts_by(rows, "the corrector's p(written)", lambda r: next(
        name for below, name in P_BINS if r["corrector_p"] < below))


def fold_model(args: argparse.Namespace, folder: Path, fold: int | None, learner: PunctModel,
               own: list, grammar, rest: Sequence[SlotPair],
               bag: tuple[int, int] | None = None, trees: dict[str, str] | None = None
               ) -> CorrectionModel:
    """Fold ``fold``'s corrector (None, JSON null, for heldout's, which holds out no document
    and so is no fold: a command reading fold k of a cv run, e.g. ``crossfit``, refuses it;
    ``bag``: (bag, seed) of a bagged corrector, whose ``rest`` is a resample; recorded with
    the stream's purpose word, so that bags of an older stream without it are refused;
    ``trees``: the training trees' file and digest of this fold's, cv --train-trees
    (``train_trees``, ``train_trees_digest``), recorded, None or empty for gold trees):
    loaded from ``folder``/correct if there and trained with the options asked for, else
    trained on the ``rest`` pairs (:func:`slot_pairs`) with the learner model of the other
    folds, and saved."""
    what = HELD_NONE if fold is None else f"fold {fold}"
    trees = trees or {}
    if bag is not None:
        what += f", bag {bag[0]} (seed {bag[1]})"
    bagging = {} if bag is None else {
        "bag": bag[0], "bag_seed": bag[1], "bag_purpose": PURPOSE}  # the stream's last word
    if (folder / "correct").is_dir():
        model = CorrectionModel.load(folder / "correct")
        record = model.record
        settings = {  # name: (stored, asked)
            "copy": (record.get("copy"), args.copy),
            "extra": (record.get("extra"), args.extra),
            "lexical": (model.corrector.settings.lexical, args.lexical),
            "sharpen": (record.get("sharpen", 1.0), args.sharpen),
            "readings": (record.get("readings", 0), args.readings),
            "readings seed": (record.get("readings_seed", 0), args.readings_seed),
            "fce": (record.get("fce"), args.fce),
            "the learner model's fce": (record.get("fce_learner", record.get("fce")),
                                        learner_fce(args)),
            "fce-edited": (record.get("fce_edited", False), args.fce_edited),
            **{name: (record.get(name), bagging.get(name))
               for name in ("bag", "bag_seed", "bag_purpose")}}
        differ = [f"{name} {s!r}, not {a!r}" for name, (s, a) in settings.items() if s != a]
        if not same_trees(record, trees):
            differ.append(f"train trees {_trees_of(record)}, not {_trees_of(trees)}")
        if differ:
            _fail(f"{folder / 'correct'}: trained with {'; '.join(differ)}: name another --work")
        return model
    originals, corrected, dropped = trainable_slots(rest)
    reference = learner if args.reference == "learner" else load_model(args.reference)
    model = train(learner, originals, corrected, reference,
                  grammar, args.iterations, corrector_settings(args),
                  record={"fold": fold, "copy": args.copy, "extra": args.extra,
                          "lexical": args.lexical, "fce": args.fce,
                          "fce_learner": learner_fce(args), "fce_edited": args.fce_edited,
                          **trees, **bagging},
                  copy=args.copy, vocabulary=own, sharpen=args.sharpen,
                  readings=args.readings, readings_seed=args.readings_seed)
    model.save(folder / "correct")
    print(f"{what}: corrector trained on {len(corrected)} pairs ({dropped} left out: "
          f"{UNTRAINABLE})", flush=True)
    return model


def _key(split: str, kind: str, sent: Sentence) -> str:
    return f"{split}/{kind}/{sent.sent_id}"


def crossfit(path: Path, models: list[CorrectionModel], pooled: list, extra: list,
             fold_of: dict[str, int]) -> tuple[dict[str, list[list[str]]], list[Prepared]]:
    """Cross-fitted correction features: every pair's (isomorphic and punctuation-only) slot
    features (:func:`~fstpunct.apps.correction.crf.slot_features`, prefix ``c``) under the
    fold corrector trained without it (``fold_of``: the fold of each FCE document), by key
    (:func:`_key`; also written to ``path`` for ``table --crossfit``), and each fold's held-out
    isomorphic pairs :class:`Prepared`."""
    feats: dict[str, list[list[str]]] = {}
    prepared = []
    rows = keyed_pairs(pooled, extra)
    for fold, model in enumerate(models):
        for kind in (ISOMORPHIC, PUNCTUATION_ONLY):
            mine = [(key, s) for key, k, s, _ in rows
                    if k == kind and fold_of[_document(s)] == fold]
            ready = Prepared.of(model, [s for _, s in mine])
            if kind == ISOMORPHIC:
                prepared.append(ready)
            for (key, s), d in zip(mine, ready.dists):
                feats[key] = slot_features(to_slots(s), d, "c")
        print(f"fold {fold}: cross-fitted features of {len(feats)} pairs", flush=True)
    with output(path) as f:
        f.write(json.dumps(feats) + "\n")
    return feats, prepared


def crossfit_trees(args: argparse.Namespace) -> None:
    """The cross-fitted correction features of a ``cv --crossfit`` run's fold correctors
    (same ``--data``, ``--split``, ``--folds`` and ``--extra``) on the trees that ``--parser``
    gives the punctuated learner sentences (without it, the gold trees: the cv run's own
    features again), for ``table --crossfit`` with that parser."""
    data, work, k = Path(args.data), Path(args.work), args.folds
    splits = args.splits or list(SPLITS)
    _, fold_of = document_folds(data, splits, k)
    models = []
    for fold in range(k):
        fold_folders(work, fold, ("correct",), k)
        folder = work / f"fold{fold}" / "correct"
        model = CorrectionModel.load(folder)
        if model.record.get("fold") != fold or model.record.get("extra") != args.extra:
            _fail(f"{folder}: trained as fold {model.record.get('fold')} with extra "
                  f"{model.record.get('extra')}, not fold {fold} with extra {args.extra}")
        models.append(model)
    parser = ParserModel.load(args.parser) if args.parser else None
    trees = None
    if args.train_trees:
        if splits != ["train"]:
            _fail("crossfit: --train-trees are trees of train: give --split train only")
        trees = read_trees(args.train_trees, learner_sentences(data, ["train"]))
    pooled, extra = pooled_pairs(data, splits, args.extra, parser, trees)
    crossfit(Path(args.output), models, pooled, extra, fold_of)


def jackknife(args: argparse.Namespace) -> None:
    """Every learner sentence of ``--split`` (default train) parsed by the parser trained on
    the other folds' (folds by FCE document, :func:`document_folds`, as ``cv``'s over the same
    splits; :func:`~fstpunct.parser.jackknife.jackknifed`), written as CoNLL-U for ``table
    --train-trees``, ``crossfit --train-trees`` and ``compare --after-trees``. The parsers'
    epoch is chosen on the learner dev sentences; when the splits include dev, on the other
    folds' dev sentences, which then train no parser (no parser sees its fold's documents).
    With ``--tags``, each fold's words are first tagged by a tagger jackknifed on the same folds
    (as ``learner_corpus.py``'s: 6 epochs, features seen twice, no word tagged ``PUNCT``, the
    epoch chosen as the parsers'), and the fold's parser, trained on gold tags, parses them
    so: the outside FCE sentences' pipeline. ``--add-train SPEC`` (e.g. ``en_ewt-train``:
    no FCE document) adds those sentences to every fold's parser's and tagger's training
    sentences; with ``--cut-relations``, each fold parser's copy of them has every relation
    that the fold's learner training sentences do not use cut to its base relation (the part
    before ':'), or kept if the base is not used either
    (:func:`~fstpunct.parser.jackknife.cut_relations`); the learner sentences never change.
    Each tree says its fold (``# jackknife_folds``,
    ``# jackknife_fold``), which ``compare --after-trees`` checks. With ``--nested``, the
    training trees of each outer fold k instead (:func:`~fstpunct.parser.jackknife.
    nested_jackknifed`: the sentences of fold j ≠ k parsed by the parser that saw neither j
    nor k; ``# jackknife_outer_fold``), for ``cv --train-trees``. ``--mode removed`` (with dev
    among the splits only: the train split's trees alone are for a tokens-mode ``--parser``)
    trains and runs the parsers without punctuation, each mark attached to a neighbour after
    (:func:`~fstpunct.parser.punct.reattach`), so that the learner's marks mislead no parse;
    with ``--nested``, the training trees of such parsers, for ``cv --train-trees``
    (correctors trained on removed-mode parses, to be run on a removed-mode jackknife's).
    ``--weight-slots K`` weighs by K each parser's updates on the arcs that make a training
    sentence's tree at the inner slots its isomorphic correction punctuates or edits
    (:func:`~fstpunct.apps.correction.slot_weights.slot_arc_weights`; beam 1, whose local
    learning it weighs), the other sentences' and arcs' by 1."""
    if args.weight_slots is not None:
        if args.weight_slots < 2:
            _fail(f"jackknife: --weight-slots {args.weight_slots}: a weight of at least 2 "
                  "(1 weighs nothing)")
        if args.beam != 1:
            _fail("jackknife: --weight-slots weighs the updates of local learning, at beam 1: "
                  f"not --beam {args.beam}")
    if args.cut_relations and not args.add_train:
        _fail("jackknife: --cut-relations cuts the relations of --add-train's sentences: give "
              "--add-train")
    if args.nested and args.tags:
        _fail("jackknife: --nested parses the words with their gold tags: no --tags")
    data, splits = Path(args.data), args.splits or ["train"]
    if args.mode != "tokens" and "dev" not in splits:
        _fail(f"jackknife: --mode {args.mode} needs dev among the splits (cv's folds, as "
              "compare, slots and cv --train-trees read them: --split train --split dev "
              "--split test); the train split's trees alone are for table/crossfit --parser P, "
              "a tokens-mode parser: --mode tokens there")
    learner_text, fold_of = document_folds(data, splits, args.folds)
    text = [s for split in splits for s in learner_text[split]]
    folds = [fold_of[_document(s)] for s in text]
    pooled_dev = "dev" in splits
    dev = [] if pooled_dev else list(sentences_of(data / "en_esl-ud-dev.conllu"))
    held_dev = [split == "dev" for split in splits for _ in learner_text[split]] \
        if pooled_dev else None
    k = len(set(folds))  # fewer than --folds when there are fewer documents
    extra = list(read_one(args.add_train)) if args.add_train else []
    tagged = tag_jackknifed(text, k, dev, folds=folds, held_dev=held_dev, punct=False,
                            epochs=6, min_count=2, extra=extra,
                            log=lambda m: print(f"tagger {m}", flush=True)) if args.tags else None
    weights = None if args.weight_slots is None else \
        corrected_arc_weights(data, splits, text, args.weight_slots)
    parsed = (nested_jackknifed if args.nested else jackknifed)(
        text, folds, dev, args.mode, args.beam, args.work, epochs=args.epochs, held_dev=held_dev,
        parsed=tagged, extra=extra, cut=args.cut_relations, arc_weights=weights)
    added = f" ({len(extra)} sentences of {args.add_train}" \
        f"{', relations cut' if args.cut_relations else ''} in each fold's training)" \
        if extra else ""
    mode = "" if args.mode == "tokens" else f" ({args.mode} mode)"
    reference, what, parsers = text, "sentences", f"{k} jackknife parsers{mode}"
    if args.nested:
        gold = {s.sent_id: s for s in text}
        reference = [gold[t.sent_id] for t in parsed]
        what, parsers = "training trees", f"{k * (k - 1) // 2} nested jackknife parsers{mode}"
        for outer in range(k):
            mine = [t for t in parsed if t.comment("jackknife_outer_fold") == str(outer)]
            s = parse_score([gold[t.sent_id] for t in mine], mine)
            print(f"outer fold {outer}: {len(mine)} training sentences parsed by the "
                  f"{k - 1} parsers that saw neither fold {outer} nor theirs: word UAS "
                  f"{s.words.uas:.2f}, LAS {s.words.las:.2f}", flush=True)
    s = parse_score(reference, parsed)
    print(f"{len(parsed)} {'+'.join(splits)} {what} parsed by {parsers}"
          f"{' on jackknifed tags' if args.tags else ''}{added}: "
          f"word UAS {s.words.uas:.2f}, LAS {s.words.las:.2f}", flush=True)
    write_file(parsed, args.output)


def corrected_arc_weights(data: Path, splits: list[str], text: list[Sentence], k: int
                          ) -> list[dict[int, int] | None]:
    """Per learner sentence of ``text`` (of ``splits``), the weight ``k`` of the arcs that make
    its tree at the inner slots its isomorphic correction punctuates or edits
    (:func:`~fstpunct.apps.correction.slot_weights.slot_arc_weights`), None without one."""
    correction = {s.sent_id: g for _, s, g in pooled_pairs(data, splits, False)[0]}
    weights: list[dict[int, int] | None] = []
    slots = 0
    for s in text:
        if s.sent_id not in correction:
            weights.append(None)
            continue
        ss = to_slots(s)  # once for both
        at = corrected_slots(s, correction[s.sent_id], ss)
        weights.append(slot_arc_weights(s, at, k, ss))
        slots += len(at)
    arcs = sum(len(w) for w in weights if w)
    print(f"--weight-slots {k}: {counted(arcs, 'arc')} of {len(correction)} corrected "
          f"sentences ({slots} slots punctuated or edited) weighted", flush=True)
    return weights


def gated_folds(folds: list[tuple[list[Sentence], list[Sentence], Reading]], support: float,
                outputs: dict[str, list[Sentence | None]], helds: list[list[int]]
                ) -> tuple[list[float], list[list[float]]]:
    """The gate (:mod:`fstpunct.apps.correction.gate`) of the correction model's edits under
    plain MBR with ``support``: fitted on every fold's held-out edits (returned, for the
    standard test), and for each fold on the other folds' edits only, which decodes that fold
    into ``outputs`` (:data:`GATED`: a held-out estimate, nested in the cross-validation)."""
    proposer = Decoding(0.0, support)
    edits = []
    for _, gold, read in folds:
        x: list = []
        y: list = []
        for own, dists, g in zip(read.prepared.own, read.prepared.dists, gold):
            proposed = decided(read.prepared.model, dists, own, proposer)
            a, b = examples(dists, own, proposed, slot_strings(to_slots(g)))
            x += a
            y += b
        edits.append((x, y))
    gates = []
    for fold, (_, _, read) in enumerate(folds):
        x, y = (others([part[i] for part in edits], fold) for i in range(2))
        w = fit(np.array(x), np.array(y))
        gates.append([float(v) for v in w])
        decoded = read.prepared.corrected_with(Decoding(0.0, support, tuple(gates[-1])))
        slots = outputs.setdefault(GATED, [None] * len(outputs["keep"]))
        for j, p in zip(helds[fold], decoded):
            slots[j] = p
    x = np.array([f for xs, _ in edits for f in xs])
    y = np.array([v for _, ys in edits for v in ys])
    w = fit(x, y)
    print(f"gate on {len(y)} held-out edits ({y.sum():.0f} right): "
          + ", ".join(f"{n} {v:.3f}" for n, v in zip(FEATURES, w)), flush=True)
    return [float(v) for v in w], gates


def print_trials(trials: list[Trial]) -> None:
    print("| edit cost | AED | right/proposed edits | F0.5 |\n|---|---|---|---|")
    for t in trials:
        print(f"| {t.edit_cost:.2f} | {t.aed:.4f} | {t.correct}/{t.proposed} | {t.f05:.1f} |",
              flush=True)


def add_corrector_arguments(p: argparse.ArgumentParser) -> None:
    """The corrector's training options (train and cv)."""
    p.add_argument("--reference", default="en",
                   help="model whose channel the corrector's is drawn towards: en (default, "
                        "correct English), a model folder, or 'learner' (the learner model)")
    p.add_argument("--grammar", default="grammars/en.rules")
    p.add_argument("--iterations", type=int, default=8)
    p.add_argument("--prior", type=float, default=10.0,
                   help="Dirichlet pseudo-counts per window towards the reference channel")
    p.add_argument("--l2", type=float, default=1.0, help="L2 on the corrector's θ (1)")
    p.add_argument("--token-cost", type=float, default=4.0,
                   help="θ's prior centre: −COST per underlying token (4, as the bundled models)")
    p.add_argument("--copy", type=float, default=0.0,
                   help="prior weight of keeping the learner's punctemes (0: none)")
    p.add_argument("--lexical", type=int, default=0, metavar="K",
                   help="lexical contexts of the corrector's K most frequent words (0: none)")
    p.add_argument("--sharpen", type=float, default=1.0, metavar="BETA",
                   help="read T_e' under the learner channel sharpened to the power BETA "
                        "(1: as it is)")
    p.add_argument("--readings", type=int, default=0, metavar="D",
                   help="read T_e' as D draws from the learner model's posterior, mixed "
                        "equally, in training and decoding (0: the Viterbi T_e')")
    p.add_argument("--readings-seed", type=int, default=0, metavar="S",
                   help="random stream of the drawn readings, in training and decoding (0; "
                        "0 to 2**32 - 1)")


def corrector_settings(args: argparse.Namespace) -> Settings:
    """The corrector's training settings from :func:`add_corrector_arguments`' options."""
    return Settings(lexical=args.lexical, prior=args.prior, l2=args.l2,
                    token_cost=args.token_cost)


def add_cv_run_arguments(p: argparse.ArgumentParser, work: bool = True) -> None:
    """The options naming a finished cv run whose fold models a command reads (``work``: its
    folder too; ``compare`` names two, by ``--before`` and ``--after``)."""
    p.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    p.add_argument("--folds", type=int, default=5, help="the cv run's --folds")
    p.add_argument("--split", dest="splits", action="append", choices=SPLITS,
                   help="the cv run's --split (repeatable; default: train, dev and test)")
    if work:
        p.add_argument("--work", default="models/esl-cv", help="the cv run's --work")


def add_decoder_argument(p: argparse.ArgumentParser, default: str | None = "balanced") -> None:
    p.add_argument("--decoder", choices=DECODERS_CORRECT, default=default,
                   help="the correction model's exact decoder (learner: balanced only where the "
                        "learner's own marks balance; default: "
                        + (default or "the one stored with the model's decoding") + ")")


def add_prior_argument(p: argparse.ArgumentParser) -> None:
    """The noisy channel's prior (``channel``, ``channel-heldout``)."""
    p.add_argument("--reference", default="en", help="the prior: a model of correct English "
                                                     "(default en)")


def add_held_out_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a command reading a finished cv run's folds again (:func:`held_out`)."""
    add_cv_run_arguments(p)
    p.add_argument("--reference", default="en", help="model of correct English (default en)")
    add_systems_arguments(p)


def add_systems_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the systems :func:`held_out` reads (and the JSON written)."""
    p.add_argument("--weight", type=float, default=1.0,
                   help="weight of the correction model in the product, for its row (1)")
    p.add_argument("--keep-weight", type=float, default=1.0,
                   help="the same in the product with the keep-tag CRF corrector (1)")
    p.add_argument("--keep-c2", type=float, default=KEEP_C2,
                   help=f"L2 of the cv run's keep-tag CRF corrector ({KEEP_C2})")
    add_cost_arguments(p, 0.0, "the correction model's edit cost (its decoding; 0)", 0.0,
                       "the correction model's support (its decoding; 0)")
    add_decoder_argument(p)
    p.add_argument("-o", "--output", required=True, help="JSON of every figure")


def add_cost_arguments(p: argparse.ArgumentParser, edit_cost: float | None, edit_cost_help: str,
                       support: float, support_help: str) -> None:
    """``--edit-cost`` and ``--support``, the correction model's exact decoding's
    (:class:`Decoding`), with the command's defaults and help."""
    p.add_argument("--edit-cost", type=float, default=edit_cost, help=edit_cost_help)
    p.add_argument("--support", type=float, default=support, help=support_help)


def train_model(args: argparse.Namespace) -> None:
    """Train a correction model on the train pairs and write it."""
    if args.fce_edited and not args.fce:
        _fail("train: --fce-edited needs --fce")
    _stream_seed("train", readings_seed=args.readings_seed)
    model_target(args.output, FILES, KIND, PART_FILES)  # before training (save: aside after)
    sentence_pairs, learners = pairs(args.original, args.corrected, *args.extra)
    if args.fce:
        data = Path(args.data)
        outside = Outside.read(data, args.fce)
        outside = kept_outside(outside, args.fce_edited, tested_documents(data), "train",
                               sys.stderr)
        sentence_pairs += outside.pairs
        learners += outside.learners
    originals, corrected, dropped = trainable_pairs(sentence_pairs)
    every, left_out = trainable(learners)
    print(f"{len(corrected)} training pairs and {len(every)} learner sentences for the "
          f"vocabulary; left out ({UNTRAINABLE}): {dropped} pairs, {left_out} sentences",
          file=sys.stderr)
    learner = load_model(args.learner)
    reference = learner if args.reference == "learner" else load_model(args.reference)
    model = train(learner, originals, corrected, reference, load_grammar(args.grammar),
                  args.iterations, corrector_settings(args),
                  report=lambda it, obj, ll: print(f"EM iteration {it}: objective {obj:.1f}, "
                                                   f"log-likelihood {ll:.1f}", file=sys.stderr),
                  record={"learner": args.learner, "original": args.original,
                          "corrected": args.corrected, "extra": args.extra,
                          "reference": args.reference,
                          "prior": args.prior, "l2": args.l2, "token_cost": args.token_cost,
                          "copy": args.copy, "lexical": args.lexical, "fce": args.fce,
                          "fce_edited": args.fce_edited},
                  copy=args.copy, vocabulary=every, sharpen=args.sharpen,
                  readings=args.readings, readings_seed=args.readings_seed)
    model.save(args.output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train a correction model")
    t.add_argument("--learner", required=True, help="punctuation model of the learners' text")
    t.add_argument("--original", required=True, help="learner sentences (en_esl train)")
    t.add_argument("--corrected", required=True, help="their corrections (en_cesl train)")
    t.add_argument("--extra", action="append", default=[], metavar="CONLLU",
                   help="more corrected sentences of --original (en_pesl train: the "
                        "non-isomorphic ones with their punctuation edits only; repeatable)")
    t.add_argument("--fce", choices=tuple(FCE_KINDS),
                   help="also the pairs of the FCE sentences outside the TLE (learner_corpus.py "
                        "--parser) whose script holds no sentence of the aligned TLE dev or "
                        "test files (en_esl)")
    t.add_argument("--data", default="learner", help="with --fce: learner_corpus.py's folder")
    t.add_argument("--fce-edited", action="store_true", help=FCE_EDITED_HELP)
    add_corrector_arguments(t)
    t.add_argument("-o", "--output", required=True)
    a = sub.add_parser("calibrate", help="choose the decoding on the dev pairs")
    a.add_argument("--model", required=True, help="correction model folder")
    a.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    a.add_argument("--parser", help="choose the decoding for this tokens-mode parser's trees "
                                    "(stored beside the gold trees' one; else gold trees)")
    a.add_argument("--cv", metavar="JSON",
                   help="instead of dev: the edit cost of least AED in this cv output (its "
                        "pooled held-out pairs; gold trees), with its support")
    add_decoder_argument(a)
    a.add_argument("--support", type=float, default=SUPPORT,
                   help=f"keep a learner string below this probability ({SUPPORT})")
    a.add_argument("-o", "--output", required=True, help="the calibrated model's folder")
    b = sub.add_parser("table", help="Table 5 analog on the isomorphic sentences")
    b.add_argument("--model", required=True, help="correction model folder")
    b.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    b.add_argument("--split", action="append", default=[], help="dev, test (repeatable)")
    b.add_argument("--reference", default="en", help="model of correct English (default en)")
    b.add_argument("--parser", help="tokens-mode parser of learner English (else gold trees)")
    add_decoder_argument(b, None)
    b.add_argument("--work", default="models/esl-table", help="folder for the CRFs trained")
    b.add_argument("--train-trees", metavar="CONLLU",
                   help="with --parser: the train pairs' trees from this file (jackknife's "
                        "held-out parses) instead of --parser's parses of them")
    chosen = b.add_mutually_exclusive_group()  # the products' weights: dev's by default
    chosen.add_argument("--weights-from", metavar="JSON",
                        help="the products' weights chosen by a cv run (its pooled held-out F0.5) "
                             "instead of on dev")
    chosen.add_argument("--pool-weights", metavar="JSON",
                        help="choose the products' weights on dev with a cv run's pooled held-out "
                             "edit counts added to dev's (F0.5 of the sums)")
    b.add_argument("--extra", action="store_true",
                   help="train the CRFs on the punctuation-only train pairs too (en_pesl; give "
                        "a correction model trained with them and another --work)")
    b.add_argument("--evaluate", choices=(ISOMORPHIC, PUNCTUATION_ONLY), default=ISOMORPHIC,
                   help="the pairs scored: the isomorphic subset (cesl, the standard table) or "
                        "the punctuation-only pairs of the other sentences (pesl, an "
                        "additional evaluation); the product weights are chosen on its dev")
    b.add_argument("--crossfit", metavar="JSON",
                   help="also the CRF correctors with the correction model's slot features, "
                        "trained on the train pairs' cross-fitted ones (a cv --split train "
                        "--crossfit run's crossfit.json)")
    b.add_argument("--bilstm", action="store_true",
                   help="also the BiLSTM-CRF correctors and their products (needs torch; "
                        "WORK/bilstm-crf and bilstm-keep, the keep tag, trained "
                        "if missing; it reads no tree)")
    b.add_argument("--gate-from", metavar="JSON", help="also the correction model gated by "
                   "the gate a cv run fitted (its plain MBR edits kept where likely right)")
    b.add_argument("--rerank", metavar="JSON", help="also each CRF corrector's n-best "
                   "re-ranked by a generative model as a rerank run chose")
    b.add_argument("--agree", metavar="JSON", help="also the agreements of each CRF corrector "
                   "and the correction model's decoded or MBR edits, and the agreement an agree "
                   "run chose")
    b.add_argument("-o", "--output", required=True, help="JSON of every figure")
    c = sub.add_parser("cv", help="k-fold cross-validation over every isomorphic pair")
    c.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    c.add_argument("--folds", type=int, default=5)
    c.add_argument("--split", dest="splits", action="append", choices=SPLITS,
                   help="pool the pairs (and learner sentences) of this split (repeatable; "
                        "default: train, dev and test)")
    c.add_argument("--weight", type=float, required=True,
                   help="weight of the correction model in the product (from the dev table)")
    c.add_argument("--keep-weight", type=float, default=1.0,
                   help="weight of the correction model in the product with the keep-tag CRF "
                        "corrector (from the dev table; 1)")
    c.add_argument("--keep-c2", type=float, default=KEEP_C2,
                   help=f"L2 of the keep-tag CRF corrector ({KEEP_C2}: chosen by cv --split "
                        "train)")
    c.add_argument("--c2", type=float, default=1.0,
                   help="L2 of the restoration CRF (chosen on dev by the table)")
    add_cost_arguments(c, 0.0, "the decoding's edit cost (from calibrate on the standard dev; 0)",
                       0.0, "the decoding's support (from calibrate on the standard dev; 0)")
    c.add_argument("--learner-iterations", type=int, default=6)
    c.add_argument("--all-systems", action="store_true",
                   help="also the restoration baselines and the CRF with generative features "
                        "(default: keep, correction, CRF corrector and their product)")
    c.add_argument("--extra", action="store_true",
                   help="train every fold's corrector and CRFs on the punctuation-only pairs "
                        "(en_pesl) of its training documents too (the held-out pairs stay the "
                        "isomorphic ones)")
    c.add_argument("--fce", choices=tuple(FCE_KINDS),
                   help="also train every fold's learner model, corrector and CRFs on the FCE "
                        "sentences outside the TLE (learner_corpus.py --parser) whose script "
                        "holds none of the fold's held-out documents: their isomorphic pairs, "
                        "or all (punctuation-only pairs too)")
    c.add_argument("--fce-edited", action="store_true", help=FCE_EDITED_HELP)
    c.add_argument("--fce-corrector-only", action="store_true",
                   help="with --fce: those pairs train the corrector and the CRFs, but every "
                        "fold's learner model trains on the TLE sentences alone")
    c.add_argument("--crossfit", action="store_true",
                   help="also the CRF correctors with the correction model's slot features, "
                        "each pair's from the fold corrector trained without it (written to "
                        "WORK/crossfit.json for table --crossfit)")
    c.add_argument("--bilstm", action="store_true",
                   help="also the BiLSTM-CRF correctors (with and without the keep tag; torch) "
                        "and their products (in the rows: at --weight, with the keep tag "
                        "--keep-weight)")
    c.add_argument("--train-trees", metavar="CONLLU",
                   help="train fold k's learner model and corrector on the trees this file "
                        "(jackknife --nested's) gives its training sentences for outer fold k "
                        "instead of the gold trees (with --correctors-only or --learners-only)")
    c.add_argument("--learners-only", action="store_true",
                   help="train every fold's learner model and stop")
    c.add_argument("--correctors-only", action="store_true",
                   help="train every fold's learner model and corrector and stop (for compare)")
    c.add_argument("--bags", type=int, default=0, metavar="B",
                   help="also train B bagged correctors a fold, each on a bootstrap resample "
                        "of the fold's training pairs, into WORK/foldK/bagB (for compare "
                        "--after-bags; 0: none)")
    c.add_argument("--bag-seed", type=int, default=0, metavar="S",
                   help="random stream of the bootstrap resamples (0 to 2**32 - 1; 0)")
    c.add_argument("--models-only", action="store_true",
                   help="train every fold's models (learner model, corrector, CRFs) and stop "
                        "(for agree, rerank)")
    add_corrector_arguments(c)
    c.add_argument("--work", default="models/esl-cv", help="folder for every fold's models")
    c.add_argument("-o", "--output", required=True, help="JSON of every figure")
    x = sub.add_parser("crossfit", help="a cv --crossfit run's cross-fitted correction "
                                        "features on a parser's trees")
    add_cv_run_arguments(x)
    x.add_argument("--extra", action="store_true", help="the cv run's --extra")
    x.add_argument("--parser", help="tokens-mode parser of learner English (else gold trees)")
    x.add_argument("--train-trees", metavar="CONLLU",
                   help="the train pairs' trees from this file (jackknife's) instead")
    x.add_argument("-o", "--output", required=True, help="JSON of the features, by pair")
    n = sub.add_parser("rerank", help="choose the CRF correctors' n-best re-ranking on a cv "
                                      "run's held-out pairs")
    add_held_out_arguments(n)
    g = sub.add_parser("agree", help="choose the agreement of a CRF corrector and the "
                                     "correction model on a cv run's held-out pairs")
    add_held_out_arguments(g)
    m = sub.add_parser("compare", help="two cv runs' fold correctors on the same held-out "
                                       "pairs, at a fixed and at the nested edit cost")
    add_cv_run_arguments(m, work=False)
    m.add_argument("--before", required=True, help="the first cv run's --work")
    m.add_argument("--after", required=True, help="the second cv run's --work (may be the "
                                                  "first's, e.g. with --platt)")
    m.add_argument("--platt", action="store_true",
                   help="decode the after side with the Platt map of the learner string's "
                        "probability, for each fold fitted on the other folds' held-out slots")
    m.add_argument("--before-decoder", choices=DECODERS_CORRECT, default="balanced",
                   help="decode the before side so (default balanced)")
    m.add_argument("--after-decoder", choices=DECODERS_CORRECT, default="balanced",
                   help="the after side's exact decoder (default balanced, as every cv row; "
                        "learner: balanced where the learner's marks balance)")
    m.add_argument("--after-trees", metavar="CONLLU",
                   help="decode the after side on the learner sentences' trees of this file "
                        "instead of the gold trees: jackknife --split train --split dev --split "
                        "test's with the cv run's --folds (each tree's jackknife comments must "
                        "name its document's fold of as many folds)")
    m.add_argument("--mix-trees", metavar="CONLLU", action="append", default=[],
                   help="with --after-trees: the after side's corrector also reads each "
                        "sentence on this file's trees (read as --after-trees; repeatable), "
                        "its slot distributions the equal mixture over all the trees")
    m.add_argument("--after-bags", type=int, default=0, metavar="B",
                   help="the after side is the vote of its first B bagged correctors a fold "
                        "(cv --bags): an edit where more than half of them make it (0: the "
                        "fold corrector)")
    add_cost_arguments(m, 0.25, "the fixed edit cost of the rows (one of 0, 0.05, ..., 1; 0.25)",
                       SUPPORT, f"keep a learner string below this probability ({SUPPORT})")
    m.add_argument("-o", "--output", required=True, help="JSON of every figure")
    s = sub.add_parser("slots", help="a cv run's inner-slot edits on the gold trees and on a "
                                     "jackknife's, by the parsed tree at the slot")
    add_cv_run_arguments(s)
    s.add_argument("--trees", metavar="CONLLU", required=True,
                   help="the jackknife's trees (as compare --after-trees reads them)")
    add_decoder_argument(s, "learner")
    add_cost_arguments(s, 0.25, "the edit cost of both decodings (0.25)", SUPPORT,
                       f"keep a learner string below this probability ({SUPPORT})")
    s.add_argument("-o", "--output", required=True, help="JSON of every slot row")
    h = sub.add_parser("heldout", help="the models trained with no document held out, scored "
                                       "on the FCE scripts without TLE sentences")
    h.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    h.add_argument("--extra", action="store_true",
                   help="train the corrector and the CRFs on the punctuation-only TLE pairs too")
    h.add_argument("--learner-iterations", type=int, default=6)
    add_corrector_arguments(h)
    h.add_argument("--work", default="models/esl-heldout", help="folder for the models")
    add_systems_arguments(h)
    h.set_defaults(fce=None, fce_edited=False, fce_corrector_only=False)  # no outside pair
    e = sub.add_parser("edits", help="every edit of a cv run's fold correctors at the nested "
                                     "edit cost, by kind and by how T_e' reads its slot")
    add_cv_run_arguments(e)
    add_decoder_argument(e)
    add_cost_arguments(e, None, "the edits at this edit cost (one of 0, 0.05, ..., 1; default: "
                       "each fold's nested cost)", SUPPORT,
                       "the learner string's support (default %(default)g)")
    e.add_argument("--draws", type=int, default=200,
                   help="draws of T' per sentence for the reading's posterior (200)")
    e.add_argument("-o", "--output", required=True, help="JSON of every edit")
    c = sub.add_parser("channel", help="the noisy-channel corrector (prior: a model of "
                                       "correct English) on a cv run's held-out pairs")
    add_cv_run_arguments(c)
    add_decoder_argument(c, "learner")
    add_prior_argument(c)
    c.add_argument("--support", type=float, default=SUPPORT,
                   help="the cv run's correction model's support (default %(default)g)")
    c.add_argument("-o", "--output", required=True, help="JSON of every figure")
    c = sub.add_parser("channel-heldout", help="the noisy-channel corrector on heldout's "
                                               "parts, its error model on the TLE pairs")
    c.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    c.add_argument("--work", default="models/esl-heldout",
                   help="heldout --extra's folder (its corrector's record is checked)")
    add_prior_argument(c)
    c.add_argument("-o", "--output", required=True, help="JSON of every figure")
    u = sub.add_parser("units", help="describe the units of the TLE pairs and of heldout's two "
                                     "parts (no decoding)")
    u.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    u.add_argument("--heldout", metavar="JSON",
                   help="a heldout run's JSON: its edits split final slot / inner slots")
    u.add_argument("-o", "--output", required=True, help="JSON of every figure")
    j = sub.add_parser("jackknife", help="parse every learner sentence of the splits with a "
                                         "parser trained on the other folds")
    j.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    j.add_argument("--folds", type=int, default=10, help="folds by FCE document (10)")
    j.add_argument("--split", dest="splits", action="append", choices=SPLITS,
                   help="parse this split's learner sentences (repeatable; default train; "
                        "with dev, the parsers choose their epoch on the other folds' dev "
                        "sentences and do not train on them)")
    j.add_argument("--beam", type=int, default=1, help="the parsers' beam (1: greedy)")
    j.add_argument("--mode", choices=("tokens", "removed"), default="tokens",
                   help="the parsers' punctuation mode: tokens (the learner's marks are tokens "
                        "the parser attaches and reads) or removed (trained and run without "
                        "them, each mark attached to a neighbour after; only with dev among "
                        "the splits, cv's folds; with --nested, training trees of such "
                        "parsers for cv --train-trees)")
    j.add_argument("--tags", action="store_true",
                   help="parse the words with the UPOS of a tagger jackknifed on the same folds "
                        "(the parsers train on gold tags)")
    j.add_argument("--epochs", type=int, default=8, help="at most this many epochs (8)")
    j.add_argument("--add-train", metavar="SPEC",
                   help="a treebank split or CoNLL-U file (e.g. en_ewt-train) added to every "
                        "fold's training sentences, the taggers' too with --tags")
    j.add_argument("--cut-relations", action="store_true",
                   help="with --add-train: in each fold parser's copy of the added sentences, "
                        "every relation the fold's learner training sentences do not use is "
                        "cut to its base (the part before ':'; kept if the base is not used "
                        "either)")
    j.add_argument("--nested", action="store_true",
                   help="the training trees of each outer fold k for cv --train-trees: every "
                        "sentence of another fold j parsed by the parser trained on the folds "
                        "other than j and k (one parser per pair, WORK/foldJ-K; at least three "
                        "folds)")
    j.add_argument("--weight-slots", type=int, metavar="K",
                   help="weigh by K (an integer, at least 2) each parser's updates on the arcs "
                        "that make a training sentence's tree at the inner slots its isomorphic "
                        "correction punctuates or edits (the constituents there and the words "
                        "beside them); sentences without a correction weight 1 (beam 1 only)")
    j.add_argument("--work", default="models/esl-jackknife", help="folder of the fold parsers")
    j.add_argument("-o", "--output", required=True,
                   help="CoNLL-U of the parsed sentences of the splits")
    r = sub.add_parser("breakdown", help="per-mark P/R/F1 and FCE codes of a table or cv JSON")
    r.add_argument("json", help="a table or cv run's JSON")
    w = sub.add_parser("power", help="what a table's paired F0.5 test can show: p on the "
                                     "split replicated, or with right edits added")
    w.add_argument("json", help="a table run's JSON")
    w.add_argument("--system", required=True, help="the row to test")
    w.add_argument("--against", default="CRF corrector", help="the row it is tested against")
    w.add_argument("--split", default="test", choices=("dev", "test"))
    w.add_argument("--copies", type=int, default=4, help="replicate the split up to this (4)")
    w.add_argument("--add", type=int, default=20, help="add at most this many right edits (20)")
    args = parser.parse_args()
    try:
        commands = {"table": table, "cv": cv, "calibrate": calibrate, "train": train_model,
                    "crossfit": crossfit_trees, "rerank": rerank_cv, "breakdown": breakdown,
                    "power": power, "jackknife": jackknife, "agree": agree_cv,
                    "compare": compare, "slots": tree_slots, "edits": slot_edits,
                    "heldout": heldout, "units": units, "channel": channel,
                    "channel-heldout": channel_heldout}
        commands[args.command](args)
    except FstpunctError as e:  # bad input or model: one line, exit 2
        _fail(str(e))


if __name__ == "__main__":
    main()
