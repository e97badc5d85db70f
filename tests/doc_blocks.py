"""Fenced code blocks of a markdown file (README.md, the hub cards), for the tests that run every example shown.

A block that cannot run in the tests says why in a comment right above its fence::

    <!-- not run by tests: needs a published COMET checkpoint (tests/test_comet.py makes the same calls) -->
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

FENCE = re.compile(r"^```([\w-]*)\s*$")
SKIP = re.compile(r"<!--\s*not run by tests:\s*(.+?)\s*-->", re.S)
#: languages a block may have; only python and bash blocks are code a reader runs.
LANGUAGES = ("python", "bash", "yaml", "text", "bibtex", "")


class Block(NamedTuple):
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: str | None  # why the tests do not run it, or None


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path``, with the reason given in an HTML comment just above it (possibly spanning
    lines), if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, language = i, match.group(1)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        above = start - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        comment_end = above
        if above >= 0 and lines[above].rstrip().endswith("-->"):
            while above > 0 and "<!--" not in lines[above]:
                above -= 1
            skip = SKIP.search("\n".join(lines[above : comment_end + 1]))
        else:
            skip = None
        blocks.append(Block(start + 1, language, "\n".join(lines[start + 1 : end]), skip.group(1) if skip else None))
        i = end + 1
    return blocks


def doctest_source(code: str) -> str:
    """The python source of a doctest-style block (``>>>`` and ``...`` lines), or ``code`` itself."""
    if not code.lstrip().startswith(">>>"):
        return code
    return "\n".join(line.strip()[4:] for line in code.splitlines() if line.strip()[:4] in (">>> ", "... ")
                     or line.strip() in (">>>", "..."))


def bound_names(code: str) -> set[str]:
    """Names a python block binds at its top level (assignments, imports, definitions, loop and with targets)."""
    import ast

    bound: set[str] = set()
    for node in ast.walk(ast.parse(doctest_source(code))):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def undefined_names(code: str, language: str, known: set[str] = frozenset()) -> set[str]:
    """Names a block reads that it (or ``known``, what earlier blocks bound) never defines: python names beyond the
    builtins, bash ``$VARIABLES`` beyond the usual environment."""
    import ast
    import builtins

    if language == "bash":
        assigned = set(re.findall(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=", code, re.M))
        assigned |= set(re.findall(r"(?:^|\s)([A-Za-z_]\w*)=\S", code))  # VAR=value command
        used = set(re.findall(r"\$\{?([A-Za-z_]\w*)", code))
        return used - assigned - set(known) - {"HOME", "PATH", "PWD", "USER"}
    bound = bound_names(code) | set(known) | set(dir(builtins))
    tree = ast.parse(doctest_source(code))
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)} - bound
