"""``--scheduler`` and ``--dask-workers``: where a command's parallel work runs."""
from __future__ import annotations

import argparse

from ..parallel import Pool, make_pool
from .arguments import as_options, at_least


def add_pool_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that move a command's parallel work to a dask cluster."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the parallel work on the dask.distributed cluster whose "
                            "scheduler is at ADDRESS (e.g. tcp://host:8786; its workers need "
                            "fstpunct installed; pip install 'fstpunct[dask]')")
    group.add_argument("--dask-workers", type=int, metavar="N",
                       help="run it on a dask LocalCluster of N worker processes started for "
                            "this run")


def check_pool_options(args: argparse.Namespace) -> None:
    """Refuse ``--jobs`` (if the command has that option) or ``--dask-workers`` below 1 in one
    line (:func:`~.arguments.at_least`): every command with these options calls it first,
    before any note or work."""
    at_least(1, jobs=getattr(args, "jobs", 1), dask_workers=args.dask_workers)


def chosen_pool(args: argparse.Namespace) -> Pool:
    """The pool the options ask for: a dask cluster, else ``--jobs`` local processes (if the
    command has that option), else this process (:func:`check_pool_options` has checked them,
    first, in every command); the library's refusal of ``scheduler`` names ``--scheduler``."""
    with as_options():
        return make_pool(getattr(args, "jobs", 1), args.scheduler, args.dask_workers)
