"""The lesson's one video: every scene paced to its narration, one after another, with the voice as an
AAC track, written with PyAV (the library Manim itself writes its videos with).

Each scene's frames are decoded once, in order, and each is written as many times as its pacing says
(timing.frame_counts), so a long video never sits in memory. Each line's audio is placed where its cue
starts; cues, chapters and the audio are all counted from the frames written, so they cannot drift
apart across scenes.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from manimgen.lesson.timing import Cue, Run, frame_counts
from manimgen.lesson.voice import RATE
from manimgen.paths import staged

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
AUDIO_FRAME = 1024


class AssemblyError(RuntimeError):
    """A scene video the lesson cannot read; the message names the scene."""


@dataclass(frozen=True)
class Clip:
    """A scene's video as the lesson reads it: where it is, its frame count (from its packets), rate and size."""

    path: Path
    frames: int
    fps: Fraction
    size: tuple[int, int]

    @property
    def seconds(self) -> float:
        return float(self.frames / self.fps)


def read_clip(path: Path) -> Clip:
    """The video's frame count, rate and size, read once (nothing decoded); a file that is no video is named."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            fps = Fraction(stream.average_rate or stream.guessed_rate or 15)
            size = (stream.codec_context.width, stream.codec_context.height)
            frames = sum(1 for packet in container.demux(video=0) if packet.size)
    except (av.FFmpegError, IndexError) as error:
        raise AssemblyError(f"{path} is not a video the lesson can read ({error})") from None
    if not frames:
        raise AssemblyError(f"{path} holds no frames")
    return Clip(path, frames, fps, size)


@dataclass(frozen=True)
class PacedScene:
    """One scene as the lesson plays it: its video, its runs, its lines' cues (from the scene's start) and audio."""

    title: str
    clip: Clip
    runs: list[Run]
    cues: list[Cue]
    audio: list[np.ndarray | None]


@dataclass(frozen=True)
class Assembled:
    """Where everything landed in the lesson's time: the line cues and one chapter per scene."""

    cues: list[Cue]
    chapters: list[Cue]
    seconds: float


def assemble(scenes: list[PacedScene], target: Path, *, burn: bool = False) -> Assembled:
    """Write `target` (MP4: H.264 video, AAC audio) from the paced scenes; return the lesson's cues and chapters."""
    (width, height), fps = scenes[0].clip.size, scenes[0].clip.fps
    cues: list[Cue] = []
    chapters: list[Cue] = []
    placed: list[tuple[int, np.ndarray]] = []
    written = 0
    with staged(target) as partial, av.open(str(partial), mode="w", format="mp4") as out:
        video = out.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"crf": "23", "preset": "veryfast"}
        audio = out.add_stream("aac", rate=RATE)
        audio.layout = "mono"
        for scene in scenes:
            offset = float(written / fps)
            shifted = [Cue(offset + cue.start, offset + cue.end, cue.text) for cue in scene.cues]
            written = _write_scene(out, video, scene, shifted if burn else [], written, fps, (width, height))
            chapters.append(Cue(offset, float(written / fps), scene.title))
            cues += shifted
            placed += [(round(cue.start * RATE), samples) for cue, samples in zip(shifted, scene.audio) if samples is not None]
        for packet in video.encode(None):
            out.mux(packet)
        _write_audio(out, audio, placed, round(written / fps * RATE))
    return Assembled(cues, chapters, float(written / fps))


def _frames(path: Path) -> Iterator[av.VideoFrame]:
    try:
        with av.open(str(path)) as container:
            yield from container.decode(video=0)
    except av.FFmpegError as error:
        raise AssemblyError(f"{path} is not a video the lesson can read ({error})") from None


def _write_scene(out: av.container.OutputContainer, stream: av.VideoStream, scene: PacedScene, cues: list[Cue], written: int, fps: Fraction, size: tuple[int, int]) -> int:
    """Write the scene's frames as its runs pace them (subtitles drawn on when `cues` are given); return the frame count so far."""
    for frame, count in zip(_frames(scene.clip.path), frame_counts(scene.runs, float(fps), scene.clip.frames)):
        image = frame.to_ndarray(format="rgb24")
        if image.shape[1] != size[0] or image.shape[0] != size[1]:
            image = np.asarray(Image.fromarray(image).resize(size))
        for _ in range(count):
            shown = _with_subtitle(image, cues, written / fps) if cues else image
            picture = av.VideoFrame.from_ndarray(shown, format="rgb24")
            picture.pts = written
            picture.time_base = Fraction(1) / fps
            for packet in stream.encode(picture):
                out.mux(packet)
            written += 1
    return written


def _with_subtitle(image: np.ndarray, cues: list[Cue], moment: Fraction) -> np.ndarray:
    """The frame with the line spoken at `moment` drawn in a dark band at the bottom."""
    text = next((cue.text for cue in cues if cue.start <= moment < cue.end), None)
    if text is None:
        return image
    picture = Image.fromarray(image)
    height = picture.height
    font = _font(max(12, height // 24))
    lines = textwrap.wrap(text, width=max(20, picture.width // max(1, height // 40)))[:3]
    draw = ImageDraw.Draw(picture, "RGBA")
    line_height = int(font.size * 1.25) if hasattr(font, "size") else 14
    top = height - line_height * len(lines) - height // 20
    draw.rectangle((0, top - 4, picture.width, top + line_height * len(lines) + 4), fill=(0, 0, 0, 170))
    for index, line in enumerate(lines):
        draw.text((picture.width / 2, top + index * line_height), line, font=font, fill="white", anchor="ma")
    return np.asarray(picture)


@functools.lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The subtitles' font, loaded once per size rather than for every frame a line is shown on."""
    return ImageFont.truetype(str(FONT), size) if FONT.is_file() else ImageFont.load_default()


def _write_audio(out: av.container.OutputContainer, stream: av.AudioStream, placed: list[tuple[int, np.ndarray]], total: int) -> None:
    """Mix every line into one mono track of `total` samples (silence elsewhere) and encode it."""
    track = np.zeros(total, np.float32)
    for start, samples in placed:
        end = min(total, start + len(samples))
        if end > start:
            track[start:end] += samples[: end - start]
    np.clip(track, -1.0, 1.0, out=track)
    for start in range(0, total, AUDIO_FRAME):
        frame = av.AudioFrame.from_ndarray(track[start : start + AUDIO_FRAME].reshape(1, -1), format="fltp", layout="mono")
        frame.sample_rate, frame.pts = RATE, start
        for packet in stream.encode(frame):
            out.mux(packet)
    for packet in stream.encode(None):
        out.mux(packet)
