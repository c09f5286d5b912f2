"""Chat models behind one protocol; `load_model` turns a registry name or spec string into one."""

from manimgen.llm.base import LLM, ChatResult, LLMError, Message, Sampling, Usage
from manimgen.llm.models import DEFAULT_MODEL, MODELS, EmbeddedModel, MissingWeightsError, ensure_gguf, tuned_base
from manimgen.llm.providers import PROVIDERS, ModelSpec, Provider, load_model, parse_spec, spec_help

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
    "PROVIDERS",
    "Provider",
    "Sampling",
    "Usage",
    "ensure_gguf",
    "load_model",
    "parse_spec",
    "spec_help",
    "tuned_base",
]
