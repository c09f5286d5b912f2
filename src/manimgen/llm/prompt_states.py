"""Evaluated system prompts kept on disk, so a fresh process does not evaluate them again.

The default strategy's system prompt is about 1 500 tokens, and two CPU cores evaluate a prompt at about
70 tokens a second: every fresh `generate` spent over 20 s on text it had evaluated the time before. A
running server keeps that state in memory (llm/llamacpp.py reuses whole chunks of a prompt); this store
keeps it between processes. The state of the whole chunks a prompt shares with its system message is
saved once, after they are evaluated from position 0 in the chunks every prompt is evaluated in, and
loaded by later processes, so a resumed prompt computes the very same chunks as a fresh one and gives
the same answer.

A state belongs to one model file, adapter, context, chunk size, thread count and llama.cpp build (the
`identity`), and to the exact tokens it holds, which are stored beside it and compared before it is used.
A file that cannot be read or set is ignored and the prompt evaluated afresh. The newest `KEEP` states
are kept (tens of MB each).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from manimgen.paths import keep_in_cache

KEEP = 8


def identity(model: Path, adapter: Path | None, n_ctx: int, n_batch: int, threads: int) -> str:
    """What a saved state depends on besides its tokens: the files (by size and time), the context and the build."""
    import llama_cpp

    files = [[str(path), path.stat().st_size, path.stat().st_mtime_ns] for path in (model, adapter) if path is not None]
    return json.dumps([files, n_ctx, n_batch, threads, llama_cpp.__version__])


class PromptStates:
    """A folder of saved llama.cpp states, each the whole chunks of a system prompt's tokens."""

    def __init__(self, folder: Path, identity: str) -> None:
        self.folder = folder
        self.identity = identity

    def resume(self, llama: Any, prompt: list[int], length: int, kept: int) -> tuple[int, int]:
        """Bring `llama` to the state of `prompt`'s first `length` tokens (whole chunks it shares with its system
        message), when that is more than the `kept` tokens it already holds: loaded from the folder, else evaluated
        and saved. Returns the tokens now held and how many of them were loaded rather than evaluated by this call."""
        if length <= kept:
            return kept, kept
        held = prompt[:length]
        path = self.folder / f"{hashlib.sha256(json.dumps([self.identity, held]).encode()).hexdigest()[:32]}.npz"
        if self._load(llama, path, held):
            return length, length
        llama.reset()
        llama.eval(held)
        self._save(llama, path, held)
        return length, 0

    def _load(self, llama: Any, path: Path, held: list[int]) -> bool:
        import llama_cpp

        try:
            with np.load(path, allow_pickle=False) as stored:
                tokens, state = stored["tokens"], stored["state"]
        except (OSError, ValueError, KeyError, EOFError):
            return False
        if tokens.dtype.kind != "i" or tokens.tolist() != held or state.dtype != np.uint8 or state.ndim != 1:
            return False
        llama.reset()
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state.tobytes())
        if llama_cpp.llama_state_set_data(llama._ctx.ctx, buffer, len(state)) != len(state):
            llama.reset()
            return False
        llama.input_ids[: len(held)] = held
        llama.n_tokens = len(held)
        os.utime(path)
        return True

    def _save(self, llama: Any, path: Path, held: list[int]) -> None:
        import llama_cpp

        size = llama_cpp.llama_state_get_size(llama._ctx.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(llama._ctx.ctx, buffer, size)
        state = np.frombuffer(buffer, dtype=np.uint8, count=written)
        keep_in_cache(path, lambda file: np.savez(file, tokens=np.asarray(held, dtype=np.int32), state=state))
        try:
            for old in sorted(self.folder.glob("*.npz"), key=lambda file: file.stat().st_mtime_ns, reverse=True)[KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # another process removed it first
