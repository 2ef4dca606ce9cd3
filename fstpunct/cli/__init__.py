"""Stage 7, the command line: ``fstpunct COMMAND``, one thin module per subcommand.

Each module defines ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int`` over the public
API; :data:`.main.COMMANDS` names them, and only the module of the command run is imported.
"""
