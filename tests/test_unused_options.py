"""An option that the other options make useless is refused in one line (exit 2), not ignored
in silence: the exact decoders' options with --samples and the sampling ones without it
(restore and correct share the library's check, and so do their API keywords), the options of
one rephrasing method with another, the path options of a lattice with --full and its arc
threshold without, and the options of a mode a command is not in (rules, models). Each of
these ran before, the option unused."""
from pathlib import Path

import pytest

import fstpunct
from fstpunct.apps.correction.correct import corrected
from fstpunct.apps.correction.model import CorrectionModel
from fstpunct.cli.main import main
from fstpunct.errors import InputError

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "data" / "sample.conllu"
RULES = ROOT / "grammars" / "en.rules"


CASES = [
    (["restore", "--model", "en", "--decoder", "balanced", "--samples", "5"],
     "decoder (--decoder): for the exact decoders only, not with samples"),
    (["restore", "--model", "en", "--mix-crf", "crf", "--samples", "5"], "mix_crf (--mix-crf)"),
    (["restore", "--model", "en", "--mbr", "slot"], "mbr (--mbr): only with samples"),
    (["restore", "--model", "en", "--seed", "3"], "seed (--seed): only with samples"),
    (["restore", "--model", "en", "--mix-weight", "0.3"], "mix_weight (--mix-weight): only with"),
    (["restore", "--trivial", "en", "--lang", "ko"], "--lang ko: not with --trivial en"),
    (["correct", "--decoder", "slot", "--samples", "5"], "decoder (--decoder): for the exact"),
    (["correct", "--edit-cost", "1", "--support", "0.1", "--samples", "2"],
     "edit_cost (--edit-cost), support (--support): for the exact decoders only"),
    (["correct", "--mbr", "slot", "--seed", "1"], "mbr (--mbr), seed (--seed): only with samples"),
    (["correct", "--beam", "2"], "beam (--beam): only with parser (--parser)"),
    (["rephrase", "--model", "en", "--method", "half", "--best-surface"],
     "best_surface (--best-surface): only with method full, not half"),
    (["rephrase", "--model", "en", "--method", "base", "--rewrite-all"],
     "rewrite_all (--rewrite-all): only with method full, not base"),
    (["rephrase", "--model", "en", "--method", "base", "--tree", "sample"],
     "tree (--tree): only with method full or half"),
    (["rephrase", "--model", "en", "--no-balance"], "(--no-balance): only when deleting"),
    (["rephrase", "--model", "en", "--method", "base", "--delete", "appos", "--no-balance"],
     "balance=False (--no-balance): only when deleting (--delete, --delete-parens) with the"),
    (["rephrase", "--model", "en", "--delete", "appos", "--order", "en"],
     "order (--order): only when permuting"),
    (["draw", "lattice", "--model", "en", "--sentence", f"{SAMPLE}:2", "--slot", "4", "--full",
      "--paths", "3", "--samples", "9"], "paths (--paths), samples (--samples): not with full"),
    (["draw", "lattice", "--model", "en", "--sentence", f"{SAMPLE}:2", "--slot", "4",
      "--min-prob", "0.1"], "min_prob (--min-prob): only with full (--full)"),
    (["rules", str(RULES), "--lang", "de", "--split", "test"],
     "--lang, --split: only with --model"),
    (["rules", str(RULES), "--relations", "appos"], "--relations: only with --model"),
    (["models", "--ud-dir", "ud"], "--ud-dir: only with --evaluate"),
    (["score", "--text", "--gold", str(SAMPLE), "--ud-dir", "ud", str(SAMPLE)],
     "--ud-dir: not with --text"),
    (["parse", "--model", str(ROOT / "fstpunct" / "models" / "en" / "parser"),
      "--punct-weight", "8", str(SAMPLE)], "--punct-weight: only with --punct-model"),
    (["decode", "--model", "en", "--posteriors", "2", "--format", "text", str(SAMPLE)],
     "posteriors (--posteriors): PunctPost is written in CoNLL-U only, not in format text"),
    *[([command, "--model", "en", "--lang", "de", str(SAMPLE)],
       "--lang: picks the bundled model of a language; not with --model, which names the model")
      for command in ("decode", "normalise", "show")],
    *[([command, "--model", "en", "--lang", "de"], "--lang: picks the bundled model")
      for command in ("rephrase", "restore")],
    (["decode", "--text", "--model", "en", "--lang", "de", str(SAMPLE)], "--lang: picks the"),
    (["draw", "lattice", "--model", "en", "--lang", "de", "--sentence", f"{SAMPLE}:2",
      "--slot", "4"], "--lang: picks the bundled model of a language; not with --model"),
]


@pytest.mark.parametrize("argv, refused", CASES, ids=[" ".join(c[0][:1] + c[0][-2:])
                                                       for c in CASES])
def test_an_option_that_would_be_ignored_is_refused(argv, refused, stub_correction, tmp_path,
                                                    capsys):
    if argv[0] == "correct":
        argv = [*argv, "--model", str(stub_correction)]
    if argv[0] in ("restore", "correct", "rephrase"):
        argv = [*argv, str(SAMPLE), "-o", str(tmp_path / "out")]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and refused in err, err
    assert not out and not (tmp_path / "out").exists()


def test_the_api_keywords_are_checked_alike(stub_correction):
    en, text = fstpunct.load("en"), SAMPLE.read_text(encoding="utf-8")
    refused = [(lambda: en.restore(text, decoder="balanced", samples=5), "decoder"),
               (lambda: en.restore(text, mbr="slot"), "mbr"),
               (lambda: fstpunct.load(stub_correction).correct(text, seed=2), "seed"),
               (lambda: fstpunct.load(stub_correction).correct(text, edit_cost=1.0, samples=2),
                "edit_cost"),
               (lambda: en.rephrase(text, method="half", best_surface=True), "best_surface"),
               (lambda: en.draw_lattice(text, 4, 2, full=True, paths=3), "paths"),
               (lambda: en.draw_lattice(text, 4, 2, min_prob=0.1), "min_prob"),
               (lambda: en.decode(text, posteriors=2, format="text"), "posteriors"),
               (lambda: en.decode("we left", posteriors=2, text=True), "posteriors")]
    for call, option in refused:  # each names its own option first
        with pytest.raises(InputError, match=rf"^{option} \(--{option.replace('_', '-')}\)"):
            call()
    # what goes together still runs, the defaults spelled out giving the defaults' output
    assert en.restore(text, samples=3, mbr="sentence", seed=0) == en.restore(text, samples=3)
    assert en.restore(text, decoder="slot") == en.restore(text)
    assert "PunctPost=" in en.decode("we left", posteriors=2, text=True, format="conllu")
    # posteriors=None is not given, as for every other keyword (it was a TypeError)
    assert en.decode(text, posteriors=None) == en.decode(text)
    assert en.decode("we left", posteriors=None, text=True) == en.decode("we left", text=True)


def test_the_correction_library_checks_at_once(stub_correction):
    """corrected() itself refuses a sampling option without samples (it kept seed 0 and mbr
    "sentence" as defaults, so seed=3 was ignored), at the call, before any sentence."""
    model = CorrectionModel.load(stub_correction)
    with pytest.raises(InputError, match=r"^seed \(--seed\): only with samples"):
        corrected(iter(()), model, seed=3)
    with pytest.raises(InputError, match=r"^mbr \(--mbr\): only with samples"):
        corrected(iter(()), model, mbr_decoder="slot")
    with pytest.raises(InputError, match="^mbr must be one of"):
        corrected(iter(()), model, samples=2, mbr_decoder="")


def test_an_empty_name_is_not_the_default(stub_correction):
    """"" is refused as a decoder or MBR name, as before 'or' read it as the default."""
    en, text = fstpunct.load("en"), SAMPLE.read_text(encoding="utf-8")
    with pytest.raises(InputError, match="^decoder must be one of"):
        en.restore(text, decoder="")
    with pytest.raises(InputError, match="^mbr must be one of"):
        en.restore(text, samples=2, mbr="")
    with pytest.raises(InputError, match="^decoder must be one of"):
        fstpunct.load(stub_correction).correct(text, decoder="")
    with pytest.raises(InputError, match="^mbr must be one of"):
        fstpunct.load(stub_correction).correct(text, samples=2, mbr="")


def test_a_mix_weight_without_the_crf_package_is_named(monkeypatch):
    """Without python-crfsuite, text is restored unmixed: the warning names an explicit
    mix_weight, which is then unused."""
    monkeypatch.setattr("fstpunct.apps.restoration.crf.installed", lambda: False)
    en = fstpunct.load("en")
    with pytest.warns(UserWarning, match="mix_weight=0.3 is unused"):
        en.restorer(text=True, mix_weight=0.3)
    with pytest.warns(UserWarning) as said:
        en.restorer(text=True)
    assert "mix_weight" not in str(said[0].message)


@pytest.mark.parametrize("given, recorded", [(["--tree", "sample"], "tree=sample balance=yes"),
                                             (["--no-balance"], "tree=viterbi balance=no")])
def test_base_deleting_brackets_uses_the_models_tree_options(given, recorded, tmp_path):
    """base with --delete-parens finds the bracketed constituents on the model's T′, chosen
    by --tree and tilted by the balance: both are used (they were refused) and recorded."""
    out = tmp_path / "out.conllu"
    assert main(["rephrase", "--model", "en", "--method", "base", "--delete-parens", *given,
                 str(SAMPLE), "-o", str(out)]) == 0
    lines = [line for line in out.read_text(encoding="utf-8").splitlines()
             if line.startswith("# rephrase =")]
    assert lines and all(f"delete_parens=yes {recorded}" in line for line in lines)

