"""``fstpunct rephrase``: self-permute sentences or delete constituents, then write their
punctuation again (paper §6.3)."""
from __future__ import annotations

import argparse

from ..apps.rephrase.order import NoOrderingModel
from ..apps.rephrase.rephrase import METHODS, TREES, deleted_relations
from ..errors import InputError, check_stream_seed
from ..progress import progress
from ..ud.release import read_one
from ..ud.treebank import write_file
from .arguments import add_corpus_arguments, add_quiet_argument, add_width_argument, at_least
from .model_option import chosen_model

HELP = ("Rephrase sentences: re-order the dependents of every NOUN and VERB by sampling the "
        "language's ordering model (self-permutation) and/or delete constituents, then write "
        "the punctuation again from the underlying marks (full: through the channel; half: "
        "the marks as they are; base: punctuation tokens moved like words). Valid CoNLL-U "
        "out: IDs renumbered, heads remapped, '# text' rebuilt, '# rephrased_from'.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--order", metavar="O",
                        help="ordering model: a path without suffix (O.json, O.npz) or a "
                             "model folder holding order.json (default: the one beside "
                             "--model)")
    parser.add_argument("--method", choices=METHODS, default="full",
                        help="how punctuation is written (default full)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--samples", type=int, default=1,
                        help="rephrasings per sentence (default 1)")
    parser.add_argument("--delete", default="", metavar="RELS",
                        help="delete the constituents with these UD relations, e.g. "
                             "appos,parataxis (a relation also matches its subtypes; a name "
                             "that is not a UD relation is an error)")
    parser.add_argument("--delete-parens", action="store_true",
                        help="delete every constituent whose underlying punctemes are brackets")
    parser.add_argument("--best-surface", action="store_true",
                        help="full: write each slot's most probable surface instead of a "
                             "sample from the channel")
    parser.add_argument("--tree", choices=TREES, default="viterbi",
                        help="full and half (and base with --delete-parens): the underlying "
                             "tree T′ transformed: the Viterbi "
                             "one, or a draw from its posterior for every sample (default "
                             "viterbi)")
    parser.add_argument("--rewrite-all", action="store_true",
                        help="full: write every slot through the channel, also those whose "
                             "marks are unchanged (by default they keep the input's surface)")
    parser.add_argument("--no-balance", dest="balance", action="store_false",
                        help="deletion, full and half (and base with --delete-parens): use "
                             "the Viterbi T′ as it is and leave "
                             "an orphaned bracket or quote as the input printed it (by "
                             "default T′ is the best one whose paired marks match, and a "
                             "shortened sentence prints both marks of each pair)")
    parser.add_argument("--permute", choices=("auto", "yes", "no"), default="auto",
                        help="self-permute (auto: yes unless deleting)")
    add_width_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    at_least(1, samples=args.samples)  # the library checks them too, after the language's note
    check_stream_seed(args.seed, "--seed")  # one 32-bit word of the random streams
    deleted_relations(args.delete)  # checked again by the library
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir))
    permute = {"yes": True, "no": False, "auto": None}[args.permute]
    try:
        out = model.rephrase(sentences, method=args.method, order=args.order, seed=args.seed,
                             samples=args.samples, permute=permute, delete=args.delete,
                             delete_parens=args.delete_parens, best_surface=args.best_surface,
                             tree=args.tree, rewrite_all=args.rewrite_all,
                             balance=args.balance, width=args.width)
    except NoOrderingModel as e:  # the library's words name its keywords: name the options
        raise InputError(f"{e.what}: give one (--order O), or only delete (--delete RELS, "
                         "--delete-parens)") from e
    write_file(progress(out, "rephrase", quiet=args.quiet), args.output)
    return 0
