"""Speed of the Attach model on en_ewt train: featurisation and one M-step with random targets.

Run: FSTPUNCT_UD_DIR=/work/shared/ud .venv/bin/python bench/attach_speed.py [maxiter]
"""
from __future__ import annotations

import logging
import sys
import time

import numpy as np

from fstpunct.model.attach import AttachData, AttachModel, fit, objective, probabilities
from fstpunct.model.vocab import Vocab
from fstpunct.ud import release as ud
from fstpunct.ud.slots import to_slots

# The English symmetric pairs of DESIGN §4 (the grammar declares them per language).
SYMMETRIC = [("(", ")"), ("[", "]"), ("“", "”"), ("‘", "’")]


def timed(label: str, f, *args):
    start = time.perf_counter()
    out = f(*args)
    print(f"{label:<28}{time.perf_counter() - start:8.2f} s")
    return out


def main(maxiter: int = 50) -> None:
    logging.basicConfig(format="%(message)s")
    logging.getLogger("fstpunct.model.attach").setLevel(logging.DEBUG)
    source = ud.split_source("en", "train")
    sents = timed("read + to_slots", lambda: [to_slots(s) for s in source.sentences()])
    vocab = timed("Vocab.build", Vocab.build, sents)
    model = timed("AttachModel.build", AttachModel.build, vocab, SYMMETRIC, sents)
    data = timed("AttachData.build", AttachData.build, model, sents)
    c, f = model.shape
    print(f"sentences {len(sents)}  nodes {data.n_nodes}  candidate rows {len(data.pairs)}  "
          f"distinct context rows {sum(g.contexts.shape[0] for g in data.groups)}")
    print(f"tokens {len(vocab.tokens)}  |V| {len(vocab.punctemes)}  pairs {len(vocab.pairs)}  "
          f"relations {len(vocab.relations)}  contexts {c}  pair features {f}  params {c * f}")
    theta = model.init_theta()
    rng = np.random.default_rng(0)
    targets = rng.random(len(data.pairs))
    targets /= np.repeat(np.add.reduceat(targets, data.node_offsets[:-1]),
                         np.diff(data.node_offsets))
    timed("probabilities", probabilities, theta, data)
    timed("objective + gradient", objective, theta, data, targets, 1.0)
    theta = timed(f"fit (L-BFGS, maxiter {maxiter})", fit, theta, data, targets, 1.0, maxiter)
    print(f"objective at 0: {objective(model.init_theta(), data, targets, 1.0)[0]:.6g}  "
          f"after fit: {objective(theta, data, targets, 1.0)[0]:.6g}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
