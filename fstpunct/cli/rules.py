"""``fstpunct rules``: a rule file's expanded rewrite rules, or a trained model against them."""
from __future__ import annotations

import argparse

from ..api import load
from ..apps.rules import PAPER_RELATIONS
from ..errors import InputError, refuse_unused
from ..fst.channel import EDITS, Channel
from ..fst.grammar import Grammar, load_grammar
from ..ud.release import LANGUAGES, SPLITS
from ..wording import counted
from .arguments import add_ud_dir_argument
from .table import format_table

HELP = ("Print the rewrite rules a rule file expands to (window, edit, result, initial "
        "probability, schema, source line); with --model M, compare what the model learned "
        "with the grammar it was trained from or with --compare GRAMMAR (the paper's §5.1 "
        "statistics and Table 4).")

HEADER = ("window", "edit", "result", "p", "schema", "line")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grammar", nargs="?", metavar="GRAMMAR",
                        help="a rule file, e.g. grammars/en.rules")
    parser.add_argument("--model", help="a trained model (folder or bundled name; a correction "
                        "model's folder: its learner model): compare what it learned with a "
                        "grammar")
    parser.add_argument("--compare", metavar="GRAMMAR",
                        help="the grammar to compare --model with (default: the one the model "
                             "was trained from, a rule file or the default grammar)")
    parser.add_argument("--lang", choices=LANGUAGES,
                        help="whose dev split gives the relation table (default: the model's "
                             "language; one without standard splits, und or none recorded: the "
                             "files its model.json records, its dev, or its training data for "
                             "--split train; without them, en for und or none, and an error asking "
                             "for --lang for a language without standard splits)")
    parser.add_argument("--split", choices=SPLITS,
                        help="the split of --lang for that table (default dev)")
    parser.add_argument("--relations", nargs="+", metavar="REL",
                        help="the relations of that table (default: "
                             f"{' '.join(PAPER_RELATIONS)})")
    add_ud_dir_argument(parser)
    parser.add_argument("--tsv", action="store_true", help="tab-separated output")


def rule_rows(grammar: Grammar, channel: Channel) -> list[tuple[str, ...]]:
    """One row per expanded rule, with its probability under ``channel``."""
    return [(f"{r.a} {r.b}", r.edit, " ".join(r.result),
             f"{channel.phi[channel.index(r.a), channel.index(r.b), EDITS.index(r.edit)]:.3f}",
             r.schema, f"{grammar.path}:{r.line}")
            for r in grammar.rules]


def _compare(args: argparse.Namespace) -> None:
    # a correction model: its learner model, as decode reads it
    learned = load(args.model).rules(args.compare, lang=args.lang, split=args.split,
                                     relations=args.relations, ud_dir=args.ud_dir)
    result = learned.comparison
    if not learned.counted:
        print(f"# {args.model} stores no expected edit counts (a correction model's learner "
              "model has none): no confident learned edits to list")
    else:
        agree = [g for g in result.confident if g.edit == g.grammar_edit]
        moves = [g for g in result.confident if g.edit != "KEEP"]
        print(f"# {len(result.confident)} confident learned edits (bigram expected count >= "
              f"25, p > 0.75): {len(agree)} are the grammar's; of the {len(moves)} that are not "
              f"KEEP, {sum(g.edit == g.grammar_edit for g in moves)} are the grammar's")
        print(format_table(("window", "count", "learned", "p", "grammar"),
                           [(f"{g.a} {g.b}", f"{g.count:.0f}", g.edit, f"{g.p:.3f}",
                             g.grammar_edit) for g in result.confident], args.tsv))
    ranks = [r.rank for r in result.ranks]
    confident = [r for r in result.ranks if r.confident_bigram]
    print(f"\n# the grammar's {counted(len(ranks), 'rule')} over the model's marks "
          f"({result.skipped} over marks the model lacks): rank 1: {ranks.count(1)}, "
          f"rank 2: {ranks.count(2)}, rank > 2: {sum(r > 2 for r in ranks)}; "
          f"MRR {result.mrr:.3f}")
    print(f"# over the {len(confident)} whose bigram has an edit with p > 0.5: rank 1: "
          f"{sum(r.rank == 1 for r in confident)}, rank 2: {sum(r.rank == 2 for r in confident)}, "
          f"rank > 2: {sum(r.rank > 2 for r in confident)}; MRR {result.mrr_confident:.3f}")
    print(f"\n# most probable (l, r) pairs per relation, mean p_θ over {learned.lang} "
          f"{learned.split}")
    rows = [(rel, str(n), pair, f"{100 * p:.1f}") for rel, (n, pairs) in learned.pairs.items()
            for pair, p in pairs]
    print(format_table(("relation", "nodes", "l | r", "%"), rows, args.tsv))


def run(args: argparse.Namespace) -> int:
    refuse_unused({f"--{name.replace('_', '-')}": getattr(args, name) is not None
                   and not args.model for name in ("compare", "lang", "split", "relations",
                                                   "ud_dir")},
                  "only with --model (comparing a model with a grammar)")
    if args.grammar and args.model:  # GRAMMAR would be ignored
        raise InputError("GRAMMAR lists a rule file's rules; to compare a model with it: "
                         "--model M --compare GRAMMAR")
    if args.model:
        _compare(args)
        return 0
    if not args.grammar:
        raise InputError("give a GRAMMAR, or --model M [--compare GRAMMAR]")
    grammar = load_grammar(args.grammar)
    print(format_table(HEADER, rule_rows(grammar, grammar.channel()), args.tsv))
    return 0
