"""The OpenAI-compatible provider: against a real llama.cpp server, and against a stub server that
misbehaves on purpose (busy, ignores n, refuses keys) to check retries and bookkeeping."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from servers import free_port

from manimgen.llm import LLMError, Message, Sampling, load_model
from manimgen.llm.openai_compat import OpenAICompatLLM, normalise_base_url

PROMPT: list[Message] = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
def test_chat_through_llama_server(llama_server: str) -> None:
    model = load_model(f"openai:{llama_server}")
    try:
        assert isinstance(model, OpenAICompatLLM)
        assert model.model, "the model id is discovered from /v1/models"
        result = model.chat(PROMPT, n=2, sampling=Sampling(temperature=1.0, max_tokens=24, seed=11))
        assert len(result.completions) == 2, "llama.cpp server ignores n: the remainder is asked for again"
        assert all(text.strip() for text in result.completions)
        assert result.completions[0] != result.completions[1], "the follow-up call shifts the seed"
        assert result.usage.prompt_tokens > 0
        assert 0 < result.usage.completion_tokens <= 48
        again = model.chat(PROMPT, n=2, sampling=Sampling(temperature=1.0, max_tokens=24, seed=11))
        assert again.completions == result.completions
    finally:
        model.close()


def test_greedy_with_stop_through_llama_server(llama_server: str) -> None:
    model = load_model(f"openai:{llama_server}")
    try:
        [full] = model.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=48)).completions
        assert "def " in full
        stopped = model.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=48, stop=("def ",)))
        assert stopped.completions == [full[: full.index("def ")]]
    finally:
        model.close()


def test_unreachable_server_is_llm_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    model = load_model(f"openai:{url}#any", max_retries=1, backoff_s=0.01)
    with pytest.raises(LLMError) as caught:
        model.chat(PROMPT)
    message = str(caught.value)
    assert url in message
    assert "start the server" in message
    assert "\n" not in message


def test_base_url_gets_api_root() -> None:
    assert normalise_base_url("http://host:8000") == "http://host:8000/v1"
    assert normalise_base_url("http://host:8000/v1/") == "http://host:8000/v1"
    with pytest.raises(LLMError, match="http://"):
        normalise_base_url("host:8000")


class StubServer:
    """Answers /v1/chat/completions from a queue of (status, body); records each request."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, dict[str, Any]]] = []
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(({key.lower(): value for key, value in self.headers.items()}, body))
                status, reply = stub.replies.pop(0)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 503:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def stub() -> Iterator[StubServer]:
    server = StubServer()
    yield server
    server.server.shutdown()
    server.server.server_close()


def one_choice(text: str) -> dict[str, Any]:
    return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}


def test_retries_busy_server_and_repeats_ignored_n(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MANIMGEN_API_KEY", "secret-key")
    stub.replies = [
        (503, {"error": "busy"}), (200, one_choice("a")), (429, {}), (200, one_choice("b")), (200, one_choice("c"))
    ]
    model = OpenAICompatLLM(stub.url, "m", backoff_s=0.01)
    result = model.chat(PROMPT, n=3, sampling=Sampling(seed=5, min_p=0.1, stop=("```",)))
    assert result.completions == ["a", "b", "c"]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (15, 6)
    answered = [body for _, body in stub.requests]
    assert [body["n"] for body in answered] == [3, 3, 2, 2, 1]
    assert [body["seed"] for body in answered] == [5, 5, 6, 6, 7]
    assert all(body["min_p"] == 0.1 and body["stop"] == ["```"] and body["model"] == "m" for body in answered)
    assert all(headers["authorization"] == "Bearer secret-key" for headers, _ in stub.requests)


def test_unset_options_are_not_sent(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MANIMGEN_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    stub.replies = [(200, one_choice("x"))]
    OpenAICompatLLM(stub.url, "m").chat(PROMPT)
    [(headers, body)] = stub.requests
    assert "authorization" not in headers
    assert not {"seed", "stop", "min_p"} & body.keys()


def test_images_travel_as_data_url_parts(stub: StubServer, tmp_path: Path) -> None:
    frame = tmp_path / "frame.png"
    frame.write_bytes(b"\x89PNG not really")
    stub.replies = [(200, one_choice("ok"))]
    model = OpenAICompatLLM(stub.url, "vision")
    assert model.accepts_images
    model.chat([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Fix it.", "images": [str(frame)]}])
    [(_, body)] = stub.requests
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    text, image = user["content"]
    assert text == {"type": "text", "text": "Fix it."} and image["type"] == "image_url"
    prefix, data = image["image_url"]["url"].split(",", 1)
    assert prefix == "data:image/png;base64" and base64.b64decode(data) == frame.read_bytes()
    with pytest.raises(LLMError, match="cannot read image"):
        model.chat([{"role": "user", "content": "x", "images": [str(tmp_path / "gone.png")]}])


def test_refused_key_names_the_variable(stub: StubServer) -> None:
    stub.replies = [(401, {"error": {"message": "invalid key"}})]
    with pytest.raises(LLMError, match="MANIMGEN_API_KEY"):
        OpenAICompatLLM(stub.url, "m").chat(PROMPT)


def test_client_error_carries_server_message(stub: StubServer) -> None:
    stub.replies = [(404, {"error": {"message": "model 'nope' does not exist"}})]
    with pytest.raises(LLMError, match="does not exist"):
        OpenAICompatLLM(stub.url, "nope").chat(PROMPT)


def test_persistent_overload_gives_up(stub: StubServer) -> None:
    stub.replies = [(503, {"error": "busy"})] * 3
    with pytest.raises(LLMError, match="503"):
        OpenAICompatLLM(stub.url, "m", max_retries=2, backoff_s=0.01).chat(PROMPT)
    assert len(stub.requests) == 3


def test_spec_sets_model_and_url(stub: StubServer) -> None:
    stub.replies = [(200, one_choice("ok"))]
    model = load_model(f"openai:{stub.url}#served-name")
    assert model.chat(PROMPT).completions == ["ok"]
    assert stub.requests[0][1]["model"] == "served-name"
    assert model.name == f"openai:{stub.url}#served-name"
    model.close()
