"""Policy (issue 42.5): no test and no doctest reads or expects a path outside the checkout, its temporary folders and
the caches it builds, so ``make test`` passes in a fresh clone on any machine (the bleurt/comet doctests expected what
``/no/such/checkpoint`` gives only where no such folder exists).

It finds absolute paths (``/a/b``, ``~/a``) in what runs: the string literals of tests/*.py (docstrings included), the
examples of the module docstrings that are not skipped (HF's test_load runs them), and the blocks of the hub cards and
the README that the tests run. Each one found is an error unless :data:`ALLOWED` names it with its reason; a test that
needs a missing or absolute path takes one inside its own temporary folder (``tmp_path / ...``) or a relative one (the
tests run from the checkout's root).
"""

from __future__ import annotations

import ast
import functools
import doctest
import io
import re
import tokenize
from pathlib import Path

import pytest
from conftest import REPO
from doc_blocks import fenced_blocks

#: an absolute path of at least two parts, or a home path, where a path starts (not inside a URL or a longer path)
PATH = re.compile(r"(?:^|(?<=[\s'\"=(\[,`:]))(~/[\w.-]+(?:/[\w.*-]+)*|/[\w.-]+(?:/[\w.*-]+)+)")
#: (file, path) -> why it may stay
ALLOWED: dict[tuple[str, str], str] = {
    ("tests/judge_servers.py", "/chat/completions"): "an HTTP route of the loopback judge server, not a file",
    ("tests/test_agree_memory.py", "/proc/self/status"): "the kernel's view of this process (VmSize), skipped "
                                                          "where it does not exist",
    ("tests/test_policy.py", "/proc/self/statm"): "the kernel's view of this process (its memory, to set a limit), "
                                                  "skipped where it does not exist",
    ("tests/test_embed_cache_safety.py", "/dev/zero"): "an endless device file the cache must refuse, skipped where "
                                                        "it does not exist",
    ("tests/test_install_lines.py", "/etc/ssl/certs/ca-certificates.crt"): "the machine's CA bundle, handed to pip "
                                                                           "only where it exists (a proxy)",
    ("tests/test_comet.py", "/path/to/xlm-roberta-large"): "the placeholder the error's advice shows, not a path read",
    ("tests/test_locate.py", "~/no-such-nlgmetrics-folder"): "HOME is the test's temporary folder there",
    ("tests/oracle_venv.py", "~/.cache/nlgmetrics/oracle-venvs"): "the oracle venvs the tests build (a cache)",
    ("tests/framework_venv.py", "~/.cache"): "the frameworks venv the tests build (a cache)",
    ("tests/judge_servers.py", "/v1/chat/completions"): "an HTTP route of the loopback judge server, not a file",
}


def _test_literals(path: Path) -> list[str]:
    """Every string literal of a Python file (docstrings and f-strings included; comments are not code)."""
    out = []
    with open(path, encoding="utf-8") as handle:
        for token in tokenize.generate_tokens(handle.readline):
            if token.type == tokenize.STRING:
                out.append(token.string)
            elif token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                out.append(token.string)
    return out


def _module_examples(path: Path) -> list[str]:
    """The source and expected output of every docstring example of a module script that is not skipped."""
    parser, out = doctest.DocTestParser(), []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value:
            for example in parser.get_examples(node.value):
                if not example.options.get(doctest.SKIP):
                    out += [example.source, example.want]
    return out


def _run_blocks(path: Path) -> list[str]:
    return [block.code for block in fenced_blocks(path) if block.skip is None and block.language in ("python", "bash")]


def sources() -> dict[str, list[str]]:
    """``{file: [texts that run]}`` of the tests, the module scripts' examples, the cards' and README's run blocks."""
    out = {}
    for path in sorted((REPO / "tests").glob("*.py")):
        if path.name != Path(__file__).name:  # this file's literals are the patterns it looks for
            out[str(path.relative_to(REPO))] = _test_literals(path)
    for path in sorted((REPO / "metrics").glob("*/*.py")):
        if path.stem == path.parent.name:
            out[str(path.relative_to(REPO))] = _module_examples(path)
    for path in [*sorted((REPO / "hub_cards").glob("*/README.md")), REPO / "README.md"]:
        out[str(path.relative_to(REPO))] = _run_blocks(path)
    return out


@functools.cache
def found_paths() -> list[tuple[str, str]]:
    return sorted({(name, match.group(1)) for name, texts in sources().items() for text in texts
                   for match in PATH.finditer(text)})


def test_no_test_or_doctest_names_a_path_outside_the_checkout():
    outside = [(name, path) for name, path in found_paths() if (name, path) not in ALLOWED]
    assert not outside, ("paths outside the checkout, its temporary folders and caches (use tmp_path / ... or a "
                         f"relative path; or say why in ALLOWED): {outside}")


def test_every_allowed_path_is_still_there():
    """The exceptions are checked too: one whose path left its file is taken off the list."""
    assert set(ALLOWED) <= set(found_paths())


@pytest.mark.parametrize("text, found", [
    ('evaluate.load("./metrics/bleurt", "/no/such/checkpoint")', ["/no/such/checkpoint"]),
    ("CheckpointError: bleurt: checkpoint /no/such/checkpoint is not", ["/no/such/checkpoint"]),
    ("model=~/models/x", ["~/models/x"]),
    ('open(folder + "/tokenizer.json")', []),  # a part joined to another path
    ("http://127.0.0.1:8000/v1/chat", []),  # a URL
    ("tests/data/wmt17_ende", []),  # relative: inside the checkout
    ("a / b / c", []),
])
def test_the_pattern_finds_absolute_paths_only(text, found):
    assert [m.group(1) for m in PATH.finditer(text)] == found


def test_literals_are_read_from_tokens_not_comments():
    source = 'x = "/etc/passwd"  # "/in/a/comment"\ny = f"{x}/a/b"\n'
    literals = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            literals.append(token.string)
    assert [m.group(1) for text in literals for m in PATH.finditer(text)] == ["/etc/passwd"]
