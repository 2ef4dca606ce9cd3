"""The HTML viewer: one self-contained page (no network), its data, and — in headless Chromium
(skipped only where no Chromium is installed) — that it renders every sentence of the sample
without a script error, answers a click with a word's pairs, and opens the learned tab."""
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fstpunct.cli.main import main
from fstpunct.model.store import BUNDLED, load_model
from fstpunct.show.report import write_report
from fstpunct.ud.treebank import read_conllu

SAMPLE = Path(__file__).parent.parent / "data" / "sample.conllu"
ARABIC = Path(__file__).parent / "data" / "arabic.conllu"
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("viewer") / "sample.html"
    assert main(["show", str(SAMPLE), "--model", "en", "-o", str(path)]) == 0
    return path


def data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="fp-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_page_is_self_contained(page):
    html = page.read_text(encoding="utf-8")
    assert not re.search(r'\b(src|href)=', html)  # nothing loaded from anywhere
    assert set(re.findall(r"https?://[^\s\"'<>\\]+", html)) <= {"http://www.w3.org/2000/svg"}
    records = data(html)["sentences"]
    assert [r["id"] for r in records] == [f"sample-{k}" for k in range(1, 6)]
    first = records[0]
    assert len(first["w"]) == 8 and len(first["s"]) == 9 and len(first["k"]) == 8
    assert all(1 <= len(node) <= 5 for node in first["k"])
    assert first["s"][8][0] == [".", "”"] and any(m[1] == "transposed" for m in first["s"][8][1])
    assert "What the channel learned" in html and "Most probable (l, r) pairs" in html


def test_right_to_left_and_escaping(tmp_path):
    text = ARABIC.read_text(encoding="utf-8").replace("نعم", "</script>نعم")
    sent = next(read_conllu(text.splitlines(keepends=True)))
    out = tmp_path / "ar.html"
    assert write_report(load_model("ar"), [sent], out, "ar") == 1
    html = out.read_text(encoding="utf-8")
    assert html.count("</script>") == 3  # the error catcher, the data and the script
    record = data(html)["sentences"][0]
    assert record["rtl"] == 1 and "</script>" in record["t"]


def test_bad_input_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tword\n\n", encoding="utf-8")
    out = tmp_path / "out.html"
    assert main(["show", str(bad), "-o", str(out)]) == 2
    assert not out.exists() and len(capsys.readouterr().err.strip().splitlines()) == 1


def chromium(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *FLAGS, *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed")
def test_renders_in_chromium(page, tmp_path):
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    run = chromium(*profile, "--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert 'data-errors' not in dom and "Uncaught" not in run.stderr, run.stderr[-2000:]
    assert 'data-rendered="5"' in dom and dom.count('class="fp-tree"') == 5
    assert "sample-3" in dom and "5 sentences" in dom
    clicked = chromium(*profile, "--dump-dom", page.as_uri() + "#2").stdout
    assert "most probable underlying (l, r) pairs" in clicked and "Dale" in clicked
    learned = chromium(*profile, "--dump-dom", page.as_uri() + "#learned").stdout
    assert re.search(r'<div class="tab" id="tab-sentences" hidden', learned)
    shot = tmp_path / "shot.png"
    run = chromium(*profile, f"--screenshot={shot}", "--window-size=1280,900", page.as_uri())
    assert shot.stat().st_size > 20_000 and shot.read_bytes()[:4] == b"\x89PNG"




@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed")
def test_a_long_right_to_left_sentence_opens_at_its_first_words(tmp_path):
    """A right-to-left picture wider than the page opened scrolled to the left: the end of the
    sentence showed and its first words were off the page."""
    words = "".join(f"{k}\tكلمة\t_\tNOUN\t_\t_\t{k - 1}\t{'dep' if k > 1 else 'root'}\t_\t_\n"
                    for k in range(1, 41))
    out = tmp_path / "ar.html"
    assert write_report(load_model("ar"), read_conllu(io.StringIO(words + "\n")), out, "ar") == 1
    run = chromium("--user-data-dir=" + str(tmp_path / "profile"), "--window-size=900,700",
                   "--dump-dom", out.as_uri())
    assert 'data-rendered="1"' in run.stdout, run.stderr[-2000:]
    assert 'data-rtl-at-start="1"' in run.stdout


def test_rule_bars_against_the_grammar():
    from fstpunct.apps.rules import rule_bars
    from fstpunct.fst.grammar import load_grammar
    from fstpunct.model.store import load_edit_counts

    grammar = load_grammar(Path(__file__).parent.parent / "grammars" / "en.rules")
    model = load_model("en")
    bars, left = rule_bars(model.channel, load_edit_counts("en"), grammar)
    assert bars and len(bars) + left == len(grammar.rules)
    assert [b.count for b in bars] == sorted((b.count for b in bars), reverse=True)
    assert all(b.count >= 25 for b in bars)
    mass = {(r.a, r.b): r.mass for r in grammar.rules}
    for b in bars:
        assert sum(b.learned) == pytest.approx(1) and sum(b.initial) == pytest.approx(1)
        e = ("KEEP", "LEFT", "RIGHT", "SWAP").index(b.edit)
        assert b.initial[e] == pytest.approx(mass[b.a, b.b])  # the rule's initial mass
    assert ("”", ".") in {(b.a, b.b) for b in bars}  # quote transposition, seen often
    every, _ = rule_bars(model.channel, None, grammar)
    assert len(every) >= len(bars)


def test_api_show(tmp_path):
    import fstpunct

    out = tmp_path / "page.html"
    text = SAMPLE.read_text(encoding="utf-8")
    assert fstpunct.load("en").show(text, out, pairs=2, page_size=2) == 5
    page = data(out.read_text(encoding="utf-8"))
    assert page["pageSize"] == 2 and all(len(n) <= 2 for r in page["sentences"] for n in r["k"])


def test_model_of_the_default_grammar(tmp_path):
    """A model trained from the default grammar (bundled de; model.json records the grammar's
    lines) shows its learned rules against that grammar."""
    from fstpunct.fst.default_grammar import model_grammar
    from fstpunct.fst.grammar import parse_grammar
    from fstpunct.model.store import read_record

    lines = read_record("de")["record"]["default_grammar"]
    assert model_grammar({"default_grammar": lines}).rules == \
        parse_grammar("\n".join(lines)).rules
    out = tmp_path / "de.html"
    assert main(["show", str(SAMPLE), "--model", "de", "-o", str(out)]) == 0
    assert "The rules of <code>default grammar</code>" in out.read_text(encoding="utf-8")


def test_model_whose_record_is_not_an_object(tmp_path):
    """A model.json whose record is a string (a correction model's learner records the folder
    it came from) has no grammar to compare with: the page says so, no traceback."""
    folder = tmp_path / "m"
    shutil.copytree(BUNDLED / "en", folder,
                    ignore=shutil.ignore_patterns("tagger*", "parser*", "text", "order.*"))
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    meta["record"] = "models/esl-learner"
    (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    out = tmp_path / "page.html"
    assert main(["show", str(SAMPLE), "--model", str(folder), "-o", str(out)]) == 0
    assert "No grammar to compare with" in out.read_text(encoding="utf-8")
