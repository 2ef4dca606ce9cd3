"""Stage 9, the command line: ``fstpunct COMMAND``, one thin module per subcommand.

Each module defines ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int`` over the public
API; :data:`.main.COMMANDS` names them, and only the module of the command run is imported.
"""
import os

# Parallel work runs in processes (fstpunct.parallel), each with one BLAS thread, as dask
# workers have: then a job's result does not depend on where it ran (a multi-threaded BLAS may
# add a product's terms in another order). Set before numpy loads; the environment may override.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
