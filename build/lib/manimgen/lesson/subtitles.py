"""Subtitles from the narration's lines and their measured times: SRT (through the `srt` library Manim
already installs) and WebVTT, plus a WebVTT chapters track (one cue per scene) for a browser's
`<track kind="chapters">`."""

from __future__ import annotations

from datetime import timedelta

import srt

from manimgen.lesson.timing import Cue


def to_srt(cues: list[Cue]) -> str:
    return srt.compose([srt.Subtitle(index, timedelta(seconds=cue.start), timedelta(seconds=cue.end), cue.text) for index, cue in enumerate(cues, 1)])


def to_vtt(cues: list[Cue]) -> str:
    """WebVTT: a header, then each cue as SRT writes it but with a dot before the milliseconds and no number."""
    blocks = [f"{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}\n{_vtt_text(cue.text)}" for cue in cues]
    return "WEBVTT\n\n" + "\n\n".join(blocks) + ("\n" if blocks else "")


def _vtt_time(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"


def _vtt_text(text: str) -> str:
    """A cue's text as WebVTT needs it: no blank line (it would end the cue), markup characters escaped."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "\n".join(lines).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
