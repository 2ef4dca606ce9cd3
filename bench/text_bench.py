"""Benchmark of the text-in pipeline (issue 22 item 5): sentences per second from plain text to
restored punctuation, and the share of each stage, by wall and CPU time. Input: the words of
en_ewt test (punctuation removed), one sentence a line, as text (the default: the cased tagger,
the lower-case one for sentences without capitals), and the same lower-cased (``--lowercase-
input``: the lower-case tagger, and parser-lc/ if there is one). Sentences with no word left are
not in the text (they have nothing to restore; their number is printed). Each stage runs over
all sentences in turn, in this process: reading and tokenising
(:func:`fstpunct.ud.text.read_text`), tagging (``Pipeline.tagged``), parsing
(``Pipeline.parsed``) and restoration (by ``Model.restorer(text=True)``, what the text path
restores with: its balanced exact decoder, mixed with the bundled CRF where the model has one,
given those trees; written in the input's width and quote style, as ``Model.restore`` writes
them); then the whole pipeline in one call (``Model.restore(text, text=True)``,
what ``fstpunct restore --text`` runs), which must give the same output. Each figure is the
median of ``--repeat`` runs; loading the models, once per process, is timed apart. Models: the
bundled tagger and parser of the punctuation model (or ``--tagger``/``--parser``; without
bundled ones, models/tagger-en[-lc] and models/parser-en).
Usage: python bench/text_bench.py [--sentences N] [--repeat R] [--tagger DIR] [--parser DIR]
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fstpunct
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.errors import ModelError
from fstpunct.parser.pipeline import Pipeline
from fstpunct.ud.release import find_treebank
from fstpunct.ud.text import read_text
from fstpunct.ud.treebank import read_file
from fstpunct.ud.width import Widths

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("read", "tag", "parse", "restore")


def timed(f: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def load(name: str, lowercase: bool | None, tagger: str | None, parser: str | None
         ) -> tuple[fstpunct.Model, Pipeline, dict[str, Any], str]:
    """The punctuation model and its pipeline: the bundled one, else the shared development
    models; the pipeline's options, and which it is."""
    model = fstpunct.load(name)
    given: dict[str, Any] = {"lowercase": lowercase, "tagger": tagger, "parser": parser}
    try:
        return model, model.pipeline(**given), given, "bundled"
    except ModelError:
        suffix = "-lc" if lowercase else ""
        given.update(tagger=tagger or ROOT / f"models/tagger-en{suffix}",
                     parser=parser or ROOT / "models/parser-en")
        return model, model.pipeline(**given), given, \
            f"models/tagger-en{suffix}, models/parser-en"


def reading(given: dict[str, Any]) -> str:
    """What the whole call's time includes: the model keeps the tagger and parser of its own
    folder (read by load() above); a tagger or parser folder given to restore is read at each
    call, and only it."""
    read = [part for part in ("tagger", "parser") if given[part]]
    if read:
        return f"loading the {' and '.join(read)} included"
    return "the model's tagger and parser already read"


def run(model: fstpunct.Model, pipe: Pipeline, given: dict[str, Any], text: str
        ) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of each stage and of the whole pipeline in one call."""
    tokenise = model.tokeniser()
    sents, *read = timed(lambda: list(read_text(io.StringIO(text), "text", tokenise)))
    tagged, *tag = timed(lambda: [pipe.tagged(s) for s in sents])
    parsed, *parse = timed(lambda: [pipe.parsed(s) for s in tagged])
    method = model.restorer(text=True)
    # restore writes its sentences in the input's width and quote style, as model.restore does:
    # read ahead with the text model's vocabulary (Model.for_text); over the parsed sentences,
    # whose punctuation tokens are the tokeniser's (tagging and parsing keep them)
    widths = Widths(model.for_text().vocab.tokens, "input")
    staged, *restore = timed(lambda: "".join(
        s.text() for s in widths.apply(lambda read: restored(read, method), parsed)))
    whole, *total = timed(lambda: model.restore(
        text, text=True, format="conllu", lowercase=given["lowercase"], tagger=given["tagger"],
        parsers=[given["parser"]] if given["parser"] else ()))
    if whole != staged:
        raise SystemExit("the whole pipeline and its stages disagree")
    return {"read": tuple(read), "tag": tuple(tag), "parse": tuple(parse),
            "restore": tuple(restore), "whole": tuple(total)}  # type: ignore[dict-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, help="the first N test sentences (all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model", default="en")
    parser.add_argument("--tagger", help="tagger folder (default: bundled)")
    parser.add_argument("--parser", help="parser folder (default: bundled)")
    args = parser.parse_args()
    sents = list(read_file(find_treebank("en_ewt", "test")))[:args.sentences]
    lines = [" ".join(w.form for w in s.words if not w.is_punct) for s in sents]
    empty = sum(not line for line in lines)
    text = "".join(line + "\n" for line in lines if line)
    for lowercase in (None, True):
        (model, pipe, given, which), *loading = timed(
            lambda lc=lowercase: load(args.model, lc, args.tagger, args.parser))
        runs = [run(model, pipe, given, text.lower() if lowercase else text)
                for _ in range(args.repeat)]
        n = len(lines) - empty
        label = "lower-cased text" if lowercase else "text"
        print(f"text pipeline, en_ewt test as {label} ({n} sentences, {empty} without words "
              f"left out; {which}), median of {args.repeat}:")
        print(f"  (loading the punctuation model, tagger and parser once: {loading[0]:.2f} s wall, "
              f"{loading[1]:.2f} s CPU; not in the figures below)")
        med = {k: tuple(statistics.median(r[k][i] for r in runs) for i in (0, 1))
               for k in (*STAGES, "whole")}
        wall, cpu = (sum(med[k][i] for k in STAGES) for i in (0, 1))
        for k in STAGES:
            print(f"  {k:8} {med[k][0]:7.2f} s wall ({100 * med[k][0] / wall:4.1f}%)  "
                  f"{med[k][1]:7.2f} s CPU ({100 * med[k][1] / cpu:4.1f}%)")
        print(f"  stages   {wall:7.2f} s wall = {n / wall:6.1f} sentences/s, {cpu:.2f} s CPU = "
              f"{n / cpu:.1f} sentences/CPU s")
        read = reading(given)
        print(f"  whole    {med['whole'][0]:7.2f} s wall = {n / med['whole'][0]:6.1f} "
              f"sentences/s, {med['whole'][1]:.2f} s CPU = {n / med['whole'][1]:.1f} "
              f"sentences/CPU s (Model.restore(text, text=True), same output; {read})")


if __name__ == "__main__":
    main()
