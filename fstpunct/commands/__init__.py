"""One module per CLI subcommand.

Each module defines ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
:data:`fstpunct.cli.COMMANDS` names them. A module imports only what its command needs: the
command line imports just the module of the command it runs.
"""
