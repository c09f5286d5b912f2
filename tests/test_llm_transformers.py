"""The transformers provider on a test-sized random Llama (tokenizer trained here on the package's own
source), and, marked slow, on the real 0.5B GGUF loaded dequantised."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tiny_qwen import TINY_SHAPE
from tokenizers import ByteLevelBPETokenizer
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

import manimgen
from manimgen.llm import LLMError, Message, MissingWeightsError, Sampling, load_model
from manimgen.llm.transformers import TransformersLLM

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
PROMPT: list[Message] = [
    {"role": "system", "content": "You write Manim scenes."},
    {"role": "user", "content": "A circle grows."},
]


def train_tokenizer(chat_template: str | None) -> PreTrainedTokenizerFast:
    """A byte-level BPE learned from the package's own source files: small, fast, and in-repo."""
    sources = [path.read_text() for path in sorted(Path(manimgen.__file__).parent.rglob("*.py"))]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(sources, vocab_size=512, min_frequency=2, special_tokens=SPECIAL_TOKENS)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = chat_template
    return tokenizer


def save_tiny_model(folder: Path, chat_template: str | None = CHAT_TEMPLATE) -> Path:
    tokenizer = train_tokenizer(chat_template)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        **TINY_SHAPE,
        max_position_embeddings=512,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def tiny(tiny_model_dir: Path) -> TransformersLLM:
    model = load_model(f"hf:{tiny_model_dir}")
    assert isinstance(model, TransformersLLM)
    return model


def test_generates_n_completions_and_counts_tokens(tiny: TransformersLLM) -> None:
    result = tiny.chat(PROMPT, n=3, sampling=Sampling(temperature=1.0, max_tokens=12, seed=3))
    assert len(result.completions) == 3
    prompt_text = tiny.tokenizer.apply_chat_template(PROMPT, tokenize=False, add_generation_prompt=True)
    assert result.usage.prompt_tokens == len(tiny.tokenizer(prompt_text, add_special_tokens=False)["input_ids"])
    assert 0 < result.usage.completion_tokens <= 3 * 12
    assert len(set(result.completions)) > 1


def test_seed_repeats_and_leaves_global_rng_alone(tiny: TransformersLLM) -> None:
    sampling = Sampling(temperature=1.0, max_tokens=12, seed=42, min_p=0.001)
    torch.manual_seed(7)
    expected_next = torch.rand(1)
    torch.manual_seed(7)
    first = tiny.chat(PROMPT, n=2, sampling=sampling).completions
    assert torch.equal(torch.rand(1), expected_next)
    assert tiny.chat(PROMPT, n=2, sampling=sampling).completions == first


def test_greedy_n_copies_one_decode(tiny: TransformersLLM) -> None:
    result = tiny.chat(PROMPT, n=2, sampling=Sampling(temperature=0.0, max_tokens=10))
    assert result.completions[0] == result.completions[1]


def test_stop_string_is_cut(tiny: TransformersLLM) -> None:
    greedy = Sampling(temperature=0.0, max_tokens=24)
    [full] = tiny.chat(PROMPT, sampling=greedy).completions
    middle = range(len(full) // 2, len(full) - 1)
    stop = next(full[index : index + 2] for index in middle if full[index : index + 2].strip())
    [stopped] = tiny.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=24, stop=(stop,))).completions
    assert stopped == full[: full.index(stop)]


def test_adapter_changes_the_model(tiny: TransformersLLM, tiny_model_dir: Path, tmp_path: Path) -> None:
    from peft import LoraConfig, PeftModel, get_peft_model

    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    get_peft_model(LlamaForCausalLM.from_pretrained(tiny_model_dir), lora).save_pretrained(tmp_path / "adapter")
    adapted = load_model(f"hf:{tiny_model_dir}+{tmp_path / 'adapter'}")
    assert isinstance(adapted, TransformersLLM)
    assert isinstance(adapted.model, PeftModel)
    ids = tiny.tokenizer("def construct(self):", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        assert not torch.allclose(tiny.model(ids).logits, adapted.model(ids).logits)
    assert adapted.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=6)).usage.completion_tokens > 0
    adapted.close()
    with pytest.raises(LLMError, match="closed"):
        adapted.chat(PROMPT)


def test_tokenizer_without_chat_template_is_refused(tmp_path: Path) -> None:
    save_tiny_model(tmp_path, chat_template=None)
    with pytest.raises(LLMError, match="chat template"):
        TransformersLLM(tmp_path)


def test_missing_model_is_llm_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="not found"):
        load_model(f"hf:{tmp_path / 'absent.gguf'}")
    with pytest.raises(LLMError, match="cannot load"):
        TransformersLLM(tmp_path)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU refusal")
def test_four_bit_needs_cuda(tiny_model_dir: Path) -> None:
    with pytest.raises(LLMError, match="CUDA"):
        TransformersLLM(tiny_model_dir, load_in_4bit=True)


@pytest.mark.slow
def test_small_gguf_loads_dequantised() -> None:
    try:
        model = load_model("hf:qwen2.5-coder-0.5b", progress=False)
    except MissingWeightsError as error:
        pytest.skip(str(error))
    try:
        messages: list[Message] = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
        result = model.chat(messages, sampling=Sampling(temperature=0.0, max_tokens=40))
        assert "def " in result.completions[0]
        assert 0 < result.usage.completion_tokens <= 40
    finally:
        model.close()
