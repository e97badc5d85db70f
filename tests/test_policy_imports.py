"""Policy test (issue 33.5): no import circle among nlgmetrics modules, and every module imports.

The graph is built with ``ast`` from the source files and counts EVERY import of an nlgmetrics module, those inside
functions too: a lazy import only hides a circle from the interpreter at import time, while the two modules still
cannot be understood, tested or moved one without the other (the circles issue 33 names were both lazy on one
side). ``from package import name`` counts as importing ``package.name`` when that is a module, else ``package``.
A module imports its own package's ``__init__`` implicitly; that edge is not drawn (it is not a choice the code
makes). Known circles still to cut are listed in :data:`KNOWN_CIRCLES` with the reason; the test fails for any
other circle, and also when a listed one is gone (so the list cannot go stale).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from conftest import REPO
from nlgmetrics.errors import MissingExtraError

PACKAGE = REPO / "nlgmetrics"

#: circles not cut yet -> why (each as the sorted tuple of its modules)
KNOWN_CIRCLES: dict[tuple[str, ...], str] = {}  # none left: rouge <-> rouge155 was the last (now rouge -> rouge155 -> rouge_core)


def module_names() -> dict[str, Path]:
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


MODULES = module_names()


def imports_of(name: str, path: Path) -> set[str]:
    """The nlgmetrics modules ``name`` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # import a.b.c where c is a name: the module a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    return {name: imports_of(name, path) for name, path in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components with more than one module (Tarjan), each as a sorted tuple."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for child in graph.get(node, ()):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(tuple(sorted(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _drop_package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Without ``package -> its own submodule`` re-exports' reverse edges: a submodule importing its package's
    ``__init__`` while the ``__init__`` imports the submodule is Python's package mechanism, not a design circle."""
    return {name: {t for t in targets if not (name.startswith(t + ".") and name in graph.get(t, ()))}
            for name, targets in graph.items()}


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "nlgmetrics.lexical.rouge155" in graph["nlgmetrics.lexical.rouge"]  # a lazy import, counted
    assert "nlgmetrics.semantic.bertscore" in graph["nlgmetrics.semantic.baselines"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [("a", "b", "c")]


def test_no_import_circle_among_nlgmetrics_modules():
    found = circles(_drop_package_edges(import_graph()))
    new = [circle for circle in found if circle not in KNOWN_CIRCLES]
    assert not new, f"import circles (move the shared code into a module both can import): {new}"
    gone = [circle for circle in KNOWN_CIRCLES if circle not in found]
    assert not gone, f"cut: remove them from KNOWN_CIRCLES: {gone}"


def test_the_cut_modules_keep_their_public_names():
    from nlgmetrics.semantic import baseline_files, baselines

    for name in ("DATA_DIR", "baseline_candidates", "baseline_target", "check_lang", "default_baseline_path",
                 "find_baseline", "read_baseline", "write_baseline"):
        assert getattr(baselines, name) is getattr(baseline_files, name), name
    assert callable(baselines.compute_baseline)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_imports(name):
    if name.endswith("__main__"):
        pytest.skip("runs the command line when imported")
    pytest.importorskip("torch")
    try:
        importlib.import_module(name)
    except MissingExtraError as exc:  # an optional framework (lighteval, ray, ...) not installed here
        pytest.skip(str(exc))
