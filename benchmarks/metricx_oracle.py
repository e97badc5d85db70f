"""Record google-research/metricx's own MetricX-24 outputs on a small checkpoint built by the tests, as the parity
fixture ``tests/data/metricx_oracle.json`` (the metricx repository cannot be installed from PyPI and is never part of
nlgmetrics; this script only runs a checkout you fetched yourself).

1. Builds the checkpoint deterministically with ``tests/learned_checkpoints.py: build_metricx(seed=0)`` (mT5 layout,
   250,112-row vocabulary, seeded weights, a SentencePiece tokenizer trained on WMT17 text) and hashes it.
2. Writes the cases (WMT17 en-de reference and uedin-nmt output, English WMT17 sentences in the source slot, empty
   sources, QE, an empty hypothesis and an input past 1,536 tokens) as metricx's JSONL input.
3. Runs ``python -m metricx24.predict --tokenizer CKPT --model_name_or_path CKPT --max_input_length 1536
   --batch_size 1 --input_file IN --output_file OUT [--qe]`` (metricx's README command) from the checkout, in a venv
   with transformers 4.57.6, datasets 3.6.0 and accelerate (tests/oracle_venv.py builds it).
4. Stores the texts, metricx's predictions, the checkpoint hash, the metricx commit and the command.

Run: ``python -m benchmarks.metricx_oracle --metricx PATH_TO_CHECKOUT [--commit SHA] [--out tests/data/metricx_oracle.json]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from learned_checkpoints import build_metricx, folder_hash, wmt17_lines  # noqa: E402
from oracle_venv import oracle_python  # noqa: E402

REQUIREMENTS = ("torch==2.13.0", "transformers==4.57.6", "datasets==3.6.0", "sentencepiece==0.2.3",
                "accelerate==1.10.1", "protobuf<5")


def cases() -> list[dict]:
    """The examples: (mode, source, hypothesis, reference)."""
    refs, hyps = wmt17_lines()[:30], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:30]
    english = json.loads((ROOT / "tests" / "data" / "wmt17_deen_150.json").read_text(encoding="utf-8"))["references"]
    out = [{"mode": "ref", "source": s, "hypothesis": h, "reference": r} for s, h, r in zip(english, hyps, refs)]
    out += [{"mode": "ref", "source": "", "hypothesis": h, "reference": r} for h, r in zip(hyps[:10], refs[10:20])]
    out += [{"mode": "qe", "source": s, "hypothesis": h, "reference": ""} for s, h in zip(english[30:45], hyps[15:])]
    long = " ".join(wmt17_lines()[100:220])  # well past 1,536 tokens: truncated
    out += [{"mode": "ref", "source": english[50], "hypothesis": "", "reference": refs[0]},
            {"mode": "ref", "source": english[51], "hypothesis": long, "reference": refs[1]},
            {"mode": "qe", "source": long, "hypothesis": hyps[2], "reference": ""}]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metricx", type=Path, required=True, help="a checkout of google-research/metricx")
    parser.add_argument("--commit", default=None, help="its commit (read with git when the checkout is a clone)")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "metricx_oracle.json")
    args = parser.parse_args()
    commit = args.commit or subprocess.run(["git", "-C", str(args.metricx), "rev-parse", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
    python = oracle_python(REQUIREMENTS)
    examples = cases()
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_metricx(Path(tmp) / "ckpt", seed=0)
        for mode in ("ref", "qe"):
            rows = [e for e in examples if e["mode"] == mode]
            src, dst = Path(tmp) / f"{mode}.jsonl", Path(tmp) / f"{mode}.out.jsonl"
            src.write_text("".join(json.dumps({k: e[k] for k in ("source", "hypothesis", "reference")}) + "\n"
                                   for e in rows))
            command = ["-m", "metricx24.predict", "--tokenizer", str(folder), "--model_name_or_path", str(folder),
                       "--max_input_length", "1536", "--batch_size", "1", "--input_file", str(src),
                       "--output_file", str(dst)] + (["--qe"] if mode == "qe" else [])
            env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                   "OMP_NUM_THREADS": "2", "PATH": "/usr/bin:/bin", "HOME": tmp, "CUDA_VISIBLE_DEVICES": "",
                   "TOKENIZERS_PARALLELISM": "false"}
            subprocess.run([str(python), *command], cwd=args.metricx, env=env, check=True)
            for e, line in zip(rows, dst.read_text().splitlines()):
                e["prediction"] = json.loads(line)["prediction"]
        record = {
            "what": "google-research/metricx's metricx24 predictions on the checkpoint tests/learned_checkpoints.py "
                    "build_metricx(seed=0) builds (its files' sha256 below); WMT17 en-de reference and uedin-nmt "
                    "output from tests/data/wmt17_ende, English WMT17 sentences (tests/data/wmt17_deen_150.json) "
                    "in the source slot",
            "metricx_commit": commit,
            "command": "python -m metricx24.predict --tokenizer CKPT --model_name_or_path CKPT --max_input_length "
                       "1536 --batch_size 1 --input_file IN --output_file OUT [--qe]; environment: "
                       + ", ".join(REQUIREMENTS) + "; generated by python -m benchmarks.metricx_oracle",
            "checkpoint_sha256": folder_hash(folder),
            "cases": examples,
        }
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(examples)} cases, checkpoint {record['checkpoint_sha256'][:12]}")


if __name__ == "__main__":
    main()
