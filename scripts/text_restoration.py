"""Restoration quality from text (issue 22, item 4): test AED and per-mark F1 of +NC restoring
sentences given as words only, tagged and parsed by the bundled tagger and compact parser.

    FSTPUNCT_UD_DIR=../shared/ud nice -n 10 .venv/bin/python scripts/text_restoration.py \\
        run --langs en ar es hi zh > results/text-restoration.jsonl
    .venv/bin/python scripts/text_restoration.py report results/text-restoration.jsonl \\
        --exact results/restoration-exact.jsonl

Input: every test sentence with its punctuation removed, as CoNLL-U with words only (UPOS,
HEAD and DEPREL ``_``; the treebank's tokenisation, one line per syntactic word), plain or
lower-cased. They go through ``fstpunct restore``'s text path in its two steps
(:func:`fstpunct.apps.text.analysed` with the bundled ``tagger/`` or ``tagger-lc/`` and
``parser/`` of ``fstpunct/models/L``, then :func:`fstpunct.apps.restoration.pipeline.restored`
with the shipped +NC model and the default exact slot decoder), timed apart. The
trivial baseline and the CRF (``models/crf-L-notree``, trained on gold UPOS and cased words)
restore the same sentences with the same predicted tags (and the same lower-cased words). For
scoring, lower-cased words get their case back (scores count punctuation only). Words made only
of punctuation characters that the treebank does not call punctuation (en test: 49 sentences,
``/``, ``-``, emoticons; es: 1) keep their gold UPOS in the input: from text they would be
taken for punctuation, and the scorer needs the gold words. Sentences that
are only punctuation are copied unchanged by every method, as in RESULTS.md's other tables.
``report`` adds the gold-tree and parsed-tree figures of the exact slot decoder from
``scripts/restoration.py exact`` (its JSON lines).
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from fstpunct.apps.restoration import Restorer
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.exact import ExactRestorer
from fstpunct.apps.restoration.metrics import score
from fstpunct.apps.restoration.pipeline import has_words, restored
from fstpunct.apps.restoration.strip import insert, strip
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.apps.text import analysed
from fstpunct.model.store import load_model
from fstpunct.parser.pipeline import load_pipeline
from fstpunct.ud.release import split_source
from fstpunct.ud.text import Tokeniser
from fstpunct.ud.treebank import Line, Sentence, read_conllu

MODELS = Path("models")
MARKS = Tokeniser()
CASES = {"plain": False, "lower-cased": True}


def words_only(sent: Sentence, lower: bool) -> str:
    """CoNLL-U of ``sent``'s words (no punctuation) with UPOS, HEAD and DEPREL ``_``; a word
    of punctuation characters only keeps its UPOS (text would make it punctuation)."""
    rows = [f"{k}\t{w.form.lower() if lower else w.form}\t_\t"
            f"{w.upos if all(MARKS.is_mark_char(c) for c in w.form) else '_'}\t_\t_\t_\t_\t_\t_\n"
            for k, w in enumerate(strip(sent).words, 1)]
    return "".join(rows) + "\n"


def recased(pred: Sentence, gold: Sentence) -> Sentence:
    """``pred`` with the forms of ``gold``'s words (same words up to case, in order)."""
    forms = iter(w.form for w in gold.words if not w.is_punct)
    new = {}
    for w in pred.words:
        if not w.is_punct:
            new[w.id] = next(forms)
    lines = [Line(ln.fields[:1] + [new.get(int(ln.id), ln.fields[1])] + ln.fields[2:],
                  ln.lineno) if ln.is_word else ln for ln in pred.lines]
    words = [dataclasses.replace(w, form=new.get(w.id, w.form)) for w in pred.words]
    return dataclasses.replace(pred, lines=lines, words=words)


def by_method(method: Restorer, gold: Sequence[Sentence],
              inputs: Sequence[Sentence | None]) -> list[Sentence]:
    return [insert(t, method.restore(t)) if t else g for g, t in zip(gold, inputs)]


def emit(record: dict[str, object]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)
    print(f"{record['lang']} {record['case']} {record['method']}: "
          f"AED {record['average_edit_distance']:.4f}", file=sys.stderr, flush=True)


def run(lang: str, model_dir: str, method: str, baselines_too: bool) -> None:
    gold = list(split_source(lang, "test").sentences())
    todo = [k for k, s in enumerate(gold) if has_words(s)]
    model = load_model(model_dir.format(lang=lang))
    crf_dir = MODELS / f"crf-{lang}-notree"
    baselines: list[tuple[str, Restorer]] = [("trivial", Trivial.for_language(lang))]
    if crf_dir.is_dir():
        baselines.append(("crf", CrfModel.load(crf_dir)))
    else:
        print(f"{lang}: no {crf_dir}, CRF left out", file=sys.stderr)
    for case, lower in CASES.items():
        text = "".join(words_only(gold[k], lower) for k in todo)
        sents = list(read_conllu(text.splitlines(keepends=True), f"{lang}-test-{case}",
                                 tree=None))
        t0 = time.perf_counter()
        trees = list(analysed(sents, functools.partial(load_pipeline, lang, lower)))
        t1 = time.perf_counter()
        out = list(restored(trees, ExactRestorer(model, "slot")))
        t2 = time.perf_counter()
        words = [(g, a) for k, t in zip(todo, trees) for g, a in zip(strip(gold[k]).words,
                                                                      t.words)]
        info = {"lang": lang, "split": "test", "case": case,
                "tagging_accuracy": 100 * sum(g.upos == a.upos for g, a in words) / len(words),
                "uas": 100 * sum(g.head == a.head for g, a in words) / len(words)}
        pred = list(gold)
        for k, p in zip(todo, out):
            pred[k] = recased(p, gold[k])
        emit({**info, "method": method, "model": model_dir.format(lang=lang),
              "decoder": "exact slot",
              "analysis_seconds": round(t1 - t0, 1), "restoration_seconds": round(t2 - t1, 1),
              **score(gold, pred).to_dict()})
        inputs: list[Sentence | None] = [None] * len(gold)
        for k, t in zip(todo, trees):
            inputs[k] = t
        for name, baseline in baselines if baselines_too else []:
            restored_ = [recased(p, g) if t else p
                         for p, g, t in zip(by_method(baseline, gold, inputs), gold, inputs)]
            emit({**info, "method": name, **score(gold, restored_).to_dict()})


def report(paths: Sequence[Path], exact: Path | None) -> None:
    rows = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line]
    ref: dict[tuple[str, str], dict] = {}
    if exact:
        for line in exact.read_text().splitlines():
            r = json.loads(line)
            if r.get("split") == "test" and r.get("mbr") == "exact slot":
                ref.setdefault((r["lang"], r["trees"]), r)
    print("| lang | input | tags | UAS | trivial | CRF (same tags) | **+NC from text** | "
          "+NC-textjk from text | +NC parsed tree | +NC gold tree | comma F1 CRF / +NC | "
          "all F1 CRF / +NC |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (lang, case) in dict.fromkeys((r["lang"], r["case"]) for r in rows):
        got = {r["method"]: r for r in rows if r["lang"] == lang and r["case"] == case}
        nc, crf, triv = got["+NC"], got.get("crf"), got.get("trivial")
        best = min(r["edit_distance"] for r in got.values())

        def aed(r: dict | None, best: int | None = best) -> str:
            """AED, bold for the fewest edits among the runs from text."""
            if not r:
                return "–"
            text = f"{r['average_edit_distance']:.3f}"
            return f"**{text}**" if r["edit_distance"] == best else text

        def f1(r: dict | None, mark: str) -> str:
            return f"{r['marks'][mark]['f1']:.1f}" if r else "–"

        print(f"| {lang} | {case} | {nc['tagging_accuracy']:.1f} | {nc['uas']:.1f} | "
              f"{aed(triv)} | {aed(crf)} | {aed(nc)} | {aed(got.get('+NC-textjk'))} | "
              f"{aed(ref.get((lang, 'parsed')), None)} | {aed(ref.get((lang, 'gold')), None)} | "
              f"{f1(crf, 'comma')} / {f1(nc, 'comma')} | {f1(crf, 'all')} / {f1(nc, 'all')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="JSON lines of every language and input case")
    r.add_argument("--langs", nargs="+", default=["en", "ar", "es", "hi", "zh"])
    r.add_argument("--model", default="fstpunct/models/{lang}",
                   help="punctuation model folder ({lang} replaced; default the shipped one)")
    r.add_argument("--method", default="+NC", help="its name in the output (+NC)")
    r.add_argument("--no-baselines", action="store_true", help="only the model's run")
    p = sub.add_parser("report", help="markdown table")
    p.add_argument("results", nargs="+", type=Path)
    p.add_argument("--exact", type=Path, help="scripts/restoration.py exact's JSON lines")
    args = ap.parse_args()
    if args.command == "run":
        for lang in args.langs:
            run(lang, args.model, args.method, not args.no_baselines)
    else:
        report(args.results, args.exact)


if __name__ == "__main__":
    main()
