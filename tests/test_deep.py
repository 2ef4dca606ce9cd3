"""Deep and long sentences: 10,000 words in a right-branching chain or flat under one head go
through decode, normalise, perplexity and restore without recursion and with finite scores;
no function of the package calls itself."""
import ast
import math
import re
from pathlib import Path

import pytest

from fstpunct.cli.main import main
from fstpunct.ud.treebank import read_file

N = 10_000
PKG = Path(__file__).parents[1] / "fstpunct"


def sentence(shape: str) -> str:
    """N tokens: words, a comma after every 7th token attached to the word before it, a full
    stop at the end on the root; words head the previous word (chain) or word 1 (flat)."""
    lines = [f"# sent_id = {shape}", "# text = long"]
    for i in range(1, N + 1):
        form, upos, rel, head = "w", "NOUN", "dep", 1
        if i == 1:
            rel, head = "root", 0
        elif i == N or i % 7 == 0:
            form, upos, rel, head = ("." if i == N else ","), "PUNCT", "punct", \
                (1 if i == N else i - 1)
        elif shape == "chain":
            head = i - 1 if (i - 1) % 7 else i - 2
        lines.append(f"{i}\t{form}\t{form}\t{upos}\t_\t_\t{head}\t{rel}\t_\t_")
    return "\n".join(lines) + "\n\n"


@pytest.fixture(scope="module", params=["chain", "flat"])
def deep(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("deep") / f"{request.param}.conllu"
    path.write_text(sentence(request.param), encoding="utf-8")
    return path


def words(path):
    return [w.form for s in read_file(path) for w in s.words if not w.is_punct]


def test_decode_and_normalise(deep, tmp_path, capsys):
    out = tmp_path / "out.conllu"
    assert main(["decode", "--model", "en", str(deep), "-o", str(out)]) == 0
    logprob = float(re.search(r"# punct_logprob = (\S+)", out.read_text()).group(1))
    assert math.isfinite(logprob) and logprob < 0
    assert main(["normalise", "--model", "en", str(deep), "-o", str(out)]) == 0
    assert words(out) == words(deep)


def test_perplexity_is_finite(deep, capsys):
    assert main(["perplexity", "--model", "en", str(deep)]) == 0
    line = capsys.readouterr().out
    assert f"slots {N - N // 7}" in line  # N − 1 − N // 7 words
    assert math.isfinite(float(re.search(r"log p (\S+)", line).group(1)))


def test_restore(deep, tmp_path):
    out = tmp_path / "out.conllu"
    assert main(["restore", "--model", "en", "--samples", "20", "--quiet", str(deep),
                 "-o", str(out)]) == 0
    assert words(out) == words(deep)


def recursive_functions(path: Path) -> list[str]:
    """Functions that call themselves: a function by its bare name, a method through
    ``self`` or ``cls`` (a bare name inside a method is a module-level function)."""
    found = []

    def visit(node: ast.AST, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for call in ast.walk(child):
                    if not isinstance(call, ast.Call):
                        continue
                    f = call.func
                    if (not in_class and isinstance(f, ast.Name) and f.id == child.name) or (
                            in_class and isinstance(f, ast.Attribute) and f.attr == child.name
                            and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")):
                        found.append(f"{path.name}:{child.lineno} {child.name}")
                        break
                visit(child, False)
            else:
                visit(child, in_class or isinstance(child, ast.ClassDef))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_no_function_calls_itself():
    assert [f for p in sorted(PKG.rglob("*.py")) for f in recursive_functions(p)] == []


def test_the_recursion_check_sees_recursion(tmp_path):
    src = tmp_path / "r.py"
    src.write_text("def f(n):\n    return f(n - 1)\n\nclass A:\n    def g(self):\n"
                   "        return self.g()\n\n    def h(self):\n        return h()\n")
    assert recursive_functions(src) == ["r.py:1 f", "r.py:5 g"]
