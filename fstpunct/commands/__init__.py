"""One module per CLI subcommand.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
:mod:`fstpunct.cli` lists them in :data:`fstpunct.cli.COMMANDS`.
"""
