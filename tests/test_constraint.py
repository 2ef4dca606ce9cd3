"""Punctuation as a constraint on parsing: k-best trees re-ranked by log p(x | T)."""
import itertools

import numpy as np
import pytest
from conftest import treebank
from pulled import Pulled

from fstpunct.api import sentences
from fstpunct.apps.constraint import candidates, choose, constrained
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.punct import Inference
from fstpunct.model.store import load_model
from fstpunct.parser import Model, kbest, parse, train
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_file


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    sents = list(itertools.islice(treebank("en", "train").sentences(), 30))
    folder = tmp_path_factory.mktemp("parser") / "removed"
    train(sents, sents[:10], "removed", 1, folder, epochs=3, patience=3, progress=False,
          log=lambda m: None)
    return Model.load(folder), load_model("en"), sents[:8], folder


def test_kbest_starts_with_the_parse_and_scores_decrease(setup):
    parser, _, sents, _ = setup
    for sent in sents:
        k_best = kbest(parser, sent, 4)
        assert 1 <= len(k_best) <= 4
        assert k_best[0][1].text() == parse(parser, sent, 4).text()
        scores = [s for s, _ in k_best]
        assert scores == sorted(scores, reverse=True)
        assert len({tuple(w.head for w in t.words) + tuple(w.deprel for w in t.words)
                    for _, t in k_best}) == len(k_best)


def test_candidates_score_each_tree_by_the_punctuation_model(setup):
    parser, model, sents, _ = setup
    for sent, (trees, scores, log_px) in zip(sents, candidates(parser, model, sents, 4)):
        assert len(trees) == len(scores) == len(log_px)
        alone = Inference(model, model.prepare([to_slots(t) for t in trees])).log_probs()
        np.testing.assert_allclose(log_px, alone, rtol=1e-9)
        assert [w.form for w in trees[0].words] == [w.form for w in sent.words]


def test_choose_moves_from_the_parser_to_the_punctuation_model():
    scores, log_px = np.array([5.0, 4.0, 1.0]), np.array([-9.0, -2.0, -1.0])
    assert choose(scores, log_px, 0.0) == 0
    assert choose(scores, log_px, 0.5) == 1        # 5 − 4.5 < 4 − 1
    assert choose(scores, log_px, 100.0) == 2


def test_constrained_with_weight_zero_is_the_parser(setup):
    parser, model, sents, _ = setup
    got = list(constrained(parser, model, sents, 4, 0.0))
    assert [t.text() for t in got] == [parse(parser, s, 4).text() for s in sents]


@pytest.mark.parametrize("weight", ["nan", "inf", "-inf", "-1"])
def test_a_weight_that_is_not_a_finite_number_is_refused(setup, tmp_path, capsys, weight):
    """NaN used to keep the parser's tree silently; a negative weight (preferring trees that
    explain the punctuation badly) was taken."""
    parser, model, sents, folder = setup
    bound = "a finite number of at least 0" if weight == "inf" else "at least 0"
    with pytest.raises(InputError, match=f"^punct_weight must be {bound}, not {float(weight)}$"):
        next(constrained(parser, model, sents, 4, float(weight)))
    src = tmp_path / "in.conllu"
    src.write_text(sents[0].text(), encoding="utf-8")
    assert main(["parse", "--model", str(folder), "--beam", "4", "--punct-model", "en",
                 f"--punct-weight={weight}", str(src), "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_beam_of_1_is_refused(setup, tmp_path, capsys):
    """With one tree in the beam the punctuation model had nothing to choose from: the
    parser's tree came out, silently (the parser of ``setup`` was trained at beam 1)."""
    parser, model, sents, folder = setup
    for beam in (1, None):
        with pytest.raises(InputError, match="beam of at least 2"):
            next(constrained(parser, model, sents, beam, 8.0))
    src = tmp_path / "in.conllu"
    src.write_text(sents[0].text(), encoding="utf-8")
    assert main(["parse", "--model", str(folder), "--punct-model", "en", str(src), "-o",
                 str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_parse_command_with_a_punctuation_model(setup, tmp_path):
    _, _, sents, folder = setup
    src = tmp_path / "in.conllu"
    src.write_text("".join(s.text() for s in sents), encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["parse", "--model", str(folder), "--beam", "4", "--punct-model", "en",
                 "--punct-weight", "8", str(src), "-o", str(out)]) == 0
    parsed = list(read_file(out))
    assert [[w.form for w in s.words] for s in parsed] == [[w.form for w in s.words]
                                                          for s in sents]


def test_the_punctuation_model_may_be_a_correction_models_folder(setup, stub_correction,
                                                                 tmp_path, capsys):
    """``--punct-model`` of a correction model's folder is its learner model, as for decode
    (it was 'not a fstpunct model')."""
    _, _, sents, folder = setup
    src = tmp_path / "in.conllu"
    src.write_text("".join(s.text() for s in sents), encoding="utf-8")
    runs = []
    for punct in ("en", str(stub_correction)):
        assert main(["parse", "--model", str(folder), "--beam", "4", "--punct-model", punct,
                     "--punct-weight", "8", str(src)]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] and runs[0]


def test_the_api_parses_as_the_command_does(setup, tmp_path):
    """``fstpunct.parse`` (the parser alone) and ``Model.parse`` (its k best re-ranked by the
    punctuation model, Jones) on a CoNLL-U string and on TokenLists give the trees of
    ``parse`` and ``constrained``, and what ``fstpunct parse`` writes."""
    import conllu

    import fstpunct
    parser, model, sents, folder = setup
    text = "".join(s.text() for s in sents)
    fresh = list(sentences(text))
    alone = "".join(parse(parser, s, 4).text() for s in fresh)
    judged = "".join(t.text() for t in constrained(parser, model, fresh, 4, 100.0))
    assert alone != judged  # the punctuation model changes some tree: the two are told apart
    assert fstpunct.parse(text, folder, beam=4) == alone
    en = fstpunct.load("en")
    assert en.parse(text, parser, beam=4, punct_weight=100) == judged
    heads = [[t["head"] for t in s] for s in en.parse(conllu.parse(text), str(folder), beam=4,
                                                        punct_weight=100)]
    assert heads == [[t["head"] for t in s] for s in conllu.parse(judged)]
    src = tmp_path / "in.conllu"
    src.write_text(text, encoding="utf-8")
    for options, want in (([], alone), (["--punct-model", "en", "--punct-weight", "100"], judged)):
        assert main(["parse", "--model", str(folder), "--beam", "4", *options, str(src), "-o",
                     str(tmp_path / "out.conllu")]) == 0
        assert (tmp_path / "out.conllu").read_text(encoding="utf-8") == want


@pytest.mark.parametrize("options, message", [
    ({"beam": 1}, "beam of at least 2"),
    ({"beam": 4, "punct_weight": float("nan")}, "^punct_weight must be at least 0, not nan$"),
    # a value that is no number, and None, were math.isfinite's TypeError (a traceback)
    ({"beam": 4, "punct_weight": "x"}, "^punct_weight must be a number of at least 0, not 'x'$"),
    ({"beam": 4, "punct_weight": None},
     "^punct_weight must be a number of at least 0, not None$"),
    ({"beam": 0}, "beam must be at least 1, not 0"),
])
def test_the_api_refuses_before_reading(setup, options, message):
    """``Model.parse``'s options are refused before any sentence is pulled."""
    import fstpunct
    _, _, sents, folder = setup
    given = Pulled(sents)
    with pytest.raises(InputError, match=message):
        fstpunct.load("en").parse(iter(given), folder, **options)
    assert given.count == 0
