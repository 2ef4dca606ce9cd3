"""Plots of the reported results (matplotlib: ``pip install -e '.[plots]'``), linked from
RESULTS.md. Each reads a results file or the bundled models and writes a PNG:

* ``rules``: per bundled model, the grammar's most frequent rules with the probability of each
  of the four edits in the grammar's initial channel and as learned (the paper's Figure 3);
  from the model, its ``edits.npy`` and the grammar it was trained from;
* ``perplexity``: Attach and +NC test perplexity per language (each chosen by dev perplexity,
  token cost 4, as RESULTS.md's Table 3 analog), beside the paper's; from
  ``results/table3-lexical.jsonl``, zh's from ``results/table3-zh14.jsonl`` (UD 1.4), the five
  other languages' from ``results/table3-ten.jsonl``, Attach's from
  ``results/table3-attach-head.jsonl`` (the retrain on aee62e8);
* ``parser``: word UAS per sentence-length × punctuation-ratio band for each punctuation mode,
  one panel per beam; from the table in ``results/parser.md``.

    .venv/bin/python scripts/plots.py rules perplexity parser --out docs/plots
"""
from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fstpunct.apps.rules import rule_bars  # noqa: E402
from fstpunct.fst.channel import EDITS  # noqa: E402
from fstpunct.fst.default_grammar import model_grammar  # noqa: E402
from fstpunct.model.store import BUNDLED, load_edit_counts, load_model, read_record  # noqa: E402
from fstpunct.show.learned import EDIT_NAMES  # noqa: E402

ROOT = Path(__file__).parents[1]
# the paper's Table 3 (UD 1.4): Attach, +NC (DESIGN.md §6)
PAPER = {"ar": (1.2230, 1.1526), "zh": (1.1921, 1.1464), "en": (1.5636, 1.4276),
         "hi": (1.0630, 1.0598), "es": (1.2364, 1.2103)}
plt.rcParams.update({"font.family": ["Noto Sans", "Noto Sans CJK SC", "Noto Sans Devanagari",
                                     "Noto Sans Arabic", "DejaVu Sans"], "font.size": 9})


def rules(out: Path, top: int = 12) -> list[Path]:
    """One Figure 3 analog per bundled model."""
    written = []
    for folder in sorted(p.parent for p in BUNDLED.glob("*/model.json")):
        lang = folder.name
        grammar = model_grammar(read_record(folder).get("record", {}))
        if grammar is None:
            continue
        model = load_model(folder)
        bars, left = rule_bars(model.channel, load_edit_counts(folder, model.channel.phi.shape),
                                 grammar)
        bars = bars[:top]
        if not bars:
            continue
        cols = 4
        rows = math.ceil(len(bars) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 1.9 * rows + 0.6),
                                 sharey=True, squeeze=False)
        x = range(len(EDITS))
        for ax, bar in zip(axes.flat, bars):
            rule = EDITS.index(bar.edit)
            ax.bar([i - 0.2 for i in x], bar.initial, 0.4, color="#bbbbbb", label="grammar")
            ax.bar([i + 0.2 for i in x], bar.learned, 0.4,
                   color=["#e08600" if i == rule else "#4a78c2" for i in x], label="learned")
            ax.set_title(f"{bar.a} {bar.b}   (×{bar.count:,.0f})", fontsize=9)
            ax.set_xticks(list(x), [EDIT_NAMES[e] for e in EDITS], fontsize=7)
            ax.set_ylim(0, 1.05)
        for ax in list(axes.flat)[len(bars):]:
            ax.axis("off")
        fig.suptitle(f"{lang}: the {len(bars)} most frequent rules of {Path(grammar.path).name} "
                     "— grammar's initial p (grey) and learned p (the rule's edit orange)",
                     fontsize=10)
        fig.tight_layout()
        path = out / f"rules-{lang}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# Table 3's runs: the paper's five languages, zh's on UD 1.4 replacing the retired zh_gsd's,
# the five others (default grammar), and the Attach models retrained on aee62e8 replacing the
# earlier ones
TABLE3 = tuple(ROOT / "results" / f"table3-{name}.jsonl"
               for name in ("lexical", "zh14", "ten", "attach-head"))


def perplexity(out: Path, results: tuple[Path, ...] = TABLE3) -> Path:
    """Attach and +NC per language, chosen by dev perplexity (token cost 4, lexical contexts 0
    or 500, as Table 3), and the paper's. A run of a later file replaces an earlier file's run
    of the same language, setup and lexical contexts."""
    latest = {}
    for path in results:
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                latest[r["lang"], r["setup"], r["lexical"], r["token_cost"]] = r
    rows = [r for r in latest.values() if r["token_cost"] == 4 and r["lexical"] in (0, 500)]
    langs = sorted({r["lang"] for r in rows})
    best = {}
    for lang in langs:
        for setup, kinds in (("Attach", ("attach",)), ("+NC", ("ltr", "rtl", "default"))):
            cands = [r for r in rows if r["lang"] == lang and r["setup"] in kinds]
            if cands:
                best[lang, setup] = min(cands, key=lambda r: r["dev"])["test"]
    series = [("Attach", "#9fb7e0", None), ("+NC", "#1f5fbf", None),
              ("paper Attach", "#f3c98b", "//"), ("paper +NC", "#e08600", "//")]
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    width = 0.2
    for k, (name, colour, hatch) in enumerate(series):
        values = [best.get((lang, name), math.nan) if not name.startswith("paper") else
                  PAPER.get(lang, (math.nan, math.nan))[name.endswith("+NC")] for lang in langs]
        xs = [i + (k - 1.5) * width for i in range(len(langs))]
        ax.bar(xs, values, width, color=colour, hatch=hatch, edgecolor="white", label=name)
        for x, v in zip(xs, values):
            if not math.isnan(v):
                ax.text(x, v + 0.005, f"{v:.3f}", ha="center", va="bottom", fontsize=6,
                        rotation=90)
    ax.set_xticks(range(len(langs)), langs)
    ax.set_ylim(1.0, 1.72)
    ax.set_ylabel("test perplexity per slot")
    ax.set_title("Test perplexity (Table 3 analog); ours on the project's data and splits")
    ax.legend(ncol=4, fontsize=8, loc="upper left")
    fig.tight_layout()
    path = out / "perplexity.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def parser_bands(out: Path, results: Path = ROOT / "results" / "parser.md") -> Path:
    """Word UAS per band, a panel per beam, a bar per punctuation mode."""
    text = results.read_text(encoding="utf-8")
    start = text.index("## Word UAS by sentence length")
    section = text[start:text.find("\n## ", start)]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    bands = header[2:]
    words = [c.strip() for c in lines[2].strip("|").split("|")][2:]
    table: dict[str, dict[str, list[float]]] = {}
    for line in lines[3:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        table.setdefault(cells[1], {})[cells[0]] = [float(c) for c in cells[2:]]
    beams = sorted(table, key=int)
    fig, axes = plt.subplots(len(beams), 1, figsize=(10, 2.6 * len(beams)), sharex=True)
    colours = plt.get_cmap("tab10")
    modes = sorted({m for by_mode in table.values() for m in by_mode})
    for ax, beam in zip(axes, beams):
        shown = [m for m in modes if m in table[beam]]
        width = 0.8 / len(shown)
        for k, mode in enumerate(shown):
            xs = [i + (k - (len(shown) - 1) / 2) * width for i in range(len(bands))]
            ax.bar(xs, table[beam][mode], width, label=mode, color=colours(modes.index(mode)))
        ax.set_ylim(45, 95)
        ax.set_ylabel(f"beam {beam}\nword UAS")
        ax.legend(ncol=len(shown), fontsize=7, loc="lower left")
    labels = [f"{re.sub('/', chr(10), b)}\n({w} words)" for b, w in zip(bands, words)]
    axes[-1].set_xticks(range(len(bands)), labels, fontsize=7)
    fig.suptitle("en_ewt test: word UAS by sentence length (tokens) × punctuation share "
                 "(Ma, Zhang & Zhu 2014, Table 2)", fontsize=10)
    fig.tight_layout()
    path = out / "parser-bands.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="+", choices=("rules", "perplexity", "parser"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "plots"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    for what in args.what:
        if what == "rules":
            made += rules(out)
        elif what == "perplexity":
            made.append(perplexity(out))
        else:
            made.append(parser_bands(out))
    for path in made:
        print(path)


if __name__ == "__main__":
    main()
