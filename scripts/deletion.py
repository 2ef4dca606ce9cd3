"""Deletion (issue 20, item 4): regenerated punctuation (full) against naive deletion (base).

For every language's test split and every deletion setting, both methods delete the same
constituents without re-ordering; among the sentences where something was deleted, the share of
outputs with orphaned or doubled marks (:func:`~fstpunct.apps.rephrase.wellformed.problems`),
the same share for those sentences before deletion (a floor: the input's own oddities), the
outputs ill-formed where the input was not (introduced by the deletion), the share that lost a
sentence-final mark the input had, and examples. Writes JSON lines to ``--out``.

    python scripts/deletion.py --langs ar en es hi zh --best-surface --out results/deletion.jsonl
    python scripts/deletion.py --report results/deletion.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys

from fstpunct.apps.rephrase.rephrase import Options, rephrase
from fstpunct.apps.rephrase.wellformed import TERMINALS, problems
from fstpunct.files import output
from fstpunct.model.store import load_model
from fstpunct.ud.release import read_one

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


def report(paths: list[str]) -> None:
    """A Markdown table of one or more result files: per language and setting, the sentences
    changed and, per method, ill-formed outputs (those new against the input) and lost final
    marks."""
    print("| lang (model) | deleted | changed | input ill-formed | base ill-formed (new) | "
          "full ill-formed (new) | lost final mark base / full |")
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for r in map(json.loads, f):
                b, u = r["base"], r["full"]
                print(f"| {r['lang']} ({r.get('model', r['lang'])}, {r['surface']}) | "
                      f"{r['setting']} | {r['changed']} | {r['input']['ill_formed']} | "
                      f"{b['ill_formed']} ({b['introduced']}) | {u['ill_formed']} "
                      f"({u['introduced']}) | {b['lost_final']} / {u['lost_final']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["ar", "en", "es", "hi", "zh"])
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--best-surface", action="store_true",
                        help="full writes the channel's most probable surface (else a sample)")
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
        for name, setting in SETTINGS.items():
            out = {m: list(rephrase(test, model, None, Options(
                       m, permute=False, best_surface=args.best_surface, **setting)))
                   for m in ("full", "base")}
            row = {"lang": lang, "model": folders.get(lang, lang), "setting": name,
                   "test": len(test), "examples": [],
                   "surface": "best" if args.best_surface else "sample"}
            changed = [k for k, s in enumerate(out["full"]) if content(s) < content(test[k])]
            row["changed"] = len(changed)
            for label, sents in (("input", test), ("full", out["full"]), ("base", out["base"])):
                bad = [k for k in changed if problems(forms(sents[k]))]
                new = [k for k in bad if not problems(forms(test[k]))]
                lost = [k for k in changed if forms(test[k])[-1] in TERMINALS
                        and forms(sents[k])[-1] not in TERMINALS]
                row[label] = {"ill_formed": len(bad), "introduced": len(new),
                              "lost_final": len(lost)}
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
                                     "problems": problems(forms(out["full"][k]))}
                                    for k in worse[:args.examples]]
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
