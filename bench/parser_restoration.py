"""Dev and test word UAS/LAS of the greedy ``removed``-mode parsers trained on fractions of each
language's standard train split (``models/parser-L-removed-b1[-fNN]``), as JSON lines and
markdown tables language × fraction.

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python bench/parser_restoration.py \\
        [--models models] [--langs en es zh ar hi] [--jsonl OUT.jsonl] [--table-only]

Words = punctuation (gold UPOS PUNCT or relation punct) excluded; LAS on universal relations.
Every model parses the gold words of the split with its punctuation removed (``removed`` mode),
at the model's training beam. With ``--jsonl`` rows already in the file are not measured again.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fstpunct.parser import Model, parse, score
from fstpunct.ud.release import split_source

FRACTIONS = tuple(range(10, 101, 10))


def folder(models: Path, lang: str, pct: int, mode: str = "removed", beam: int = 1) -> Path:
    name = f"parser-{lang}-{mode}-b{beam}"
    return models / (name if pct == 100 else f"{name}-f{pct}")


def measure(path: Path, lang: str, pct: int) -> dict:
    model = Model.load(path)
    beam = model.beam_width(None)
    row = {"model": str(path), "lang": lang, "percent": pct, "mode": model.mode, "beam": beam,
           "fraction": model.info.get("fraction"),
           "train_sentences": model.info.get("train_sentences"),
           "best_epoch": model.info.get("best_epoch")}
    for split in ("dev", "test"):
        gold = list(split_source(lang, split).sentences())
        s = score(gold, (parse(model, x, beam) for x in gold))
        row[f"{split}_uas"], row[f"{split}_las"] = round(s.words.uas, 2), round(s.words.las, 2)
    return row


def tables(rows: list[dict], langs: list[str]) -> str:
    cell = {(r["lang"], r["percent"]): r for r in rows}
    pcts = [p for p in FRACTIONS if any((lang, p) in cell for lang in langs)]
    out = []
    for key, title in (("train_sentences", "training sentences"),
                       ("best_epoch", "best epoch (dev word UAS)"),
                       ("dev_uas", "dev word UAS"), ("dev_las", "dev word LAS"),
                       ("test_uas", "test word UAS"), ("test_las", "test word LAS")):
        out.append(f"**{title}**\n")
        out.append("| language | " + " | ".join(f"{p} %" for p in pcts) + " |")
        out.append("|---|" + "---|" * len(pcts))
        for lang in langs:
            vals = [cell[lang, p][key] if (lang, p) in cell else "–" for p in pcts]
            out.append(f"| {lang} | " + " | ".join(f"{v:.2f}" if isinstance(v, float) else str(v)
                                                for v in vals) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="models", help="folder of the model folders")
    ap.add_argument("--langs", nargs="+", default=["en", "es", "zh", "ar", "hi"])
    ap.add_argument("--jsonl", help="append measured rows here; rows already there are reused")
    ap.add_argument("--table-only", action="store_true", help="only print the tables")
    args = ap.parse_args()
    models = Path(args.models)
    rows: list[dict] = []
    if args.jsonl and Path(args.jsonl).exists():
        rows = [json.loads(x) for x in Path(args.jsonl).read_text().splitlines() if x.strip()]
    done = {r["model"] for r in rows}
    if not args.table_only:
        for lang in args.langs:
            for pct in FRACTIONS:
                path = folder(models, lang, pct)
                if str(path) in done or not (path / "model.json").exists():
                    continue
                row = measure(path, lang, pct)
                rows.append(row)
                if args.jsonl:
                    with open(args.jsonl, "a", encoding="utf-8") as f:
                        f.write(json.dumps(row) + "\n")
                else:
                    print(json.dumps(row))
    print(tables(rows, args.langs))


if __name__ == "__main__":
    main()
