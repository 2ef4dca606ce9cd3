"""Punctuation normalisation (``fstpunct normalise``) over the standard splits: how many
punctuation tokens each language's model re-attaches, by mark, and how many punctuation arcs
cross another arc before and after.

    python scripts/normalise_report.py --langs en es zh ar hi > results/normalise.md

With ``--parsers ORIG NORM`` (the Tse & Curran experiment): two parsers of one language, trained
on its treebank as released and as normalised, each scored on its own version of test (words,
punctuation, all tokens).
"""
from __future__ import annotations

import argparse
import copy
from collections import Counter

from fstpunct.apps.normalise import Counts, normalise
from fstpunct.cli.table import format_table
from fstpunct.model.store import load_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser.score import score
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Sentence

SPLITS = ("train", "dev", "test")


def crossing_punct(sent: Sentence) -> int:
    """Punctuation arcs that cross another arc (the root arc counts as one from 0)."""
    arcs = [(min(w.id, w.head), max(w.id, w.head)) for w in sent.words]
    out = 0
    for w in sent.words:
        if not w.is_punct:
            continue
        lo, hi = min(w.id, w.head), max(w.id, w.head)
        out += any(lo < a < hi < b or a < lo < b < hi for a, b in arcs)
    return out


def heads(sent: Sentence) -> list[tuple[str, int]]:
    return [(w.form, w.head) for w in sent.words if w.is_punct]


def run(lang: str) -> tuple[list[list[str]], Counter, Counter]:
    """Rows of the summary table for one language; punctuation tokens and re-attached ones
    by form."""
    model = load_model(lang)
    rows = []
    seen: Counter = Counter()
    moved: Counter = Counter()
    for split in SPLITS:
        gold = list(split_source(lang, split).sentences())
        counts = Counts()
        before = sum(map(crossing_punct, gold))
        after_sents = list(normalise(model, copy.deepcopy(gold), counts))
        after = sum(map(crossing_punct, after_sents))
        for g, a in zip(gold, after_sents):
            for (form, h0), (_, h1) in zip(heads(g), heads(a)):
                seen[form] += 1
                moved[form] += h0 != h1
        rows.append([lang, split, str(counts.sentences), str(counts.tokens), str(counts.moved),
                     f"{100.0 * counts.moved / max(counts.tokens, 1):.1f}", str(counts.kept),
                     str(before), str(after)])
    return rows, seen, moved


def parsers(lang: str, released: str, normalised: str) -> str:
    """Test scores of the two parsers, each against the test trees it was trained to give."""
    gold = list(split_source(lang, "test").sentences())
    versions = {"released": (released, gold),
                "normalised": (normalised, list(normalise(load_model(lang), copy.deepcopy(gold))))}
    rows = []
    for name, (folder, trees) in versions.items():
        model = ParserModel.load(folder)
        s = score(trees, [parse(model, t) for t in trees])
        rows.append([name, folder, f"{s.words.uas:.2f}", f"{s.words.las:.2f}",
                     f"{s.punct.uas:.2f}", f"{s.tokens.uas:.2f}"])
    return format_table(["treebank", "parser", "word UAS", "word LAS", "punct UAS",
                         "all-token UAS"], rows, numeric=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--langs", nargs="+", default=["en", "es", "zh", "ar", "hi"])
    parser.add_argument("--marks", type=int, default=6, help="most frequent marks listed")
    parser.add_argument("--parsers", nargs=2, metavar=("ORIG", "NORM"),
                        help="parser folders trained on the released and normalised train of "
                             "the first --langs; only their scores are printed")
    args = parser.parse_args()
    if args.parsers:
        print(parsers(args.langs[0], *args.parsers))
        return
    rows, by_mark = [], []
    for lang in args.langs:
        lang_rows, seen, moved = run(lang)
        rows += lang_rows
        by_mark.append([lang, " ".join(f"{form} {moved[form]}/{n} ({100.0 * moved[form] / n:.0f}%)"
                                       for form, n in seen.most_common(args.marks))])
    print("## Re-attached punctuation, by split\n")
    print(format_table(["lang", "split", "sentences", "punct tokens", "re-attached", "%",
                        "kept", "crossing punct arcs before", "after"], rows,
                       numeric=True))
    print("\n## Re-attached / all, the most frequent marks (all splits)\n")
    print(format_table(["lang", "mark re-attached/all"], by_mark))


if __name__ == "__main__":
    main()
