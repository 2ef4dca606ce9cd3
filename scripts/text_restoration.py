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
``scripts/restoration.py exact`` (its JSON lines), and the paired sign-flip p of each model's
edits against the CRF's.

Mixed with the CRF (``--mix W``; :mod:`fstpunct.apps.restoration.mixture`, what ``fstpunct
restore --mix-crf`` does): each slot's string of least risk under W · model + (1 − W) · CRF
marginals. ``choose`` picks, per language on the dev split (plain text), the model (shipped
+NC or +NC-textjk) and W, decoding as the text path does (``--decoder``, default ``balanced``,
recorded in its rows; ``constrain`` and ``run --chosen`` decode as the row says); ``run
--chosen`` runs that choice on test:

    python scripts/text_restoration.py choose --langs de fr > results/text-choice.jsonl
    python scripts/text_restoration.py run --langs de fr --chosen results/text-choice.jsonl \
        --method chosen --no-baselines >> results/text-restoration.jsonl

``--crf DIR`` (``run`` and ``choose``): the CRF the models mix with ({lang} replaced; default
the baseline ``models/crf-L-notree``). ``ship FILE``: each language's pick of ``choose``'s FILE
becomes the bundled text path's default (``fstpunct/models/L/text/``: the model, the CRF as
``crf/`` and ``mixture.json``); ``run --model shipped`` restores with that default, as
``fstpunct restore --lang L --text`` does (its decoder too, ``balanced``, unless
``--decoder``). ``constrain FILE --must-print LINE OUTPUT``: choose's pick again among the
systems that restore the plain-text LINE as OUTPUT (en: the issue's acceptance example).

``--parsers DIR ...`` (``run`` and ``choose``): the models restore over the trees of several
parsers, a tree ensemble (each analysed sentence parsed again by each; the output has the first
one's tree), e.g. the bundled parser and the text pipeline's five jackknife fold parsers:
``--parsers fstpunct/models/{lang}/parser models/compact-textjk/parser-{lang}-jk-f1 …``.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import fstpunct
from fstpunct.api.model import TEXT_DECODER, TEXT_MIXTURE, TEXT_MODEL
from fstpunct.apps.rephrase.wellformed import unmatched
from fstpunct.apps.restoration import Restorer
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.exact import EXACT_DECODERS, ExactRestorer
from fstpunct.apps.restoration.metrics import score, sign_flip_p
from fstpunct.apps.restoration.mixture import MixedRestorer
from fstpunct.apps.restoration.pipeline import has_words, restored
from fstpunct.apps.restoration.strip import strip
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.apps.text import analysed, restored_text, tokeniser
from fstpunct.model.store import BUNDLED, load_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser.pipeline import load_pipeline
from fstpunct.ud.release import split_source
from fstpunct.ud.text import Tokeniser, read_text, text_lines
from fstpunct.ud.treebank import Line, Sentence, read_conllu

CRF = "models/crf-{lang}-notree"  # the CRF baseline (trained on gold tags), and what mixes
SHIPPED = "shipped"  # --model: the bundled text path's default (text/ model, text/mixture.json)
MARKS = Tokeniser()
_load_model = functools.cache(load_model)  # `choose` restores with each model at every weight
_load_crf = functools.cache(CrfModel.load)
CASES = {"plain": False, "lower-cased": True}
COLUMNS = {"trivial", "crf", "+NC", "+NC-textjk", "shipped"}  # report's runs from text


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


def emit(record: dict[str, object]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)
    print(f"{record['lang']} {record['case']} {record['method']}: "
          f"AED {record['average_edit_distance']:.4f}", file=sys.stderr, flush=True)


def analyse(lang: str, split: str, lower: bool
            ) -> tuple[list[Sentence], list[int], list[Sentence], float]:
    """``lang``'s ``split``: gold sentences, the indices of those with words, their words
    tagged and parsed by the bundled pipeline (plain or ``lower``-cased input), seconds taken."""
    gold = list(split_source(lang, split).sentences())
    todo = [k for k, s in enumerate(gold) if has_words(s)]
    text = "".join(words_only(gold[k], lower) for k in todo)
    sents = list(read_conllu(text.splitlines(keepends=True), f"{lang}-{split}-"
                             f"{'lower-cased' if lower else 'plain'}", tree=None))
    t0 = time.perf_counter()
    trees = list(analysed(sents, functools.partial(load_pipeline, lang, lower)))
    return gold, todo, trees, time.perf_counter() - t0


def restorer(lang: str, model_dir: str, mix: float | None, crf: str = CRF,
             decoder: str | None = None) -> ExactRestorer:
    """The exact ``decoder`` (``slot`` or ``balanced``, as ``fstpunct restore --decoder``;
    None: ``slot``) of the model ``model_dir`` ({lang} replaced), alone (``mix`` None or 1) or
    mixed with the CRF ``crf`` ({lang} replaced; the model's weight ``mix``; a
    :class:`MixedRestorer`, an exact one too); ``model_dir`` :data:`SHIPPED`: what ``fstpunct
    restore --lang L --text`` restores with (None: its default decoder, ``balanced``). Its
    ``decoder`` names the decoder."""
    if model_dir == SHIPPED:
        method = fstpunct.load(lang).restorer(text=True, decoder=decoder)
        assert isinstance(method, ExactRestorer)  # no samples: an exact decoder
        return method
    model = _load_model(model_dir.format(lang=lang))
    decoder = decoder or "slot"
    if mix is None or mix == 1:
        return ExactRestorer(model, decoder)
    return MixedRestorer(model, _load_crf(crf.format(lang=lang)), mix, decoder)


def unpaired(sents: Sequence[Sentence]) -> int:
    """How many of ``sents`` have a bracket or quote without its partner
    (:func:`~fstpunct.apps.rephrase.wellformed.unmatched` of the tokens)."""
    return sum(bool(unmatched([w.form for w in s.words])) for s in sents)


def shipped(lang: str) -> dict[str, object]:
    """What the bundled text path of ``lang`` restores with: whether a ``text/`` model, and
    the mixture weight (1: none) and CRF."""
    model = fstpunct.load(lang)
    mixture = model.text_mixture()
    return {"text_model": model.for_text() is not model.punct,
            "mix_weight": mixture[1] if mixture else 1.0,
            "crf": str(mixture[0].relative_to(BUNDLED.parent.parent)) if mixture else None}


def ensemble(lang: str, folders: Sequence[str]) -> list[ParserModel]:
    """The parsers of ``folders`` ({lang} replaced) for a tree ensemble: each analysed
    sentence is parsed again by every one, and the method averages over their trees."""
    return [ParserModel.load(Path(f.format(lang=lang))) for f in folders]


def predicted(method: Restorer, gold: Sequence[Sentence], todo: Sequence[int],
              trees: Sequence[Sentence], parsers: Sequence[ParserModel] = ()
              ) -> list[Sentence]:
    """``gold`` with the analysed sentences restored by ``method`` (recased); with
    ``parsers``, over the trees of every parser (the output has the first one's)."""
    pred = list(gold)
    for k, p in zip(todo, restored(trees, method, parsers)):
        pred[k] = recased(p, gold[k])
    return pred


def run(lang: str, model_dir: str, method: str, baselines_too: bool, split: str = "test",
        mix: float | None = None, parser_dirs: Sequence[str] = (), crf: str = CRF,
        decoder: str | None = None) -> None:
    crf_dir = Path(CRF.format(lang=lang))
    baselines: list[tuple[str, Restorer]] = [("trivial", Trivial.for_language(lang))]
    if crf_dir.is_dir():
        baselines.append(("crf", _load_crf(crf_dir)))
    else:
        print(f"{lang}: no {crf_dir}, CRF left out", file=sys.stderr)
    restorer_ = restorer(lang, model_dir, mix, crf, decoder)
    parsers = ensemble(lang, parser_dirs)
    mixed = shipped(lang) if model_dir == SHIPPED else {} if mix is None else \
        {"mix_weight": mix, "crf": crf.format(lang=lang)}
    if parser_dirs:
        mixed["parsers"] = [f.format(lang=lang) for f in parser_dirs]
    for case, lower in CASES.items():
        gold, todo, trees, seconds = analyse(lang, split, lower)
        t1 = time.perf_counter()
        pred = predicted(restorer_, gold, todo, trees, parsers)
        t2 = time.perf_counter()
        words = [(g, a) for k, t in zip(todo, trees) for g, a in zip(strip(gold[k]).words,
                                                                      t.words)]
        info = {"lang": lang, "split": split, "case": case,
                "tagging_accuracy": 100 * sum(g.upos == a.upos for g, a in words) / len(words),
                "uas": 100 * sum(g.head == a.head for g, a in words) / len(words)}
        emit({**info, "method": method, "model": model_dir.format(lang=lang),
              "decoder": f"exact {restorer_.decoder}", **mixed,
              "analysis_seconds": round(seconds, 1), "restoration_seconds": round(t2 - t1, 1),
              "unpaired_sentences": unpaired(pred), **score(gold, pred).to_dict()})
        for name, baseline in baselines if baselines_too else []:
            emit({**info, "method": name,
                  **score(gold, predicted(baseline, gold, todo, trees)).to_dict()})


def choose(lang: str, models: dict[str, str], weights: Sequence[float],
           parser_dirs: Sequence[str] = (), crf: str = CRF, decoder: str = TEXT_DECODER
           ) -> None:
    """Dev edits (plain text) of every model alone and mixed with the CRF ``crf`` ({lang}
    replaced) at every weight, decoded by the exact ``decoder`` (default the text path's,
    recorded in each row), as JSON lines, and the CRF's Viterbi tags for reference; the
    chosen (fewest dev edits among
    the weights above 0, where the model has a share; ties: the larger model weight, then the
    first model) last, as ``"chosen": true``. Weight 0, the CRF's own minimum-Bayes-risk
    choice, is a reference. With ``parser_dirs``, the models restore over those parsers' trees
    (:func:`ensemble`; the CRF over the analysis's)."""
    parsers = ensemble(lang, parser_dirs)
    gold, todo, trees, _ = analyse(lang, "dev", False)
    rows = []
    viterbi = predicted(_load_crf(crf.format(lang=lang)), gold, todo, trees)
    print(json.dumps({"lang": lang, "split": "dev", "case": "plain", "method": "crf",
                      "crf": crf.format(lang=lang), "edit_distance": score(gold, viterbi).edits}),
          flush=True)
    for name, model_dir in models.items():
        for w in weights:
            s = score(gold, predicted(restorer(lang, model_dir, w, crf, decoder), gold, todo,
                                      trees, parsers))
            rows.append({"lang": lang, "split": "dev", "case": "plain", "method": name,
                         "model": model_dir.format(lang=lang), "weight": w,
                         "crf": crf.format(lang=lang), "decoder": decoder,
                         "edit_distance": s.edits,
                         "average_edit_distance": round(s.average_edit_distance, 4)})
            print(json.dumps(rows[-1]), flush=True)
    announce(pick(rows))


def pick(rows: Sequence[dict]) -> dict:
    """The chosen of ``choose``'s rows: fewest dev edits among the weights above 0 (where the
    model has a share); ties: the larger model weight, then the first model."""
    return min((r for r in rows if r["weight"] > 0),
               key=lambda r: (r["edit_distance"], -r["weight"]))


def announce(best: dict) -> None:
    print(json.dumps({**best, "chosen": True}), flush=True)
    print(f"{best['lang']}: chose {best['method']} weight {best['weight']} "
          f"({best['edit_distance']} dev edits)", file=sys.stderr, flush=True)


def printed(lang: str, method: Restorer, line: str) -> str:
    """``method``'s restoration of the plain-text ``line`` through ``lang``'s bundled tagger
    and parser, as ``fstpunct restore --text --format text`` prints it."""
    out = restored_text(read_text([line], tokenise=tokeniser(lang)), method, [], None,
                        functools.partial(load_pipeline, lang, None), True)
    return "".join(text_lines(out)).strip()


def row_decoder(row: dict) -> str:
    """The exact decoder ``choose``'s ``row`` was decoded with: its own, or slot for a row from
    before choose recorded one (``ship`` alone reads a missing one otherwise: such a pick ships
    as before)."""
    return row.get("decoder", "slot")


def constrain(path: Path, line: str, want: str) -> None:
    """``choose``'s rows in ``path`` (one language) again, each with what it prints for the
    plain-text ``line`` (decoded as the row was: its ``decoder``; rows from before choose
    recorded one were slot's), then the chosen (:func:`pick`) among those that print
    ``want``."""
    rows = [r for r in map(json.loads, path.read_text().splitlines())
            if "weight" in r and not r.get("chosen") and r["weight"] > 0]
    kept = []
    for r in rows:
        method = restorer(r["lang"], r["model"], r["weight"], r["crf"], row_decoder(r))
        r = {**r, "example": printed(r["lang"], method, line)}
        print(json.dumps(r, ensure_ascii=False), flush=True)
        if r["example"] == want:
            kept.append(r)
    announce({**pick(kept), "must_print": want})


def edits(got: dict[str, dict], method: str) -> str:
    """``method``'s edits among the runs ``got`` and the paired sign-flip p (5,000 rounds)
    against the CRF's."""
    if method not in got:
        return "–"
    r, crf = got[method], got.get("crf")
    p = sign_flip_p(r["sentence_edits"], crf["sentence_edits"], 5000) if crf else None
    shown = "" if p is None else f" ({p:.3f})" if p >= 0.001 else " (< 0.001)"
    return f"{r['edit_distance']:,}{shown}"


def report(paths: Sequence[Path], exact: Path | None) -> None:
    rows = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line]
    ref: dict[tuple[str, str], dict] = {}
    if exact:
        for line in exact.read_text().splitlines():
            r = json.loads(line)
            if r.get("split") == "test" and r.get("mbr") == "exact slot":
                ref.setdefault((r["lang"], r["trees"]), r)
    runs: dict[tuple[str, str], dict[str, dict]] = {}  # (lang, case): method: its run
    for r in rows:
        runs.setdefault((r["lang"], r["case"]), {})[r["method"]] = r
    print("| lang | input | tags | UAS | trivial | CRF (same tags) | +NC from text | "
          "+NC-textjk from text | **shipped default** | +NC parsed tree | +NC gold tree | "
          "comma F1 CRF / +NC / shipped | all F1 CRF / +NC / shipped |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (lang, case), got in runs.items():
        nc, crf, triv = got["+NC"], got.get("crf"), got.get("trivial")
        best = min(r["edit_distance"] for m, r in got.items() if m in COLUMNS)

        def aed(r: dict | None, best: int | None = best) -> str:
            """AED, bold for the fewest edits among the runs from text."""
            if not r:
                return "–"
            text = f"{r['average_edit_distance']:.3f}"
            return f"**{text}**" if r["edit_distance"] == best else text

        def f1(mark: str, got: dict = got) -> str:
            return " / ".join(f"{got[m]['marks'][mark]['f1']:.1f}" if m in got else "–"
                              for m in ("crf", "+NC", "shipped"))

        print(f"| {lang} | {case} | {nc['tagging_accuracy']:.1f} | {nc['uas']:.1f} | "
              f"{aed(triv)} | {aed(crf)} | {aed(nc)} | {aed(got.get('+NC-textjk'))} | "
              f"{aed(got.get('shipped'))} | {aed(ref.get((lang, 'parsed')), None)} | "
              f"{aed(ref.get((lang, 'gold')), None)} | {f1('comma')} | {f1('all')} |")
    print()
    print("| lang | input | shipped: model, weight | CRF edits | CRF MBR, weight 0 (p) | "
          "+NC edits (p) | +NC-textjk edits (p) | chosen with the full CRF (p) | "
          "**shipped edits (p)** |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (lang, case), got in runs.items():
        crf, pick = got.get("crf"), got.get("shipped")
        which = (f"{'+NC-textjk' if pick['text_model'] else '+NC'}, "
                 f"{pick['mix_weight']:g}") if pick else "–"
        print(f"| {lang} | {case} | {which} | {crf['edit_distance'] if crf else '–':,} | "
              f"{edits(got, 'crf-mbr')} | {edits(got, '+NC')} | {edits(got, '+NC-textjk')} | "
              f"{edits(got, 'chosen')} | {edits(got, 'shipped')} |")
    for (lang, case), got in runs.items():
        for m in sorted(got.keys() - COLUMNS - {"crf-mbr", "chosen"}):
            print(f"- {lang} {case}, {m}: {edits(got, m)} edits (p against the CRF)")


def chosen(path: Path) -> dict[str, dict]:
    """Per language, the row of ``choose``'s JSON lines marked chosen."""
    rows = (json.loads(line) for line in path.read_text().splitlines() if line)
    return {r["lang"]: r for r in rows if r.get("chosen")}


def ship(lang: str, pick: dict) -> None:
    """Make ``choose``'s ``pick`` the text path's default in ``fstpunct/models/L/text/``: its
    model there (none for the shipped model itself, which the text path then uses) and, for a
    weight below 1, its CRF as ``crf/`` and the weight in ``mixture.json``
    (:meth:`fstpunct.Model.text_mixture`). A pick chosen with another decoder than the text
    path's (:data:`~fstpunct.api.model.TEXT_DECODER`) is refused in one line, exit 2: shipped,
    it would decode otherwise than it was chosen (picks recorded before ``choose`` recorded its
    decoder have none)."""
    decoder = pick.get("decoder", TEXT_DECODER)
    if decoder != TEXT_DECODER:
        print(f"text_restoration.py ship: {lang}'s pick was chosen with the {decoder} decoder, "
              f"the text path decodes with {TEXT_DECODER}: choose again with --decoder "
              f"{TEXT_DECODER}", file=sys.stderr)
        raise SystemExit(2)
    folder = BUNDLED / lang / TEXT_MODEL
    if folder.is_dir():
        shutil.rmtree(folder)
    if Path(pick["model"]).resolve() != (BUNDLED / lang).resolve():
        shutil.copytree(pick["model"], folder)
    if pick["weight"] < 1:
        shutil.copytree(pick["crf"], folder / "crf")
        record = {"crf": "crf", "weight": pick["weight"],
                  "chosen": {"split": "dev", "case": "plain", "model": pick["method"],
                             "crf": pick["crf"], "edit_distance": pick["edit_distance"],
                             "by": "scripts/text_restoration.py choose (fewest edits)",
                             **{k: pick[k] for k in ("must_print", "decoder") if k in pick}}}
        (folder / TEXT_MIXTURE).write_text(json.dumps(record, indent=1) + "\n",
                                           encoding="utf-8")
    print(f"{lang}: text path = {pick['method']}, weight {pick['weight']}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="JSON lines of every language and input case")
    r.add_argument("--langs", nargs="+", default=["en", "ar", "es", "hi", "zh"])
    r.add_argument("--model", default="fstpunct/models/{lang}",
                   help=f"punctuation model folder ({{lang}} replaced; default the shipped one), "
                        f"or {SHIPPED!r}: the bundled text path's default, as `fstpunct restore "
                        f"--lang L --text` restores")
    r.add_argument("--method", default="+NC", help="its name in the output (+NC)")
    r.add_argument("--no-baselines", action="store_true", help="only the model's run")
    r.add_argument("--split", choices=["test", "dev"], default="test")
    r.add_argument("--mix", type=float, metavar="W",
                   help="mix the model with --crf, the model's weight W")
    r.add_argument("--chosen", type=Path, metavar="FILE",
                   help="each language's model and weight chosen by `choose` (its output)")
    r.add_argument("--decoder", choices=sorted(EXACT_DECODERS),
                   help="the exact decoder, as `fstpunct restore --decoder` (default: "
                        "balanced with --model shipped, as the text path's; with --chosen, the "
                        "pick's (slot if it names none); else slot)")
    c = sub.add_parser("choose", help="dev edits of models mixed with the CRF at each weight")
    c.add_argument("--langs", nargs="+", default=["en", "ar", "es", "hi", "zh"])
    c.add_argument("--models", nargs="+", metavar="NAME=DIR",
                   default=["+NC=fstpunct/models/{lang}",
                            "+NC-textjk=models/compact-{lang}-textjk"])
    c.add_argument("--weights", nargs="+", type=float,
                   default=[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    c.add_argument("--decoder", choices=sorted(EXACT_DECODERS), default=TEXT_DECODER,
                   help="the exact decoder the models restore with (default %(default)s, the "
                        "text path's, which decodes a shipped pick; recorded in the rows)")
    for sp in (r, c):
        sp.add_argument("--crf", default=CRF, metavar="DIR",
                        help="the CRF the models mix with ({lang} replaced; default %(default)s, "
                             "also the CRF baseline)")
        sp.add_argument("--parsers", nargs="+", default=[], metavar="DIR",
                        help="restore over the trees of these parsers ({lang} replaced), an "
                             "ensemble; the first one's tree is output")
    k = sub.add_parser("constrain", help="choose again among the systems of choose's output "
                                         "that restore an example line as given")
    k.add_argument("chosen", type=Path, help="choose's output for one language")
    k.add_argument("--must-print", nargs=2, required=True, metavar=("LINE", "OUTPUT"))
    s = sub.add_parser("ship", help="bundle each language's chosen model and CRF for the text "
                                    "path (fstpunct/models/L/text/)")
    s.add_argument("chosen", type=Path, nargs="+", help="choose's output(s)")
    p = sub.add_parser("report", help="markdown table")
    p.add_argument("results", nargs="+", type=Path)
    p.add_argument("--exact", type=Path, help="scripts/restoration.py exact's JSON lines")
    args = ap.parse_args()
    if args.command == "run":
        picks = chosen(args.chosen) if args.chosen else {}
        for lang in args.langs:
            pick = picks.get(lang)
            model, mix, crf = (pick["model"], None if pick["weight"] == 1 else pick["weight"],
                               pick.get("crf", CRF)) if pick else (args.model, args.mix, args.crf)
            run(lang, model, args.method, not args.no_baselines, args.split, mix, args.parsers,
                crf, args.decoder or (row_decoder(pick) if pick else None))
    elif args.command == "constrain":
        constrain(args.chosen, *args.must_print)
    elif args.command == "ship":
        for path in args.chosen:
            for lang, pick in chosen(path).items():
                ship(lang, pick)
    elif args.command == "choose":
        models = dict(m.split("=", 1) for m in args.models)
        for lang in args.langs:
            choose(lang, models, args.weights, args.parsers, args.crf, args.decoder)
    else:
        report(args.results, args.exact)


if __name__ == "__main__":
    main()
