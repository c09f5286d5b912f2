"""An embedded GGUF model run in-process by llama.cpp: the offline default provider.

The chat template is the one stored in the GGUF, so prompts match what the model was tuned on.
A PEFT LoRA adapter (`NAME+ADAPTER_DIR`, `gguf:PATH+ADAPTER_DIR`) is converted to llama.cpp's adapter
format once (llm/gguf_adapter.py) and applied on top of the quantised base.
A model file (with its adapter) is loaded once per process and shared by every provider built on it (loading the
1.5B model costs seconds and 1.8 GB); the last `close()` frees it. llama.cpp contexts are not
thread-safe, so calls on one loaded model are serialised.

Sampling: every field is honoured. Completion i of a call uses seed `seed + i`, so n completions
differ yet repeat exactly, whatever ran before; without a seed each completion draws a fresh one.
`min_p=None` means off.

Prompt state is reused, exactly. A repair prompt opens with the first prompt's tokens, and every
draft of a sampling strategy repeats its prompt, so most of a prompt was often evaluated by the call
before. llama.cpp's own prefix reuse would change seeded answers: its matrix kernels round a row
differently depending on how the batch around it is tiled, so a prompt evaluated in other batches
gives other logits. Here every prompt is evaluated in fixed chunks of `PROMPT_CHUNK` tokens from
position 0, and only whole chunks that an earlier prompt evaluated are kept; a fresh evaluation and a
resumed one then compute the very same chunks. The chunks of a system message are also kept on disk
(llm/prompt_states.py), so a fresh process loads them instead of evaluating them again.

An answer that falls into a loop (llm/loops.py) is ended there rather than at `max_tokens`; the rule
is recorded with a study's versions beside the prompt evaluation.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manimgen.llm.base import ChatResult, LLMError, Message, Sampling, Usage
from manimgen.llm.gguf_adapter import gguf_adapter
from manimgen.llm.loops import LoopGuard
from manimgen.llm.prompt_states import PromptStates, identity
from manimgen.paths import cache_root

DEFAULT_N_CTX = 8192
PROMPT_CHUNK = 64  # tokens a prompt is evaluated in, from position 0; the unit of reuse
PROMPT_EVALUATION = f"chunks of {PROMPT_CHUNK} tokens"
"""How prompts are evaluated, recorded with a study's versions: another way gives other logits, so other answers."""
RANDOM_SEED = 0xFFFFFFFF  # llama.cpp reads this seed as "pick one at random"


def available_cores() -> int:
    """Cores this process may run on (container and affinity limits included)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class _Loaded:
    llama: Any
    lock: threading.Lock
    users: int = 0


LoadKey = tuple[Path, Path | None, int, int]
_LOADED: dict[LoadKey, _Loaded] = {}
_LOADED_LOCK = threading.Lock()


GGML_LOG_ERROR, GGML_LOG_CONT = 4, 5
_log_filter: list[Any] = []


def _keep_llama_errors_only() -> None:
    """Let only llama.cpp's errors reach stderr. llama-cpp-python 0.3.36 reads ggml's log levels as
    they were numbered before WARN became 3, so warnings (such as one line per LoRA tensor that
    "cannot use buft CPU_REPACK") print although verbose=False."""
    if _log_filter:
        return
    import ctypes
    import sys

    import llama_cpp

    last_level = [0]

    @llama_cpp.llama_log_callback
    def errors_only(level: int, text: bytes, user_data: Any) -> None:
        if level != GGML_LOG_CONT:
            last_level[0] = level
        if last_level[0] >= GGML_LOG_ERROR:
            sys.stderr.write(text.decode("utf-8", "replace"))

    _log_filter.append(errors_only)  # the C side holds only a pointer: keep the callback alive
    llama_cpp.llama_log_set(errors_only, ctypes.c_void_p(0))


def reusable_tokens(previous: list[int], prompt: list[int], evaluated: int, chunk: int = PROMPT_CHUNK) -> int:
    """How many leading tokens of `prompt` keep their state: whole chunks of the common prefix with the
    `previous` prompt, no further than the `evaluated` tokens, and at least one token left to evaluate
    (sampling needs the last token's logits)."""
    common = 0
    for before, now in zip(previous, prompt):
        if before != now:
            break
        common += 1
    limit = min(common, evaluated, len(prompt) - 1)
    return max(limit - limit % chunk, 0)


_CHUNKED: list[type] = []


def _chunked_llama() -> type:
    """`Llama` evaluating prompts in fixed chunks and keeping only the chunks `reusable_tokens` allows."""
    if _CHUNKED:
        return _CHUNKED[0]
    from llama_cpp import Llama

    class ChunkedLlama(Llama):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.last_prompt: list[int] = []
            self.reused = 0  # prompt tokens the last call kept
            self.prompt_states: PromptStates | None = None
            self.shared_prefix: list[int] | None = None  # the next prompt's system message, as the template renders it
            self._prefixes: dict[str, list[int]] = {}

        def generate(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
            prompt = list(tokens)
            kept = self.reused = reusable_tokens(self.last_prompt, prompt, self.n_tokens, self.n_batch)
            if self.prompt_states is not None and self.shared_prefix:
                shared = reusable_tokens(self.shared_prefix, prompt, len(self.shared_prefix), self.n_batch)
                kept, self.reused = self.prompt_states.resume(self, prompt, shared, kept)
            self.last_prompt = prompt
            if kept:
                self.n_tokens = kept  # Llama.generate's prefix match then keeps exactly these cells
            else:
                self.reset()
            return self._until_loop(super().generate(prompt, *args, **kwargs))

        def system_prefix(self, messages: list[Message]) -> list[int] | None:
            """The tokens the chat template renders for `messages`' system message alone (None without one)."""
            template = self.metadata.get("tokenizer.chat_template")
            if not messages or messages[0].get("role") != "system" or not template:
                return None
            text = str(messages[0].get("content") or "")
            if text not in self._prefixes:
                from llama_cpp.llama_chat_format import Jinja2ChatFormatter

                eos, bos = self.token_eos(), self.token_bos()
                formatter = Jinja2ChatFormatter(
                    template=template,
                    eos_token=self._model.token_get_text(eos) if eos != -1 else "",
                    bos_token=self._model.token_get_text(bos) if bos != -1 else "",
                )
                rendered = formatter(messages=[{"role": "system", "content": text}]).prompt
                self._prefixes[text] = self.tokenize(rendered.encode("utf-8"), add_bos=True, special=True)
            return self._prefixes[text]

        def _until_loop(self, tokens: Any) -> Any:
            """The sampled tokens, ended by an end-of-text token once the answer repeats itself (llm/loops.py), so
            the completion keeps what came before, as when the model stops."""
            guard = LoopGuard()
            for token in tokens:
                yield token
                if guard.feed(self.detokenize([token]).decode("utf-8", errors="ignore")):
                    yield self.token_eos()
                    return

    _CHUNKED.append(ChunkedLlama)
    return ChunkedLlama


def _require_model_file(path: Path) -> None:
    if not path.is_file():
        raise LLMError(f"GGUF model file not found: {path}; give an existing file (gguf:PATH) or a model name")


def _open(path: Path, lora: Path | None, n_ctx: int, threads: int) -> tuple[LoadKey, _Loaded]:
    try:
        llama_class = _chunked_llama()
    except ImportError:
        raise LLMError("the llama.cpp provider needs llama-cpp-python: pip install -e '.[llamacpp]'") from None
    _keep_llama_errors_only()
    key = (path, lora, n_ctx, threads)
    with _LOADED_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            _require_model_file(path)
            try:
                llama = llama_class(
                    model_path=str(path),
                    lora_path=str(lora) if lora else None,
                    n_ctx=n_ctx,
                    n_batch=PROMPT_CHUNK,
                    n_threads=threads,
                    n_threads_batch=threads,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as error:
                raise LLMError(f"llama.cpp could not load {path}: {error}; check the file is a complete GGUF") from None
            llama.prompt_states = PromptStates(cache_root() / "prompt-states", identity(path, lora, n_ctx, PROMPT_CHUNK, threads))
            loaded = _LOADED[key] = _Loaded(llama, threading.Lock())
        loaded.users += 1
    return key, loaded


def _release(key: LoadKey) -> None:
    with _LOADED_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            return
        loaded.users -= 1
        if loaded.users <= 0:
            del _LOADED[key]
            loaded.llama.close()


@atexit.register
def _close_all() -> None:
    """Free models still open at exit: llama.cpp prints a traceback if they are left to the finaliser."""
    with _LOADED_LOCK:
        for loaded in _LOADED.values():
            loaded.llama.close()
        _LOADED.clear()


class LlamaCppLLM:
    """A GGUF chat model on the CPU through llama-cpp-python."""

    def __init__(
        self,
        path: str | Path,
        adapter: str | Path | None = None,
        *,
        name: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        threads: int | None = None,
    ) -> None:
        self.path = Path(path).expanduser().resolve()
        self.name = name or f"gguf:{self.path.name}" + (f"+{adapter}" if adapter else "")
        self.n_ctx = n_ctx
        self.threads = threads or available_cores()
        if adapter is not None:
            _require_model_file(self.path)  # the adapter's conversion reads the base before llama.cpp does
        lora = gguf_adapter(adapter, self.path).resolve() if adapter is not None else None
        self._key, self._loaded = _open(self.path, lora, n_ctx, self.threads)
        self._closed = False

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        sampling = sampling or Sampling()
        if self._closed:
            raise LLMError(f"{self.name} was closed; load the model again")
        usage = Usage()
        completions = []
        started = time.perf_counter()
        with self._loaded.lock:
            self._loaded.llama.shared_prefix = self._loaded.llama.system_prefix(messages)
            for index in range(n):
                seed = (sampling.seed + index) % RANDOM_SEED if sampling.seed is not None else secrets.randbits(31)
                try:
                    response = self._loaded.llama.create_chat_completion(
                        messages=list(messages),
                        temperature=sampling.temperature,
                        top_p=sampling.top_p,
                        min_p=sampling.min_p or 0.0,
                        max_tokens=sampling.max_tokens,
                        stop=list(sampling.stop),
                        seed=seed,
                        response_format={"type": "json_object", "schema": json.loads(sampling.schema)} if sampling.schema else None,
                    )
                except ValueError as error:
                    raise LLMError(f"{self.name}: {error}; shorten the prompt or raise n_ctx") from None
                completions.append(response["choices"][0]["message"]["content"] or "")
                usage.prompt_tokens += response["usage"]["prompt_tokens"]
                usage.completion_tokens += response["usage"]["completion_tokens"]
                usage.reused_prompt_tokens += self._loaded.llama.reused
        usage.seconds = time.perf_counter() - started
        return ChatResult(completions, usage)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _release(self._key)
