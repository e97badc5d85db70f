"""A separate virtualenv for reference implementations whose pins clash with ours (unbabel-comet pins numpy < 2 and
transformers < 5; bleurt-pytorch comes with it), used as test oracles only.

The venv is built once per requirement set, outside the checkout (``$NLGMETRICS_ORACLE_HOME``, default
``~/.cache/nlgmetrics/oracle-venvs``), under a lock so parallel test processes build it once; a stamp file marks a
finished build, so an interrupted build is redone. torch is the CPU wheel on disk (``torch==2.13.0``) so no CUDA build is
pulled; when this environment already holds that same torch build (the test venv does), its files are hard-linked into
the oracle venv (copied across filesystems) instead of unpacking and byte-compiling the ~750 MB wheel again, and pip then
finds torch installed and adds only its dependencies. Tests run scripts in it with :func:`run_oracle`, which returns the
JSON the script prints on its last line.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

#: unbabel-comet 2.2.7 resolves with these (numpy 1.26, transformers 4.57, torchmetrics 0.10.3). torchmetrics 0.10.3
#: imports pkg_resources, hence setuptools < 70, which torch 2.13's metadata refuses (>= 77.0.3): a requirement
#: prefixed with "nodeps:" is installed last, alone, without dependency resolution (torch only warns at import).
COMET_ORACLE = ("torch==2.13.0", "unbabel-comet==2.2.7", "bleurt-pytorch==0.0.1", "nodeps:setuptools<70")
#: mbrs (MBR decoding; it pins unbabel-comet >= 2.2.6 itself) with fastchrf, its Rust chrF: tests/mbr_oracles.py.
MBRS_ORACLE = ("torch==2.13.0", "unbabel-comet==2.2.7", "mbrs==0.1.8", "fastchrf==0.2.1", "nodeps:setuptools<70")


def oracle_home() -> Path:
    return Path(os.environ.get("NLGMETRICS_ORACLE_HOME", Path.home() / ".cache" / "nlgmetrics" / "oracle-venvs"))


def _link_installed(requirement: str, folder: Path) -> bool:
    """Hard-link (or copy) this environment's installed ``name==version`` distribution, every file its RECORD lists,
    into the venv at ``folder``, when it is that exact version (a local ``+cpu`` tag allowed) for this same Python.
    Console scripts get the oracle's python in their ``#!`` line. False (nothing done) when it is not installed here."""
    name, _, version = requirement.partition("==")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    if not version or dist.version.split("+")[0] != version or dist.version not in (version, f"{version}+cpu"):
        return False
    source = Path(dist.locate_file("")).resolve()
    site = Path(sysconfig.get_path("platlib", "venv", vars={"base": str(folder), "platbase": str(folder)})).resolve()
    if not (site.is_dir() and source.name == site.name and dist.files):
        return False
    for entry in dist.files:
        src, dst = source / entry, (site / entry).resolve()
        if not src.is_file():
            continue  # listed but absent (a .pyc never written)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.parent.name == "bin" and not dst.is_relative_to(site):  # a console script: its #! names our python
            lines = src.read_bytes().split(b"\n", 1)
            if lines[0].startswith(b"#!"):
                lines[0] = b"#!" + str(folder / "bin" / "python").encode()
            dst.write_bytes(b"\n".join(lines))
            dst.chmod(src.stat().st_mode)
            continue
        try:
            os.link(src, dst)
        except OSError:  # another filesystem, or links not allowed
            shutil.copy2(src, dst)
    return True


def bytecode_env(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` with compiled bytecode cached under :func:`oracle_home` (``pycache/``, a mirror tree):
    the venvs are built with ``--no-compile`` and, where ``PYTHONDONTWRITEBYTECODE`` is set, nothing would ever
    write their ``.pyc``, so every script run recompiled the ~5k modules it imports from source (measured: ~27 of
    the Inspect script's 60 CPU seconds). The cache is outside the checkout and the venvs, so this writes nothing
    there; a source file's change invalidates its entry as usual."""
    environment = {k: v for k, v in environment.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(oracle_home() / "pycache")
    return environment


def oracle_python(requirements: tuple[str, ...] = COMET_ORACLE) -> Path:
    """The python of a venv holding ``requirements`` (built on first use; later calls return at once)."""
    key = hashlib.sha256("\n".join((sys.version, *requirements)).encode()).hexdigest()[:12]
    folder = oracle_home() / key
    python, stamp = folder / "bin" / "python", folder / ".complete"
    if stamp.exists():
        return python
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
            # --no-compile: no .pyc for the ~10k installed files; the oracle scripts compile the few they import, once
            pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile"]
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_CONSTRAINT")}
            _link_installed("torch==2.13.0", folder)  # then the pip step below only adds torch's dependencies
            # torch first, alone, so the resolver finds the CPU wheel already installed
            resolved = [r for r in requirements if not r.startswith("nodeps:")]
            alone = [["--no-deps", r.removeprefix("nodeps:")] for r in requirements if r.startswith("nodeps:")]
            for step in (["torch==2.13.0"], resolved, *alone):
                done = subprocess.run(pip + step, env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise RuntimeError(f"building the oracle venv {folder} failed at {step}:\n{done.stderr[-3000:]}")
            (folder / "requirements.txt").write_text("\n".join(requirements) + "\n")
            stamp.touch()
    return python


def run_oracle(script: str, *args: str, requirements: tuple[str, ...] = COMET_ORACLE, timeout: int = 900,
               env: dict[str, str] | None = None) -> object:
    """Run ``script`` (Python source) in the oracle venv with ``args`` (our environment, offline, plus ``env``);
    the JSON on its last stdout line."""
    python = oracle_python(requirements)
    environment = bytecode_env({k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    # one thread: the oracles run tiny models, where a second thread only spins (the COMET oracle: 27 CPU s with
    # two threads, 15 with one, the same scores to the last bit)
    environment.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1",
                        "TOKENIZERS_PARALLELISM": "false", **(env or {})})
    done = subprocess.run([str(python), "-c", script, *args], env=environment, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"oracle script failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
