"""The model a run trains: loaded through the `transformers` provider, so registry names, GGUF
files, folders and hub ids resolve exactly as they do for inference.

A GGUF base (our embedded models) is loaded dequantised; transformers still marks it as GGUF
"quantised", which the Trainer refuses to train, so that marker is removed: the weights in memory
are plain float tensors. 4-bit QLoRA needs CUDA and bitsandbytes and a non-GGUF base (transformers
cannot combine a GGUF file with bitsandbytes); elsewhere the LoRA trains on the full-precision base.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manimgen.llm import MODELS, LLMError, load_model, parse_spec, tuned_base
from manimgen.llm.transformers import TransformersLLM

RUN_RECORD = "manimgen_run.json"


@dataclass
class LoadedBase:
    """A causal LM ready for PEFT, its tokenizer, and the name a run records for reloading."""

    model: Any
    tokenizer: Any
    base: str


def training_target(model: str) -> str:
    """The `hf:` target of a registry name, `hf:`/`gguf:` spec, folder, file or hub id."""
    text = model.strip()
    if not text:
        raise LLMError("no model given: use a registry name (e.g. qwen2.5-coder-0.5b) or hf:PATH")
    spec = parse_spec(text, bare_is_hf=True)
    if spec.provider in ("openai", "python"):
        kind = "a server model" if spec.provider == "openai" else "a Python provider"
        raise LLMError(f"cannot train {text!r}: {kind} has no weights here; use a registry name or hf:PATH")
    if spec.adapter:
        raise LLMError(f"train from a base model, not {text!r}: GRPO continues an adapter with --adapter DIR")
    if (base := tuned_base(spec.target)) is not None:
        raise LLMError(f"train from a base model, not {text!r}: its adapter is llama.cpp's; train {base}")
    return spec.target


def is_gguf(target: str) -> bool:
    return target in MODELS or target.endswith(".gguf")


def world_size() -> int:
    """Processes of this run as the launcher (accelerate/torchrun) sets them; 1 when run directly."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def process_device() -> str:
    """This process's device: its own GPU under a multi-GPU launch, else the CPU."""
    import torch

    return f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}" if torch.cuda.is_available() else "cpu"


def four_bit_available() -> bool:
    import torch

    return torch.cuda.is_available() and importlib.util.find_spec("bitsandbytes") is not None


def load_base(model: str, *, four_bit: bool | str = "auto", device: str | None = None) -> LoadedBase:
    """Load the base model and tokenizer for training; `four_bit="auto"` means QLoRA where possible."""
    target = training_target(model)
    wanted = four_bit_available() and not is_gguf(target) if four_bit == "auto" else bool(four_bit)
    if wanted and is_gguf(target):
        raise LLMError(f"4-bit loading of a GGUF base ({target}) is not supported; set four_bit: false")
    llm = load_model(f"hf:{target}", progress=True, load_in_4bit=wanted, device=device)
    if not isinstance(llm, TransformersLLM):
        raise LLMError(f"{target!r} did not load as a transformers model; use a registry name or hf:PATH")
    model_object = llm.model
    quantizer = getattr(model_object, "hf_quantizer", None)
    if quantizer is not None and getattr(quantizer.quantization_config, "quant_method", None) == "gguf":
        quantizer.remove_quantization_config(model_object)
    return LoadedBase(model_object, llm.tokenizer, target)


def base_for(model: str | None, adapter: str | Path | None) -> str:
    """The base to load: the given model, else the one the adapter's run recorded."""
    if model:
        return model
    recorded = recorded_base(adapter) if adapter else None
    if recorded is None:
        raise ValueError("no base model: pass --model NAME (or an --adapter folder written by `manimgen train sft`)")
    return recorded


def with_trainable_adapter(base: LoadedBase, adapter: str | Path) -> Any:
    """The base wrapped with an existing PEFT adapter whose weights keep training (GRPO after SFT)."""
    from peft import PeftModel

    folder = Path(adapter)
    if not (folder / "adapter_config.json").is_file():
        raise LLMError(f"{folder} holds no PEFT adapter (adapter_config.json); give the folder an SFT run wrote")
    return PeftModel.from_pretrained(base.model, str(folder), is_trainable=True)


def record_base(trainer: Any, base: str) -> None:
    """Name the base in the adapter's own config, so the saved adapter says what it sits on.

    At every save PEFT asks whether the vocabulary was resized by reading the base's config.json,
    from the Hub when the name is not a folder. An embedded GGUF base is neither, so that check
    can only fail, with two warnings and a network request each time; LoRA that leaves the
    embeddings alone never resizes them, so its saves skip the check.
    """
    from peft.utils.constants import EMBEDDING_LAYER_NAMES

    model = trainer.model
    config = model.peft_config["default"]
    config.base_model_name_or_path = base
    targets = config.target_modules
    if is_gguf(base) and not isinstance(targets, str) and not set(targets or ()) & set(EMBEDDING_LAYER_NAMES):
        model.save_pretrained = functools.partial(model.save_pretrained, save_embedding_layers=False)


def recorded_base_of(trainer: Any) -> str:
    return trainer.model.peft_config["default"].base_model_name_or_path


def recorded_base(adapter: str | Path) -> str | None:
    """The base model a run of ours trained `adapter` on, if it wrote its record."""
    try:
        return json.loads((Path(adapter) / RUN_RECORD).read_text())["base"]
    except (OSError, ValueError, KeyError):
        return None


def write_record(output_dir: Path, record: dict[str, Any]) -> None:
    """Beside the adapter: what it was trained from and how, and the spec that loads it."""
    (output_dir / RUN_RECORD).write_text(json.dumps(record, indent=2, default=str) + "\n")
