"""One Attach M-step on en_ewt train from fixed expected counts, for paired A/B timings and for
checking that θ is bitwise unchanged by an exact speed-up (and by the number of threads).

``prepare COUNTS.npz``: the initial model of ``fstpunct train --lang en`` and one E-step on 2
local workers; saves θ₀, the prior's centre, the expected Attach counts, the E-step's log Z and
its expected channel-arc counts.
``fit COUNTS.npz THETA.npy [ITERATIONS [THREADS]]``: featurises en_ewt train again
(deterministic), runs :func:`fstpunct.model.attach.fit` (at most ITERATIONS L-BFGS iterations,
default ``fstpunct train``'s, on THREADS threads, default 2) from the saved θ₀ and counts,
saves θ (compare two with ``cmp``) and prints the M-step's wall and CPU seconds and its
objective evaluations as JSON.
``same A B``: whether two such files (``.npz`` or ``.npy``) hold the same arrays bit for bit
(exit 1 if not): with ``prepare`` and ``fit``, one EM iteration's log-likelihood, expected counts
and θ compared across two builds.

Run: FSTPUNCT_UD_DIR=/work/shared/ud .venv/bin/python bench/mstep_bench.py prepare|fit|same ...
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI sets it, before numpy loads BLAS

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.fst.grammar import load_grammar
from fstpunct.model import attach
from fstpunct.model.punct import Settings
from fstpunct.model.train import ATTACH_ITERATIONS, initial_model
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots


def _model():
    sents = [s for s in map(to_slots, split_source("en", "train").sentences()) if s.trainable]
    grammar = load_grammar(Path(__file__).resolve().parents[1] / "grammars" / "en.rules")
    return sents, initial_model(sents, grammar, "nunberg", None, Settings())


def prepare(out: str) -> None:
    from fstpunct.model.train import expected_counts, share_batch
    from fstpunct.parallel import LocalPool

    sents, model = _model()
    batch = model.prepare(sents)
    with LocalPool(2) as pool:
        share_batch(pool, batch, model)
        counts = expected_counts(pool, model, batch)
    np.savez(out, theta=model.theta, targets=counts.targets,
             center=model.attach.init_theta(model.settings.token_cost), log_z=counts.log_z,
             arc_counts=counts.arc_counts)


def fit(counts: str, out: str, iterations: str = str(ATTACH_ITERATIONS), threads: str = "2"
        ) -> None:
    sents, model = _model()
    data = attach.AttachData.build(model.attach, sents)
    saved = np.load(counts)
    evaluations = []
    start, cpu = time.perf_counter(), time.process_time()
    theta = attach.fit(saved["theta"], data, saved["targets"], model.settings.l2,
                       int(iterations), saved["center"], int(threads), evaluations.append)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    np.save(out, theta)
    print(json.dumps({"m_step": round(seconds, 3), "cpu": round(cpu, 3),
                      "evaluations": len(evaluations), "threads": int(threads),
                      "weights": len(theta)}))


def _arrays(path: str) -> dict[str, np.ndarray]:
    loaded = np.load(path)
    return dict(loaded) if isinstance(loaded, np.lib.npyio.NpzFile) else {"": loaded}


def same(a: str, b: str) -> None:
    first, second = _arrays(a), _arrays(b)
    differ = sorted(name for name in first.keys() | second.keys()
                    if name not in first or name not in second
                    or first[name].dtype != second[name].dtype
                    or first[name].shape != second[name].shape
                    or first[name].tobytes() != second[name].tobytes())
    print(f"differ: {', '.join(differ)}" if differ else
          f"bitwise equal: {', '.join(sorted(first)) or 'the array'}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    {"prepare": prepare, "fit": fit, "same": same}[sys.argv[1]](*sys.argv[2:])
