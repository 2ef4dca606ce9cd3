"""Punctuation correction of learner English (paper §6.2, issue 19): train the correction model.

    python scripts/learner_corpus.py --tle ../shared/ud/UD_English-ESL --fce ../shared/fce \\
        -o learner
    fstpunct train --train learner/en_esl-ud-train.conllu --dev learner/en_esl-ud-dev.conllu \\
        --grammar grammars/en.rules --lexical 0 --iterations 6 -o models/esl-learner
    python scripts/correction.py train --learner models/esl-learner \\
        --original learner/en_esl-ud-train.conllu --corrected learner/en_cesl-ud-train.conllu \\
        -o models/esl-correct

    python scripts/correction.py table --model models/esl-correct --data learner \
        --split dev --split test -o results/correction.json

The corrector is trained on the (learner, corrected) pairs of the isomorphic train sentences
(:func:`fstpunct.apps.correction.model.train`); its channel starts from, and is drawn towards,
the channel of ``--reference`` (the bundled English model: correct English).

``table`` is the paper's Table 5 analog on the isomorphic sentences of each split: every system
reads the learner's sentence (its tree gold, or with ``--parser`` the tree a ``tokens``-mode
parser gives the punctuated sentence) and is scored against the corrected punctuation (on the
learner's words): AED, P/R/F0.5 of punctuation edits, per-mark P/R/F1 and the recall of the
gold edits by FCE code; paired tests against the correction model and the CRF corrector.
Systems: keep the input; trivial (a final period); restoration from scratch with the bundled
English model (+NC, exact MBR) and with a CRF trained on the corrected train sentences; the
correction model; the CRF corrector; the CRF corrector with the English model's slot
posteriors as features; and the product of the CRF corrector's slot marginals and the
correction model's slot distribution, log p_crf + w log p_gen per slot, w chosen on dev.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fstpunct.apps.correction.correct import corrected
from fstpunct.apps.correction.crf import combined, generative_features
from fstpunct.apps.correction.crf import train as crf_corrector_train
from fstpunct.apps.correction.model import CorrectionModel, train, with_learner
from fstpunct.apps.restoration.crf import train as crf_train
from fstpunct.apps.restoration.exact import ExactPrior, ExactRestorer
from fstpunct.apps.restoration.metrics import (
    EditScore,
    edit_score,
    f_randomisation_p,
    score,
    sign_flip_p,
    slot_strings,
)
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.apps.restoration.strip import insert, strip
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.files import output
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import Line, Sentence, read_file, rebuild


def pairs(original: str, corrected: str) -> tuple[list, list]:
    """The slot sentences of the corrected file and of their originals (by sent_id), those
    usable for training (no punctuation with dependents on either side)."""
    by_id = {s.sent_id: s for s in read_file(original)}
    out_o, out_c = [], []
    for c in read_file(corrected):
        o = by_id.get(c.sent_id)
        if o is None:
            raise SystemExit(f"{corrected}: sent_id {c.sent_id} is not in {original}")
        so, sc = to_slots(o), to_slots(c)
        if so.trainable and sc.trainable:
            out_o.append(so)
            out_c.append(sc)
    return out_o, out_c


WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
KEEPS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


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
    for c in sent.comments:
        if c.startswith("# fce_punct_edits ="):
            for item in c.split("=", 1)[1].split():
                slot, code = item.split(":")
                out.setdefault(int(slot), []).append(code)
    return out


def evaluate(name: str, source: list[Sentence], gold: list[Sentence], pred: list[Sentence]
             ) -> dict:
    aed = score(gold, pred)
    edits = edit_score(source, gold, pred)
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


def product(source: list[Sentence], margs: list, dists: list, w: float) -> list[Sentence]:
    """The sentences corrected by the product of the CRF's and the generative model's slot
    distributions (``combined``), the generative one weighted ``w``."""
    return [insert(strip(s), combined(m, d, w)) for s, m, d in zip(source, margs, dists)]


def table(args: argparse.Namespace) -> None:
    model = CorrectionModel.load(args.model)
    english = load_model(args.reference)
    data = Path(args.data)
    parser = ParserModel.load(args.parser) if args.parser else None

    def split_pairs(split: str) -> tuple[list[Sentence], list[Sentence]]:
        originals = {s.sent_id: s for s in read_file(data / f"en_esl-ud-{split}.conllu")}
        gold = list(read_file(data / f"en_cesl-ud-{split}.conllu"))
        source = [originals[g.sent_id] for g in gold]
        if parser is not None:
            source = [parse(parser, s, int(parser.info.get("beam", 1))) for s in source]
        return source, [with_words(g, s) for g, s in zip(gold, source)]

    train_src, train_gold = split_pairs("train")
    train_s = [to_slots(s) for s in train_src]
    train_g = [to_slots(g) for g in train_gold]
    work = Path(args.work)
    log = print if args.verbose else (lambda *a, **k: None)
    restorer_crf = crf_train(train_g, [to_slots(g) for g in split_pairs("dev")[1]],
                             work / "crf-restore", "en", log=lambda m: None)
    corrector = crf_corrector_train(train_s, train_g, work / "crf-correct")
    gen_train = generative_features(english, train_s)
    with_gen = crf_corrector_train(train_s, train_g, work / "crf-gen", gen_train)
    results = {}
    weight = None  # of the generative model in "CRF corrector x correction", chosen on dev
    keep = None    # of the correction model's conservative variant, chosen on dev
    for split in args.split:
        source, gold = split_pairs(split)
        slots = [to_slots(s) for s in source]
        gen = generative_features(english, slots)
        systems = {
            "keep": source,
            "trivial": list(restored(source, Trivial.for_language("en"))),
            "restore +NC": list(restored(source, ExactRestorer(english))),
            "restore CRF": list(restored(source, restorer_crf)),
            "correction": list(corrected(source, model)),
            "CRF corrector": [insert(strip(s), corrector.correct(ss))
                              for s, ss in zip(source, slots)],
            "CRF corrector + gen": [insert(strip(s), with_gen.correct(ss, g))
                                    for s, ss, g in zip(source, slots, gen)],
        }
        if keep is None:
            if split != "dev":
                raise SystemExit("table: give --split dev first (it chooses the weights)")
            tried_keep = {k: score(gold, list(corrected(source, model, keep=k)))
                          .average_edit_distance for k in KEEPS}
            keep = min(KEEPS, key=lambda k: (tried_keep[k], k))
            log(f"keep chosen on dev: {keep} (AED {tried_keep})")
        systems[f"correction, keep {keep}"] = list(corrected(source, model, keep=keep))
        dists = list(ExactPrior(model.corrector).distributions(
            [with_learner(model.learner, slots)]))
        margs = [corrector.marginals(ss) for ss in slots]

        if weight is None:
            if split != "dev":
                raise SystemExit("table: give --split dev first (it chooses the weight)")
            tried = {w: edit_score(source, gold, product(source, margs, dists, w)).scores()[2]
                     for w in WEIGHTS}
            weight = max(WEIGHTS, key=lambda w: (tried[w], -w))
            log(f"weight of the correction model chosen on dev: {weight} (F0.5 {tried})")
        systems[f"CRF corrector x correction (w {weight})"] = product(source, margs, dists,
                                                                      weight)
        rows = [evaluate(name, source, gold, pred) for name, pred in systems.items()]
        by = {r["system"]: r for r in rows}
        for r in rows:
            for ref in ("correction", "CRF corrector"):
                a, b = by[ref], r
                r[f"p_aed_vs_{ref}"] = sign_flip_p(a["sentence_edits"], b["sentence_edits"])
                r[f"p_f_vs_{ref}"] = f_randomisation_p(EditScore(*a["edit_counts"]),
                                                       EditScore(*b["edit_counts"]))
        results[split] = rows
        log(f"{split}: {len(source)} sentences")
        print(f"### {split} ({len(source)} sentences, {sum(by['keep']['edit_counts'][2])} "
              f"gold punctuation edits; trees {'parsed' if parser else 'gold'})")
        print("| system | AED | P | R | F0.5 | p AED vs correction | p F0.5 vs CRF corrector |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['system']} | {r['aed']:.4f} | {r['precision']:.1f} | "
                  f"{r['recall']:.1f} | {r['f0.5']:.1f} | {r['p_aed_vs_correction']:.3f} | "
                  f"{r['p_f_vs_CRF corrector']:.3f} |")
    with output(args.output) as f:
        f.write(json.dumps(results, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train a correction model")
    t.add_argument("--learner", required=True, help="punctuation model of the learners' text")
    t.add_argument("--original", required=True, help="learner sentences (en_esl train)")
    t.add_argument("--corrected", required=True, help="their corrections (en_cesl train)")
    t.add_argument("--reference", default="en", help="model of correct English (default en)")
    t.add_argument("--grammar", default="grammars/en.rules")
    t.add_argument("--iterations", type=int, default=8)
    t.add_argument("--prior", type=float, default=10.0,
                   help="Dirichlet pseudo-counts per window towards the reference channel")
    t.add_argument("--l2", type=float, default=1.0, help="L2 on the corrector's θ (1)")
    t.add_argument("--token-cost", type=float, default=4.0,
                   help="θ's prior centre: −COST per underlying token (4, as the bundled models)")
    t.add_argument("-o", "--output", required=True)
    b = sub.add_parser("table", help="Table 5 analog on the isomorphic sentences")
    b.add_argument("--model", required=True, help="correction model folder")
    b.add_argument("--data", default="learner", help="folder of learner_corpus.py's files")
    b.add_argument("--split", action="append", default=[], help="dev, test (repeatable)")
    b.add_argument("--reference", default="en", help="model of correct English (default en)")
    b.add_argument("--parser", help="tokens-mode parser of learner English (else gold trees)")
    b.add_argument("--work", default="models/esl-table", help="folder for the CRFs trained")
    b.add_argument("--verbose", action="store_true")
    b.add_argument("-o", "--output", required=True, help="JSON of every figure")
    args = parser.parse_args()
    if args.command == "table":
        table(args)
        return
    originals, corrected = pairs(args.original, args.corrected)
    print(f"{len(corrected)} training pairs", file=sys.stderr)
    model = train(load_model(args.learner), originals, corrected, load_model(args.reference),
                  load_grammar(args.grammar), args.iterations,
                  Settings(lexical=0, prior=args.prior, l2=args.l2, token_cost=args.token_cost),
                  report=lambda it, obj, ll: print(f"EM iteration {it}: objective {obj:.1f}, "
                                                   f"log-likelihood {ll:.1f}", file=sys.stderr),
                  record={"learner": args.learner, "original": args.original,
                          "corrected": args.corrected, "reference": args.reference,
                          "prior": args.prior, "l2": args.l2, "token_cost": args.token_cost})
    model.save(args.output)


if __name__ == "__main__":
    main()
