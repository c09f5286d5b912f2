"""PEFT LoRA adapters run by llama.cpp on the real 0.5B GGUF: converted once, scaled exactly, refused clearly.

The adapters here are written as PEFT saves them (names, shapes, config); that transformers + PEFT
and llama.cpp agree on a real trained adapter is checked by the model-level test at the end.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from manimgen.llm import MODELS, LLMError, Message, ModelSpec, Sampling, load_model, parse_spec
from manimgen.llm import models as registry
from manimgen.llm.gguf_adapter import GGUF_NAME, gguf_adapter

pytest.importorskip("llama_cpp", reason="needs llama-cpp-python: pip install -e '.[llamacpp]'")

PROMPT: list[Message] = [{"role": "user", "content": "Write a Python function that returns the square of a number."}]
GREEDY = Sampling(temperature=0.0, max_tokens=24, seed=0)
HIDDEN, LAYERS, RANK = 896, 24, 4  # Qwen2.5-Coder-0.5B


MODULES = {"o_proj": ("self_attn.o_proj", HIDDEN, HIDDEN), "down_proj": ("mlp.down_proj", 4864, HIDDEN)}


def write_adapter(folder: Path, lora_b_scale: float, alpha: float, modules: tuple[str, ...] = ("o_proj",), **config: object) -> Path:
    """A PEFT-format LoRA on every layer's `modules`; lora_B is random times `lora_b_scale` (0 = no effect)."""
    from safetensors.numpy import save_file

    generator = np.random.default_rng(0)
    tensors = {}
    for layer in range(LAYERS):
        for module in modules:
            path, inputs, outputs = MODULES[module]
            prefix = f"base_model.model.model.layers.{layer}.{path}"
            tensors[f"{prefix}.lora_A.weight"] = generator.normal(0, 0.05, (RANK, inputs)).astype(np.float32)
            tensors[f"{prefix}.lora_B.weight"] = (generator.normal(0, 1, (outputs, RANK)) * lora_b_scale).astype(np.float32)
    folder.mkdir(parents=True)
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    settings = {"peft_type": "LORA", "r": RANK, "lora_alpha": alpha, "target_modules": list(modules), **config}
    (folder / "adapter_config.json").write_text(json.dumps(settings))
    return folder


def greedy(spec: str) -> str:
    model = load_model(spec, n_ctx=1024)
    try:
        return model.chat(PROMPT, sampling=GREEDY).completions[0]
    finally:
        model.close()


def test_specs_name_an_adapter_on_a_gguf_base() -> None:
    assert parse_spec("qwen2.5-coder-0.5b+runs/sft") == ModelSpec("llamacpp", "qwen2.5-coder-0.5b", adapter="runs/sft")
    assert parse_spec("gguf:/m/base.gguf+runs/sft") == ModelSpec("llamacpp", "/m/base.gguf", adapter="runs/sft")
    with pytest.raises(LLMError, match="no adapter folder"):
        parse_spec("qwen2.5-coder-0.5b+")


def test_a_zero_update_changes_nothing_and_a_real_one_does(small_gguf: Path, tmp_path: Path) -> None:
    plain = greedy("qwen2.5-coder-0.5b")
    silent = write_adapter(tmp_path / "silent", lora_b_scale=0.0, alpha=16)
    assert greedy(f"qwen2.5-coder-0.5b+{silent}") == plain
    loud = write_adapter(tmp_path / "loud", lora_b_scale=0.2, alpha=16)
    assert greedy(f"qwen2.5-coder-0.5b+{loud}") != plain
    assert (loud / GGUF_NAME).is_file()


def test_loading_an_adapter_prints_no_llama_cpp_warnings(small_gguf: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """llama.cpp warns once per down_proj LoRA tensor it keeps out of its repacked buffers; a user sees none."""
    folder = write_adapter(tmp_path / "mlp", lora_b_scale=0.01, alpha=16, modules=("o_proj", "down_proj"))
    capfd.readouterr()
    assert greedy(f"qwen2.5-coder-0.5b+{folder}")
    assert capfd.readouterr().err == ""


def test_peft_scaling_is_folded_in_exactly(small_gguf: Path, tmp_path: Path) -> None:
    """Under PEFT, alpha 16 with B, alpha 8 with 2B, and rsLoRA's alpha 8 with B (8/√4 = 16/4) are one update."""
    alpha_16 = write_adapter(tmp_path / "a16", lora_b_scale=0.1, alpha=16)
    alpha_8 = write_adapter(tmp_path / "a8", lora_b_scale=0.2, alpha=8)
    rs_lora = write_adapter(tmp_path / "rs", lora_b_scale=0.1, alpha=8, use_rslora=True)
    halved = write_adapter(tmp_path / "half", lora_b_scale=0.1, alpha=8)
    expected = greedy(f"qwen2.5-coder-0.5b+{alpha_16}")
    assert greedy(f"qwen2.5-coder-0.5b+{alpha_8}") == expected
    assert greedy(f"qwen2.5-coder-0.5b+{rs_lora}") == expected
    assert greedy(f"qwen2.5-coder-0.5b+{halved}") != expected  # the scale matters, so the equalities above mean something


def test_conversion_is_reused_until_the_adapter_changes(small_gguf: Path, tmp_path: Path) -> None:
    folder = write_adapter(tmp_path / "a", lora_b_scale=0.1, alpha=16)
    converted = gguf_adapter(folder, small_gguf)
    written = converted.stat().st_mtime_ns
    assert gguf_adapter(folder, small_gguf) == converted and converted.stat().st_mtime_ns == written
    later = converted.stat().st_mtime + 60  # training saved the adapter again
    os.utime(folder / "adapter_model.safetensors", (later, later))
    gguf_adapter(folder, small_gguf)
    assert converted.stat().st_mtime_ns > written


def test_a_converted_adapter_is_half_precision_and_runs_when_named_directly(small_gguf: Path, tmp_path: Path) -> None:
    import gguf

    folder = write_adapter(tmp_path / "a", lora_b_scale=0.1, alpha=16)
    converted = gguf_adapter(folder, small_gguf)
    reader = gguf.GGUFReader(str(converted))
    assert {tensor.tensor_type for tensor in reader.tensors} == {gguf.GGMLQuantizationType.F16}
    assert gguf_adapter(converted, small_gguf) == converted
    assert greedy(f"qwen2.5-coder-0.5b+{converted}") == greedy(f"qwen2.5-coder-0.5b+{folder}") != greedy("qwen2.5-coder-0.5b")


def test_adapters_llama_cpp_cannot_apply_are_refused(small_gguf: Path, tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="use_dora cannot run in llama.cpp; use hf:BASE"):
        gguf_adapter(write_adapter(tmp_path / "dora", 0.1, 16, use_dora=True), small_gguf)
    with pytest.raises(LLMError, match="holds no PEFT adapter"):
        gguf_adapter(tmp_path, small_gguf)
    from safetensors.numpy import save_file

    odd = write_adapter(tmp_path / "odd", 0.1, 16)
    save_file({"base_model.model.model.embed_tokens.weight": np.zeros((4, 4), np.float32)}, str(odd / "adapter_model.safetensors"))
    with pytest.raises(LLMError, match="is not a LoRA pair"):
        gguf_adapter(odd, small_gguf)


@pytest.mark.slow
def test_llama_cpp_applies_a_peft_adapter_as_peft_does(small_gguf: Path, tmp_path: Path) -> None:
    """What a random LoRA changes in the next-token logits, under transformers + PEFT and under llama.cpp.

    Measured: cosines 0.98-0.998 and norms within 5% at three adapter strengths; the bases agree to a
    logit correlation of 0.9997, the rest is llama.cpp's quantised activations.
    """
    torch = pytest.importorskip("torch")
    from llama_cpp import Llama
    from peft import LoraConfig, get_peft_model

    from manimgen.train.model import load_base

    torch.manual_seed(0)
    loaded = load_base("qwen2.5-coder-0.5b", four_bit=False, device="cpu")
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    config = LoraConfig(r=8, lora_alpha=16, target_modules=targets, task_type="CAUSAL_LM", init_lora_weights=False)
    model = get_peft_model(loaded.model, config).eval()
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.mul_(0.1)
    model.save_pretrained(tmp_path / "adapter")
    prompt = loaded.tokenizer.apply_chat_template(PROMPT, tokenize=False, add_generation_prompt=True)
    ids = loaded.tokenizer(prompt, add_special_tokens=False)["input_ids"]

    def peft_logits() -> np.ndarray:
        with torch.inference_mode():
            return model(input_ids=torch.tensor([ids])).logits[0, -1].float().numpy()

    def llama_logits(lora: Path | None) -> np.ndarray:
        llama = Llama(model_path=str(small_gguf), lora_path=str(lora) if lora else None, n_ctx=512, logits_all=True, verbose=False)
        try:
            llama.eval(ids)
            return np.array(llama.scores[len(ids) - 1])
        finally:
            llama.close()

    with model.disable_adapter():
        peft_base = peft_logits()
    peft_change = peft_logits() - peft_base
    llama_change = llama_logits(gguf_adapter(tmp_path / "adapter", small_gguf)) - llama_logits(None)
    cosine = peft_change @ llama_change / np.linalg.norm(peft_change) / np.linalg.norm(llama_change)
    assert cosine > 0.95
    assert 0.9 < np.linalg.norm(llama_change) / np.linalg.norm(peft_change) < 1.1


@pytest.fixture
def tuned_small(small_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[registry.EmbeddedModel, Path]]:
    """A tuned model as the registry ships one: the 0.5B with a converted adapter file in ADAPTERS_DIR."""
    folder = write_adapter(tmp_path / "peft", lora_b_scale=0.1, alpha=16)
    shipped = tmp_path / "adapters" / "qwen2.5-coder-0.5b-tuned.gguf"
    shipped.parent.mkdir()
    gguf_adapter(folder, small_gguf).rename(shipped)
    base = MODELS["qwen2.5-coder-0.5b"]
    adapter = registry.ShippedAdapter(base.name, shipped.name, hashlib.sha256(shipped.read_bytes()).hexdigest())
    tuned = MODELS.add("qwen2.5-coder-0.5b-tuned", replace(base, name="qwen2.5-coder-0.5b-tuned", adapter=adapter), "test")
    monkeypatch.setattr(registry, "ADAPTERS_DIR", shipped.parent)
    try:
        yield tuned, folder
    finally:
        MODELS.remove(tuned.name)


def test_a_tuned_model_applies_the_adapter_it_ships(tuned_small: tuple[registry.EmbeddedModel, Path]) -> None:
    tuned, folder = tuned_small
    assert registry.shipped_adapter("qwen2.5-coder-0.5b") is None
    assert greedy(tuned.name) == greedy(f"qwen2.5-coder-0.5b+{folder}") != greedy("qwen2.5-coder-0.5b")
    assert tuned.weights.startswith("0.49 GB + ") and tuned.weights.endswith(" MB adapter")


def test_a_tuned_model_is_refused_where_its_adapter_cannot_go(tuned_small: tuple[registry.EmbeddedModel, Path]) -> None:
    from manimgen.train.model import training_target

    tuned, _ = tuned_small
    with pytest.raises(LLMError, match="already applies its own adapter; write qwen2.5-coder-0.5b\\+ADAPTER_DIR"):
        parse_spec(f"{tuned.name}+runs/sft")
    with pytest.raises(LLMError, match="its adapter is llama.cpp's; train qwen2.5-coder-0.5b"):
        training_target(tuned.name)
    with pytest.raises(LLMError, match="runs in llama.cpp only: name it without hf:, or write hf:qwen2.5-coder-0.5b\\+ADAPTER_DIR"):
        load_model(f"hf:{tuned.name}")
    assert tuned.adapter is not None
    shipped = registry.ADAPTERS_DIR / tuned.adapter.filename
    data = shipped.read_bytes()
    shipped.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(LLMError, match="is missing or altered; reinstall manimgen"):
        load_model(tuned.name)
    shipped.unlink()
    with pytest.raises(LLMError, match="is missing or altered; reinstall manimgen"):
        load_model(tuned.name)
