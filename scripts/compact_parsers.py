"""Compact jackknifed parsers for text in (issue 22, item 2): predicted tags, training, sizes.

    S=scripts/compact_parsers.py; export FSTPUNCT_UD_DIR=../shared/ud
    nice -n 10 .venv/bin/python $S tags en          # models/compact-tags/en-{train,dev,test}.conllu
    flock /tmp/fstpunct-bigmem.lock nice -n 10 .venv/bin/fstpunct parser train \\
        --train models/compact-tags/en-train.conllu --dev models/compact-tags/en-dev.conllu \\
        --punct removed --beam 1 --lowercase -o models/parser-en-jk
    nice -n 10 .venv/bin/python $S table en         # UAS/LAS of full and compact parsers
    nice -n 10 .venv/bin/python $S ship en          # fstpunct/models/en/{tagger,tagger-lc,parser}
    .venv/bin/python $S report                      # RESULTS.md's tables

``tags``: the train split with jackknifed UPOS (:func:`fstpunct.parser.tagger.jackknifed`: K
fold taggers, 6 epochs with the best dev epoch kept, features seen at least twice, as
``scripts/tagger_table.py`` trains ``models/tagger-L``), dev and test tagged by the full tagger
``models/tagger-L``. Only the UPOS of words change; punctuation keeps its gold tag (the
``removed`` parser drops it).

``table``: word UAS/LAS (punctuation excluded) on dev and test of the full-size parser
``models/parser-L`` (gold UPOS in training; where it exists) with gold, predicted and lower-
cased predicted tags (``models/tagger-L-lc``, words lower-cased), of the jackknifed case-free
parser ``models/parser-L-jk`` and of its compact variants (one option at a time, then pruning
thresholds with float16 and fingerprints), with their size on disk; appended as JSON lines to
``results/compact-parsers.jsonl``. ``ship``: the bundled models, ``--threshold`` for the parser
and ``--tagger-threshold`` for both taggers, float16 and fingerprints; the taggers' test
accuracy before and after in ``results/compact-taggers.jsonl``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from fstpunct.model.store import BUNDLED
from fstpunct.parser import Model, parse, score
from fstpunct.parser.tagger import Tagger, accuracy, depunctuated, jackknifed, retagged
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Line, Sentence, read_file, write_file

TAGS = Path("models/compact-tags")
RESULTS = Path("results/compact-parsers.jsonl")
TAGGERS = Path("results/compact-taggers.jsonl")
THRESHOLDS = (0.5, 1.0, 1.5, 2.0, 3.0)


def tagged(tagger: Tagger, sentences: list[Sentence]) -> list[Sentence]:
    """``sentences`` with the UPOS of ``tagger`` on their depunctuated words."""
    return [retagged(s, tagger.tag(depunctuated(s)[0])) for s in sentences]


def tags(lang: str, k: int, models: Path) -> None:
    train = list(split_source(lang, "train").sentences())
    dev = list(split_source(lang, "dev").sentences())
    t0 = time.perf_counter()
    jk = jackknifed(train, k, dev, log=lambda m: print(f"{lang} {m}", file=sys.stderr,
                                                       flush=True), epochs=6, min_count=2)
    TAGS.mkdir(parents=True, exist_ok=True)
    write_file(jk, TAGS / f"{lang}-train.conllu")
    tagger = Tagger.load(models / f"tagger-{lang}")
    write_file(tagged(tagger, dev), TAGS / f"{lang}-dev.conllu")
    write_file(tagged(tagger, list(split_source(lang, "test").sentences())),
               TAGS / f"{lang}-test.conllu")
    print(f"{lang}: {len(jk)} train sentences jackknifed in {k} folds "
          f"({time.perf_counter() - t0:.0f} s) -> {TAGS}", file=sys.stderr)


def with_forms(sent: Sentence, like: Sentence | None = None) -> Sentence:
    """``sent`` with every form in lower case (lower-cased text), or with the forms of
    ``like`` (``sent`` lower-cased and parsed: its words again as in the treebank)."""
    form = {ln.lineno: ln.fields[1] for ln in like.lines} if like else {}
    lines = [Line(ln.fields[:1] + [form.get(ln.lineno, ln.fields[1].lower())] + ln.fields[2:],
                  ln.lineno) for ln in sent.lines]
    words = [dataclasses.replace(w, form=form.get(w.lineno, w.form.lower())) for w in sent.words]
    return dataclasses.replace(sent, comments=list(sent.comments), lines=lines, words=words)


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir())


def variants(model: Model) -> Iterator[tuple[str, Callable[[Path], None]]]:
    """(name, writer of the variant into a folder) for each compact variant of ``model``."""
    yield "keys, float32 (as trained)", lambda d: model.save(d)
    yield "float16", lambda d: model.save(d, float16=True)
    yield "fingerprints", lambda d: model.save(d, fingerprints=True)
    yield "zero features dropped", lambda d: model.compacted(0).save(d)
    for t in THRESHOLDS:
        yield f"pruned {t}, float16, fingerprints", \
            lambda d, t=t: model.compacted(t).save(d, float16=True, fingerprints=True)


def table(lang: str, models: Path) -> None:
    inputs: dict[str, dict[str, list[Sentence]]] = {}
    lc_tagger = Tagger.load(models / f"tagger-{lang}-lc")
    for split in ("dev", "test"):
        gold = list(split_source(lang, split).sentences())
        inputs[split] = {
            "gold": gold, "predicted": list(read_file(TAGS / f"{lang}-{split}.conllu")),
            "lower-cased": [with_forms(retagged(s, lc_tagger.tag(depunctuated(s)[0])))
                            for s in gold]}

    def record(parser: str, model: Model, tags: tuple[str, ...], nbytes: int) -> None:
        for split, by_tags in inputs.items():
            for t in tags:
                t0 = time.perf_counter()
                parsed = (with_forms(parse(model, s, 1), g) if t == "lower-cased" else
                          parse(model, s, 1) for s, g in zip(by_tags[t], by_tags["gold"]))
                sc = score(by_tags["gold"], parsed).words
                rec = {"lang": lang, "split": split, "parser": parser, "tags": t,
                       "uas": round(sc.uas, 2), "las": round(sc.las, 2), "bytes": nbytes,
                       "seconds": round(time.perf_counter() - t0, 1)}
                print(json.dumps(rec), flush=True)
                with RESULTS.open("a") as f:
                    f.write(json.dumps(rec) + "\n")

    full = models / f"parser-{lang}"
    if full.is_dir():  # none trained for de, fr, it, pt, ru
        record("full-size, gold tags in training", Model.load(full),
               ("gold", "predicted", "lower-cased"), size(full))
    jk = Model.load(models / f"parser-{lang}-jk")
    for name, write in variants(jk):
        with tempfile.TemporaryDirectory() as d:
            write(Path(d))
            record(f"jackknifed, {name}", Model.load(d), ("predicted", "lower-cased"),
                   size(Path(d)))


def ship(lang: str, models: Path, threshold: float, tagger_threshold: float) -> None:
    out = BUNDLED / lang
    test = [depunctuated(s) for s in split_source(lang, "test").sentences()]
    for name in (f"tagger-{lang}", f"tagger-{lang}-lc"):
        full = Tagger.load(models / name)
        full.compacted(tagger_threshold).save(out / name.replace(f"-{lang}", ""),
                                              fingerprints=True)
        small = Tagger.load(out / name.replace(f"-{lang}", ""))
        rec = {"lang": lang, "split": "test", "tagger": name, "accuracy": accuracy(full, test),
               "bytes": size(models / name), "shipped_accuracy": accuracy(small, test),
               "shipped_bytes": size(out / name.replace(f"-{lang}", "")),
               "threshold": tagger_threshold}
        print(json.dumps(rec), flush=True)
        with TAGGERS.open("a") as f:
            f.write(json.dumps(rec) + "\n")
    Model.load(models / f"parser-{lang}-jk").compacted(threshold).save(
        out / "parser", float16=True, fingerprints=True)
    sizes = {p.name: size(p) for p in (out / "tagger", out / "tagger-lc", out / "parser")}
    print(f"{lang}: {sizes}, total {sum(sizes.values()) / 1e6:.2f} MB")


def shipped_threshold(lang: str) -> float | None:
    """The pruning threshold recorded in the bundled parser of ``lang`` (None: none shipped)."""
    meta = BUNDLED / lang / "parser" / "model.json"
    return json.loads(meta.read_text())["info"]["pruned_below"] if meta.is_file() else None


def report() -> None:
    """Markdown: per language, test word UAS / LAS of the full-size and bundled parsers with
    gold, predicted and lower-cased tags, and the shipped sizes; then each compaction option's
    test UAS (predicted tags) and size. Of repeated runs the last line counts."""
    rows: dict[tuple, dict] = {}
    for line in RESULTS.read_text().splitlines():
        r = json.loads(line)
        rows[r["lang"], r["split"], r["parser"], r["tags"]] = r
    langs = list(dict.fromkeys(k[0] for k in rows))

    def cell(lang: str, parser: str, tags: str, split: str = "test") -> str:
        r = rows.get((lang, split, parser, tags))
        return f"{r['uas']:.2f} / {r['las']:.2f}" if r else "–"

    full = "full-size, gold tags in training"
    print("| lang | full-size, gold tags | full-size, predicted tags | full-size, lower-cased "
          "| jackknifed, predicted | jackknifed, lower-cased | **shipped**, predicted "
          "| **shipped**, lower-cased | shipped MB (tagger + tagger-lc + parser) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for lang in langs:
        parts = [BUNDLED / lang / p for p in ("tagger", "tagger-lc", "parser")]
        mb = ([size(p) / 1e6 for p in parts] if all(p.is_dir() for p in parts) else [])
        sizes = (" + ".join(f"{m:.2f}" for m in mb) + f" = **{sum(mb):.2f}**") if mb else "–"
        jk = "jackknifed, keys, float32 (as trained)"
        shipped = f"jackknifed, pruned {shipped_threshold(lang)}, float16, fingerprints"
        print(f"| {lang} | {cell(lang, full, 'gold')} | {cell(lang, full, 'predicted')} | "
              f"{cell(lang, full, 'lower-cased')} | {cell(lang, jk, 'predicted')} | "
              f"{cell(lang, jk, 'lower-cased')} | **{cell(lang, shipped, 'predicted')}** | "
              f"{cell(lang, shipped, 'lower-cased')} | {sizes} |")
    variants = list(dict.fromkeys(k[2] for k in rows if k[2] != full))
    print()
    print("| parser (test UAS, predicted tags; MB) | " + " | ".join(langs) + " |")
    print("|---|" + "---|" * len(langs))
    for v in variants:
        cells = []
        for lang in langs:
            r = rows.get((lang, "test", v, "predicted"))
            cells.append(f"{r['uas']:.2f} ({r['bytes'] / 1e6:.2f})" if r else "–")
        print(f"| {v.removeprefix('jackknifed, ')} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("tags", help="jackknifed train tags, tagged dev and test")
    t.add_argument("langs", nargs="+")
    t.add_argument("--folds", type=int, default=5)
    t.add_argument("--models", type=Path, default=Path("models"), help="holds tagger-L")
    b = sub.add_parser("table", help="UAS/LAS of full-size and compact parsers")
    b.add_argument("langs", nargs="+")
    b.add_argument("--models", type=Path, default=Path("models"))
    p = sub.add_parser("ship", help="write the bundled taggers and parser")
    p.add_argument("langs", nargs="+")
    p.add_argument("--models", type=Path, default=Path("models"))
    p.add_argument("--threshold", type=float, default=1.0,
                   help="the parser's pruning threshold (en ships 1.5: 1.0 exceeds 5 MB)")
    p.add_argument("--tagger-threshold", type=float, default=0.0)
    sub.add_parser("report", help="markdown tables of the table runs")
    args = ap.parse_args()
    if args.command == "report":
        report()
        return
    for lang in args.langs:
        if args.command == "tags":
            tags(lang, args.folds, args.models)
        elif args.command == "table":
            table(lang, args.models)
        else:
            ship(lang, args.models, args.threshold, args.tagger_threshold)


if __name__ == "__main__":
    main()
