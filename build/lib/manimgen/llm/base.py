"""The one protocol every model provider implements: chat messages in, n completions out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable


class Message(TypedDict):
    """One chat turn. `images` (PNG file paths) go only to providers whose `accepts_images` is True."""

    role: Literal["system", "user", "assistant"]
    content: str
    images: NotRequired[list[str]]


@dataclass(frozen=True)
class Sampling:
    """Decoding settings; providers ignore what they cannot honour and say so in their docs.

    The defaults are the project's for generating scenes (the study's, the CLI's and the agent's).
    """

    temperature: float = 0.2
    top_p: float = 0.95
    max_tokens: int = 1024
    seed: int | None = None
    stop: tuple[str, ...] = ()
    min_p: float | None = None
    schema: str | None = None  # a JSON schema (as text) the answer must follow, for the providers that constrain decoding


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    reused_prompt_tokens: int = 0  # prompt tokens whose evaluated state a provider kept from an earlier call


@dataclass
class ChatResult:
    completions: list[str]
    usage: Usage = field(default_factory=Usage)
    cached: bool = False  # replayed from a GenerationCache; usage is that of the call that produced it


class LLMError(RuntimeError):
    """A provider could not answer (unreachable server, bad model file); the message says what to fix."""


def accepts_images(llm: Any) -> bool:
    """Whether a provider sends a message's `images` to its model; text-only providers need not say."""
    return bool(getattr(llm, "accepts_images", False))


@runtime_checkable
class LLM(Protocol):
    """A chat model. `name` is what reports and stores call it."""

    name: str

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult: ...

    def close(self) -> None: ...
