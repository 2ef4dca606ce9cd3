"""Table 3 analog: per-slot perplexity of Attach (identity channel) and +NC (trained channel),
with the +NC direction, the token cost (``fstpunct train --token-cost``) and the lexical contexts
(``--lexical``) of each chosen on dev.

    python scripts/table3.py run --langs es zh ar hi --costs 0 2 4 8 >> results/table3.jsonl
    python scripts/table3.py run --langs en --costs 4 --setups ltr rtl attach --jobs 2 \\
        >> results/table3.jsonl
    python scripts/table3.py run --langs hi ar es zh --costs 4 --lexical 0 500 \\
        > results/table3-lexical.jsonl
    python scripts/table3.py report --token-cost 4 results/table3-lexical.jsonl

``run`` trains every missing ``models/L-SETUP-tcC[-lexK]`` (SETUP: ``attach`` = ``--init
identity``, ``ltr``/``rtl`` = ``--init nunberg --direction ltr|rtl``, ``default`` = ``--grammar
default``: the default grammar, direction chosen on dev; ``--iterations`` EM
iterations; ``-lexK`` for ``--lexical K`` > 0) with ``fstpunct train`` and prints one JSON line
per model: dev and test perplexity (``fstpunct perplexity``) and the training seconds from the
model's record. ``report`` picks, per language, the Attach row and the +NC row with the lowest dev
perplexity (among those of ``--token-cost`` / ``--lexical`` if given; +NC from the language's rule
file where it has one, else from the default grammar) and prints the markdown table (test
perplexity), then the default grammar against the rule file where a language has both, then
every row. Lines without ``lexical`` come from before it existed
(no lexical contexts).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from itertools import product
from pathlib import Path

MODELS = Path("models")
FSTPUNCT = [sys.executable, "-m", "fstpunct.cli.main"]
SETUPS = {"attach": ["--init", "identity"], "ltr": ["--direction", "ltr"],
          "rtl": ["--direction", "rtl"], "default": ["--grammar", "default"]}


def perplexity(model: Path, lang: str, split: str) -> float:
    out = subprocess.run([*FSTPUNCT, "perplexity", "--model", str(model), "--lang", lang,
                          "--split", split], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"perplexity ([0-9.]+)", out).group(1))


def run(args: argparse.Namespace) -> None:
    for lang in args.langs:
        for setup, cost, lexical in product(args.setups, args.costs, args.lexical):
            model = MODELS / (f"{lang}-{setup}-tc{cost:g}" + (f"-lex{lexical}" if lexical else ""))
            if not (model / "model.json").exists():
                subprocess.run([*FSTPUNCT, "train", "--lang", lang, *SETUPS[setup],
                                "--token-cost", f"{cost:g}", "--lexical", str(lexical),
                                "--iterations", str(args.iterations), "--jobs", str(args.jobs),
                                "-o", str(model)], check=True, stderr=subprocess.DEVNULL)
            record = json.loads((model / "model.json").read_text())["record"]
            print(json.dumps({
                "lang": lang, "setup": setup, "token_cost": cost, "lexical": lexical,
                "direction": record["direction"], "iterations": record["iterations"],
                "dev": perplexity(model, lang, "dev"), "test": perplexity(model, lang, "test"),
                "model": str(model), "seconds": record["seconds"],
                "command": record["command"]}), flush=True)


def _cell(row: dict | None, direction: bool) -> str:
    if row is None:
        return "–"
    what = f"{row['direction']}, " if direction else ""
    return f"{row['test']:.4f} ({what}{row['token_cost']:g}, {row.get('lexical', 0)})"


def report(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for f in args.files
            for line in Path(f).read_text().splitlines() if line.strip()]
    by_lang: dict[str, list[dict]] = {}
    for r in rows:
        lexical = r.get("lexical", 0)
        if args.token_cost in (None, r["token_cost"]) and args.lexical in (None, lexical):
            by_lang.setdefault(r["lang"], []).append(r)
    print("| lang | Attach test (token cost, lexical) | +NC test (direction, token cost, lexical) "
          "| dev Attach / +NC |")
    print("|---|---|---|---|")
    for lang in sorted(by_lang):
        attach = [r for r in by_lang[lang] if r["setup"] == "attach"]
        nc = [r for r in by_lang[lang] if r["setup"] in ("ltr", "rtl")] or \
            [r for r in by_lang[lang] if r["setup"] == "default"]
        a = min(attach, key=lambda r: r["dev"]) if attach else None
        n = min(nc, key=lambda r: r["dev"]) if nc else None
        print(f"| {lang} | {_cell(a, False)} | {_cell(n, True)} | "
              f"{a['dev'] if a else '–'} / {n['dev'] if n else '–'} |")
    print("\n| lang | rule file: dev / test (direction) | default grammar: dev / test "
          "(direction) |")
    print("|---|---|---|")
    for lang in sorted(by_lang):
        hand = [r for r in by_lang[lang] if r["setup"] in ("ltr", "rtl")]
        default = [r for r in by_lang[lang] if r["setup"] == "default"]
        if hand and default:
            h, d = (min(rows, key=lambda r: r["dev"]) for rows in (hand, default))
            print(f"| {lang} | {h['dev']:.4f} / {h['test']:.4f} ({h['direction']}) | "
                  f"{d['dev']:.4f} / {d['test']:.4f} ({d['direction']}) |")
    print("\n| lang | setup | token cost | lexical | iterations | dev | test | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (r["lang"], r["setup"], r["token_cost"],
                                         r.get("lexical", 0))):
        print(f"| {r['lang']} | {r['setup']} | {r['token_cost']:g} | {r.get('lexical', 0)} | "
              f"{r['iterations']} | {r['dev']:.4f} | {r['test']:.4f} | {r['seconds']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--langs", nargs="+", default=["es", "zh", "ar", "hi"])
    r.add_argument("--costs", nargs="+", type=float, default=[0.0, 2.0, 4.0, 8.0])
    r.add_argument("--setups", nargs="+", choices=list(SETUPS), default=list(SETUPS))
    r.add_argument("--lexical", nargs="+", type=int, default=[0],
                   help="fstpunct train --lexical values (0: no lexical contexts)")
    r.add_argument("--iterations", type=int, default=10)
    r.add_argument("--jobs", type=int, default=1)
    p = sub.add_parser("report")
    p.add_argument("files", nargs="+")
    p.add_argument("--token-cost", type=float,
                   help="only models of this token cost in the first table (default: any)")
    p.add_argument("--lexical", type=int,
                   help="only models of this --lexical in the first table (default: any)")
    args = parser.parse_args()
    {"run": run, "report": report}[args.what](args)


if __name__ == "__main__":
    main()
