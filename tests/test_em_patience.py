"""EM stopped by dev perplexity (``--patience``), against EM run once for every number of
iterations: the model kept is the one that many iterations give, bit for bit."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.fst.default_grammar import default_grammar
from fstpunct.model.fit import perplexity, train
from fstpunct.model.punct import Settings
from fstpunct.ud.release import read_one
from fstpunct.ud.slots import to_slots

N = 8  # the most EM iterations


@pytest.fixture(scope="module")
def runs(toy_ud):
    """Training data, dev data, the grammar, and EM's result and dev perplexity for each
    number of iterations 0 … N: trained on the toy release's test split and scored on its
    train split, the dev curve falls, then rises."""
    def read(split: str) -> list:
        return [to_slots(s) for s in read_one(str(toy_ud / "UD_Toy" / f"xx-ud-{split}.conllu"))]
    sents, dev = read("test"), read("train")
    grammar = default_grammar(sents)
    each = [train(sents, grammar, ["ltr"], iterations=k, settings=Settings(lexical=0))
            for k in range(N + 1)]
    scores = [perplexity(t.model, dev)[1] for t in each]
    assert 0 < int(np.argmin(scores)) < N  # a curve that turns: the test can tell
    return sents, dev, grammar, each, scores


@pytest.mark.parametrize("patience", [0, 1, 2, 3, N])
def test_patience_keeps_the_iteration_of_lowest_dev_perplexity(runs, patience):
    sents, dev, grammar, each, scores = runs
    kept, stop = 0, N  # the rule, scanned over the brute-force curve
    for it in range(1, N + 1):
        if scores[it] < scores[kept]:
            kept = it
        elif it - kept >= patience:
            stop = it
            break
    trained = train(sents, grammar, ["ltr"], dev=dev, iterations=N,
                    settings=Settings(lexical=0), patience=patience)
    history = trained.history
    assert history.kept == kept and history.scores == scores[:stop + 1]
    assert len(history.objective) == stop + 1  # no E-step after the stop
    assert np.array_equal(trained.model.theta, each[kept].model.theta)
    assert np.array_equal(trained.model.channel.phi, each[kept].model.channel.phi)
    assert np.array_equal(history.edit_counts, each[kept].history.edit_counts)
    assert trained.dev_perplexity == {"ltr": scores[kept]}


def test_patience_needs_dev_and_a_count(runs):
    sents, dev, grammar, _, _ = runs
    with pytest.raises(InputError, match="needs dev sentences"):
        train(sents, grammar, ["ltr"], iterations=2, patience=1)
    with pytest.raises(InputError, match="patience must be at least 0, not -1"):
        train(sents, grammar, ["ltr"], dev=dev, iterations=2, patience=-1)


def test_the_command_records_the_kept_iteration(toy_ud, tmp_path, capsys):
    data = toy_ud / "UD_Toy"
    out = tmp_path / "m"
    assert main(["train", "--train", str(data / "xx-ud-test.conllu"), "--dev",
                 str(data / "xx-ud-train.conllu"), "--direction", "ltr", "--lexical", "0",
                 "--iterations", str(N), "--patience", "1", "--jobs", "1", "-o", str(out)]) == 0
    record = json.loads((out / "model.json").read_text(encoding="utf-8"))["record"]
    scores = record["dev_perplexity_by_iteration"]
    kept = record["kept_iteration"]
    assert record["patience"] == 1
    assert scores[kept] == min(scores) == record["dev_perplexity"]["ltr"]
    assert f"iteration {kept} kept (of {len(scores) - 1} run) by dev perplexity" in \
        capsys.readouterr().err
    for args, said in ((["--patience", "-1"], "--patience must be at least 0, not -1"),
                       ([], "needs dev sentences")):
        assert main(["train", "--train", str(data / "xx-ud-test.conllu"), "--direction", "ltr",
                     "--patience", "1", *args, "-o", str(tmp_path / "n")]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1
