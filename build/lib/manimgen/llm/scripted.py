"""A test double: an LLM that replies with queued texts and records what it was asked.

For unit tests of control flow only (repair loops, extraction, bench bookkeeping), where the point
is what the caller does with a given reply. Tests of model behaviour use a real model.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from manimgen.llm.base import ChatResult, LLMError, Message, Sampling, Usage


@dataclass(frozen=True)
class ScriptedCall:
    messages: list[Message]
    n: int
    sampling: Sampling


class ScriptedLLM:
    """Returns queued completions in order, n per call; running out raises LLMError.

    Usage counts whitespace-separated words as tokens, enough for bookkeeping tests.
    """

    def __init__(self, *completions: str, name: str = "scripted", accepts_images: bool = False) -> None:
        self.name = name
        self.accepts_images = accepts_images
        self.calls: list[ScriptedCall] = []
        self.closed = False
        self._queue: deque[str] = deque(completions)

    def push(self, *completions: str) -> None:
        self._queue.extend(completions)

    @property
    def prompts(self) -> list[list[Message]]:
        return [call.messages for call in self.calls]

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        copied = [Message(**message) for message in messages]
        self.calls.append(ScriptedCall(copied, n, sampling or Sampling()))
        if len(self._queue) < n:
            raise LLMError(f"{self.name}: asked for {n} completions but {len(self._queue)} are queued; push more")
        completions = [self._queue.popleft() for _ in range(n)]
        prompt_tokens = sum(len(message["content"].split()) for message in messages)
        return ChatResult(completions, Usage(prompt_tokens, sum(len(text.split()) for text in completions)))

    def close(self) -> None:
        self.closed = True
