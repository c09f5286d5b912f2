"""Real renders through the sandbox: every status the renderer can report."""

from __future__ import annotations

import numpy as np
import pytest
from scenes import ANIMATED, STATIC

from manimgen.data import BUILTIN_TASKS
from manimgen.render import RenderCache, RenderJob, RenderPool, RenderStatus, render, render_key, sample_frames
from manimgen.render.cache import uncached_store
from manimgen.render.child import choose_scene

TWO_SCENES = """from manim import *

class Base(Scene):
    def construct(self):
        self.add(Circle())

class First(Scene):
    def construct(self):
        self.add(Square())

class Second(Base):
    def construct(self):
        self.add(Triangle())
"""


def test_animated_scene_gives_mp4_at_benchmark_quality() -> None:
    result = render(ANIMATED, use_cache=False)
    assert result.status is RenderStatus.OK, result.error_tail
    assert result.output is not None and result.output.suffix == ".mp4"
    frames = sample_frames(result.output, fps=5)
    assert frames.shape[1:] == (480, 854, 3)
    assert 4 <= len(frames) <= 6


def test_static_scene_gives_png_one_frame() -> None:
    result = render(STATIC, use_cache=False)
    assert result.ok and result.is_image
    frames = sample_frames(result.output)
    assert frames.shape == (1, 480, 854, 3)
    assert frames.std() > 0


def test_mathtex_renders() -> None:
    code = "from manim import *\n\nclass F(Scene):\n    def construct(self):\n        self.add(MathTex(r'\\int_0^1 x\\,dx'))\n"
    result = render(code, use_cache=False)
    assert result.ok, result.error_tail


def test_bad_tex_is_latex_error() -> None:
    code = "from manim import *\n\nclass F(Scene):\n    def construct(self):\n        self.add(MathTex(r'\\notacommand{x}'))\n"
    result = render(code, use_cache=False)
    assert result.status is RenderStatus.LATEX_ERROR
    assert "Undefined control sequence" in result.error_tail


def test_missing_latex_package_is_named_in_the_tail() -> None:
    code = (
        "from manim import *\n\nclass F(Scene):\n    def construct(self):\n"
        "        self.add(Tex(r'x', tex_template=TexTemplate(preamble=r'\\usepackage{nosuchpackage}')))\n"
    )
    result = render(code, use_cache=False)
    assert result.status is RenderStatus.LATEX_ERROR
    assert "nosuchpackage.sty' not found" in result.error_tail


def test_syntax_error_is_code_error_with_tail() -> None:
    result = render("from manim import *\n\nclass Broken(Scene):\n    def construct(self)\n        pass\n", use_cache=False)
    assert result.status is RenderStatus.CODE_ERROR
    assert "SyntaxError" in result.error_tail


def test_runtime_error_tail_is_last_ten_lines() -> None:
    code = STATIC.replace("self.add(Square(color=RED))", "self.add(Squircle())")
    result = render(code, use_cache=False)
    assert result.status is RenderStatus.CODE_ERROR
    assert "NameError" in result.error_tail and "Squircle" in result.error_tail
    assert len(result.error_tail.splitlines()) <= 10
    assert 'File "scene.py", line 5, in construct' in result.error_tail  # not the scratch folder's random path
    assert render(code, use_cache=False).error_tail == result.error_tail


def test_no_scene() -> None:
    result = render("from manim import *\n\nx = Circle()\n", use_cache=False)
    assert result.status is RenderStatus.NO_SCENE


def test_named_scene_missing_is_no_scene() -> None:
    assert render(STATIC, scene="Other", use_cache=False).status is RenderStatus.NO_SCENE


def test_two_scenes_pick_last_leaf_without_prompting() -> None:
    result = render(TWO_SCENES, use_cache=False)
    assert result.ok and result.scene == "Second"
    assert render(TWO_SCENES, scene="First", use_cache=False).scene == "First"


def test_choose_scene_rule() -> None:
    class A: ...

    class B(A): ...

    class C: ...

    assert choose_scene([A, B, C], None) is C
    assert choose_scene([A, B], None) is B
    assert choose_scene([A], "A") is A and choose_scene([A], "Z") is None and choose_scene([], None) is None


def test_infinite_loop_times_out_promptly() -> None:
    code = STATIC.replace("self.add(Square(color=RED))", "while True:\n            pass")
    result = render(code, timeout_s=4, use_cache=False)
    assert result.status is RenderStatus.TIMEOUT
    assert result.seconds < 4 + 3
    assert "4 s" in result.error_tail


def test_cache_hit_returns_without_rendering(tmp_path) -> None:
    store = RenderCache(tmp_path / "store")
    first = render(STATIC, cache=store)
    second = render(STATIC, cache=store)
    assert first.ok and not first.cached
    assert second.cached and second.seconds == first.seconds
    assert second.output.read_bytes() == first.output.read_bytes()
    assert render(STATIC, quality="preview", cache=store).cached is False


def test_cache_is_bounded(tmp_path) -> None:
    store = RenderCache(tmp_path / "store", max_bytes=1)
    render(STATIC, cache=store)
    store.trim()
    assert store.size_bytes() == 0


def test_uncached_renders_replace_their_entry_in_a_bounded_store() -> None:
    store = uncached_store()
    entry = store.root / render_key(STATIC, None, "low")[:2] / render_key(STATIC, None, "low")
    first = render(STATIC, use_cache=False)
    second = render(STATIC, use_cache=False)
    assert not first.cached and not second.cached and second.seconds != first.seconds
    assert second.output == first.output and second.output.parent == entry and second.output.is_file()
    assert sorted(path.name for path in entry.iterdir()) == sorted([second.output.name, "result.json"])
    assert store.max_bytes == 1 << 30 and store.root.name == "renders-uncached" and store is uncached_store()


def test_preview_quality_is_small() -> None:
    result = render(STATIC, quality="preview", use_cache=False)
    assert sample_frames(result.output).shape == (1, 180, 320, 3)


def test_pool_renders_in_order() -> None:
    tasks = BUILTIN_TASKS[:3]
    seen: list[int] = []
    with RenderPool(2) as pool:
        results = pool.map([RenderJob(t.reference_code) for t in tasks], on_done=lambda i, _: seen.append(i))
    assert [r.ok for r in results] == [True, True, True]
    assert sorted(seen) == [0, 1, 2]
    assert results[0].scene == "CircleToSquare"


@pytest.mark.parametrize("task", BUILTIN_TASKS, ids=lambda t: t.id)
def test_builtin_references_render(task) -> None:
    result = render(task.reference_code)
    assert result.ok, result.error_tail
    assert np.asarray(sample_frames(result.output)).ndim == 4
