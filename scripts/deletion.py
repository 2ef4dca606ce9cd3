"""Deletion (issue 20, item 4): regenerated punctuation (full) against naive deletion (base).

For every language's test split and every deletion setting, both methods delete the same
constituents without re-ordering; among the sentences where something was deleted, the share of
outputs with orphaned or doubled marks (:func:`~fstpunct.apps.rephrase.wellformed.problems`),
the same share for those sentences before deletion (a floor: the input's own oddities), the
outputs ill-formed where the input was not (introduced by the deletion), the share that lost a
sentence-final mark the input had, and examples. Each ill-formed output is classed
(:func:`classify`): new, made worse by the deletion, or the input's own orphan kept (a quote
or a bracket whose partner is neither in the sentence nor in the deleted material). Writes
JSON lines to ``--out``.

    python scripts/deletion.py --langs ar en es hi zh --best-surface --out results/deletion.jsonl
    python scripts/deletion.py --report results/deletion.jsonl

``--rewrite-all``: full writes every slot of a sentence through the channel, also those whose marks
are unchanged (by default such a slot keeps the input's surface); each row then also counts how
many slots of the test split, with nothing deleted, the channel writes differently from the
input (needless rewrites). ``--no-balance``: the Viterbi T′ as it is, without balance (an
orphan's absorbed partner left unprinted by full; ``rephrase --no-balance``), for full and for
base's bracket deletion on it.
"""
from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import Counter
from dataclasses import replace

from fstpunct.apps.rephrase.rephrase import Options, underlying, written
from fstpunct.apps.rephrase.wellformed import is_terminal, problems, unmatched
from fstpunct.files import output
from fstpunct.model.store import load_model
from fstpunct.ud.release import read_one
from fstpunct.ud.slots import raw_slots

SETTINGS = {"appos,parataxis": {"delete": frozenset({"appos", "parataxis"})},
            "acl:relcl,advcl": {"delete": frozenset({"acl:relcl", "advcl"})},
            "parens": {"delete_parens": True}}


def forms(sent) -> list[str]:
    return [w.form for w in sent.words]


def text(sent) -> str:
    """``# text``, else (UD 1.4 Chinese has none) the tokens joined."""
    found = [c for c in sent.comments if c.startswith("# text = ")]
    return found[0][9:] if found else "".join(forms(sent))


def content(sent) -> int:
    return sum(not w.is_punct for w in sent.words)


CLASSES = ("new", "worse", "input's orphan quote", "input's orphan bracket", "other")


def orphans(sent) -> Counter:
    """The forms of the sentence's brackets and quotes without a partner
    (:func:`~fstpunct.apps.rephrase.wellformed.unmatched`)."""
    toks = forms(sent)
    return Counter(toks[k] for k in unmatched(toks))


def classify(source, out) -> str | None:
    """Why ``out``, the output for the input sentence ``source``, is ill-formed (None if it is
    not): *new* (the input is well-formed); *worse* (the output has an orphaned bracket or quote
    the input had paired — its partner was deleted — or a kind of problem the input has not);
    else the input's own problem kept, outside the deleted material: an *orphan quote* (a
    quotation that spans sentences, a mistokenised apostrophe), an *orphan bracket*, or
    *other* kinds."""
    found = problems(forms(out))
    if not found:
        return None
    before = problems(forms(source))
    if not before:
        return "new"
    kept = orphans(out)
    if not set(found) <= set(before) or kept - orphans(source):
        return "worse"
    if not kept:
        return "other"
    quote = all(unicodedata.category(m) in ("Pi", "Pf") or m in "\"'「」『』" for m in kept)
    return "input's orphan quote" if quote else "input's orphan bracket"


def _options(method: str, args: argparse.Namespace, setting: dict) -> Options:
    """The rephrasing options of ``method`` for a deletion ``setting``: the surface and rewrite
    options are full's only (base writes no punctuation again); balance is the model's T′'s
    (:attr:`~Options.needs_model`): full's and, when it deletes brackets found on that T′
    (``delete_parens``), base's too."""
    full = method == "full"
    options = Options(method, permute=False, best_surface=args.best_surface and full,
                      rewrite_all=args.rewrite_all and full, **setting)
    return replace(options, balance=not (args.no_balance and options.needs_model))


def rewritten_slots(test, trees, model, surface: bool) -> dict[str, int]:
    """Slots (and sentences) of ``test`` (with ``trees``, its :func:`underlying`) that full
    with ``--rewrite-all`` writes differently from the input when nothing is deleted."""
    out = written(trees, model, None, Options("full", permute=False, best_surface=surface,
                                              rewrite_all=True))
    pairs = [(raw_slots(a), raw_slots(b)) for a, b in zip(test, out)]
    return {"slots": sum(len(a) for a, _ in pairs),
            "changed": sum(x != y for a, b in pairs for x, y in zip(a, b)),
            "sentences": sum(a != b for a, b in pairs)}


def report(paths: list[str]) -> None:
    """A Markdown table of one or more result files: per language and setting, the sentences
    changed and, per method, ill-formed outputs (those new against the input) and lost final
    marks; then, per file, the totals and their ratio base / full (all ill-formed outputs, and
    new ones)."""
    print("| lang (model) | deleted | changed | input ill-formed | base ill-formed (new) | "
          "full ill-formed (new) | lost final mark base / full | needless rewrites |")
    print("|---|---|---|---|---|---|---|---|")
    totals = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        for r in rows:
            b, u = r["base"], r["full"]
            needless = r.get("rewritten_unchanged")
            print(f"| {r['lang']} ({r.get('model', r['lang'])}, {r['surface']}) | "
                  f"{r['setting']} | {r['changed']} | {r['input']['ill_formed']} | "
                  f"{b['ill_formed']} ({b['introduced']}) | {u['ill_formed']} "
                  f"({u['introduced']}) | {b['lost_final']} / {u['lost_final']} | "
                  + (f"{needless['changed']} of {needless['slots']} slots |" if needless
                     else "- |"))
        sums = {f"{m} {key}": sum(r[m][key] for r in rows) for m in ("base", "full", "input")
                for key in ("ill_formed", "introduced")}
        totals.append(f"{path}: {sum(r['changed'] for r in rows)} changed; all outputs: "
                      f"ill-formed base "
                      f"{sums['base ill_formed']} / full {sums['full ill_formed']} "
                      f"({_ratio(sums['base ill_formed'], sums['full ill_formed'])}); outputs of "
                      f"well-formed inputs: ill-formed (new) base "
                      f"{sums['base introduced']} / full {sums['full introduced']} "
                      f"({_ratio(sums['base introduced'], sums['full introduced'])}); input "
                      f"{sums['input ill_formed']}")
        for m in ("base", "full"):
            classes = Counter()
            for r in rows:
                classes.update(r[m].get("classes", {}))
            totals.append(f"  {m}'s ill-formed outputs by class: " + ", ".join(
                f"{c} {classes[c]}" for c in CLASSES if classes[c]))
    print()
    print("\n".join(totals))


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.1f}×" if b else ("∞" if a else "-")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["ar", "en", "es", "hi", "zh"])
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--best-surface", action="store_true",
                        help="full writes the channel's most probable surface (else a sample)")
    parser.add_argument("--rewrite-all", action="store_true",
                        help="full writes every slot, also those whose marks are unchanged")
    parser.add_argument("--no-balance", action="store_true",
                        help="the Viterbi T′ without the balance constraint (full's, and "
                        "base's bracket deletion on it); full leaves an orphan's absorbed partner "
                        "unprinted (rephrase --no-balance)")
    parser.add_argument("--out", default="results/deletion.jsonl")
    parser.add_argument("--model", action="append", default=[], metavar="LANG=DIR",
                        help="a punctuation model folder for LANG instead of the bundled one")
    parser.add_argument("--report", nargs="+", metavar="JSONL",
                        help="only print the table of these result files")
    args = parser.parse_args()
    if args.report:
        report(args.report)
        return 0
    folders = dict(m.split("=", 1) for m in args.model)
    rows = []
    for lang in args.langs:
        model, test = load_model(folders.get(lang, lang)), list(read_one(f"{lang}:test"))
        # the Viterbi T′ (balanced unless --no-balance), once for every setting
        trees = list(underlying(test, model, balanced=not args.no_balance))
        needless = (rewritten_slots(test, trees, model, args.best_surface) if args.rewrite_all
                    else None)
        for name, setting in SETTINGS.items():
            out = {m: list(written(trees, model, None, _options(m, args, setting)))
                   for m in ("full", "base")}
            row = {"lang": lang, "model": folders.get(lang, lang), "setting": name,
                   "test": len(test), "examples": [],
                   "surface": ("best" if args.best_surface else "sample") +
                   (", rewrite all" if args.rewrite_all else "") +
                   (", no balance" if args.no_balance else "")}
            if needless:
                row["rewritten_unchanged"] = needless
            changed = [k for k, s in enumerate(out["full"]) if content(s) < content(test[k])]
            row["changed"] = len(changed)
            for label, sents in (("input", test), ("full", out["full"]), ("base", out["base"])):
                bad = [k for k in changed if problems(forms(sents[k]))]
                new = [k for k in bad if not problems(forms(test[k]))]
                lost = [k for k in changed if is_terminal(forms(test[k])[-1])
                        and not is_terminal(forms(sents[k])[-1])]
                row[label] = {"ill_formed": len(bad), "introduced": len(new),
                              "lost_final": len(lost)}
                if label != "input":
                    row[label]["classes"] = Counter(classify(test[k], sents[k]) for k in bad)
            shown = 0
            for k in changed:
                naive, regen = forms(out["base"][k]), forms(out["full"][k])
                if problems(naive) and not problems(regen) and shown < args.examples:
                    row["examples"].append({"input": text(test[k]), "base": text(out["base"][k]),
                                            "base_problems": problems(naive),
                                            "full": text(out["full"][k])})
                    shown += 1
            worse = [k for k in changed if problems(forms(out["full"][k]))]
            row["full_examples"] = [{"input": text(test[k]), "full": text(out["full"][k]),
                                     "problems": problems(forms(out["full"][k])),
                                     "class": classify(test[k], out["full"][k])}
                                    for k in worse]  # all of them
            print(f"{lang} {name}: {len(changed)} changed; ill-formed input "
                  f"{row['input']['ill_formed']}, base {row['base']['ill_formed']} "
                  f"({row['base']['introduced']} new), full {row['full']['ill_formed']} "
                  f"({row['full']['introduced']} new)", file=sys.stderr)
            rows.append(row)
    with output(args.out) as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
