"""Markdown tables and the Figure 4 plot from the JSON lines of scripts/restoration.py.

    python scripts/restoration_report.py results/restoration.jsonl \
        --figure results/restoration-figure.jsonl --png results/restoration-figure4.png \
        --seeds results/restoration-seeds.jsonl
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Iterable

from fstpunct.apps.restoration.metrics import sign_flip_p
from fstpunct.cli.table import format_table

LANGS = ("ar", "en", "es", "hi", "zh")
MARKS = ("comma", "period", "quotes", "brackets", "all")


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pick(records: Iterable[dict], **keys: object) -> dict | None:
    """The last record matching every key (later runs replace earlier ones)."""
    found = None
    for r in records:
        if all(r.get(k) == v for k, v in keys.items()):
            found = r
    return found


def aed(r: dict | None) -> str:
    return "—" if r is None else f"{r['average_edit_distance']:.3f}"


PARSED = ("+NC", "+NC-jk", "+NC ens", "+NC-jk ens")  # systems for parsed trees


def chosen(dev: list[dict], lang: str) -> list[str]:
    """The parsed-tree systems with the lowest dev edit count (full-data parser, sentence
    MBR): one, or several when dev ties."""
    runs = [r for m in PARSED
            if (r := pick(dev, lang=lang, method=m, trees="parsed", fraction=100,
                          mbr="sentence"))]
    best = min((r["edit_distance"] for r in runs), default=None)
    return [r["method"] for r in runs if r["edit_distance"] == best]


def summary(records: list[dict], dev: list[dict]) -> str:
    """Average edit distance per sentence (test) and the goals of the issue; the parsed-tree
    system of each language is the one ``dev`` (the figure's runs) prefers."""
    head = ["lang", "trivial", "CRF", "Attach gold", "Attach lex gold", "+NC gold",
            "+NC gold slot-MBR",
            "parser UAS", "Attach parsed", *(f"{m} parsed" for m in PARSED), "chosen on dev"]
    rows, verdicts = [], []
    for lang in LANGS:
        base = {m: pick(records, lang=lang, method=m, trees="any") for m in ("trivial", "crf")}
        if base["trivial"] is None:
            continue
        got = {(m, t, d): pick(records, lang=lang, method=m, trees=t, mbr=d)
               for m in ("Attach", *PARSED) for t in ("gold", "parsed")
               for d in ("sentence", "slot")}
        parsed = got["+NC", "parsed", "sentence"]
        uas = parsed["uas"] if parsed else None
        pick_dev = chosen(dev, lang)
        attach_lex = pick(records, lang=lang, method="Attach lex", trees="gold", mbr="sentence")
        rows.append([lang, aed(base["trivial"]), aed(base["crf"]),
                     aed(got["Attach", "gold", "sentence"]), aed(attach_lex),
                     aed(got["+NC", "gold", "sentence"]),
                     aed(got["+NC", "gold", "slot"]), "—" if uas is None else f"{uas:.1f}",
                     aed(got["Attach", "parsed", "sentence"]),
                     *(aed(got[m, "parsed", "sentence"]) for m in PARSED),
                     " = ".join(pick_dev) or "—"])
        verdicts.append(goal(lang, base, got, uas, pick_dev))
    return format_table(head, rows, numeric=True) + "\n\n" + "\n".join(verdicts)


def goal(lang: str, base: dict, got: dict, uas: float | None, systems: list[str]) -> str:
    nc_gold = got["+NC", "gold", "sentence"]
    rivals = [base["trivial"], base["crf"], got["Attach", "gold", "sentence"]]
    if nc_gold is None or any(r is None for r in rivals):
        return f"- {lang}: incomplete"
    value = nc_gold["average_edit_distance"]
    gold_ok = all(value < r["average_edit_distance"] for r in rivals)
    text = f"- {lang}: gold trees: +NC {'beats' if gold_ok else 'does NOT beat'} every baseline"
    if uas is None:
        return text
    need = "required" if uas >= 75 else "not required"
    text += f"; parsed trees (UAS {uas:.1f}, {need})"
    if len(systems) > 1:
        text += f", dev ties {' and '.join(systems)}"
    for system in systems:
        parsed = got.get((system, "parsed", "sentence"))
        if parsed is None:
            continue
        beaten = [m for m in ("trivial", "crf")
                  if parsed["average_edit_distance"] < base[m]["average_edit_distance"]]
        text += f"; {system}{'' if len(systems) > 1 else ' (chosen on dev)'} {verdict(beaten)}"
    return text


def verdict(beaten: list[str]) -> str:
    """Which of trivial and CRF a system beats, in words."""
    return ("beats trivial and CRF" if len(beaten) == 2 else
            f"beats only {beaten[0]}" if beaten else "beats neither trivial nor CRF")


def significance(records: list[dict], dev: list[dict]) -> str:
    """+NC against each rival of the goals: the difference in total edits (negative = +NC
    better) and the p-value of a paired sign-flip test over sentences."""
    head = ["lang", "trees", "+NC system", "rival", "edits +NC", "edits rival", "difference",
            "p (sign flip)"]
    rows = []
    for lang in LANGS:
        tree_free = [(m, pick(records, lang=lang, method=m, trees="any"))
                     for m in ("trivial", "crf")]
        for trees, method in (("gold", "+NC"), *(("parsed", m) for m in chosen(dev, lang))):
            ours = pick(records, lang=lang, method=method, trees=trees, mbr="sentence")
            rivals = tree_free + ([("Attach", pick(records, lang=lang, method="Attach",
                                                   trees="gold", mbr="sentence"))]
                                  if trees == "gold" else [])
            for name, rival in rivals:
                if ours is None or rival is None or "sentence_edits" not in ours \
                        or "sentence_edits" not in rival:
                    continue
                a, b = ours["sentence_edits"], rival["sentence_edits"]
                rows.append([lang, trees, method, name, str(sum(a)), str(sum(b)),
                             f"{sum(a) - sum(b):+d}", f"{sign_flip_p(a, b):.3f}"])
    return format_table(head, rows, numeric=True)


def marks(records: list[dict]) -> str:
    """Per-mark precision / recall / F1 on test."""
    head = ["lang", "method", "trees", *[f"{m} P/R/F1" for m in MARKS]]
    rows = []
    for lang in LANGS:
        for method, trees in (("trivial", "any"), ("crf", "any"), ("Attach", "gold"),
                              ("+NC", "gold"), ("Attach", "parsed"),
                              *((m, "parsed") for m in PARSED)):
            keys = {"lang": lang, "method": method, "trees": trees}
            if method not in ("trivial", "crf"):
                keys["mbr"] = "sentence"
            r = pick(records, **keys)
            if r is None:
                continue
            rows.append([lang, method, trees, *(
                "{precision:.1f}/{recall:.1f}/{f1:.1f}".format(**r["marks"][m]) for m in MARKS)])
    return format_table(head, rows)


def curve(records: list[dict], lang: str, method: str) -> list[dict]:
    """``method``'s sentence-MBR runs of ``lang``, the last of each point (trees and parser
    fraction: a later run replaces an earlier one), by tree UAS."""
    last = {(r["trees"], r.get("fraction")): r for r in records
            if r["lang"] == lang and r["method"] == method and r.get("mbr") == "sentence"}
    return sorted(last.values(), key=lambda r: r["uas"])


def figure_table(records: list[dict]) -> str:
    head = ["lang", "parser train %", "dev UAS", "+NC dev AED", "+NC-jk dev AED", "trivial",
            "CRF"]
    rows = []
    for lang in LANGS:
        base = {m: pick(records, lang=lang, method=m, trees="any") for m in ("trivial", "crf")}
        for r in curve(records, lang, "+NC"):
            jk = pick(records, lang=lang, method="+NC-jk", mbr="sentence", trees=r["trees"],
                      fraction=r.get("fraction"))
            rows.append([lang, str(r.get("fraction", "gold")), f"{r['uas']:.1f}", aed(r),
                         aed(jk), aed(base["trivial"]), aed(base["crf"])])
    return format_table(head, rows, numeric=True)


def seed_runs(runs: list[dict], **keys: object) -> list[dict]:
    """The sentence-MBR runs matching ``keys``, one per seed (the last of each)."""
    by_seed = {r["seed"]: r for r in runs if r.get("mbr") == "sentence"
               and all(r.get(k) == v for k, v in keys.items())}
    return [by_seed[k] for k in sorted(by_seed)]


def mean_edits(runs: list[dict]) -> tuple[float, list[float]]:
    """Mean total edits over the runs, and the per-sentence edits averaged over them."""
    per_sentence = [sum(e) / len(runs) for e in zip(*(r["sentence_edits"] for r in runs))]
    return sum(r["edit_distance"] for r in runs) / len(runs), per_sentence


def replicated(seeds: list[dict], records: list[dict]) -> str:
    """The issue's goals with every sampled run repeated over seeds: the parsed-tree system is
    the one with the lowest *mean* dev edit count, and every comparison is of mean test edits
    (trivial and CRF are deterministic); p: sign-flip test over sentences on the per-sentence
    edits averaged over seeds."""
    head = ["lang", "trees", "system", "dev edits per seed", "dev mean", "test edits per seed",
            "test mean", "vs trivial", "vs CRF", "vs Attach", "p vs CRF"]
    rows, verdicts = [], []
    for lang in LANGS:
        base = {m: pick(records, lang=lang, method=m, trees="any") for m in ("trivial", "crf")}
        runs = {(t, m): seed_runs(seeds, lang=lang, split="test", method=m, trees=t)
                for t, m in (("gold", "+NC"), ("gold", "Attach"), *(("parsed", m)
                                                                    for m in PARSED))}
        if not runs["gold", "+NC"] or None in base.values():
            continue
        mean = {key: mean_edits(r) for key, r in runs.items() if r}
        dev = {m: seed_runs(seeds, lang=lang, split="dev", method=m, trees="parsed")
               for m in PARSED}
        dev_mean = {m: mean_edits(r)[0] for m, r in dev.items() if r}
        picked = [m for m, v in dev_mean.items() if v == min(dev_mean.values())]
        rivals = [base["trivial"]["edit_distance"], base["crf"]["edit_distance"]]
        for (trees, method), (total, per_sentence) in mean.items():
            if method == "Attach":
                continue
            dev_runs = dev.get(method, []) if trees == "parsed" else []
            rows.append([
                lang, trees, method + (" (chosen)" if dev_runs and method in picked else ""),
                " ".join(str(r["edit_distance"]) for r in dev_runs) or "—",
                f"{dev_mean[method]:.1f}" if dev_runs else "—",
                " ".join(str(r["edit_distance"]) for r in runs[trees, method]), f"{total:.1f}",
                *(f"{total - v:+.1f}" for v in rivals),
                f"{total - mean['gold', 'Attach'][0]:+.1f}" if trees == "gold" else "—",
                f"{sign_flip_p(per_sentence, base['crf']['sentence_edits']):.3f}"])
        chosen_runs = runs["parsed", picked[0]] if picked else []
        verdicts.append(replicated_goal(lang, base, {k: v[0] for k, v in mean.items()}, picked,
                                        chosen_runs[0]["uas"] if chosen_runs else None))
    return format_table(head, rows, numeric=True) + "\n\n" + "\n".join(verdicts)


def replicated_goal(lang: str, base: dict, mean: dict, picked: list[str],
                    uas: float | None) -> str:
    """The goal line of one language from the mean test edits ``mean[trees, method]``."""
    nc = mean["gold", "+NC"]
    ok = all(nc < v for v in (base["trivial"]["edit_distance"], base["crf"]["edit_distance"],
                              mean["gold", "Attach"]))
    text = f"- {lang}: gold trees: +NC {'beats' if ok else 'does NOT beat'} every baseline"
    if uas is None:
        return text
    text += f"; parsed trees (UAS {uas:.1f}, {'required' if uas >= 75 else 'not required'})"
    if len(picked) > 1:
        return text + f", dev ties {' and '.join(picked)} on the mean"
    parsed = mean["parsed", picked[0]]
    return text + f": {picked[0]} (chosen on the dev mean) " + verdict(
        [m for m in ("trivial", "crf") if parsed < base[m]["edit_distance"]])


def plot(records: list[dict], png: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    langs = [lang for lang in LANGS if any(r["lang"] == lang for r in records)]
    fig, axes = plt.subplots(1, len(langs), figsize=(3.2 * len(langs), 3.2), squeeze=False)
    for ax, lang in zip(axes[0], langs):
        for method, color in (("+NC", "C0"), ("+NC-jk", "C1")):
            runs = curve(records, lang, method)
            for trees, style in (("parsed", "o-"), ("gold", "*")):
                xs = [r for r in runs if r["trees"] == trees]
                if xs:
                    ax.plot([r["uas"] for r in xs], [r["average_edit_distance"] for r in xs],
                            style, color=color, markersize=10 if trees == "gold" else 5,
                            label=f"{method}, {trees} trees")
        for method, style in (("trivial", "--"), ("crf", ":")):
            base = pick(records, lang=lang, method=method, trees="any")
            if base is not None:
                ax.axhline(base["average_edit_distance"], linestyle=style, color="gray",
                           label=method)
        ax.axvline(75, color="lightgray", linewidth=0.8)
        ax.set_title(lang)
        ax.set_xlabel("dev tree UAS (%)")
    axes[0][0].set_ylabel("dev edit distance per sentence")
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", help="JSON lines of `restoration.py table`")
    parser.add_argument("--figure", help="JSON lines of `restoration.py figure`")
    parser.add_argument("--png", help="write the Figure 4 plot here")
    parser.add_argument("--seeds", help="JSON lines of `restoration.py seeds`")
    args = parser.parse_args()
    records = load(args.table)
    fig = load(args.figure) if args.figure else []
    print("## Average edit distance per sentence (test)\n")
    print(summary(records, fig))
    print("\n## Significance (test, sentence MBR; paired sign-flip test over sentences, "
          "20,000 rounds)\n")
    print(significance(records, fig))
    print("\n## Per-mark precision / recall / F1 (test, sentence MBR)\n")
    print(marks(records))
    if args.seeds:
        print("\n## Replicated over sampling seeds (sentence MBR; edits are totals over the "
              "split; differences of the test mean against each rival)\n")
        print(replicated(load(args.seeds), records))
    if fig:
        print("\n## Figure 4 analog (dev)\n")
        print(figure_table(fig))
        if args.png:
            plot(fig, args.png)


if __name__ == "__main__":
    main()
