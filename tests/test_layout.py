"""The package's stages import only down the flow of data, and no module imports itself back."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).parents[1] / "fstpunct"
# The stages in the order data flows through them; a module may import its own stage or an
# earlier one. ``errors``, ``wording`` (counts in messages), ``files`` (opening inputs, writing
# outputs), ``progress``, ``batching`` (items a batch at a time) and ``parallel`` (pools of
# workers) are shared by all; ``api`` is the Python API (``fstpunct``'s top level re-exports it
# lazily).
STAGES = ["errors", "wording", "files", "progress", "batching", "parallel", "ud", "dp", "fst",
          "model", "parser", "apps", "show", "api", "cli"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The fstpunct modules that ``path`` imports (absolute dotted names)."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("fstpunct"):
                for alias in node.names:  # `from . import x` may name a module
                    sub = f"{target}.{alias.name}"
                    found.add(sub if _exists(sub) else target)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("fstpunct")}
    return found


def _exists(dotted: str) -> bool:
    path = PKG.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or path.with_suffix(".pyx").exists() or \
        (path / "__init__.py").exists()


def stage(dotted: str) -> int | None:
    parts = dotted.split(".")
    return STAGES.index(parts[1]) if len(parts) > 1 and parts[1] in STAGES else None


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def test_every_module_belongs_to_a_stage():
    loose = [m for m in MODULES if m != "fstpunct" and stage(m) is None]
    assert loose == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_flow(module):
    here = stage(module)
    if here is None:  # the public API
        return
    upward = sorted(t for t in imports(MODULES[module])
                    if t != "fstpunct" and (stage(t) or 0) > here)
    assert upward == [], f"{module} imports a later stage"


def test_no_import_cycles():
    graph = {m: {t for t in imports(p) if t in MODULES} for m, p in MODULES.items()}
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for start in graph:  # iterative depth-first search
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                cycle = [n for n, _ in stack][[n for n, _ in stack].index(child):]
                pytest.fail("import cycle: " + " -> ".join(cycle + [child]))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(graph[child]))))
