"""Narration spoken offline: one small voice interface, its implementations in a registry, and the one
reader of what they wrote.

`espeak-ng` (Debian's package, which the set-up installs) works everywhere and needs no weights; an
OpenAI-compatible speech endpoint (`/v1/audio/speech`, e.g. a local Kokoro or Piper server) is the
second implementation, for a better voice. When the voice is missing the lesson still comes out,
silent: each line is timed at a reading pace and shown as a subtitle.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import av
import httpx
import numpy as np

from manimgen.llm.openai_compat import api_key_from_env
from manimgen.registry import Registry

RATE = 44100
"""Samples per second of every line as the lesson reads it, and of the lesson's audio track."""
READING_WORDS_PER_S, MIN_LINE_S, SILENT_SCENE_S = 2.5, 1.5, 30.0
SPEAK_TIMEOUT_S = 120
MAX_AUDIO_BYTES = 50_000_000
"""More than a spoken line of 300 characters could need, at any sample rate."""


class VoiceError(RuntimeError):
    """A voice that cannot speak (missing program, unreachable endpoint); the message names the fix."""


class Voice(Protocol):
    """Speaks one line into an audio file; `silent` voices write nothing and are timed by reading pace."""

    name: str
    silent: bool

    def speak(self, text: str, path: Path) -> None: ...


@dataclass
class Espeak:
    """Debian's espeak-ng, run as a program with the line as one argument (never through a shell)."""

    language: str = "en"
    name: str = "espeak-ng"
    silent: bool = False

    def __post_init__(self) -> None:
        program = shutil.which("espeak-ng")
        if program is None:
            raise VoiceError("espeak-ng is not installed; run `apt-get install espeak-ng` (bash scripts/setup.sh does) or pick --voice silent")
        self.program = program

    def speak(self, text: str, path: Path) -> None:
        try:
            subprocess.run([self.program, "-v", self.language, "-w", str(path), "--", text], check=True, capture_output=True, timeout=SPEAK_TIMEOUT_S)
        except subprocess.CalledProcessError as error:
            detail = error.stderr.decode(errors="replace").strip().splitlines()
            raise VoiceError(f"espeak-ng failed ({detail[-1] if detail else error.returncode}); check --language (`espeak-ng --voices` lists them)") from None
        except subprocess.TimeoutExpired:
            raise VoiceError(f"espeak-ng took over {SPEAK_TIMEOUT_S} s for one line; shorten the line") from None


@dataclass
class SpeechEndpoint:
    """An OpenAI-compatible speech endpoint: POST {base}/audio/speech with the line, a WAV back."""

    base_url: str
    voice: str = "alloy"
    model: str = "tts-1"
    api_key: str | None = None
    name: str = "speech-endpoint"
    silent: bool = False

    def speak(self, text: str, path: Path) -> None:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {"model": self.model, "voice": self.voice, "input": text, "response_format": "wav"}
        try:
            with httpx.stream("POST", f"{self.base_url.rstrip('/')}/audio/speech", json=body, headers=headers, timeout=SPEAK_TIMEOUT_S) as response:
                if response.status_code != 200:
                    raise VoiceError(f"the speech endpoint {self.base_url} answered {response.status_code}; check its URL, voice and key")
                audio = bytearray()
                for chunk in response.iter_bytes():
                    audio += chunk
                    if len(audio) > MAX_AUDIO_BYTES:
                        raise VoiceError(f"the speech endpoint {self.base_url} sent over {MAX_AUDIO_BYTES} bytes for one line; that is not one spoken line")
        except httpx.HTTPError as error:
            raise VoiceError(f"the speech endpoint {self.base_url} did not answer ({error}); start it or pick --voice espeak-ng") from None
        path.write_bytes(bytes(audio))


@dataclass
class Silent:
    """No voice: the lesson is silent and each line is shown as a subtitle for its reading time."""

    name: str = "silent"
    silent: bool = True

    def speak(self, text: str, path: Path) -> None:
        return None


VOICES: Registry[Callable[[str], Voice]] = Registry("voice")
VOICES.add("espeak-ng", Espeak, "Debian's espeak-ng, offline, in every language it knows (the default)")
VOICES.add("silent", lambda language: Silent(), "no audio: every line is a subtitle shown for its reading time")
DEFAULT_VOICE = "espeak-ng"
ENDPOINT_HELP = "or an OpenAI-compatible speech endpoint's URL, the voice after # (http://localhost:8880/v1#af_heart)"


def open_voice(spec: str, language: str = "en") -> Voice:
    """The voice `spec` names: a registered one (`espeak-ng`, `silent`) or an endpoint URL (`http://host:port/v1#voice`),
    sent the key of $MANIMGEN_API_KEY or $OPENAI_API_KEY when one is set, as the model provider is."""
    if spec.startswith(("http://", "https://")):
        base, _, voice = spec.partition("#")
        return SpeechEndpoint(base, voice or "alloy", api_key=api_key_from_env())
    return VOICES.pick(spec)(language)


def read_audio(path: Path) -> np.ndarray:
    """A voice's file as mono float32 samples at RATE; whatever the voice wrote is decoded defensively."""
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                raise VoiceError(f"{path.name} holds no audio")
            resampler = av.AudioResampler(format="flt", layout="mono", rate=RATE)
            chunks = [resampled.to_ndarray().reshape(-1) for frame in container.decode(audio=0) for resampled in resampler.resample(frame)]
            chunks += [resampled.to_ndarray().reshape(-1) for resampled in resampler.resample(None)]
    except av.FFmpegError as error:
        raise VoiceError(f"{path.name} is not audio the lesson can read ({error})") from None
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)


SPOKEN = (
    ("^2", " squared"), ("²", " squared"), ("^3", " cubed"), ("³", " cubed"), ("π", " pi "), ("√", " the square root of "),
    ("≈", " is about "), ("≠", " is not equal to "), ("≤", " is at most "), ("≥", " is at least "), ("°", " degrees"), ("∞", " infinity"),
)  # fmt: skip
POWER = re.compile(r"\^\s*(-?\w+)")


def spoken(text: str) -> str:
    """A line as the voice should say it: maths signs a voice misreads in words ("πr²" is "pi r squared",
    where espeak-ng says "pi two"); the subtitle keeps the signs."""
    for sign, words in SPOKEN:
        text = text.replace(sign, words)
    return " ".join(POWER.sub(r" to the power \1", text).split())


def reading_seconds(text: str) -> float:
    """How long a line stays on screen when no voice says it."""
    return max(MIN_LINE_S, len(text.split()) / READING_WORDS_PER_S)
