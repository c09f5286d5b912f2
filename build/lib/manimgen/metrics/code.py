"""Code metrics (paper §3): CodeBLEU, embedding cosine, CodeBERTBLEU, AST distance, syntax flag.

Missing code never crashes a metric: empty code scores 0 (1.0 for AST distance, where lower is
better) and counts as a syntax error. Code that does not parse is still scored by CodeBLEU, whose
tree-sitter parser tolerates errors, as in the paper.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

import numpy as np

from manimgen.metrics.embedders import DEFAULT_CODE_EMBEDDER, CodeEmbedder, code_embedder
from manimgen.metrics.registry import register_metric
from manimgen.syntax import parse

CODEBLEU_PARTS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)


def _is_empty(code: str) -> bool:
    return not code or not code.strip()


def codebleu_parts(reference: str, generated: str) -> dict[str, float]:
    """CodeBLEU and its four components (``codebleu`` package, Python, weights 0.25 each)."""
    if _is_empty(reference) or _is_empty(generated):
        return dict.fromkeys(CODEBLEU_PARTS, 0.0)
    from codebleu import calc_codebleu

    scores = calc_codebleu([reference], [generated], lang="python")
    return {part: float(scores[part]) for part in CODEBLEU_PARTS}


@register_metric("codebleu", inputs="code", title="CodeBLEU")
def codebleu(reference: str, generated: str) -> float:
    """CodeBLEU of generated code against the reference (0 when either is empty)."""
    return codebleu_parts(reference, generated)["codebleu"]


@register_metric(
    "embedding_cosine", inputs="code", title="COS", embedder_kind="code", default_embedder=DEFAULT_CODE_EMBEDDER
)
def embedding_cosine(reference: str, generated: str, embedder: CodeEmbedder | str = DEFAULT_CODE_EMBEDDER) -> float:
    """Cosine of the two codes' embeddings (the paper's CodeBERT_cos with ``embedder="codebert"``)."""
    if _is_empty(reference) or _is_empty(generated):
        return 0.0
    encoder = code_embedder(embedder) if isinstance(embedder, str) else embedder
    vectors = np.asarray(encoder.embed([reference, generated]), dtype=np.float64)
    return float(np.clip(vectors[0] @ vectors[1], -1.0, 1.0))


def padded_pair_cosine(reference: str, generated: str, embedder: CodeEmbedder | str = DEFAULT_CODE_EMBEDDER) -> float:
    """The original code's embedding cosine (the `paper` preset): pooled over the padded pair, padding
    included, so a pair of different lengths scores differently from `embedding_cosine`. Not clipped."""
    if _is_empty(reference) or _is_empty(generated):
        return 0.0
    encoder = code_embedder(embedder) if isinstance(embedder, str) else embedder
    pair_cosine = getattr(encoder, "padded_pair_cosine", None)
    if pair_cosine is None:
        raise ValueError(f"the {encoder.name} embedder has no token states to pool over a padded pair; use a transformer embedder")
    return float(pair_cosine(generated, reference))


@register_metric("cbb", inputs="code", title="CBB", embedder_kind="code", default_embedder=DEFAULT_CODE_EMBEDDER)
def code_bert_bleu(reference: str, generated: str, embedder: CodeEmbedder | str = DEFAULT_CODE_EMBEDDER) -> float:
    """CodeBERTBLEU = √(CodeBLEU × embedding cosine); a negative cosine counts as 0."""
    return combine_code_bert_bleu(codebleu(reference, generated), embedding_cosine(reference, generated, embedder))


def combine_code_bert_bleu(codebleu_score: float, cosine: float) -> float:
    """√(CodeBLEU × cosine) from scores already computed; a negative cosine counts as 0 (the original's
    unclamped square root is then imaginary, and its real part is this 0)."""
    return math.sqrt(max(codebleu_score, 0.0) * max(cosine, 0.0))


def scene_classes(code: str) -> list[str]:
    """The classes the code defines that are scenes: a base named `...Scene` (Scene, ThreeDScene,
    manim.MovingCameraScene) or another scene class of the file, as Manim finds a file's scenes."""
    tree = parse_tree(code)
    if tree is None:
        return []
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    scenes: list[str] = []
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name in scenes:
                continue
            names = [base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "") for base in node.bases]
            if any(name.endswith("Scene") or name in scenes for name in names):
                scenes.append(node.name)
                changed = True
    return scenes


def syntax_error(code: str) -> bool:
    """True when the code is empty or ``ast.parse`` rejects it."""
    return parse_tree(code) is None


@register_metric("syntax_error", inputs="code", title="SyntaxErr", higher_is_better=False)
def _generated_syntax_error(reference: str, generated: str) -> bool:
    return syntax_error(generated)


@register_metric("ast_distance", inputs="code", title="ASTDist", higher_is_better=False)
def ast_distance(reference: str, generated: str) -> float:
    """Zhang–Shasha edit distance between the two ASTs divided by the larger tree's size.

    Unit costs for insert, delete and relabel. A node's label is its AST type plus the name or
    constant it carries (``Name:Circle``, ``Constant:2``, ``Attribute:shift``), so swapping a
    mobject or a value counts; ``Load``/``Store`` context markers are left out. Real scenes land
    in [0, 1] (trees of very different shapes can exceed 1). Code that is empty or does not parse
    gets 1.0, the distance of code sharing nothing with the reference."""
    ref_tree, gen_tree = parse_tree(reference), parse_tree(generated)
    if ref_tree is None or gen_tree is None:
        return 1.0
    ref_labels, gen_labels = LabelTree.from_ast(ref_tree), LabelTree.from_ast(gen_tree)
    return tree_edit_distance(ref_labels, gen_labels) / max(len(ref_labels), len(gen_labels))


def ast_distance_fields(reference: str, generated: str) -> float | None:
    """The original code's AST distance (the `paper` preset): the same Zhang–Shasha distance over trees
    whose nodes are AST type names with every scalar field as a "field: value" leaf and the `ctx`
    markers kept, divided by the larger tree's size + 1e-7 and not clamped. Empty generated code scores
    0.0 and code that does not parse None, as the original's evaluation records them."""
    if _is_empty(generated):
        return 0.0
    ref_tree, gen_tree = parse_tree(reference), parse_tree(generated)
    if ref_tree is None or gen_tree is None:
        return None
    ref_labels, gen_labels = LabelTree.from_nested(_field_tree(ref_tree)), LabelTree.from_nested(_field_tree(gen_tree))
    return tree_edit_distance(ref_labels, gen_labels) / (max(len(ref_labels), len(gen_labels)) + 1e-7)


def _field_tree(node: object) -> tuple[str, list]:
    """(label, children) of the original's tree: lists are flattened into their parent's children."""
    if not isinstance(node, ast.AST):
        return str(node), []
    children: list[tuple[str, list]] = []
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            children.extend(_field_tree(item) for item in value)
        elif isinstance(value, ast.AST):
            children.append(_field_tree(value))
        else:
            children.append((f"{name}: {value}", []))
    return type(node).__name__, children


def parse_tree(code: str) -> ast.Module | None:
    """The module's AST, or None for empty code or code Python cannot parse."""
    if _is_empty(code):
        return None
    try:
        return parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class LabelTree:
    """A labelled ordered tree in post-order: labels, leftmost-leaf index and keyroots per node."""

    labels: list[str] = field(default_factory=list)
    leftmost: list[int] = field(default_factory=list)
    keyroots: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.labels)

    @classmethod
    def from_ast(cls, root: ast.AST) -> LabelTree:
        tree = cls()
        tree._add(root, {id(node): _ast_children(node) for node in ast.walk(root)})
        tree._finish()
        return tree

    @classmethod
    def from_nested(cls, node: tuple[str, list]) -> LabelTree:
        """Build from ``(label, [children...])`` tuples (handy for tests and non-Python trees)."""
        tree = cls()
        tree._add_nested(node)
        tree._finish()
        return tree

    def _add(self, root: ast.AST, children_of: dict[int, list[ast.AST]]) -> None:
        stack: list[tuple[ast.AST, int]] = [(root, 0)]
        first_leaf: dict[int, int] = {}
        while stack:
            node, next_child = stack.pop()
            children = children_of[id(node)]
            if next_child < len(children):
                stack.append((node, next_child + 1))
                stack.append((children[next_child], 0))
                continue
            index = len(self.labels)
            self.labels.append(_ast_label(node))
            self.leftmost.append(first_leaf[id(children[0])] if children else index)
            first_leaf[id(node)] = self.leftmost[-1]

    def _add_nested(self, node: tuple[str, list]) -> int:
        label, children = node
        leftmost = [self._add_nested(child) for child in children]
        self.labels.append(label)
        self.leftmost.append(leftmost[0] if leftmost else len(self.labels) - 1)
        return self.leftmost[-1]

    def _finish(self) -> None:
        """Keyroots: the root and every node that has a left sibling (highest node per leftmost leaf)."""
        highest: dict[int, int] = {}
        for index, leftmost in enumerate(self.leftmost):
            highest[leftmost] = index
        self.keyroots = sorted(highest.values())


def tree_edit_distance(a: LabelTree, b: LabelTree) -> int:
    """Zhang–Shasha tree edit distance with unit costs.

    Same result as ``zss.simple_distance`` with 0/1 label costs (the tests check it), but without
    building edit scripts, which makes it about ten times faster on real scenes."""
    treedist = [[0] * len(b) for _ in range(len(a))]
    a_labels, a_left, b_labels, b_left = a.labels, a.leftmost, b.labels, b.leftmost
    for i in a.keyroots:
        for j in b.keyroots:
            i_left, j_left = a_left[i], b_left[j]
            rows, cols = i - i_left + 2, j - j_left + 2
            forest = [[0] * cols for _ in range(rows)]
            forest[0] = list(range(cols))
            for x in range(1, rows):
                forest[x][0] = x
            for x in range(1, rows):
                node_a = x + i_left - 1
                node_a_left = a_left[node_a]
                label_a = a_labels[node_a]
                previous, current = forest[x - 1], forest[x]
                treedist_row = treedist[node_a]
                whole_tree_a = node_a_left == i_left
                for y in range(1, cols):
                    node_b = y + j_left - 1
                    best = min(previous[y], current[y - 1]) + 1
                    if whole_tree_a and b_left[node_b] == j_left:
                        diagonal = previous[y - 1] + (label_a != b_labels[node_b])
                        best = min(best, diagonal)
                        current[y] = best
                        treedist_row[node_b] = best
                    else:
                        diagonal = forest[node_a_left - i_left][b_left[node_b] - j_left] + treedist_row[node_b]
                        current[y] = min(best, diagonal)
    return treedist[-1][-1]


def _ast_children(node: ast.AST) -> list[ast.AST]:
    return [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context)]


def _ast_label(node: ast.AST) -> str:
    kind = type(node).__name__
    for attribute in ("id", "attr", "name", "arg", "module"):
        value = getattr(node, attribute, None)
        if isinstance(value, str):
            return f"{kind}:{value}"
    if isinstance(node, ast.Constant):
        return f"{kind}:{node.value!r}"[:80]
    return kind
