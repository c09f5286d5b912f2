"""A local Hugging Face model (folder, hub id or GGUF file) with its chat template, plus an optional
PEFT adapter: the provider that evaluates what training produced.

A GGUF file is loaded dequantised (`from_pretrained(folder, gguf_file=...)`), which gives the same
text as llama.cpp and lets a fine-tuned adapter sit on the embedded weights. 4-bit loading through
bitsandbytes exists only on CUDA; on CPU the model runs in float32 unless `dtype` says otherwise.

Sampling: temperature 0 decodes greedily (one pass, copied n times, since greedy search cannot return
several sequences); stop strings end generation and are cut from the text, as OpenAI servers do;
a seed is applied inside a forked RNG so the caller's random state is left alone; a JSON schema is not
enforced here (callers validate what comes back).
"""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path
from typing import Any

from manimgen.llm.base import ChatResult, LLMError, Message, Sampling, Usage

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def _split_gguf(path: str | Path, gguf_file: str | None) -> tuple[str, str | None]:
    """`folder/model.gguf` becomes (`folder`, `model.gguf`), the form from_pretrained expects."""
    candidate = Path(path).expanduser()
    if gguf_file is None and candidate.suffix == ".gguf":
        if not candidate.is_file():
            raise LLMError(f"GGUF model file not found: {candidate}; give an existing path (hf:PATH.gguf)")
        return str(candidate.resolve().parent), candidate.name
    return str(candidate) if candidate.exists() else str(path), gguf_file


def _cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    cuts = [index for index in (text.find(marker) for marker in stop) if index >= 0]
    return text[: min(cuts)] if cuts else text


class TransformersLLM:
    """A causal LM run by transformers' `generate`; n completions come from `num_return_sequences`."""

    def __init__(
        self,
        path: str | Path,
        adapter: str | Path | None = None,
        *,
        name: str | None = None,
        gguf_file: str | None = None,
        load_in_4bit: bool = False,
        dtype: str | None = None,
        device: str | None = None,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, gguf_file = _split_gguf(path, gguf_file)
        self.name = name or f"hf:{source}" + (f"+{adapter}" if adapter else "")
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        options: dict[str, Any] = {"dtype": getattr(torch, dtype) if dtype else self._default_dtype(torch)}
        if gguf_file:
            options["gguf_file"] = gguf_file
        if load_in_4bit:
            options["quantization_config"] = self._four_bit_config(torch)
            options["device_map"] = {"": self.device}
        try:
            model = AutoModelForCausalLM.from_pretrained(source, **options)
            tokenizer_source = adapter if adapter and _has_tokenizer(Path(adapter)) else source
            tokenizer_options = {"gguf_file": gguf_file} if gguf_file and tokenizer_source == source else {}
            self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_source, **tokenizer_options)
        except (OSError, ValueError) as error:
            raise LLMError(f"cannot load Hugging Face model {source!r}: {_first_line(error)}") from None
        if adapter:
            model = self._with_adapter(model, adapter)
        if not load_in_4bit:
            model = model.to(self.device)
        self.model = model.eval()
        if not self.tokenizer.chat_template:
            raise LLMError(f"the tokenizer of {source!r} has no chat template; use an instruct model or set one")
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._lock = threading.Lock()

    def _default_dtype(self, torch: Any) -> Any:
        return torch.bfloat16 if self.device.startswith("cuda") else torch.float32

    def _four_bit_config(self, torch: Any) -> Any:
        if not torch.cuda.is_available():
            raise LLMError("4-bit loading needs a CUDA GPU; on CPU load the model without load_in_4bit")
        try:
            import bitsandbytes  # noqa: F401
        except ImportError:
            raise LLMError("4-bit loading needs bitsandbytes: pip install -e '.[gpu]'") from None
        from transformers import BitsAndBytesConfig

        return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)

    @staticmethod
    def _with_adapter(model: Any, adapter: str | Path) -> Any:
        try:
            from peft import PeftModel
        except ImportError:
            raise LLMError("PEFT adapters need peft: pip install peft") from None
        try:
            return PeftModel.from_pretrained(model, str(adapter))
        except (OSError, ValueError) as error:
            raise LLMError(f"cannot load PEFT adapter {str(adapter)!r}: {_first_line(error)}") from None

    def _stop_ids(self) -> set[int]:
        configured = self.model.generation_config.eos_token_id
        ids = set(configured if isinstance(configured, list) else [configured] if configured is not None else [])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        import torch

        if self.model is None:
            raise LLMError(f"{self.name} was closed; load the model again")
        sampling = sampling or Sampling()
        prompt = self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        inputs = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.model.device)
        greedy = sampling.temperature <= 0
        options: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "num_return_sequences": 1 if greedy else n,
            "pad_token_id": self.tokenizer.pad_token_id,
            "do_sample": not greedy,
        }
        if not greedy:
            options.update(temperature=sampling.temperature, top_p=sampling.top_p)
            if sampling.min_p is not None:
                options["min_p"] = sampling.min_p
        if sampling.stop:
            options.update(stop_strings=list(sampling.stop), tokenizer=self.tokenizer)
        devices = [torch.cuda.current_device()] if self.model.device.type == "cuda" else []
        started = time.perf_counter()
        with self._lock, torch.inference_mode(), torch.random.fork_rng(devices=devices):
            if sampling.seed is not None:
                torch.manual_seed(sampling.seed)
            sequences = self.model.generate(**inputs, **options)
        prompt_length = inputs["input_ids"].shape[1]
        stop_ids = self._stop_ids()
        completions, generated = [], 0
        for row in sequences[:, prompt_length:].tolist():
            length = next((index for index, token in enumerate(row) if token in stop_ids), len(row))
            generated += length
            text = self.tokenizer.decode(row[:length], skip_special_tokens=True)
            completions.append(_cut_at_stop(text, sampling.stop))
        if greedy:
            completions, generated = completions * n, generated * n
        usage = Usage(prompt_length, generated, time.perf_counter() - started)
        return ChatResult(completions, usage)

    def close(self) -> None:
        """Drop the weights now rather than at garbage collection: a 1.5B model holds gigabytes."""
        if self.model is None:
            return
        on_cuda = self.model.device.type == "cuda"
        self.model = None
        gc.collect()
        if on_cuda:
            import torch

            torch.cuda.empty_cache()


def _has_tokenizer(folder: Path) -> bool:
    return any((folder / name).is_file() for name in TOKENIZER_FILES)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
