"""Figure 6 analog (paper §6.3): how well a word-trigram LM trained on rephrased train sentences
predicts the original test sentences, per rephrasing method.

For every language: the train split is self-permuted ``--samples`` times per sentence (the same
word orders for every method: one random stream per sentence and sample), written by each method
(base, half, full), and an interpolated Kneser–Ney trigram model (``KneserNeyTrigram``, checked
against nltk.lm) is trained on each, with discount ``--discount`` (0.9: chosen on the dev splits
for the LM of the unpermuted train split, ``--discounts``; nltk's default 0.1 gives that LM 2.3–
3.8× the dev perplexity over all tokens). Perplexity of the original test sentences over the
punctuation tokens and over all tokens (the end of sentence included). Punctuation forms are
folded before counting (curly and straight double quotes → ``"``, single → ``'``) so a method
is not judged on quote glyphs. Every model has the vocabulary of the original train split (tokens
seen twice or more; the rest is ``<UNK>``, as nltk's ``unk_cutoff=2``), and a row "original"
gives the model trained on the train split as it is, for reference. Writes a JSON line per
language to ``--out`` (rewritten whole after each language).

    python scripts/figure6.py --langs zh ar hi es en --tree sample --out results/figure6.jsonl
    python scripts/figure6.py --report results/figure6.jsonl --plot results/figure6.png
    python scripts/figure6.py --split dev --discounts 0.1 0.5 0.75 0.9 0.95

``--model zh=DIR`` uses a punctuation model folder in place of the bundled one of that language;
``--tree sample`` gives full and half a posterior draw of T′ per sample instead of the Viterbi
T′; ``--split dev`` measures on the dev split (to choose settings without the test split).
``--report`` reads such a file instead, prints the Markdown table (the paper's figures beside)
and draws the plot; ``--marks`` adds, per language, the marks whose −Σ ln p full raises most
over base.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from fstpunct.apps.rephrase.order import OrderModel, order_path
from fstpunct.apps.rephrase.rephrase import METHODS, TREES, Options, underlying, written
from fstpunct.apps.rephrase.trigram import KneserNeyTrigram
from fstpunct.apps.rephrase.wellformed import is_terminal, problems
from fstpunct.files import atomic_path, output
from fstpunct.model.store import load_model
from fstpunct.ud.release import read_one
from fstpunct.ud.treebank import Sentence

DISCOUNT = 0.9  # chosen on the dev splits: `--split dev --discounts ...` (RESULTS.md)
_FOLD = {"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"}


def tokens(sent: Sentence) -> tuple[list[str], list[bool]]:
    """The LM's tokens of a sentence (punctuation forms folded) and which are punctuation."""
    return ([_FOLD.get(w.form, w.form) if w.is_punct else w.form for w in sent.words],
            [w.is_punct for w in sent.words])


def perplexities(lm: KneserNeyTrigram, test: list[Sentence]) -> dict:
    """Perplexity over punctuation tokens and over all tokens, and per punctuation form (and
    ``</s>``) its count and −Σ ln p (what it adds to the punctuation perplexity's exponent), the
    same for its occurrences after a token it never follows in the LM's training text, and the
    number of distinct tokens it follows there."""
    punct, every = [], []
    marks: dict[str, list[float]] = {}
    for sent in test:
        toks, is_punct = tokens(sent)
        logs = lm.log_probs(toks)
        every.extend(logs)
        before = ["<s>", *toks]
        for k, (tok, lp, p) in enumerate([*zip(toks, logs, is_punct), ("</s>", logs[-1], False)]):
            if p or tok == "</s>":
                entry = marks.setdefault(tok, [0, 0.0, 0, 0.0])
                entry[0] += 1
                entry[1] -= lp
                if not lm.seen_after(before[k], tok):
                    entry[2] += 1
                    entry[3] -= lp
        punct.extend(lp for lp, p in zip(logs, is_punct) if p)
    return {"punct": math.exp(-sum(punct) / len(punct)), "all": math.exp(-sum(every) / len(every)),
            "punct_tokens": len(punct), "all_tokens": len(every), "marks": marks,
            "left_contexts": {m: lm.left_contexts(m) for m in marks}}


def _counted(sentences: Iterable[list[str]], shape: Counter) -> Iterator[list[str]]:
    """``sentences`` as they are, counting in ``shape`` the sentences (``sentences``), the
    ill-formed ones (:func:`problems`: ``ill_formed``) and those with a point (``. ? !`` …)
    before their last token (``mid_point``)."""
    for toks in sentences:
        shape["sentences"] += 1
        shape["ill_formed"] += bool(problems(toks))
        shape["mid_point"] += any(map(is_terminal, toks[:-1]))
        yield toks


def mark_report(rows: list[dict], first: str = "base", second: str = "full", top: int = 6
                ) -> None:
    """Per language, the marks (and ``</s>``) whose −Σ ln p differ most between two methods
    (second − first), raised and lowered: which marks make one method's punctuation perplexity
    higher, and for the first two how much of their loss falls after a token they never follow
    in each method's text (and that for all marks)."""
    for r in rows:
        a, b = r[first].get("marks"), r[second].get("marks")
        if not a or not b:
            continue
        diff = sorted(((b[m][1] - a[m][1], m) for m in a if m in b), reverse=True)
        raised = [x for x in diff if x[0] > 0][:top]  # apart when there are few marks
        lowered = [x for x in reversed(diff) if x[0] < 0][:top]
        cells = ", ".join(f"`{m}` ×{a[m][0]} {d:+.0f}" for d, m in raised)
        cells += "; lowered most: " + ", ".join(f"`{m}` ×{a[m][0]} {d:+.0f}" for d, m in lowered)
        shapes = "; ".join(f"{m}: {r[m]['ill_formed'] / r[m]['sentences']:.1%} ill-formed, "
                           f"{r[m]['mid_point'] / r[m]['sentences']:.1%} with a point "
                           "mid-sentence" for m in ORDER if r[m].get("sentences"))
        left = [(m, r[first]["left_contexts"][m], r[second]["left_contexts"][m])
                for _, m in diff[:2] if "left_contexts" in r[first]]
        contexts = "; ".join(f"`{m}` follows {before} distinct tokens in {first}'s text, "
                             f"{after} in {second}'s" for m, before, after in left)
        unseen = "; ".join(
            f"`{m}` after a token it never follows in the text: {first} ×{a[m][2]} "
            f"{a[m][3]:.0f} nats, {second} ×{b[m][2]} {b[m][3]:.0f} (elsewhere {first} "
            f"{a[m][1] - a[m][3]:.0f}, {second} {b[m][1] - b[m][3]:.0f})"
            for _, m in diff[:2] if len(a[m]) > 2)
        if all(len(v) > 2 for v in (*a.values(), *b.values())):
            unseen += "; " * bool(unseen) + _unseen_total(a, b, first, second)
        print(f"- {r['lang']}: {second} − {first}, nats: {cells}" +
              (f" (rephrased train: {shapes})" if shapes else "") +
              (f"; {contexts}" if contexts else "") + (f"; {unseen}" if unseen else ""))


def _unseen_total(a: dict, b: dict, first: str, second: str) -> str:
    """:func:`mark_report`'s sum over all punctuation marks (``</s>`` not counted) of the
    tokens and nats after a token they never follow in each method's text, and elsewhere."""
    def total(marks: dict) -> tuple[int, float, float]:
        rows = [v for m, v in marks.items() if m != "</s>"]
        return (sum(v[2] for v in rows), sum(v[3] for v in rows),
                sum(v[1] - v[3] for v in rows))
    (n, u, e), (n2, u2, e2) = total(a), total(b)
    return (f"all marks after a token they never follow in the text: {first} ×{n} {u:.0f} "
            f"nats, {second} ×{n2} {u2:.0f} (elsewhere {first} {e:.0f}, {second} {e2:.0f}; "
            f"{second} − {first}, all: {u2 + e2 - u - e:+.0f} nats)")


PAPER = {"ar": (156.0, 231.3, 186.1, 540.8, 590.3, 553.4),
         "zh": (165.2, 110.0, 61.4, 205.0, 174.4, 78.7),
         "en": (98.4, 74.5, 51.0, 140.9, 131.4, 75.4),
         "hi": (10.8, 11.0, 9.7, 118.4, 118.8, 91.8),
         "es": (266.2, 259.2, 194.5, 346.3, 343.4, 239.3)}  # Base Half Full, punct then all
ORDER = ("base", "half", "full")


def report(rows: list[dict], plot: str | None) -> None:
    """The Markdown table, and a grouped bar plot (log scale) when ``plot`` names a file."""
    print("| lang | punct: base | half | full | (paper b/h/f) | all: base | half | full "
          "| (paper b/h/f) | unpermuted punct / all |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        paper = PAPER[r["lang"]]
        cells = [f"{r[m][k]:.1f}" for k in ("punct", "all") for m in ORDER]
        print(f"| {r['lang']} | {' | '.join(cells[:3])} | {'/'.join(map(str, paper[:3]))} | "
              f"{' | '.join(cells[3:])} | {'/'.join(map(str, paper[3:]))} | "
              f"{r['original']['punct']:.1f} / {r['original']['all']:.1f} |")
    if plot is None:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    width = 0.27
    for ax, key, title in zip(axes, ("punct", "all"), ("punctuation tokens", "all tokens")):
        for j, m in enumerate(ORDER):
            ax.bar([i + (j - 1) * width for i in range(len(rows))], [r[m][key] for r in rows],
                   width, label=m.capitalize())
        ax.set_xticks(range(len(rows)), [r["lang"] for r in rows])
        ax.set_yscale("log")
        ax.set_title(f"test perplexity, {title}")
    axes[0].legend()
    fig.tight_layout()
    with atomic_path(plot) as tmp:
        fig.savefig(tmp, format=Path(plot).suffix.lstrip(".") or "png", dpi=120)


def choose_discount(train: list[Sentence], test: list[Sentence], vocabulary: set[str],
                    discounts: list[float], lang: str) -> None:
    """Print, per discount, the perplexity of ``test`` (punctuation / all tokens) under the LM
    of the unpermuted train split: the discount is a property of the LM, chosen without any
    rephrasing method."""
    for d in discounts:
        lm = KneserNeyTrigram((tokens(s)[0] for s in train), d, vocabulary)
        found = perplexities(lm, test)
        print(f"{lang} discount {d}: punct {found['punct']:.1f} all {found['all']:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["ar", "en", "es", "hi", "zh"])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", default="test", choices=("test", "dev"),
                        help="the split whose perplexity is measured (default test)")
    parser.add_argument("--tree", choices=TREES, default="viterbi",
                        help="full and half: the Viterbi T′, or a posterior draw per sample")
    parser.add_argument("--discount", type=float, default=DISCOUNT,
                        help=f"Kneser–Ney discount of every LM (default {DISCOUNT})")
    parser.add_argument("--discounts", type=float, nargs="+", metavar="D",
                        help="only print the perplexity of the LM of the unpermuted train split "
                        "with each of these discounts (to choose one on --split dev)")
    parser.add_argument("--out", default="results/figure6.jsonl")
    parser.add_argument("--model", action="append", default=[], metavar="LANG=DIR",
                        help="a punctuation model folder for LANG instead of the bundled one")
    parser.add_argument("--report", metavar="JSONL", help="only print the table of this file")
    parser.add_argument("--plot", metavar="FILE", help="with --report: draw the plot here")
    parser.add_argument("--marks", action="store_true",
                        help="with --report: also the marks full loses most on against base")
    args = parser.parse_args()
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        report(rows, args.plot)
        if args.marks:
            mark_report(rows)
        return 0
    folders = dict(m.split("=", 1) for m in args.model)
    out = Path(args.out)
    rows: list[dict] = []
    for lang in args.langs:
        train, test = list(read_one(f"{lang}:train")), list(read_one(f"{lang}:{args.split}"))
        counts = Counter(t for s in train for t in tokens(s)[0])
        vocabulary = {t for t, c in counts.items() if c >= 2}
        if args.discounts:  # needs neither the punctuation nor the ordering model
            choose_discount(train, test, vocabulary, args.discounts, lang)
            continue
        model, order = load_model(folders.get(lang, lang)), OrderModel.load(order_path(lang))
        row: dict = {"lang": lang, "model": folders.get(lang, lang), "samples": args.samples,
                     "seed": args.seed, "tree": args.tree, "split": args.split,
                     "discount": args.discount, "train": len(train), "test": len(test)}
        original = KneserNeyTrigram((tokens(s)[0] for s in train), args.discount, vocabulary)
        row["original"] = perplexities(original, test)
        start = time.time()
        trees = list(underlying(train, model, args.tree, args.seed, args.samples))
        print(f"{lang}: T′ of train ({time.time() - start:.0f} s)", file=sys.stderr)
        for method in METHODS:
            start = time.time()
            options = Options(method, args.seed, args.samples,  # base reads no T′
                              tree="viterbi" if method == "base" else args.tree)
            shape = Counter()
            lm = KneserNeyTrigram(_counted((tokens(s)[0] for s in
                                            written(trees, model, order, options)), shape),
                                  args.discount, vocabulary)
            row[method] = {**perplexities(lm, test), **shape}
            print(f"{lang} {method}: punct {row[method]['punct']:.1f} all "
                  f"{row[method]['all']:.1f} ({time.time() - start:.0f} s)", file=sys.stderr)
        rows.append(row)
        with output(out) as f:  # rewritten whole after every language
            f.writelines(json.dumps(r) + "\n" for r in rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
