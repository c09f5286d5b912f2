"""A sentence's formula as Python for a plot and as LaTeX for MathTex: `2x + 1`, `x^2 - 9`, `sin(x)`, `e^x`, `|x|`.

The sentence is the user's text, so it is parsed here, never evaluated: a small recursive-descent
parser over numbers, `x`, the four operations, powers, brackets, absolute values and a few named
functions, with a product written without a sign (`2x`, `3(x + 1)`). Anything else is not a formula
this module can plot, and the caller leaves it to the model. Numbers become floats, so a tower of
powers (`9^9^9^9`) overflows at once instead of building an enormous integer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FUNCTIONS = {"sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "exp": "np.exp", "ln": "np.log", "log": "np.log10", "sqrt": "np.sqrt"}
LATEX_FUNCTIONS = {"sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "exp": r"\exp", "ln": r"\ln", "log": r"\log"}
TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<name>[a-z]+)|(?P<symbol>[-+*/^()|×·π√]))")
MAX_LENGTH = 60


class NotAFormula(ValueError):
    """The text is not a formula of x this module reads."""


@dataclass(frozen=True)
class Expression:
    python: str
    latex: str


def parse(text: str) -> Expression:
    """`y = 2x + 1` or `2x + 1` as Python (numpy, variable `x`) and LaTeX; NotAFormula for anything else."""
    body = text.strip().lower().removeprefix("y").strip().removeprefix("=").strip() if re.match(r"\s*y\s*=", text, re.I) else text.strip().lower()
    if not body or len(body) > MAX_LENGTH:
        raise NotAFormula(text)
    tokens = _tokens(body)
    parser = _Parser(tokens)
    expression = parser.sum()
    if parser.position != len(tokens):
        raise NotAFormula(text)
    return expression


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None or match.end() == position:
            if text[position:].strip() == "":
                break
            raise NotAFormula(text)
        token = next(value for value in match.groupdict().values() if value is not None)
        if match["name"] and match["name"] not in FUNCTIONS and match["name"] not in ("x", "e", "pi"):
            if all(letter in ("x", "e") for letter in match["name"]):
                tokens += list(match["name"])
                position = match.end()
                continue
            raise NotAFormula(text)
        tokens.append(token)
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise NotAFormula(" ".join(self.tokens))
        self.position += 1
        return token

    def sum(self) -> Expression:
        left = self.product()
        while self.peek() in ("+", "-"):
            sign = self.take()
            right = self.product()
            left = Expression(f"{left.python} {sign} {right.python}", f"{left.latex} {sign} {right.latex}")
        return left

    def product(self) -> Expression:
        left = self.unary()
        while True:
            token = self.peek()
            if token in ("*", "×", "·", "/"):
                self.take()
                right = self.unary()
                if token == "/":
                    left = Expression(f"({left.python}) / ({right.python})", rf"\frac{{{left.latex}}}{{{right.latex}}}")
                else:
                    left = Expression(f"{left.python} * {right.python}", rf"{left.latex} \cdot {right.latex}")
            elif token is not None and (token in ("(", "x", "e", "pi", "π", "√") or token in FUNCTIONS or token[0].isdigit()):
                right = self.unary()
                left = Expression(f"{left.python} * {right.python}", f"{left.latex}{right.latex}")
            else:
                return left

    def unary(self) -> Expression:
        if self.peek() == "-":
            self.take()
            inner = self.unary()
            return Expression(f"-{inner.python}", f"-{inner.latex}")
        return self.power()

    def power(self) -> Expression:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            exponent = self.unary()
            return Expression(f"({base.python}) ** ({exponent.python})", f"{base.latex}^{{{exponent.latex}}}")
        return base

    def atom(self) -> Expression:
        token = self.take()
        if token[0].isdigit():
            return Expression(repr(float(token)), token)
        if token == "x":
            return Expression("x", "x")
        if token == "e":
            return Expression("np.e", "e")
        if token in ("pi", "π"):
            return Expression("np.pi", r"\pi")
        if token == "(":
            inner = self.sum()
            self.take(")")
            return Expression(f"({inner.python})", rf"\left({inner.latex}\right)")
        if token == "|":
            inner = self.sum()
            self.take("|")
            return Expression(f"np.abs({inner.python})", rf"\left|{inner.latex}\right|")
        if token in FUNCTIONS or token == "√":
            argument = self.atom() if self.peek() == "(" else self.power()
            name = "sqrt" if token == "√" else token
            bare = argument.latex.removeprefix(r"\left(").removesuffix(r"\right)")
            latex = rf"\sqrt{{{bare}}}" if name == "sqrt" else rf"{LATEX_FUNCTIONS[name]}({bare})"
            return Expression(f"{FUNCTIONS[name]}({argument.python})", latex)
        raise NotAFormula(token)


SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻ⁿ", "0123456789-n")
SUPERSCRIPTS = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻ⁿ]+")
"""Unicode superscripts a sentence may use ("πr²", "x⁻¹"): TeX's `^`, which a font's ² would not typeset in MathTex."""


def latex(text: str) -> str:
    """A formula as the sentence writes it (`3 × 4 = 12`, `x^2 - 9`, `F = ma`, `sqrt(x)`) as LaTeX for MathTex."""
    converted = SUPERSCRIPTS.sub(lambda match: "^" + match[0].translate(SUPERSCRIPT_DIGITS) if len(match[0]) == 1 else "^(" + match[0].translate(SUPERSCRIPT_DIGITS) + ")", text)
    converted = converted.replace("∫", r"\int").replace("d/dx ", r"\frac{d}{dx} ").replace(" dx", r"\,dx").replace("×", r"\times ").replace("÷", r"\div ").replace("·", r"\cdot ").replace("±", r"\pm ").replace("π", r"\pi ")
    converted = re.sub(r"\bsqrt\(([^()]*)\)", r"\\sqrt{\1}", converted)
    converted = re.sub(r"\^(\w+|\([^()]*\))", lambda match: "^{" + match[1].strip("()") + "}", converted)
    converted = re.sub(r"\b(sin|cos|tan|ln|log)\b", r"\\\1", converted)
    converted = re.sub(r"(?<![\w.^/])(\d+)/(\d+)(?![\w./^])", r"\\frac{\1}{\2}", converted)
    converted = re.sub(r"\(([^()]+)\)\s*/\s*\(([^()]+)\)", r"\\frac{\1}{\2}", converted)
    converted = re.sub(r"\b([A-Za-z])(\d)\b", r"\1_\2", converted)
    converted = re.sub(r"(\d)\s+(N|kg|J|W|V|Hz|cm|km|m/s\^\{2\}|m/s)(?![\w/^])", r"\1\\,\\mathrm{\2}", converted)
    return converted.replace("%", r"\%")
