"""`fstpunct train`, `perplexity` and `decode` end to end on a tiny model."""
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import treebank

from fstpunct.apps.decode import MISC_KEYS
from fstpunct.cli.main import main
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model
from fstpunct.ud.treebank import read_conllu, read_file

DATA = Path(__file__).parent / "data"
SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """Two EM iterations on the project's sample plus the edge cases: seconds, not minutes."""
    folder = tmp_path_factory.mktemp("model") / "tiny"
    assert main(["train", "--train", str(SAMPLE), str(SAMPLE), str(DATA / "edge.conllu"),
                 "--grammar", "grammars/en.rules", "--iterations", "2", "--jobs", "1",
                 "-o", str(folder)]) == 0
    return folder


def _strip_annotation(text: str) -> str:
    text = re.sub(r"^# (underlying|punct_logprob) = .*\n", "", text, flags=re.MULTILINE)
    keys = "|".join(MISC_KEYS)
    text = re.sub(rf"\|?(?:{keys})=[^|\t\n]*", "", text)
    return re.sub(r"\t(?=\n)", "\t_", text)


def test_decode_keeps_every_line_and_adds_annotation(tiny_model, tmp_path):
    out = tmp_path / "out.conllu"
    assert main(["decode", "--model", str(tiny_model), str(DATA / "edge.conllu"),
                 "-o", str(out), "--posteriors", "3"]) == 0
    original = (DATA / "edge.conllu").read_text(encoding="utf-8")
    decoded = out.read_text(encoding="utf-8")
    assert _strip_annotation(decoded) == original
    sents = list(read_file(out))
    assert len(sents) == len(list(read_file(DATA / "edge.conllu")))
    for s in sents:
        assert any(c.startswith("# underlying = [∘") for c in s.comments)
        logp = [c for c in s.comments if c.startswith("# punct_logprob = ")]
        assert len(logp) == 1 and math.isfinite(float(logp[0].split("= ")[1]))
        for w in s.words:
            if not w.is_punct:
                assert "PunctL=" in w.misc and "PunctR=" in w.misc and "PunctPost=" in w.misc


def test_decode_reads_stdin_and_writes_stdout(tiny_model, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE.read_text(encoding="utf-8")))
    assert main(["decode", "--model", str(tiny_model)]) == 0
    out = capsys.readouterr().out
    assert len(list(read_conllu(io.StringIO(out)))) == 5
    assert "# underlying = [∘ [Dale" in out or "# underlying = [∘" in out


def test_decode_long_sentence_with_unseen_punctuation(tiny_model, tmp_path):
    n = 240
    lines = ["# sent_id = long", "# text = long"]
    k = 0
    for i in range(1, n + 1):
        k += 1
        head = 0 if i == 1 else i - 1
        lines.append(f"{k}\tw{i}\tw\tNOUN\tNN\t_\t{head}\t{'root' if i == 1 else 'conj'}\t_\t_")
        if i % 7 == 0:  # a comma, and now and then a mark the model never saw
            k += 1
            mark = "‽" if i % 21 == 0 else ","
            lines.append(f"{k}\t{mark}\t{mark}\tPUNCT\t,\t_\t{k - 1}\tpunct\t_\t_")
    # fix heads: words point to the previous word's line number
    fixed, word_line = [], {}
    for line in lines:
        if line.startswith("#"):
            fixed.append(line)
            continue
        f = line.split("\t")
        if f[3] == "NOUN":
            word_line[f[1]] = f[0]
            prev = f"w{int(f[1][1:]) - 1}"
            f[6] = word_line.get(prev, "0")
        fixed.append("\t".join(f))
    path = tmp_path / "long.conllu"
    path.write_text("\n".join(fixed) + "\n\n", encoding="utf-8")
    out = tmp_path / "long.out"
    assert main(["decode", "--model", str(tiny_model), str(path), "-o", str(out)]) == 0
    sent = next(read_file(out))
    logp = float([c for c in sent.comments if c.startswith("# punct_logprob")][0].split("= ")[1])
    assert math.isfinite(logp) and logp < 0
    assert len(sent.lines) == len(fixed) - 2


def test_perplexity_counts_every_slot(tiny_model, capsys):
    assert main(["perplexity", "--model", str(tiny_model), str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "sentences 5" in out and "slots 50" in out  # 45 words + 5 sentences
    ppl = float(out.split("perplexity ")[1])
    assert 1.0 < ppl < 10


def test_model_folder_round_trip(tiny_model, tmp_path):
    model = load_model(tiny_model)
    assert model.channel.direction == "rtl" and len(model.theta) == model.attach.size
    assert main(["perplexity", "--model", str(tmp_path / "missing"), str(SAMPLE)]) == 2


def test_decode_imports_only_what_it_needs(tmp_path):
    """The command line imports only the running command's module: decode never imports
    scipy, tqdm or graphviz (slow to import, and not needed), nor the readable tree DP (the
    tests' oracle) or numpy.ma, nor what only training or parallel jobs need (the M-step,
    L-BFGS, concurrent.futures, logging, the API's training and its grammar reader: the API's
    names load on first use)."""
    script = ("import sys; from fstpunct.cli.main import main; "
              f"main(['decode', '--model', 'en', {str(SAMPLE)!r}, '-o', {str(tmp_path / 'o')!r}]);"
              "print(sorted(({m.split('.')[0] for m in sys.modules}"
              " & {'scipy', 'tqdm', 'graphviz', 'concurrent', 'logging'}) | (set(sys.modules)"
              " & {'fstpunct.dp.treedp', 'numpy.ma', 'fstpunct.model.mstep',"
              " 'fstpunct.model.lbfgs', 'fstpunct.api.training', 'fstpunct.fst.grammar'})))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_decode_reads_one_split_by_name(capsys):
    """A standard split or a treebank split by name; a name of several files is an error."""
    for split in ("train", "dev", "test"):
        treebank("es", split)
    assert main(["decode", "--model", "es", "es:dev"]) == 0
    assert capsys.readouterr().out.count("# underlying = ") == 213
    assert main(["decode", "--model", "es", "es"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "names 3 files" in err[0]


def test_settings_are_recorded_and_old_models_load_without_them(tiny_model, tmp_path):
    """The model records the token cost and lexical contexts it was trained with (the CLI's
    defaults, the settings'); a model.json from before either existed loads with 0."""
    model = load_model(tiny_model)
    assert model.settings.token_cost == Settings.token_cost == 4.0
    assert model.settings.lexical == Settings.lexical == 500 and model.attach.lexical
    old = tmp_path / "old"
    shutil.copytree(tiny_model, old)
    meta = json.loads((old / "model.json").read_text(encoding="utf-8"))
    del meta["settings"]["token_cost"], meta["settings"]["lexical"]
    (old / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    assert load_model(old).settings.token_cost == load_model(old).settings.lexical == 0


def test_blas_threads_are_one_in_the_command_line_not_in_the_library():
    """The command line sets the BLAS thread counts to 1 where the environment does not set
    them (before numpy loads), keeps a value the environment sets, and ``import fstpunct``
    (with the model loaded) sets none."""
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    env = {k: v for k, v in os.environ.items() if k not in names}
    show = "import os; print([os.environ.get(k) for k in %r])" % (names,)

    def run(script: str, **extra: str) -> str:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True, env={**env, **extra}).stdout.strip()

    library = "import fstpunct; fstpunct.load('en'); import numpy; " + show
    assert run(library) == "[None, None, None]"
    cli = ("import sys, fstpunct.cli.main; assert 'numpy' not in sys.modules; import numpy; "
           + show)  # set before numpy loads
    assert run(cli) == "['1', '1', '1']"
    assert run(cli, OPENBLAS_NUM_THREADS="2") == "['2', '1', '1']"


def test_every_view_of_decodes_analysis_takes_its_exponential(tiny_model, tmp_path, monkeypatch):
    """decode, normalise, show and ``draw tree`` compute one analysis: the Attach softmax
    through the M-step's exponential (``libm=False``); perplexity's log p keeps libm's, and so
    does show's tab of what was learned (``rules``' pairs per relation)."""
    from fstpunct.apps import decode
    from fstpunct.apps.normalise import normalise
    from fstpunct.model import punct
    from fstpunct.show.report import write_report
    from fstpunct.show.sentence import sentence_views

    chosen = []

    def spy(theta, data, scores=None, libm=True):
        chosen.append(libm)
        return probabilities(theta, data, scores, libm)

    probabilities = punct.probabilities
    monkeypatch.setattr(punct, "probabilities", spy)
    model = load_model(tiny_model)
    runs = {"decode": lambda s: list(decode.annotate(model, s)),
            "decode --posteriors": lambda s: list(decode.annotate(model, s, posteriors=3)),
            "normalise": lambda s: list(normalise(model, s)),
            "show": lambda s: write_report(model, s, tmp_path / "show.html", "t"),
            "draw tree": lambda s: list(sentence_views(model, s, k=0)),
            "perplexity": lambda s: list(decode.scored(model, s))}
    for name, run in runs.items():
        chosen.clear()
        run(read_file(SAMPLE))
        assert chosen == ([False, True] if name == "show" else [name == "perplexity"]), name


def test_decodes_log_p_is_perplexitys_but_for_the_last_bits(tiny_model):
    """``# punct_logprob`` (decode's inside pass, the M-step's exponential) is within 1e-12 of
    :func:`scored`'s log p (perplexity and ``Model.log_prob``, libm's), and is what decode
    writes."""
    from fstpunct.apps.decode import annotate, chunk_inference, scored

    model = load_model(tiny_model)
    sentences = [*read_file(SAMPLE), *read_file(DATA / "edge.conllu")]
    decoded = [log_z for _, _, inference in chunk_inference(model, sentences, 3)
               for log_z in inference.viterbi_and_log_probs()[1].tolist()]
    libm = [log_p for log_p, _ in scored(model, sentences, 3)]
    assert len(decoded) == len(libm) == len(sentences)
    assert all(math.isfinite(a) for a in decoded)
    assert max(abs(a - b) for a, b in zip(decoded, libm)) <= 1e-12
    written = [s.comment("punct_logprob") for s in annotate(model, sentences, chunk=3)]
    assert written == [f"{a:.4f}" for a in decoded]
