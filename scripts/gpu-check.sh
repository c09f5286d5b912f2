#!/usr/bin/env bash
# On one CUDA GPU: install what training needs, then run the paper's SFT and GRPO (vLLM rollouts) on
# the embedded 1.5B for a few steps each, and print reward, render success and step time per step.
#   bash scripts/gpu-check.sh                 (about 8 minutes after the install on one H100/H200)
#   WHEELS=/path/to/wheels bash scripts/gpu-check.sh   (no internet: pip installs from that folder)
# Steps: SFT_STEPS (default 5) and GRPO_STEPS (default 3). Results go to runs/gpu-check/.
set -euo pipefail
cd "$(dirname "$0")/.."

out=runs/gpu-check
sft_steps=${SFT_STEPS:-5}
grpo_steps=${GRPO_STEPS:-3}

if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "gpu-check: no CUDA GPU is visible to python3's torch; run this on a GPU machine" >&2
  exit 2
fi

pip_source=()
[[ -n "${WHEELS:-}" ]] && pip_source=(--no-index --find-links "$WHEELS")
bash scripts/setup.sh
.venv/bin/python -m pip install -q "${pip_source[@]}" -e ".[gpu]"
manimgen=.venv/bin/manimgen
mkdir -p "$out"

# vLLM loads a Hugging Face folder, not a GGUF file: write the 1.5B's dequantised weights once.
if [[ ! -f "$out/base/config.json" ]]; then
  .venv/bin/python - "$out/base" <<'PY'
import sys

from manimgen.train.model import load_base

base = load_base("qwen2.5-coder-1.5b", four_bit=False)
base.model.save_pretrained(sys.argv[1])
base.tokenizer.save_pretrained(sys.argv[1])
PY
fi

started=$(date +%s)
"$manimgen" train sft --model "$out/base" --config configs/sft.yaml --max-steps "$sft_steps" --out "$out/sft"
"$manimgen" train grpo --adapter "$out/sft" --config configs/grpo.yaml --max-steps "$grpo_steps" --use-vllm --out "$out/grpo"
echo "gpu-check: SFT + GRPO took $(( $(date +%s) - started )) s"

.venv/bin/python - "$out" <<'PY'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
for stage, columns in (("sft", ("loss", "grad_norm")), ("grpo", ("reward", "manim/render_ok", "manim/visual", "manim/text", "kl", "step_time"))):
    print(f"{stage}: step " + " ".join(f"{name:>16}" for name in columns))
    for entry in json.loads((out / stage / "manimgen_run.json").read_text())["log_history"]:
        if "step" in entry and any(name in entry for name in columns):
            cells = " ".join(f"{entry[name]:>16.4g}" if name in entry else f"{'-':>16}" for name in columns)
            print(f"{stage}: {entry['step']:>4} {cells}")
PY
