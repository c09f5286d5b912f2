"""Scorer and `manimgen score`: real renders of built-in tasks scored end to end."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from counting_renderer import CountingRenderer
from typer.testing import CliRunner

from manimgen.cli import app
from manimgen.data import BUILTIN_TASKS
from manimgen.scoring import ReferenceRenderError, Scorer, Scores

TASKS = {task.id: task for task in BUILTIN_TASKS}
CIRCLE = TASKS["circle-to-square"]  # an MP4
DOTS = TASKS["three-dots"]  # a PNG: the scene never animates
FORMULA = TASKS["pythagoras-formula"]  # a PNG
HELLO = TASKS["hello-text"]  # an MP4 of another scene
BROKEN = CIRCLE.reference_code.replace("Circle(color=BLUE", "Circel(color=BLUE")


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return Scorer()


def test_a_reference_against_itself_scores_one(scorer):
    scores = scorer.score_task(CIRCLE, CIRCLE.reference_code)
    assert scores.render_status == "ok" and scores.reference_status == "ok" and scores.rendered
    assert scores.vs == pytest.approx(1.0, abs=1e-9)
    assert scores.ssim_dtw == pytest.approx(1.0, abs=1e-9)
    assert scores.sem_dtw == pytest.approx(1.0, abs=1e-9)
    assert scores.cbb == pytest.approx(1.0, abs=1e-6)
    assert scores.ast_distance == 0.0 and not scores.syntax_error


def test_a_failed_render_scores_zero_but_keeps_its_code_metrics(scorer):
    scores = scorer.score_task(CIRCLE, BROKEN)
    assert scores.render_status == "code_error" and not scores.rendered
    assert scores.vs == scores.ssim_dtw == scores.sem_dtw == 0.0
    assert 0.5 < scores.codebleu < 1.0
    assert not scores.syntax_error


@pytest.mark.parametrize("code", [None, "", "  \n"])
def test_no_code_scores_zero(scorer, code):
    scores = scorer.score_task(CIRCLE, code)
    assert scores.render_status == "no_code" and not scores.rendered
    assert scores.vs == scores.codebleu == scores.code_cosine == scores.cbb == 0.0
    assert scores.ast_distance == 1.0 and scores.syntax_error


def test_code_that_does_not_parse_is_flagged(scorer):
    scores = scorer.score_task(CIRCLE, CIRCLE.reference_code[:-30] + "(\n")
    assert scores.syntax_error and scores.render_status == "code_error" and scores.vs == 0.0


def test_png_scores_against_png_and_mp4(scorer):
    png_vs_png = scorer.score_task(DOTS, FORMULA.reference_code)
    png_vs_mp4 = scorer.score_task(DOTS, CIRCLE.reference_code)
    mp4_vs_png = scorer.score_task(CIRCLE, DOTS.reference_code)
    for scores in (png_vs_png, png_vs_mp4, mp4_vs_png):
        assert scores.rendered and 0.0 < scores.vs < 1.0
    assert scorer.score_task(DOTS, DOTS.reference_code).vs == pytest.approx(1.0, abs=1e-9)


def test_a_small_variant_scores_above_an_unrelated_scene(scorer):
    shifted = "circle.shift(UP)\n        self.play(Create(circle))"
    variant = CIRCLE.reference_code.replace("BLUE", "GREEN").replace("self.play(Create(circle))", shifted)
    close = scorer.score_task(CIRCLE, variant)
    far = scorer.score_task(CIRCLE, HELLO.reference_code)
    assert close.rendered and far.rendered
    assert close.vs > far.vs
    assert close.sem_dtw > far.sem_dtw
    assert close.cbb > far.cbb


def test_completions_of_one_task_render_the_reference_once():
    with CountingRenderer() as renderer:
        scorer = Scorer(renderer=renderer)
        completions = [CIRCLE.reference_code, CIRCLE.reference_code.replace("RED", "YELLOW"), BROKEN]
        scores = [scorer.score_task(CIRCLE, code) for code in completions]
    assert renderer.codes.count(CIRCLE.reference_code) == 2  # once as the reference, once as the first completion
    assert scorer.reference_cache_stats().misses == 1 and scorer.reference_cache_stats().hits == 2
    assert [s.render_status for s in scores] == ["ok", "ok", "code_error"]


def test_score_many_renders_each_reference_once_and_matches_score(scorer):
    fresh = Scorer()
    items = [(CIRCLE.reference_code, code) for code in (CIRCLE.reference_code, HELLO.reference_code, None)]
    items.append((DOTS.reference_code, FORMULA.reference_code))
    many = fresh.score_many(items)
    assert fresh.reference_cache_stats().misses == 2
    assert [s.render_status for s in many] == ["ok", "ok", "no_code", "ok"]
    for (reference, code), scores in zip(items, many):
        assert scores.to_dict() == pytest.approx(scorer.score(reference, code).to_dict(), abs=1e-12)


def test_render_workers_outlive_a_batch_and_ast_distance_can_be_skipped(scorer):
    with Scorer(with_ast_distance=False, workers=1) as lean:
        first = lean.score_many([(CIRCLE.reference_code, HELLO.reference_code)])
        workers = lean._pool
        second = lean.score_many([(DOTS.reference_code, FORMULA.reference_code)])
        assert workers is not None and lean._pool is workers
    assert lean._pool is None
    full = scorer.score(CIRCLE.reference_code, HELLO.reference_code)
    assert first[0].ast_distance is None and second[0].ast_distance is None and full.ast_distance is not None
    assert replace(first[0], ast_distance=None).to_dict() == pytest.approx(replace(full, ast_distance=None).to_dict(), abs=1e-6)


def test_a_reference_that_does_not_render_raises_naming_the_task(scorer):
    broken_task = replace(CIRCLE, id="broken-reference", reference_code=BROKEN)
    with pytest.raises(ReferenceRenderError, match="broken-reference.*code_error.*Circel"):
        scorer.score_task(broken_task, CIRCLE.reference_code)


def test_scores_name_their_embedders_and_round_trip(scorer):
    scores = scorer.score_task(CIRCLE, None)
    assert scores.label("vs") == "VS[effnet-lite0]"
    assert scores.label("sem_dtw") == "SEM_DTW[effnet-lite0]"
    assert scores.label("ssim_dtw") == "SSIM_DTW"
    assert scores.label("cbb") == "CBB[minilm-l6]"
    with pytest.raises(ValueError, match="unknown score"):
        scores.label("bleu")
    assert Scores.from_dict(json.loads(json.dumps(scores.to_dict()))) == scores


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="DTW"):
        Scorer(dtw="slow")
    with pytest.raises(ValueError, match="quality"):
        Scorer(quality="ultra")


def test_cli_prints_a_table_with_embedder_labels(tmp_path):
    generated = tmp_path / "generated.py"
    generated.write_text(CIRCLE.reference_code.replace("BLUE", "GREEN"))
    result = CliRunner().invoke(app, ["score", "--task", CIRCLE.id, "--code", str(generated)])
    assert result.exit_code == 0, result.output
    assert "VS[effnet-lite0]" in result.output and "CBB[minilm-l6]" in result.output
    assert "render (generated)" in result.output


def test_cli_scores_two_files_as_json(tmp_path):
    reference, generated = tmp_path / "reference.py", tmp_path / "generated.py"
    reference.write_text(DOTS.reference_code)
    generated.write_text(BROKEN)
    result = CliRunner().invoke(app, ["score", "--ref", str(reference), "--gen", str(generated), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout[result.stdout.index("{") :])
    assert report["scores"]["render_status"] == "code_error" and report["scores"]["vs"] == 0.0
    assert report["labels"]["vs"] == "VS[effnet-lite0]"


@pytest.mark.parametrize(
    "arguments",
    [
        ["--task", "no-such-task", "--code", "{file}"],
        ["--task", "circle-to-square", "--code", "{missing}"],
        ["--code", "{file}"],
    ],
)
def test_cli_bad_input_exits_2(tmp_path, arguments):
    generated = tmp_path / "generated.py"
    generated.write_text(CIRCLE.reference_code)
    filled = [argument.format(file=generated, missing=tmp_path / "missing.py") for argument in arguments]
    result = CliRunner().invoke(app, ["score", *filled])
    assert result.exit_code == 2
    assert "error:" in result.output
