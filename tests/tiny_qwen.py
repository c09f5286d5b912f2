"""A test-sized, randomly initialised Qwen2 model with the real Qwen2.5 tokenizer (read from the
embedded 0.5B GGUF), so training tests see the real chat template and token boundaries; and a
ManimBench folder made of the built-in tasks, so they read real splits without the dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

from manimgen.data import BUILTIN_TASKS
from manimgen.data.manimbench import is_validation
from manimgen.llm import MissingWeightsError, ensure_gguf

TINY_SHAPE = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
}
"""Two layers of width 64: enough for a real forward, backward and save, in seconds on a CPU."""


def save_tiny_qwen(folder: Path) -> Path:
    """Two layers of width 64 over the full 151k vocabulary; skips the test without the GGUF packages."""
    try:
        gguf = ensure_gguf("qwen2.5-coder-0.5b", progress=False)
    except MissingWeightsError as error:
        pytest.skip(str(error))
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        **TINY_SHAPE,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def manimbench_folder(folder: Path) -> Path:
    """ManimBench v2 rows made from the built-in tasks: three train rows and one validation row."""
    train_rows = [row for row in range(100) if not is_validation(f"mb{row:03d}")][:3]
    validation_row = next(row for row in range(100) if is_validation(f"mb{row:03d}"))
    lines = [
        {"row": row, "Reviewed Description": task.description, "Code": task.reference_code, "Type": task.complexity, "Split": "train"}
        for row, task in zip([*train_rows, validation_row], BUILTIN_TASKS)
    ]
    folder.mkdir()
    (folder / "manimbench_v2.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder
