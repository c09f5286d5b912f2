"""The files a finished scene can be delivered as: MP4 (what Manim writes), WebM, GIF or a PNG of the
last frame, made once from the accepted render.

The search always renders MP4, because the checks and the metrics decode it; the format a person asks
for is made from that file on the host with PyAV, the decoder the metrics already run on the same file,
and Pillow for the GIF's palette. A scene that never animates renders to a PNG, and stays one whatever
the format: a one-frame video or GIF says nothing more.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
from PIL import Image

from manimgen.registry import Registry
from manimgen.render.frames import IMAGE_SUFFIXES, iter_frames
from manimgen.render.result import DEFAULT_QUALITY, quality_spec

GIF_FPS = 10  # GIF counts time in hundredths of a second: 10 fps is exact, 12 or 15 would drift
GIF_MAX_WIDTH = 480  # sized for a slide or a chat message
GIF_PALETTE_FPS = 1.0  # the frames the palette is built from
WEBM_OPTIONS = {"crf": "32", "b": "0", "deadline": "realtime", "cpu-used": "8", "row-mt": "1"}


class DeliveryError(ValueError):
    """The render's file could not be made into the asked format (the scene could have written anything there)."""


@dataclass(frozen=True)
class Format:
    """One deliverable file type: its suffix, what it is for, its media type, and how it is made from an MP4."""

    name: str
    suffix: str
    media_type: str
    help: str
    make: Callable[[Path, Path], None]


def _copy(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)


def _webm(source: Path, target: Path) -> None:
    """VP9 in WebM at the source's size and frame rate, encoded for speed (a scene is mostly flat colour)."""
    with av.open(str(source)) as given, av.open(str(target), "w", format="webm") as written:
        video = given.streams.video[0]
        rate = Fraction(video.average_rate or video.guessed_rate or 15).limit_denominator(1000)
        stream = written.add_stream("libvpx-vp9", rate=rate, options=WEBM_OPTIONS)
        stream.width, stream.height, stream.pix_fmt = video.codec_context.width, video.codec_context.height, "yuv420p"
        for index, frame in enumerate(given.decode(video)):
            fresh = frame.reformat(format="yuv420p")
            fresh.pts, fresh.time_base = index, 1 / rate
            written.mux(stream.encode(fresh))
        written.mux(stream.encode(None))


def _gif_size(width: int, height: int) -> tuple[int, int]:
    scale = min(1.0, GIF_MAX_WIDTH / width)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _gif(source: Path, target: Path) -> None:
    """At most 480 px wide and 10 fps, looping, every frame drawn with one palette taken from the
    whole video (so colours do not flicker from frame to frame) and no dithering (flat shapes stay flat)."""
    sampled = [Image.fromarray(frame) for frame in iter_frames(source, GIF_PALETTE_FPS)]
    if not sampled:
        raise ValueError(f"{source} holds no decodable video frames")
    size = _gif_size(*sampled[0].size)
    montage = Image.new("RGB", (size[0], size[1] * len(sampled)))
    for row, image in enumerate(sampled):
        montage.paste(image.resize(size, Image.Resampling.LANCZOS), (0, size[1] * row))
    palette = montage.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    frames = [
        Image.fromarray(frame).resize(size, Image.Resampling.LANCZOS).quantize(palette=palette, dither=Image.Dither.NONE)
        for frame in iter_frames(source, GIF_FPS)
    ]
    frames[0].save(target, save_all=True, append_images=frames[1:], duration=1000 // GIF_FPS, loop=0, optimize=True)


def _last_frame(source: Path, target: Path) -> None:
    last = None
    with av.open(str(source)) as given:
        for frame in given.decode(given.streams.video[0]):
            last = frame
    if last is None:
        raise ValueError(f"{source} holds no decodable video frames")
    last.to_image().save(target)


_BUILT_IN = (
    Format("mp4", ".mp4", "video/mp4", "H.264 video, what Manim writes; plays everywhere", _copy),
    Format("webm", ".webm", "video/webm", "VP9 video for web pages", _webm),
    Format("gif", ".gif", "image/gif", "a looping GIF for slides and chat (≤ 480 px wide, 10 fps)", _gif),
    Format("png", ".png", "image/png", "the last frame as a picture", _last_frame),
)
FORMATS: Registry[Format] = Registry("format", ((format_.name, format_, format_.help) for format_ in _BUILT_IN))
DEFAULT_FORMAT = "mp4"
STILL = FORMATS["png"]


def output_spec(quality: str = DEFAULT_QUALITY, aspect: str | None = None, resolution: str | None = None, video_format: str = DEFAULT_FORMAT) -> str:
    """The quality spec of a request's output options (render/result.py), once its format is known to exist:
    the one check of them for the CLI, the server, the MCP tools and the notebook. Raises ValueError naming the fix."""
    FORMATS.pick(video_format)
    return quality_spec(quality, aspect, resolution)


def media_type(path: Path) -> str:
    """The media type of a delivered file, from its suffix."""
    return next((format_.media_type for format_ in FORMATS.values() if format_.suffix == path.suffix.lower()), "application/octet-stream")


def deliver(source: Path, target: Path, name: str = DEFAULT_FORMAT) -> Path:
    """Write the render `source` as format `name` at `target` with the format's suffix; a still stays a PNG.

    The source was written inside the sandbox, so it may not be what its suffix says: a file that does
    not decode is a DeliveryError naming the format, and leaves no partial file behind.
    """
    format_ = STILL if source.suffix.lower() in IMAGE_SUFFIXES else FORMATS.pick(name)
    placed = target.with_suffix(format_.suffix)
    placed.parent.mkdir(parents=True, exist_ok=True)
    try:
        (_copy if source.suffix.lower() == format_.suffix else format_.make)(source, placed)
    except (av.error.FFmpegError, OSError, ValueError) as error:
        placed.unlink(missing_ok=True)
        raise DeliveryError(f"the render's {source.suffix.lstrip('.')} could not be made into {format_.name} ({type(error).__name__}: {error})") from None
    return placed
