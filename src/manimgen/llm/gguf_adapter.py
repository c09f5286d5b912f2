"""A PEFT LoRA adapter as a llama.cpp LoRA adapter (GGUF), so a fine-tuned model runs at llama.cpp speed.

An adapter our trainer saves runs under transformers (`hf:BASE+ADAPTER`), which on a CPU computes
in float32 from dequantised weights. llama.cpp applies a LoRA adapter on top of the quantised GGUF
base instead, several times faster on the same cores. llama.cpp's own converter
(convert_lora_to_gguf.py) lives in its source tree and needs the base model's Hugging Face config;
this one needs only the base GGUF, which names the architecture and layer count, and the `gguf`
package's tensor-name map that llama.cpp's converters use.

PEFT scales each update by alpha / r (alpha / √r with rsLoRA). That scale is folded into lora_b and
the file says alpha = 0, which llama.cpp reads as "apply as is", so every PEFT scaling is exact.
The tensors are stored in half precision (as llama.cpp's converter does by default): half the file,
and a rounding far below the Q4_K_M base's own. The converted file is written beside the adapter and
reused until the adapter changes; a file already in llama.cpp's format (`.gguf`) is used as it is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from manimgen.llm.base import LLMError
from manimgen.paths import staged

GGUF_NAME = "adapter.gguf"
PEFT_WEIGHTS = "adapter_model.safetensors"
PEFT_CONFIG = "adapter_config.json"
PEFT_PREFIX = "base_model.model."
LORA_PARTS = {".lora_A.weight": "lora_a", ".lora_B.weight": "lora_b"}


def gguf_adapter(adapter: str | Path, base_gguf: str | Path) -> Path:
    """The llama.cpp form of the PEFT adapter in folder `adapter` for `base_gguf`; converted once.
    A `.gguf` file is taken to be a llama.cpp adapter already and returned as it is."""
    folder = Path(adapter).expanduser()
    if folder.suffix == ".gguf" and folder.is_file():
        return folder
    weights, config_file = folder / PEFT_WEIGHTS, folder / PEFT_CONFIG
    if not weights.is_file() or not config_file.is_file():
        raise LLMError(f"{folder} holds no PEFT adapter ({PEFT_CONFIG} and {PEFT_WEIGHTS}); give a folder training wrote or a llama.cpp adapter .gguf")
    target = folder / GGUF_NAME
    newest_input = max(weights.stat().st_mtime, config_file.stat().st_mtime, Path(base_gguf).stat().st_mtime)
    if target.is_file() and target.stat().st_mtime >= newest_input:
        return target
    convert(folder, Path(base_gguf), target)
    return target


def convert(folder: Path, base_gguf: Path, target: Path) -> None:
    """Write `target`: each lora_A/lora_B pair under the base tensor's GGUF name, PEFT's scale in lora_b."""
    import gguf
    from safetensors.torch import load_file  # torch, not numpy: adapters saved in bfloat16 load too

    config = json.loads((folder / PEFT_CONFIG).read_text())
    scale_of = _scaling(config, folder)
    architecture, blocks = _base_architecture(base_gguf)
    names = gguf.get_tensor_name_map(architecture, blocks)
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for name, tensor in load_file(folder / PEFT_WEIGHTS).items():
        suffix = next((part for part in LORA_PARTS if name.endswith(part)), None)
        if suffix is None:
            raise LLMError(f"{folder}: tensor {name} is not a LoRA pair (trained embeddings or norms?); merge the adapter instead")
        base_name = name.removeprefix(PEFT_PREFIX).removesuffix(suffix) + ".weight"
        gguf_name = names.get_name(base_name, try_suffixes=(".weight",))
        if gguf_name is None:
            raise LLMError(f"{folder}: {base_name} has no tensor in a {gguf.MODEL_ARCH_NAMES[architecture]} GGUF; is this the adapter's base?")
        pairs.setdefault(gguf_name, {})[LORA_PARTS[suffix]] = tensor.float().numpy()
    with staged(target) as partial:
        writer = gguf.GGUFWriter(str(partial), gguf.MODEL_ARCH_NAMES[architecture])
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, 0.0)
        for gguf_name, pair in sorted(pairs.items()):
            if pair.keys() != {"lora_a", "lora_b"}:
                raise LLMError(f"{folder}: {gguf_name} has only {', '.join(pair)}; the adapter file is incomplete")
            rank = pair["lora_a"].shape[0]
            writer.add_tensor(f"{gguf_name}.lora_a", pair["lora_a"].astype(np.float16))
            writer.add_tensor(f"{gguf_name}.lora_b", (pair["lora_b"] * np.float32(scale_of(rank))).astype(np.float16))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()


def _scaling(config: dict[str, Any], folder: Path) -> Callable[[int], float]:
    """PEFT's scale for a rank; adapters whose scale varies by module pattern are refused, not guessed."""
    unsupported = [key for key in ("rank_pattern", "alpha_pattern") if config.get(key)]
    unsupported += [key for key in ("use_dora", "lora_bias") if config.get(key)]
    if unsupported:
        raise LLMError(f"{folder}: {', '.join(unsupported)} cannot run in llama.cpp; use hf:BASE+ADAPTER for this adapter")
    alpha = float(config.get("lora_alpha", 8))
    rs_lora = bool(config.get("use_rslora"))
    return lambda rank: alpha / math.sqrt(rank) if rs_lora else alpha / rank


def _base_architecture(base_gguf: Path) -> tuple[Any, int]:
    """The base GGUF's architecture (a gguf.MODEL_ARCH) and its number of layers."""
    import gguf

    reader = gguf.GGUFReader(str(base_gguf))
    name = _field(reader, "general.architecture", base_gguf)
    known = {value: key for key, value in gguf.MODEL_ARCH_NAMES.items()}
    if name not in known:
        raise LLMError(f"{base_gguf} has architecture {name!r}, which the gguf package does not know")
    return known[name], int(_field(reader, f"{name}.block_count", base_gguf))


def _field(reader: Any, key: str, path: Path) -> Any:
    field = reader.fields.get(key)
    if field is None:
        raise LLMError(f"{path} has no {key}; is it a model GGUF?")
    return field.contents()
