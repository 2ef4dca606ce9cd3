"""Jackknifed parser trees of a language's training split (K-fold, contiguous folds in file order).

    python scripts/jackknife.py es                # 10 folds -> results/tmp/jk/es-train-jk.conllu
    python scripts/jackknife.py en --folds 5
    python scripts/jackknife.py hi --folds 5 --lowercase --tags models/compact-tags \
        -o results/tmp/jk/hi-train-textjk.conllu --work models/textjk   # text-pipeline trees

Every training sentence is parsed by a ``removed``-mode greedy (beam 1) parser trained, with
:func:`fstpunct.parser.train` as ``fstpunct parser train`` does, on the other K−1 folds (epoch
chosen on the language's standard dev split; at most ``--epochs`` epochs, ``--patience``).
Sentences are parsed as ``fstpunct parse`` does (:func:`fstpunct.parser.parse`): every token
and line is kept, only HEAD and DEPREL change, punctuation is re-attached to the predicted word
tree. The file has all train sentences in order; the word UAS (punctuation excluded) of the
whole file against gold is printed and saved with the per-fold figures in
``<out>.json``. Fold parsers are kept as ``<work>/parser-L-jk-fK`` (default work: ``models``):
scripts/restoration.py uses them as an ensemble. With ``--tags DIR`` the train and dev sentences
come from ``DIR/L-train.conllu`` and ``DIR/L-dev.conllu`` (jackknifed predicted UPOS of
``scripts/compact_parsers.py tags``) and, with ``--lowercase``, the fold parsers are case-free
like the bundled ones: the trees the text pipeline gives train sentences. With ``--reuse`` the
fold parsers already in ``<work>`` parse their folds again (none is trained): the trees of new
parsing code from the same parsers.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fstpunct.model.lbfgs import contiguous_ranges
from fstpunct.parser import Model, parse, score, train
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Sentence, read_file, write_file

OUT = Path("results/tmp/jk")


def jackknife(lang: str, k: int, epochs: int, patience: int, work: Path,
              tags: Path | None = None, lowercase: bool = False, reuse: bool = False
              ) -> tuple[list[Sentence], list[dict[str, object]]]:
    """Every train sentence of ``lang`` parsed by the parser of the other folds (with
    ``reuse``, the one already in ``work``), and per-fold records (sentences, best epoch, dev
    UAS, held-out word UAS, seconds)."""
    if tags:
        gold = list(read_file(tags / f"{lang}-train.conllu"))
        dev = list(read_file(tags / f"{lang}-dev.conllu"))
    else:
        gold = list(split_source(lang, "train").sentences())
        dev = list(split_source(lang, "dev").sentences())
    out: list[Sentence] = []
    records: list[dict[str, object]] = []
    for i, (a, b) in enumerate(contiguous_ranges(len(gold), k), 1):
        held = range(a, b)
        rest = [s for j, s in enumerate(gold) if j not in held]
        t0 = time.perf_counter()
        folder = work / f"parser-{lang}-jk-f{i}"
        model = Model.load(folder) if reuse else \
            train(rest, dev, "removed", 1, folder, epochs=epochs, patience=patience,
                  progress=False, log=lambda m: None, lowercase=lowercase,
                  info={"train": f"{lang} train minus fold {i}/{k}", "dev": f"{lang} dev"})
        parsed = [parse(model, gold[j], 1) for j in held]
        uas = score([gold[j] for j in held], parsed).words.uas
        out.extend(parsed)
        rec = {"fold": i, "sentences": len(held), "train_sentences": len(rest),
               "best_epoch": model.info.get("best_epoch"),
               "dev_uas": max(h["dev_uas"] for h in model.info["history"]),
               "heldout_uas": round(uas, 2), "seconds": round(time.perf_counter() - t0, 1)}
        records.append(rec)
        print(json.dumps(rec), file=sys.stderr, flush=True)
    return out, records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lang")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--patience", type=int, default=3)
    ap.add_argument("-o", "--output", type=Path, help="default results/tmp/jk/L-train-jk.conllu")
    ap.add_argument("--work", type=Path, default=Path("models"), help="fold parser folder")
    ap.add_argument("--tags", type=Path, metavar="DIR",
                    help="train/dev with predicted tags from DIR/L-{train,dev}.conllu")
    ap.add_argument("--lowercase", action="store_true", help="case-free fold parsers")
    ap.add_argument("--reuse", action="store_true",
                    help="parse with the fold parsers already in --work (train none)")
    args = ap.parse_args()
    path = args.output or OUT / f"{args.lang}-train-jk.conllu"
    path.parent.mkdir(parents=True, exist_ok=True)
    parsed, records = jackknife(args.lang, args.folds, args.epochs, args.patience, args.work,
                                args.tags, args.lowercase, args.reuse)
    write_file(parsed, path)
    uas = score(split_source(args.lang, "train").sentences(), parsed).words.uas
    summary = {"lang": args.lang, "folds": args.folds, "epochs": args.epochs,
               "patience": args.patience, "reused_parsers": args.reuse, "sentences": len(parsed),
               "jackknife_uas": round(uas, 2), "per_fold": records}
    path.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{args.lang}: {len(parsed)} sentences -> {path}; jackknifed word UAS {uas:.2f}")


if __name__ == "__main__":
    main()
