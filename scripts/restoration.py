"""Restoration experiments (issue 5; paper §6.1 and Figure 4), one JSON line per scored run.

    python scripts/restoration.py table  --langs en es zh ar hi  >> results/restoration.jsonl
    python scripts/restoration.py figure --langs en es zh ar hi  >> results/restoration-figure.jsonl
    python scripts/restoration.py report results/restoration.jsonl results/restoration-figure.jsonl
    python scripts/restoration.py tune --part models --langs ar en es hi zh \
        >> results/restoration-tune.jsonl
    python scripts/restoration.py tuned --part models --dev results/restoration-tune.jsonl \
        --langs ar en es hi zh >> results/restoration-tune.jsonl
    python scripts/restoration.py seeds --seeds 0 1 2 3 4 --langs ar en es hi zh \
        > results/restoration-seeds.jsonl
    python scripts/restoration.py exact --seeds 0 1 2 3 4 --langs en ar hi es zh \
        > results/restoration-exact.jsonl
    python scripts/restoration.py exact-report results/restoration-exact.jsonl

``table``: test split; trivial, CRF, Attach and +NC (both MBR decoders), each with the gold tree
(and the exact decoder ``--decoder``, by default ``fstpunct restore``'s: slot) and, unless
``--gold-only``, with the tree of the language's full-data parser, and on parsed trees also
+NC-jk.
``figure``: dev split; +NC and +NC-jk (sentence MBR) with parsers trained on 10 %, 20 %, … 100 %
of train, plus the tree-free trivial and CRF lines. Both also run "ens" (on test, and on dev
with the full parser): the samples split among the trees of the full-data parser and of the
ten jackknife fold parsers ``models/parser-L-jk-fK`` (scripts/jackknife.py), the first tree
written out.
``tune``: dev split, gold trees; +NC and Attach at every token cost of the scripts/table3.py
grid (``fstpunct train --token-cost``). ``tuned``: test split, gold and parsed trees; each
system at its token cost with the lowest dev edit distance.
``seeds``: every run the issue's goals compare, once per sampling seed (``--seeds``): on dev the
four parsed-tree systems (full-data parser; +NC, +NC-jk and both ens), on test those and +NC and
Attach with gold trees. Trivial and CRF are deterministic and are not repeated.
``exact``: dev and test, gold trees and the trees of ``--parser`` (default
``models/parser-L``): +NC's exact decoders (issue 23; slot and balanced, from the estimated
slot distributions and with exact probabilities where those leave a choice open) against its
sampled MBR once per seed; ``exact-report`` tabulates them (markdown).
``scripts/restoration_report.py`` prints the
markdown tables and draws the figure as a PNG.

Models (made by the commands in RESULTS.md): +NC = the bundled ``fstpunct/models/L``, Attach =
``models/L-attach`` (and, with gold trees, ``models/L-attach-lex`` where it exists: Attach with
the lexical contexts of +NC), +NC-jk = ``models/L-jk`` (trained like +NC, on train trees parsed by
jackknifing, scripts/jackknife.py; run where it exists), CRF = ``models/crf-L-notree`` (word and
UPOS features only), parsers = ``models/parser-L-removed-b1[-fNN]``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tqdm import tqdm

from fstpunct.apps.restoration import Restorer
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.exact import EXACT_DECODERS, ExactRestorer
from fstpunct.apps.restoration.generative import DECODERS, pooled_draws
from fstpunct.apps.restoration.mbr import insertions
from fstpunct.apps.restoration.metrics import score
from fstpunct.apps.restoration.pipeline import has_words
from fstpunct.apps.restoration.strip import insert, strip
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.model.store import load_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import Sentence

MODELS = Path("models")
FRACTIONS = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
COSTS = (0.0, 2.0, 4.0, 8.0)  # the token-cost grid of scripts/table3.py


def emit(record: dict[str, object]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)
    print(f"{record['lang']} {record['split']} {record['trees']} {record['method']} "
          f"{record.get('mbr', '')}: "
          f"AED {record['average_edit_distance']:.4f}", file=sys.stderr)


def scored(gold: Sequence[Sentence], pred: Sequence[Sentence], **info: object) -> dict:
    return {**info, **score(gold, pred).to_dict()}


def stripped(gold: Sequence[Sentence]) -> list[Sentence | None]:
    """Every sentence without punctuation; None for one that is only punctuation (restore
    copies those unchanged, so they add 0 to every method's edit distance)."""
    return [strip(s) if has_words(s) else None for s in gold]


def parsed(parser_dir: Path, bare: Sequence[Sentence | None]
           ) -> tuple[list[Sentence | None], float]:
    """The depunctuated sentences re-parsed, and the word UAS of those trees against gold."""
    model = ParserModel.load(parser_dir)
    trees = [s and parse(model, s, 1) for s in tqdm(bare, desc=f"parse {parser_dir.name}",
                                                     file=sys.stderr, leave=False)]
    pairs = [(g, p) for gs, ps in zip(bare, trees) if gs and ps
             for g, p in zip(gs.words, ps.words)]
    return trees, 100.0 * sum(g.head == p.head for g, p in pairs) / max(len(pairs), 1)


def by_method(method: Restorer, gold: Sequence[Sentence],
              trees: Sequence[Sentence | None]) -> list[Sentence]:
    return [insert(t, method.restore(t)) if t else g for g, t in zip(gold, trees)]


def by_model(model_dir: str, gold: Sequence[Sentence],
             trees: Sequence[Sequence[Sentence | None]], samples: int, seed: int
             ) -> tuple[dict[str, list[Sentence]], float]:
    """Restorations by every MBR decoder from one set of samples, and seconds per sentence.
    ``trees``: one or more trees per sentence (the first is written out; the samples are
    split among them and pooled, as ``fstpunct restore`` with several parsers does)."""
    model = load_model(model_dir)
    out: dict[str, list[Sentence]] = {name: list(gold) for name in DECODERS}
    todo = [k for k, t in enumerate(trees[0]) if t]
    start = time.perf_counter()
    draws = pooled_draws(model, [[to_slots(ts[k]) for k in todo] for ts in trees], samples,
                         seed)
    for k, d in zip(todo, tqdm(draws, total=len(todo), file=sys.stderr,
                               desc=f"restore {model_dir}", leave=False)):
        for name, decode in DECODERS.items():
            out[name][k] = insert(trees[0][k], insertions(d, decode(d)))
    return out, (time.perf_counter() - start) / max(len(todo), 1)


def model_runs(lang: str, split_name: str, gold: Sequence[Sentence],
               trees: Sequence[Sequence[Sentence | None]], tree_info: dict[str, object],
               samples: int, seed: int, which: Sequence[tuple[str, str]]) -> None:
    for method, model_dir in which:
        outs, secs = by_model(model_dir, gold, trees, samples, seed)
        for decoder, pred in outs.items():
            emit(scored(gold, pred, lang=lang, split=split_name, method=method, mbr=decoder,
                        model=model_dir, samples=samples, seed=seed,
                        seconds_per_sentence=secs, **tree_info))


def baselines(lang: str, split: str, gold: Sequence[Sentence],
              bare: Sequence[Sentence | None]) -> None:
    """Trivial and CRF: neither reads the tree, so one run serves gold and parsed trees."""
    methods: list[tuple[str, Callable[[], Restorer]]] = [
        ("trivial", lambda: Trivial.for_language(lang)),
        ("crf", lambda: CrfModel.load(MODELS / f"crf-{lang}-notree"))]
    for name, make in methods:
        emit(scored(gold, by_method(make(), gold, bare), lang=lang, split=split, method=name,
                    trees="any"))


def languages(args: argparse.Namespace, split: str
              ) -> Iterator[tuple[str, list[Sentence], list[Sentence | None]]]:
    """(language, gold, stripped) for every language whose model runs are wanted, after its
    tree-free baselines (unless only the models are wanted)."""
    for lang in args.langs:
        gold = list(split_source(lang, split).sentences())
        bare = stripped(gold)
        if args.part != "models":
            baselines(lang, split, gold, bare)
        if args.part != "baselines":
            yield lang, gold, bare


def existing(method: str, path: Path) -> list[tuple[str, str]]:
    """``[(method, path)]`` where the model exists, else ``[]``."""
    return [(method, str(path))] if (path / "model.json").exists() else []


def jackknifed(lang: str) -> list[tuple[str, str]]:
    """+NC-jk, where its model exists."""
    return existing("+NC-jk", MODELS / f"{lang}-jk")


def fold_trees(lang: str, bare: Sequence[Sentence | None]) -> list[list[Sentence | None]]:
    """The trees of the jackknife fold parsers ``models/parser-L-jk-fK`` (none if absent)."""
    folds = sorted(MODELS.glob(f"parser-{lang}-jk-f*"), key=lambda p: int(p.name.rsplit("f", 1)[1]))
    return [parsed(p, bare)[0] for p in folds]


def ensemble_runs(lang: str, split_name: str, gold: Sequence[Sentence],
                  first: Sequence[Sentence | None], folds: Sequence[Sequence[Sentence | None]],
                  info: dict[str, object], samples: int, seed: int) -> None:
    """+NC and +NC-jk with the samples split among the trees of the full-data parser
    (``first``, written out) and of the jackknife fold parsers (``folds``), where those
    exist."""
    if not folds:
        return
    trees = [first, *folds]
    which = [(f"{m} ens", d) for m, d in [("+NC", f"fstpunct/models/{lang}"), *jackknifed(lang)]]
    model_runs(lang, split_name, gold, trees, {**info, "ensemble": len(trees)}, samples, seed,
               which)


def table(args: argparse.Namespace) -> None:
    for lang, gold, bare in languages(args, "test"):
        models = [("+NC", f"fstpunct/models/{lang}"), ("Attach", str(MODELS / f"{lang}-attach"))]
        model_runs(lang, "test", gold, [bare], {"trees": "gold"}, args.samples, args.seed,
                   models + existing("Attach lex", MODELS / f"{lang}-attach-lex"))
        for method, model_dir in models:
            exact_run(lang, "test", gold, bare, method, model_dir, args.decoder)
        if args.gold_only:
            continue
        trees, uas = parsed(MODELS / f"parser-{lang}-removed-b1", bare)
        info = {"trees": "parsed", "uas": uas}
        model_runs(lang, "test", gold, [trees], info, args.samples, args.seed,
                   models + jackknifed(lang))
        ensemble_runs(lang, "test", gold, trees, fold_trees(lang, bare), info, args.samples,
                      args.seed)


def figure(args: argparse.Namespace) -> None:
    for lang, gold, bare in languages(args, "dev"):
        nc = [("+NC", f"fstpunct/models/{lang}"), *jackknifed(lang)]
        model_runs(lang, "dev", gold, [bare], {"trees": "gold", "uas": 100.0}, args.samples,
                   args.seed, nc)
        for f in FRACTIONS:
            name = f"parser-{lang}-removed-b1" + ("" if f == 100 else f"-f{f}")
            trees, uas = parsed(MODELS / name, bare)
            info = {"trees": "parsed", "uas": uas, "fraction": f}
            model_runs(lang, "dev", gold, [trees], info, args.samples, args.seed, nc)
            if f == 100:
                ensemble_runs(lang, "dev", gold, trees, fold_trees(lang, bare), info,
                              args.samples, args.seed)


def seeds(args: argparse.Namespace) -> None:
    """Dev and test, once per seed: the parsed-tree systems (full-data parser), and on test
    +NC and Attach with gold trees."""
    for split_name in ("dev", "test"):
        for lang in args.langs:
            gold = list(split_source(lang, split_name).sentences())
            bare = stripped(gold)
            trees, uas = parsed(MODELS / f"parser-{lang}-removed-b1", bare)
            folds = fold_trees(lang, bare)
            info = {"trees": "parsed", "uas": uas, "fraction": 100}
            nc = [("+NC", f"fstpunct/models/{lang}"), *jackknifed(lang)]
            for seed in args.seeds:
                if split_name == "test":
                    model_runs(lang, split_name, gold, [bare], {"trees": "gold"}, args.samples,
                               seed, [nc[0], ("Attach", str(MODELS / f"{lang}-attach"))])
                model_runs(lang, split_name, gold, [trees], info, args.samples, seed, nc)
                ensemble_runs(lang, split_name, gold, trees, folds, info, args.samples, seed)


def cost_models(lang: str) -> list[tuple[str, float, Path]]:
    """(system, token cost, model folder) of every +NC (the bundled model's direction) and
    Attach model of the token-cost grid (``models/L-DIR-tcC``, ``models/L-attach-tcC``,
    scripts/table3.py) that exists."""
    direction = json.loads((Path("fstpunct/models") / lang / "model.json").read_text(
        encoding="utf-8"))["record"]["direction"]
    return [(system, cost, path) for cost in COSTS
            for system, path in [("+NC", MODELS / f"{lang}-{direction}-tc{cost:g}"),
                                 ("Attach", MODELS / f"{lang}-attach-tc{cost:g}")]
            if (path / "model.json").exists()]


def tune(args: argparse.Namespace) -> None:
    """Dev, gold trees: +NC and Attach at every token cost of the grid."""
    for lang, gold, bare in languages(args, "dev"):
        for system, cost, path in cost_models(lang):
            model_runs(lang, "dev", gold, [bare], {"trees": "gold", "token_cost": cost},
                       args.samples, args.seed, [(system, str(path))])


def tuned(args: argparse.Namespace) -> None:
    """Test, gold and parsed trees: +NC and Attach, each at the token cost whose dev edit
    distance (sentence MBR, gold trees; from ``--dev``) is lowest."""
    dev = [r for r in map(json.loads, Path(args.dev).read_text(encoding="utf-8").splitlines())
           if r["split"] == "dev" and "token_cost" in r and r["mbr"] == "sentence"]
    for lang, gold, bare in languages(args, "test"):
        which = []
        for system in ("+NC", "Attach"):
            rows = [r for r in dev if r["lang"] == lang and r["method"] == system]
            if rows:
                best = min(rows, key=lambda r: r["average_edit_distance"])
                which.append((f"{system} tuned", best["model"]))
        trees, uas = parsed(MODELS / f"parser-{lang}-removed-b1", bare)
        for tree_set, info in [([bare], {"trees": "gold"}),
                               ([trees], {"trees": "parsed", "uas": uas})]:
            model_runs(lang, "test", gold, tree_set, info, args.samples, args.seed, which)


def exact_run(lang: str, split_name: str, gold: Sequence[Sentence],
              inputs: Sequence[Sentence | None], method: str, model_dir: str, decoder: str,
              certain: bool = False, model: object = None, **info: object) -> None:
    """One run of an exact decoder (:class:`ExactRestorer`) of ``model_dir``."""
    restorer = ExactRestorer(model or load_model(model_dir), decoder, exact=certain)
    todo = [k for k, t in enumerate(inputs) if t]
    start = time.perf_counter()
    done = restorer.restore_many([inputs[k] for k in todo])
    secs = (time.perf_counter() - start) / max(len(todo), 1)
    pred = list(gold)
    for k, ins in zip(todo, done):
        pred[k] = insert(inputs[k], ins)
    name = f"exact {decoder}" + (" certain" if certain else "")
    emit(scored(gold, pred, lang=lang, split=split_name, method=method, mbr=name,
                model=model_dir, seconds_per_sentence=secs, trees=info.pop("trees", "gold"),
                **info))


def exact(args: argparse.Namespace) -> None:
    """+NC's exact decoders against its sampled MBR (every seed), dev and test, gold and
    parsed trees."""
    for lang in args.langs:
        model_dir = f"fstpunct/models/{lang}"
        model = load_model(model_dir)
        for split_name in ("dev", "test"):
            gold = list(split_source(lang, split_name).sentences())
            bare = stripped(gold)
            runs: list[tuple[list[Sentence | None], dict[str, object]]] = []
            if "gold" in args.trees:
                runs.append((bare, {"trees": "gold"}))
            parser_dir = Path(args.parser.format(lang=lang))
            if "parsed" in args.trees:
                trees, uas = parsed(parser_dir, bare)
                runs.append((trees, {"trees": "parsed", "uas": uas, "parser": str(parser_dir)}))
            for trees, info in runs:
                for decoder, certain in [("slot", False), ("balanced", False), ("slot", True),
                                         ("balanced", True)]:
                    exact_run(lang, split_name, gold, trees, "+NC", model_dir, decoder,
                              certain, model, **info)
                for seed in args.seeds:
                    model_runs(lang, split_name, gold, [trees], info, args.samples, seed,
                               [("+NC", model_dir)])


def exact_report(args: argparse.Namespace) -> None:
    """Markdown: per language of the first file, split and trees, the edits of every exact
    decoder and of +NC's sampled sentence MBR with one tree (mean and range over seeds); of
    several lines for a run, the first file's counts."""
    rows = [json.loads(line) for path in args.results
            for line in Path(path).read_text(encoding="utf-8").splitlines()]
    first = {json.loads(line)["lang"] for line in
             Path(args.results[0]).read_text(encoding="utf-8").splitlines()}
    rows = [r for r in rows if r["method"] == "+NC" and "ensemble" not in r
            and r["lang"] in first]
    names = ["exact slot", "exact balanced", "exact slot certain", "exact balanced certain"]
    print("| lang | split | trees | sentences | sampled sentence MBR: mean (min–max) | "
          + " | ".join(names) + " |")
    print("|---|---|---|---|---|" + "---|" * len(names))
    keys = sorted({(r["lang"], r["split"], r["trees"]) for r in rows},
                  key=lambda k: (k[0], k[1] != "dev", k[2] != "gold"))
    for lang, split_name, trees in keys:
        mine = [r for r in rows if (r["lang"], r["split"], r["trees"]) == (lang, split_name, trees)]
        by_seed: dict[int, int] = {}
        for r in mine:
            if r["mbr"] == "sentence":
                by_seed.setdefault(r["seed"], r["edit_distance"])
        sampled = list(by_seed.values())
        cells = [f"{sum(sampled) / len(sampled):.1f} ({min(sampled)}–{max(sampled)}), "
                 f"{len(sampled)} seeds" if sampled else "–"]
        for name in names:
            got = [r["edit_distance"] for r in mine if r["mbr"] == name]
            cells.append(str(got[0]) if got else "–")
        uas = next((f" (UAS {r['uas']:.1f})" for r in mine if "uas" in r), "")
        print(f"| {lang} | {split_name} | {trees}{uas} | {mine[0]['sentences']} | "
              + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["table", "figure", "tune", "tuned", "seeds", "exact",
                                         "exact-report"])
    parser.add_argument("--langs", nargs="+", default=["en", "es", "zh", "ar", "hi"])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4],
                        help="seeds: the sampling seeds to run")
    parser.add_argument("--part", choices=["all", "baselines", "models"], default="all",
                        help="run only the tree-free baselines or only the model runs")
    parser.add_argument("--dev", help="tuned: the JSON lines of a tune run")
    parser.add_argument("--gold-only", action="store_true",
                        help="table: only the tree-free baselines and the gold-tree runs")
    parser.add_argument("results", nargs="*", help="exact-report: JSON lines of exact (and of "
                        "seeds, for sampled runs that exact did not repeat)")
    parser.add_argument("--parser", default="models/parser-{lang}",
                        help="exact: the parser of the parsed-tree runs ({lang} is replaced)")
    parser.add_argument("--decoder", choices=sorted(EXACT_DECODERS), default="slot",
                        help="table: the exact decoder of the gold-tree runs (default: "
                        "fstpunct restore's)")
    parser.add_argument("--trees", nargs="+", choices=["gold", "parsed"],
                        default=["gold", "parsed"], help="exact: which trees")
    args = parser.parse_args()
    {"table": table, "figure": figure, "tune": tune, "tuned": tuned, "seeds": seeds,
     "exact": exact, "exact-report": exact_report}[args.what](args)


if __name__ == "__main__":
    main()
