"""Code metrics, the metric registry and the correlation helpers."""

from __future__ import annotations

import ast
import math
import random

import pytest
import zss

from manimgen.metrics import (
    ast_distance,
    code_bert_bleu,
    codebleu,
    codebleu_parts,
    correlation,
    embedding_cosine,
    get_metric,
    list_metrics,
    syntax_error,
)
from manimgen.metrics.code import LabelTree, tree_edit_distance
from manimgen.metrics.embedders import code_embedder

SCENE = """from manim import *


class GrowCircle(Scene):
    def construct(self):
        circle = Circle(radius=1.5, color=BLUE)
        label = Text("radius").next_to(circle, DOWN)
        self.play(Create(circle))
        self.play(circle.animate.scale(2), Write(label))
        self.wait()
"""

SIMILAR = SCENE.replace("Circle(radius=1.5, color=BLUE)", "Square(side_length=2, color=RED)")

UNRELATED = """import json


def load(path):
    with open(path) as handle:
        return json.load(handle)
"""


@pytest.fixture(scope="module")
def minilm():
    return code_embedder("minilm-l6")


def test_codebleu_of_code_with_itself_is_one_in_every_part():
    parts = codebleu_parts(SCENE, SCENE)
    assert parts == pytest.approx(dict.fromkeys(parts, 1.0))
    assert parts["dataflow_match_score"] == pytest.approx(1.0)


def test_codebleu_ranks_a_similar_scene_above_unrelated_code():
    assert 0.0 < codebleu(SCENE, UNRELATED) < codebleu(SCENE, SIMILAR) < 1.0
    assert codebleu_parts(SCENE, SIMILAR)["dataflow_match_score"] > 0.0


def test_code_bert_bleu_of_code_with_itself_is_one(minilm):
    assert embedding_cosine(SCENE, SCENE, minilm) == pytest.approx(1.0, abs=1e-5)
    assert code_bert_bleu(SCENE, SCENE, minilm) == pytest.approx(1.0, abs=1e-5)
    assert code_bert_bleu(SCENE, SIMILAR, "minilm-l6") > code_bert_bleu(SCENE, UNRELATED, "minilm-l6")


@pytest.mark.parametrize("empty", ["", "   \n\t"])
def test_empty_code_scores_zero_and_is_flagged(empty, minilm):
    assert codebleu(SCENE, empty) == 0.0
    assert embedding_cosine(SCENE, empty, minilm) == 0.0
    assert code_bert_bleu(SCENE, empty, minilm) == 0.0
    assert ast_distance(SCENE, empty) == 1.0
    assert syntax_error(empty)


def test_unparsable_code_is_flagged_and_still_scored():
    broken = SCENE.replace("def construct(self):", "def construct(self)")
    assert syntax_error(broken)
    assert not syntax_error(SCENE)
    assert syntax_error("x = 1\0")
    assert ast_distance(SCENE, broken) == 1.0
    assert 0.0 < codebleu(SCENE, broken) < 1.0


def test_ast_distance_is_zero_for_identical_code_and_grows_with_change():
    assert ast_distance(SCENE, SCENE) == 0.0
    near, far = ast_distance(SCENE, SIMILAR), ast_distance(SCENE, UNRELATED)
    assert 0.0 < near < far <= 1.0


def test_ast_distance_ignores_formatting_and_comments():
    reformatted = SCENE.replace("self.wait()", "self.wait(  )  # hold the last frame")
    assert ast_distance(SCENE, reformatted) == 0.0


def random_tree(rng: random.Random, size: int) -> tuple[str, list]:
    labels = "abcde"
    nodes: list[tuple[str, list]] = [(rng.choice(labels), [])]
    for _ in range(size - 1):
        child = (rng.choice(labels), [])
        rng.choice(nodes)[1].append(child)
        nodes.append(child)
    return nodes[0]


def to_zss(node: tuple[str, list]) -> zss.Node:
    label, children = node
    result = zss.Node(label)
    for child in children:
        result.addkid(to_zss(child))
    return result


def unit_cost(a: str, b: str) -> int:
    return 0 if a == b else 1


@pytest.mark.parametrize("seed", range(12))
def test_tree_edit_distance_equals_zss_on_random_trees(seed):
    rng = random.Random(seed)
    a, b = random_tree(rng, rng.randint(1, 25)), random_tree(rng, rng.randint(1, 25))
    expected = zss.simple_distance(to_zss(a), to_zss(b), label_dist=unit_cost)
    assert tree_edit_distance(LabelTree.from_nested(a), LabelTree.from_nested(b)) == expected


def test_tree_edit_distance_equals_zss_on_python_asts():
    def ast_to_nested(node: ast.AST) -> tuple[str, list]:
        tree = LabelTree.from_ast(node)
        children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr_context)]
        return tree.labels[-1], [ast_to_nested(c) for c in children]

    first, second = ast.parse(SCENE), ast.parse(SIMILAR)
    expected = zss.simple_distance(to_zss(ast_to_nested(first)), to_zss(ast_to_nested(second)), label_dist=unit_cost)
    assert tree_edit_distance(LabelTree.from_ast(first), LabelTree.from_ast(second)) == expected > 0


def test_registry_lists_and_labels_metrics():
    assert {"codebleu", "cbb", "embedding_cosine", "ast_distance", "syntax_error"} <= set(list_metrics("code"))
    assert {"vs", "ssim_dtw", "sem_dtw"} <= set(list_metrics("frames"))
    assert get_metric("cbb").label == "CBB[minilm-l6]"
    assert get_metric("vs[clip-vit-l-14]").label == "VS[clip-vit-l-14]"
    assert get_metric("codebleu").label == "CodeBLEU"
    assert get_metric("ast_distance").higher_is_better is False


def test_registry_metrics_score_code(minilm):
    assert get_metric("cbb[minilm-l6]")(SCENE, SCENE) == pytest.approx(1.0, abs=1e-5)
    assert get_metric("syntax_error")(SCENE, "def (") == 1.0
    assert get_metric("codebleu")(SCENE, SCENE) == pytest.approx(1.0)


def test_registry_rejects_unknown_names_and_misplaced_embedders():
    with pytest.raises(ValueError, match="unknown metric .bleu4.; choose one of: "):
        get_metric("bleu4")
    with pytest.raises(ValueError, match="no embedder"):
        get_metric("codebleu[codebert]")


def test_pearson_and_spearman_on_monotone_data():
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    y = [2.0, 4.0, 6.0, 8.0, 100.0]
    linear = correlation.pearson(x, [2 * v for v in x])
    assert linear.r == pytest.approx(1.0) and linear.n == 5 and linear.p < 0.01
    ranked = correlation.spearman(x, y)
    assert ranked.r == pytest.approx(1.0) and ranked.n == 5
    assert correlation.pearson(x, y).r < 1.0


def test_correlation_is_nan_when_undefined():
    constant = correlation.pearson([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0])
    assert math.isnan(constant.r) and math.isnan(constant.p) and constant.n == 4
    short = correlation.spearman([1.0, 2.0], [2.0, 1.0])
    assert math.isnan(short.r) and short.n == 2


def test_correlation_drops_missing_pairs():
    result = correlation.spearman([1.0, None, 3.0, float("nan"), 5.0, 6.0], [1.0, 9.0, 2.0, 4.0, 3.0, 7.0])
    assert result.n == 4
    with pytest.raises(ValueError, match="paired"):
        correlation.pearson([1.0, 2.0], [1.0])
