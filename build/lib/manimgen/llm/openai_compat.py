"""Any server that speaks the OpenAI chat-completions API: vLLM, llama.cpp server, Ollama, OpenAI.

Transient failures (connection errors, timeouts, 429 and 5xx) are retried with exponential backoff,
honouring `Retry-After`. Servers that ignore `n` (llama.cpp server returns one choice) are asked
again for the remainder; with a seed, each follow-up call shifts it by the number of completions
already received so the extra completions differ from the first. `min_p` is sent only when set,
since OpenAI itself rejects it.

A message's `images` (frames of a render) are sent as `image_url` content parts holding base64 PNG
data URLs, the form OpenAI, vLLM and llama.cpp's multimodal server take; a text-only model's server
answers with an error, which names the model.

The API key comes from the constructor, else `MANIMGEN_API_KEY`, else `OPENAI_API_KEY`; local
servers need none.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, retry_if_result, stop_after_attempt, wait_exponential

from manimgen.llm.base import ChatResult, LLMError, Message, Sampling, Usage

DEFAULT_TIMEOUT_S = 300.0
CONNECT_TIMEOUT_S = 10.0
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0


def normalise_base_url(url: str) -> str:
    """`http://host:8000` and `http://host:8000/v1/` both mean the API root `http://host:8000/v1`."""
    url = url.rstrip("/")
    if urlsplit(url).scheme not in ("http", "https"):
        raise LLMError(f"server URL {url!r} must start with http:// or https://: openai:http://HOST:PORT/v1#MODEL")
    return url if urlsplit(url).path else f"{url}/v1"


def api_key_from_env() -> str | None:
    return os.environ.get("MANIMGEN_API_KEY") or os.environ.get("OPENAI_API_KEY") or None


class OpenAICompatLLM:
    """A chat model behind an OpenAI-compatible HTTP endpoint."""

    accepts_images = True

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        name: str | None = None,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = 4,
        backoff_s: float = 0.5,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        self._model = model
        self.name = name or f"openai:{self.base_url}#{model or ''}"
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        key = api_key or api_key_from_env()
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {key}"} if key else {},
            timeout=httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s)),
        )

    @property
    def model(self) -> str:
        """The model id to request; asked of the server when the spec left it out."""
        if self._model is None:
            served = self._request("GET", "/models").get("data") or []
            if not served:
                raise LLMError(f"{self.base_url}/models lists no model; name one: openai:{self.base_url}#MODEL")
            self._model = str(served[0]["id"])
        return self._model

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """One API call with retries; every failure that is not the caller's becomes an LLMError."""
        url = f"{self.base_url}{path}"
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(httpx.TransportError) | retry_if_result(lambda response: response.status_code in RETRY_STATUSES),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome is not None else None,
        )
        try:
            response = retrying(self._client.request, method, path, json=payload)
        except httpx.TransportError as error:
            raise LLMError(f"cannot reach {url} ({type(error).__name__}): start the server or fix the URL in the spec") from None
        if response.status_code in (401, 403):
            raise LLMError(f"{url} refused the API key (HTTP {response.status_code}): set MANIMGEN_API_KEY")
        if response.is_error:
            raise LLMError(f"{url} answered HTTP {response.status_code}: {_error_text(response)}")
        try:
            return response.json()
        except ValueError:
            raise LLMError(f"{url} did not answer JSON; is it an OpenAI-compatible API root?") from None

    def _wait(self, state: RetryCallState) -> float:
        """Exponential backoff from `backoff_s`, or the server's `Retry-After` when it asks for longer; at most MAX_BACKOFF_S."""
        delay = wait_exponential(multiplier=self.backoff_s, max=MAX_BACKOFF_S)(state)
        outcome = state.outcome
        retry_after = outcome.result().headers.get("retry-after") if outcome is not None and not outcome.failed else None
        try:
            return min(max(float(retry_after), delay), MAX_BACKOFF_S) if retry_after is not None else delay
        except ValueError:
            return delay

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        sampling = sampling or Sampling()
        usage = Usage()
        completions: list[str] = []
        started = time.perf_counter()
        while len(completions) < n:
            payload: dict[str, Any] = {
                "model": self.model,
                "messages": [wire_message(message) for message in messages],
                "n": n - len(completions),
                "temperature": sampling.temperature,
                "top_p": sampling.top_p,
                "max_tokens": sampling.max_tokens,
            }
            if sampling.seed is not None:
                payload["seed"] = sampling.seed + len(completions)
            if sampling.stop:
                payload["stop"] = list(sampling.stop)
            if sampling.schema:
                payload["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": json.loads(sampling.schema)}}
            if sampling.min_p is not None:
                payload["min_p"] = sampling.min_p
            body = self._request("POST", "/chat/completions", payload)
            choices = body.get("choices") or []
            if not choices:
                raise LLMError(f"{self.base_url}/chat/completions returned no choices for model {self.model!r}")
            completions.extend((choice.get("message") or {}).get("content") or "" for choice in choices)
            reported = body.get("usage") or {}
            usage.prompt_tokens += int(reported.get("prompt_tokens") or 0)
            usage.completion_tokens += int(reported.get("completion_tokens") or 0)
        usage.seconds = time.perf_counter() - started
        return ChatResult(completions[:n], usage)

    def close(self) -> None:
        self._client.close()


def wire_message(message: Message) -> dict[str, Any]:
    """A message as the API takes it: plain text content, or text and image parts when it has images."""
    images = message.get("images")
    if not images:
        return {"role": message["role"], "content": message["content"]}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message["content"]}]
    for path in images:
        try:
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        except OSError as error:
            raise LLMError(f"cannot read image {path} for the model: {error.strerror}") from None
        parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
    return {"role": message["role"], "content": parts}


def _error_text(response: httpx.Response) -> str:
    """The server's own error message, which usually names the fix (unknown model, prompt too long)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    error = body.get("error") if isinstance(body, dict) else body
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error or response.text)[:200]
