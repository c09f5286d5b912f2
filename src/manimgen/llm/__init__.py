"""Chat models behind one protocol; `load_model` turns a registry name or spec string into one."""

from manimgen.llm.base import LLM, ChatResult, LLMError, Message, Sampling, Usage
from manimgen.llm.models import (
    DEFAULT_MODEL,
    MODELS,
    EmbeddedModel,
    MissingWeightsError,
    ModelSpec,
    ensure_gguf,
    load_model,
    parse_spec,
)

__all__ = [
    "DEFAULT_MODEL",
    "LLM",
    "MODELS",
    "ChatResult",
    "EmbeddedModel",
    "LLMError",
    "Message",
    "MissingWeightsError",
    "ModelSpec",
    "Sampling",
    "Usage",
    "ensure_gguf",
    "load_model",
    "parse_spec",
]
