"""Punctuation correction of learner English (paper §6.2, issue 19): train the correction model.

    python scripts/learner_corpus.py --tle ../shared/ud/UD_English-ESL --fce ../shared/fce \\
        -o learner
    fstpunct train --train learner/en_esl-ud-train.conllu --dev learner/en_esl-ud-dev.conllu \\
        --grammar grammars/en.rules --lexical 0 --iterations 6 -o models/esl-learner
    python scripts/correction.py train --learner models/esl-learner \\
        --original learner/en_esl-ud-train.conllu --corrected learner/en_cesl-ud-train.conllu \\
        -o models/esl-correct

The corrector is trained on the (learner, corrected) pairs of the isomorphic train sentences
(:func:`fstpunct.apps.correction.model.train`); its channel starts from, and is drawn towards,
the channel of ``--reference`` (the bundled English model: correct English).
"""
from __future__ import annotations

import argparse
import sys

from fstpunct.apps.correction.model import train
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_file


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
    t.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    originals, corrected = pairs(args.original, args.corrected)
    print(f"{len(corrected)} training pairs", file=sys.stderr)
    model = train(load_model(args.learner), originals, corrected, load_model(args.reference),
                  load_grammar(args.grammar), args.iterations,
                  Settings(lexical=0, prior=args.prior),
                  report=lambda it, obj, ll: print(f"EM iteration {it}: objective {obj:.1f}, "
                                                   f"log-likelihood {ll:.1f}", file=sys.stderr),
                  record={"learner": args.learner, "original": args.original,
                          "corrected": args.corrected, "reference": args.reference,
                          "prior": args.prior})
    model.save(args.output)


if __name__ == "__main__":
    main()
