"""The checklist of a sentence from the words whose meaning is certain: numbers, colours, quoted
text, shape nouns, formulas, and the verbs of change around them.

Each rule reads one construction ("a number line from 0 to 10", "three blue squares", "turns red",
"rotates by 45 degrees", "one after another") and adds the requirement it states; nothing is
guessed from context, because a requirement the sentence did not ask for sends the search after
the wrong scene. A clause no rule reads becomes a `look` item (checks/coverage.py): the checker
never holds it, and a person can edit the list before anything is checked.
"""

from __future__ import annotations

import itertools
import math
import re
import typing
from collections.abc import Callable, Iterable
from fractions import Fraction

from pydantic import ValidationError

from manimgen.checks.colours import COLOUR_WORD, colour_word
from manimgen.checks.coverage import COUNT_NAMES, QUOTED, unread
from manimgen.checks.requirements import MAX_COUNT, MAX_ITEMS, MAX_ROWS, Checklist, Form, Requirement

TRIANGLE_FORMS = ("right", "equilateral", "isosceles")
POLYGON_NOUNS = ("triangle", "square", "pentagon", "hexagon", "octagon", "polygon")
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, **{word: value for value, word in COUNT_NAMES.items()}}
COUNT_WORD = r"\d+|" + "|".join(NUMBER_WORDS)
COLOUR = COLOUR_WORD.pattern[2:-2]
# shape word (singular) -> the kind the checker knows
SHAPES: dict[str, str] = {
    "circle": "circle", "square": "square", "triangle": "triangle", "rectangle": "rectangle", "dot": "dot", "point": "dot",
    "line": "line", "arrow": "arrow", "vector": "arrow", "star": "star", "hexagon": "hexagon", "pentagon": "pentagon",
    "octagon": "octagon", "polygon": "polygon", "ellipse": "ellipse", "box": "box", "bar": "bar", "ball": "ball", "block": "box",
    "node": "node", "number line": "number line", "axes": "axes", "number plane": "axes", "coordinate plane": "axes",
    "coordinate grid": "axes", "parabola": "curve", "curve": "curve", "matrix": "matrix",
}  # fmt: skip
ADJECTIVE = (
    r"(?:(?:small|large|big|tiny|little|thin|thick|long|short|solid|filled|hollow|dashed|regular|right|equilateral|isosceles|scalene|unit|new|single"
    rf"|horizontal|vertical|equal|different|stacked|empty|\w+-sided|(?!(?:{COLOUR})\b)\w+ed)\s+)*"
)
NUMBER = r"-?\d+(?:\.\d+)?(?:\s*π)?|-?π"
MATH_SIGN = re.compile(r"[=^×÷]|\d[a-z]|\b[a-z]\s*[-+*/]\s*\w|\b(?:sin|cos|tan|ln|log|sqrt)\(")
FORMULA = re.compile(r"(?<![\w^])((?:[A-Za-z]\w*\s*=\s*)?[-\w().|√π%]+(?:\s*[-+×÷*/^=]\s*[-\w().|√π%]+)+|(?:sin|cos|tan|ln|log|sqrt)\([a-z]\))")
FORMULA_WHOLE = re.compile(r"(.+)")
"""A span of the sentence taken as one formula (see `_joined`)."""
UNIT = re.compile(r"\s+(N|kg|J|W|V|Hz|cm|km|m/s\^2|m/s|Ω)(?![\w/^])")
"""A unit written after a formula's last number ("F = 10 N"): part of what is shown."""
TIMES = re.compile(r"(?<=\d)\s+x\s+(?=\d)")
""""7 x 8 = 56": an x between two numbers is a times sign."""
FORMULA_NAME = re.compile(
    r"\b((?:(?!(?:Write|Show|Display|State|Give)\b)[A-Z][\w']*\s+|(?:first|second|third|power|product|quotient|chain|sum|difference|slope|distance|area|ideal gas)\s+)*"
    r"(?:[Ll]aw|[Rr]ule|[Tt]heorem|[Pp]rinciple|[Ii]dentity|[Ff]ormula|[Ee]quation))\s*,?\s*$"
)
"""The name a sentence gives the formula right after it: "Newton's second law F = ma", "the power rule …"."""
NAMED_FORMULAS = {
    "quadratic formula": "x = (-b ± √(b^2 - 4ac))/2a",
    "pythagorean theorem": "a^2 + b^2 = c^2",
    "euler's identity": "e^(iπ) + 1 = 0",
}
SHOWING = re.compile(r"\b(writ\w*|show\w*|display\w*|label\w*|equation|formula|identity|transform\w*|expand\w*|factor\w*|solve|derivative|integral)\b", re.I)
SEQUENCE_WORDS = re.compile(r"\b(one after (?:another|the other)|one by one|one at a time|in turn|step by step|one (?:step|line) (?:per|at a) (?:line|time))\b", re.I)
NOT_OBJECTS = re.compile(
    r"\bdot product\b|\btangent line\b|\bone line at a time\b|\bper line\b|\bsame line\b|\bnumber line\b|\bpoints? where\b|\bfrom an? point\b"
    r"|\bcorners of an? \w+|\b(?:nodes|dots|points) (in an? \w+)",
    re.I,
)


def plural(word: str) -> str:
    if word == "matrix":
        return "matrices"
    return word + "es" if word.endswith(("x", "s")) else word + "s"


SHAPE_WORD = "|".join(sorted([*SHAPES, *(plural(word) for word in SHAPES if word != "axes")], key=len, reverse=True))
SHAPE = re.compile(rf"\b(?:(?P<count>{COUNT_WORD})\s+)?{ADJECTIVE}(?:(?P<colour>{COLOUR})\s+)?{ADJECTIVE}(?P<shape>{SHAPE_WORD})\b", re.I)


def shape_kind(word: str | None) -> str | None:
    lowered = (word or "").lower()
    return next((kind for singular, kind in SHAPES.items() if lowered in (singular, plural(singular))), None)


def number(text: str) -> float | None:
    """A sentence's number ("-3", "0.5", "2π", "-π") as a float."""
    cleaned = text.replace(" ", "").lower().replace("pi", "π")
    try:
        if "π" in cleaned:
            factor = cleaned.replace("π", "")
            return {"": 1.0, "-": -1.0}.get(factor, float(factor) if factor not in ("", "-") else 1.0) * 3.141592653589793
        return float(cleaned)
    except ValueError:
        return None


def extract(sentence: str) -> Checklist:
    """Every requirement the rules read in `sentence`, in the order of the rules (a vaguer repeat of one
    already found, the same object without its colour, is left out), then a `look` item for each clause
    they left unread."""
    found: list[Requirement] = []
    for rule in RULES:
        try:
            proposed = rule(sentence)
        except ValidationError:  # a value the schema cannot hold (a 200-character formula) is no certain requirement
            continue
        for requirement in proposed:
            if not any(_covers(kept, requirement) for kept in found):
                found = [kept for kept in found if not _covers(requirement, kept)] + [requirement]
    read = Checklist(sentence=sentence, requirements=_labels_not_formulas(_merge_plotted(found))[:MAX_ITEMS])
    return Checklist(sentence=sentence, requirements=[*read.requirements, *unread(read, room=MAX_ITEMS - len(read.requirements))])


def _merge_plotted(found: list[Requirement]) -> list[Requirement]:
    """A formula that is also a drawn curve ("Show y = e^x and y = ln(x) on the same axes") is that curve's label,
    not a second thing to write, whichever rule read it first."""
    curves = {item.text for item in found if item.kind == "object" and item.what == "curve" and item.text}
    labelled = {item.text for item in found if item.kind == "formula" and not item.other and item.text in curves}
    return [
        item.model_copy(update={"label": item.text, "phrase": f"{item.phrase}, labelled"}) if item.kind == "object" and item.what == "curve" and item.text in labelled and item.label is None else item
        for item in found
        if not (item.kind == "formula" and not item.other and item.text in curves)
    ]


def _labels_not_formulas(found: list[Requirement]) -> list[Requirement]:
    """A formula that is a figure's label ("its diameter labelled d = 6") is that label, not a second thing to write."""
    labels = {item.text for item in found if item.kind == "text" and item.what in FIGURE_PARTS}
    return [item for item in found if not (item.kind == "formula" and item.text in labels and not item.other)]


def _covers(a: Requirement, b: Requirement) -> bool:
    """Whether `a` asks for everything `b` does (and maybe more)."""
    if a.kind != b.kind:
        return False
    fields_a, fields_b = a.model_dump(exclude={"phrase"}), b.model_dump(exclude={"phrase"})
    return all(value in (None, [], fields_a[name]) for name, value in fields_b.items())


def _article(word: str) -> str:
    if word in ("axes",):
        return "the"
    return "an" if word[:1] in "aeiou" else "a"


# --- rules --------------------------------------------------------------------------------------


def objects(sentence: str) -> list[Requirement]:
    """Shape nouns with their count and colour: "three blue squares", "a red dot", "two rows of five circles"."""
    found = []
    blocked = [match.span(match.lastindex or 0) for match in NOT_OBJECTS.finditer(sentence)]
    for match in SHAPE.finditer(sentence):
        kind = shape_kind(match["shape"])
        if kind is None or _is_reference(sentence, match) or any(start <= match.start("shape") < end for start, end in blocked):
            if not (kind == "number line" and match["shape"].lower() == "number line"):
                continue
        count = _count(match["count"])
        grid = re.search(rf"\b(?P<rows>{COUNT_WORD})\s+rows?\s+(?:and|by|of)\s+(?:(?P<columns>{COUNT_WORD})\s+columns?\s+of\s+)?$", sentence[: match.start()], re.I)
        rows = None
        if grid:
            rows = _count(grid["rows"], math.inf)
            total = (rows or 1) * (_count(grid["columns"], math.inf) or _count(match["count"], math.inf) or 1)
            count, rows = (total if total <= MAX_COUNT else None), (rows if rows is not None and rows <= MAX_ROWS else None)
        if re.search(r"\b\d+\s+by\s+$", sentence[: match.start("count") if match["count"] else match.start()]):
            count = None
        groups = re.search(rf"\b(?P<groups>{COUNT_WORD})\s+(?:equal\s+)?groups\s+of\s+$", sentence[: match.start()], re.I)
        grouped = ""
        if groups and count and (_count(groups["groups"], MAX_ROWS) or 0) * count <= MAX_COUNT:
            rows = _count(groups["groups"], MAX_ROWS)
            count = (rows or 0) * count or None
            grouped = f" divided into {rows} equal groups (rows)"
        table = re.search(rf"\b(?P<rows>{COUNT_WORD})\s*(?:by|x|×)\s*(?P<columns>{COUNT_WORD})\s+grid\s+of\s+$", sentence[: match.start()], re.I)
        if table and (_count(table["rows"], MAX_ROWS) or 0) * (_count(table["columns"], MAX_ROWS) or 0) <= MAX_COUNT:
            rows = _count(table["rows"], MAX_ROWS)
            count = (rows or 0) * (_count(table["columns"], MAX_ROWS) or 0) or None
        if count is None and match["shape"].lower() not in SHAPES:
            count = 2 if not re.search(r"\b(?:its|the|each|all|of)\s+$", sentence[: match.start()], re.I) else None
        colour = colour_word(match["colour"]) if match["colour"] else _colour_after(sentence, match.end()) or _coloured_later(sentence, match.end())
        noun = match["shape"].lower()
        kinds = " ".join(re.findall(r"\b(?:right|equilateral|isosceles|scalene|regular|unit|dashed)\b", match[0], re.I)).lower()
        form = _form(kinds, noun)
        varied = count and count > 1 and re.match(r"\s+(?:of|in)\s+different\s+colou?rs\b", sentence[match.end() :], re.I)
        words = [str(count) if count and count > 1 else _article(colour or kinds or noun), colour or "", kinds, noun, "in different colours" if varied else ""]
        found.append(
            Requirement(
                kind="object",
                phrase=" ".join(word for word in words if word) + (grouped or f" in {rows} rows" if rows and rows > 1 else ""),
                what=kind,
                count=count if count and count > 1 else None,
                rows=rows if rows and rows > 1 and count and count > 1 else None,
                colour=colour,
                form=form,
            )
        )
    return found


def _form(kinds: str, noun: str) -> Form | None:
    """The form a check can measure from the corners: right, equilateral or isosceles for a triangle,
    regular for any polygon."""
    for form in kinds.split():
        if (form in TRIANGLE_FORMS and noun == "triangle") or (form == "regular" and noun in POLYGON_NOUNS):
            return typing.cast(Form, form)
    return None


def _is_reference(sentence: str, match: re.Match[str]) -> bool:
    """ "the line y = x" names a plotted line, "the point (0, 1)" a place, "the vector (2, 1)" an arrow another rule reads."""
    after = sentence[match.end() : match.end() + 12]
    return match["shape"].lower() in ("point", "points", "line", "lines", "vector", "vectors") and bool(re.match(r"\s*(?:\(|y\s*=|[a-z]\s*=)", after))


def _coloured_later(sentence: str, position: int) -> str | None:
    """ "Draw a triangle with vertices A, B and C and color it orange": the colour a later "colour it" gives the
    shape just before it (none when another shape stands between)."""
    later = re.search(rf"\b(?:colou?r|paint|fill|shade)\s+(?:it|them)\s+(?:in\s+)?({COLOUR})\b", sentence[position:], re.I)
    if later is None or SHAPE.search(sentence[position : position + later.start()]):
        return None
    return colour_word(later[1])


def _count(word: str | None, most: float = MAX_COUNT) -> int | None:
    """A count word or number, None above what a viewer would count (`most`)."""
    if word is None:
        return None
    lowered = word.lower()
    value = int(lowered) if lowered.isdigit() else NUMBER_WORDS.get(lowered)
    return value if value is None or value <= most else None


def _colour_after(sentence: str, position: int, size_words: bool = False) -> str | None:
    """ "…(3, 2) in green", "… in blue" (with `size_words`, "in big yellow numbers"): a colour named just after the object."""
    size = r"(?:(?:big|large|huge|small|bold)\s+)?" if size_words else ""
    match = re.match(rf"[^,.;]{{0,30}}?\bin\s+{size}({COLOUR})\b", sentence[position:], re.I)
    return colour_word(match[1]) if match else None


def vectors(sentence: str) -> list[Requirement]:
    """ "the vector (2, 1)", "their sum (3, 2) in green": an arrow from the origin ending at those values."""
    found = []
    pair = r"\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)"
    for match in re.finditer(rf"\b(?P<noun>vectors?|sum|result|arrow)\s*(?P<pairs>{pair}(?:\s*(?:,\s*and|,|and)\s*{pair})*)", sentence, re.I):
        if match["noun"].lower() == "result" and not re.search(r"\bvector", sentence, re.I):
            continue
        colour = _colour_after(sentence, match.end())
        summed = match["noun"].lower() == "sum" and re.search(r"\btip\s+to\s+tail\b", sentence, re.I)
        pairs = re.findall(r"\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)", match["pairs"])
        listed = re.match(rf"[^.;]{{0,30}}?\bin\s+({COLOUR})((?:\s*,\s*(?:{COLOUR}))*)\s*,?\s+and\s+({COLOUR})\b", sentence[match.end() :], re.I)
        colours = [colour_word(word) for word in re.findall(COLOUR, listed[0], re.I)] if listed else []
        for index, (x, y) in enumerate(pairs):
            colour = colours[index] if len(colours) == len(pairs) else colour
            phrase = ("their sum (added tip to tail), " if summed else "") + f"an arrow to ({x}, {y})" + (f" in {colour}" if colour else "")
            found.append(Requirement(kind="object", phrase=phrase, what="arrow", colour=colour, at=[float(x), float(y)]))
    summed = re.search(r"\btheir\s+sum\b(?!\s*\()", sentence, re.I)
    if summed and len(found) >= 2 and re.search(r"\btip\s+to\s+tail\b", sentence, re.I) and not any(item.phrase.startswith("their sum") for item in found):
        x, y = (sum((item.at or [0.0, 0.0])[axis] for item in found) for axis in (0, 1))
        colour = _colour_after(sentence, summed.end())
        found.append(Requirement(kind="object", phrase=f"their sum (added tip to tail), an arrow to ({x:g}, {y:g})" + (f" in {colour}" if colour else ""), what="arrow", colour=colour, at=[x, y]))
    if re.search(r"\b(?:x and y|horizontal and vertical)\s+components\b", sentence, re.I) and found:
        found.append(Requirement(kind="object", phrase="its x and y components drawn as dashed lines", what="line", count=2, other="components"))
    columns = re.search(r"\bcolumns\s+of\s+the\s+matrix\s+\[\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*,\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\]", sentence, re.I)
    if columns:
        a, b, c, d = (float(value) for value in columns.groups())
        found += [Requirement(kind="object", phrase=f"the matrix's column ({x:g}, {y:g}) as an arrow", what="arrow", at=[x, y]) for x, y in ((a, c), (b, d))]
    return found


def texts(sentence: str) -> list[Requirement]:
    """Quoted texts, the labels a sentence names ("labelled A, B, C and D", "label the chord AB"), and the
    letters or numbers it lists for nodes or cells ("root A and children B, C and D", "the array 2, 6, 4, 8")."""
    found = [
        Requirement(kind="text", phrase=f'the text "{text}" is shown' + (f" in {colour}" if colour else ""), text=text, colour=colour)
        for match in QUOTED.finditer(sentence)
        if (text := next(group for group in match.groups() if group))
        for colour in [_colour_after(sentence, match.end())]
    ]
    for match in re.finditer(r"\blabel(?:l?ed|s)?\s+(?:it\s+|them\s+|each\s+\w+\s+|the\s+\w+\s+)?(?P<labels>[^.;]+)", sentence, re.I):
        found += [Requirement(kind="text", phrase=f'the label "{label}" is shown', text=label) for label in _listed(match["labels"])]
    for match in re.finditer(r"\b(?:root|nodes?|children|child|leaves|array|numbers|keys|list|values|heights?|scores|data|[Ss]ort|[Pp]ush|[Ee]nqueue|[Ii]nsert)\s+(?:of\s+)?(?P<items>(?:-?\d+|[A-Z])(?:\s*,\s*(?:-?\d+|[A-Z]))*(?:,?\s+and\s+(?:-?\d+|[A-Z]))?)\b", sentence):
        found += [Requirement(kind="text", phrase=f'"{item}" is shown', text=item) for item in re.findall(r"-?\d+|[A-Z]", match["items"])]
    for match in ARRAY.finditer(sentence):
        found += [Requirement(kind="text", phrase=f'"{item}" is shown', text=item) for item in re.findall(r"-?\d+", match[1])]
    for match in re.finditer(r"\b(?:(?:its|the)\s+(?P<noun>value|result|sum|area|perimeter|circumference|determinant)|equals?|to get)\s*,?\s*(?:(?:is|of)\s+)?(?P<value>-?\d+(?:\.\d+)?|\(-?\d+,\s*-?\d+\))", sentence, re.I):
        noun = (match["noun"] or "value").lower()
        what = noun if noun in ("area", "perimeter", "circumference", "determinant") else None
        inside = re.match(r"\s+inside\b", sentence[match.end() :], re.I)
        found.append(Requirement(kind="text", phrase=f"the {noun} {match['value']} is shown" + (" inside it" if inside else ""), text=match["value"], what=what))
    return found


ARRAY = re.compile(r"(?<!\[)(?<!,)(?<!,\s)\[\s*(-?\d+(?:\s*,\s*-?\d+)+)\s*\](?!\s*(?:,\s*\[|\]))")
"""A list of numbers in brackets ("the array [7, 2, 9, 4]", "bubble sort on [5, 1, 4, 2]"), not a matrix's row."""


def _listed(text: str, equations: bool = False) -> list[str]:
    """ "A, B, C and D" -> ["A", "B", "C", "D"]; short labels only (a letter, a number, a short formula; with
    `equations`, a letter set to a number, "d = 6", as one)."""
    text = re.sub(r"^\s*(?:as\s+)?the\s+(?=\w+\s*$)", "", text)  # "label it the identity"
    if equations:
        text = re.sub(r"\b([A-Za-z])\s*=\s*(\d+(?:\.\d+)?)\b", r"\1=\2", text)
    head = re.split(r"\b(?:on|in|with|at|from|to|beside|next|above|below|under|that|which|while|then|pointing|between|as)\b", text)[0]
    parts = [part.strip(" ,") for part in re.split(r",|\band\b", head)]
    labels = list(itertools.takewhile(lambda part: 0 < len(part) <= 8 and len(part.split()) == 1, parts))  # "3 and write its area, 9": the 3
    if not labels or any(len(label.split()) > 1 or shape_kind(label) or label.lower() in ("it", "them", "the", "its") for label in labels):
        return []
    return [label.replace("=", " = ") for label in labels] if equations else labels


def formulas(sentence: str) -> list[Requirement]:
    """Formulas to be shown as typeset maths: written ones ("Write 2x + 3 = 7"), named ones ("the quadratic formula"),
    and one turned into another ("Expand (a + b)^2 into a^2 + 2ab + b^2")."""
    found = []
    lowered = sentence.lower()
    for name, formula in NAMED_FORMULAS.items():
        if name in lowered:
            placed = re.match(r"\s+(above|over|below|under|beneath)\b", lowered[lowered.index(name) + len(name) :])
            where = f", {placed[1]} the drawing" if placed else ""
            found.append(Requirement(kind="formula", phrase=f"the {name} written as a formula ({formula}){where}", text=formula))
    if not SHOWING.search(sentence):
        return found
    shown: list[tuple[str, str, str | None, str]] = []
    written = TIMES.sub(" × ", sentence)
    worded = _worded(written)
    pieces = [(match.start(), match.end(), match) for match in _joined(FORMULA.finditer(written), written) if not any(start <= match.start() < end for start, end, _ in worded)]
    for start, end, piece in sorted([*pieces, *worded], key=lambda found: found[0]):
        if isinstance(piece, str):
            text = piece
        else:
            text = re.sub(r"^[A-Za-z]{3,}\s+(?=-\s*\w)", "", piece[1].strip(" .,"))  # "Solve -x + 2 = 5": a word, then a minus sign
            if re.fullmatch(r"[xyz]-axis", text, re.I) or not _balanced(text):
                continue
            if not MATH_SIGN.search(text) or re.fullmatch(r"[\d\s,().-]+", text) or _only_a_place(written, piece) or _plotted(written, start):
                continue
        name = FORMULA_NAME.search(written[:start])
        large = re.match(r"[^,.;]{0,20}?\b(big|large|huge)\b", written[end:], re.I)
        above = re.match(r"\s+(above|over|at the top|below|under|beneath)\b", written[end:], re.I)
        middle = re.match(r"\s+in\s+the\s+(?:middle|centre|center)\b", written[end:], re.I)
        size = (f", {large[1].lower()}" if large else "") + (f", {above[1].lower()} the drawing" if above else "") + (", in the middle" if middle else "")
        unit = UNIT.match(written, end) if text[-1:].isdigit() else None
        shown.append((f"{text} {unit[1]}" if unit else text, f"{name[1]}, " if name else "", _colour_after(written, end, size_words=True), size))
    change = re.search(r"\b(?:transform\w*|expand\w*|factor\w*|turn\w*|becom\w*|chang\w*|simplif\w*|rewrit\w*)\b[^.;]*?\binto\b", written, re.I)
    for index, (text, name, colour, size) in enumerate(shown):
        after = shown[index + 1][0] if index + 1 < len(shown) else None
        into = after if change and after and written.find(text) < change.end() <= written.find(after) else None
        if into:
            found.append(Requirement(kind="formula", phrase=f"{change[0].split()[0].lower()}: the formula {text} becomes {into}", text=text, other=into))
        tinted = f", in {colour}" if colour else ""
        found.append(Requirement(kind="formula", phrase=f"{name}the formula {text} is shown as typeset maths{tinted}{size}", text=text, colour=colour))
    return found


WORDED = (
    re.compile(
        rf"\b(?:definite\s+)?integral\s+of\s+(?P<f>[^,;]+?)\s+from\s+(?P<a>{NUMBER})\s+to\s+(?P<b>{NUMBER})"
        r"(?:\s*,?\s*(?:and\s+its\s+value\s*,?|(?:which\s+)?(?:equals|is)|=)\s*(?P<v>-?\d+(?:\.\d+)?(?:/\d+)?)\b)?",
        re.I,
    ),
    re.compile(r"\bderivative\s+of\s+(?P<f>[^,;]+?)\s*,?\s+(?:which\s+)?(?:is|equals|=)\s+(?P<g>[^,;.]+?)(?=\s+(?:and|by|on|with|then|as)\b|[,.;]|$)", re.I),
)
"""Formulas a sentence says in words: "the integral of 2x from 0 to 3 and its value, 9", "the derivative of x^3, which is 3x^2"."""


def _worded(sentence: str) -> list[tuple[int, int, str]]:
    """Where a formula said in words stands in the sentence, and the formula it says (`∫_0^3 2x dx = 9`, `d/dx x^3 = 3x^2`)."""
    found = []
    for match in WORDED[0].finditer(sentence):
        value = f" = {match['v']}" if match["v"] else ""
        found.append((match.start(), match.end(), f"∫_{match['a']}^{match['b']} {match['f'].strip()} dx{value}"))
    for match in WORDED[1].finditer(sentence):
        found.append((match.start(), match.end(), f"d/dx {match['f'].strip()} = {match['g'].strip()}"))
    return found


def _balanced(text: str) -> bool:
    """Whether every bracket opens before it closes: "-1) = (3" is a cut through a sentence, not a formula."""
    depth = 0
    for character in text:
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth < 0:
            return False
    return depth == 0


def _joined(matches: Iterable[re.Match[str]], sentence: str) -> list[re.Match[str]]:
    """Formula matches with only a space between them are one formula the pattern cut ("d/dx x^n = n x^(n-1)")."""
    joined: list[re.Match[str]] = []
    for match in matches:
        if joined and not sentence[joined[-1].end() : match.start()].strip() and all(MATH_SIGN.search(piece[1]) for piece in (joined[-1], match)):
            match = FORMULA_WHOLE.match(sentence, joined.pop().start(), match.end()) or match
        joined.append(match)
    return joined


def _only_a_place(sentence: str, match: re.Match[str]) -> bool:
    """ "from x = -4 to x = 4", "at x = 1": a value where something is, not a formula to write."""
    before = sentence[max(0, match.start() - 9) : match.start()].lower()
    return bool(re.fullmatch(r"[a-z]\s*=\s*-?[\d.π]+", match[1].strip())) and bool(re.search(r"\b(from|to|at|between|and|where|for)\s+$", before))


def _plotted(sentence: str, position: int) -> bool:
    """A formula right after "plot", "graph", "line", "curve" or "on" names what is drawn; "label it" asks to show it too."""
    before = sentence[max(0, position - 20) : position].lower()
    labelled = re.search(r"\blabel(?!led axes)", sentence, re.I)
    return bool(re.search(r"\b(plot|graph|graph of|line|curve|parabola|lines|along|on|under|between|draw|and)\s+(?:the\s+)?$", before)) and not labelled


def ranges(sentence: str) -> list[Requirement]:
    """ "a number line from 0 to 10", "axes from -3 to 3", "for x from 0.2 to 5", "sin(x) from 0 to 2π",
    "between x = 1 and x = 2"."""
    found = []
    for match in re.finditer(rf"\b(?P<what>number line|axes|x|y)\s+(?:from|between)\s+(?P<low>{NUMBER})\s+(?:to|and)\s+(?P<high>{NUMBER})", sentence, re.I):
        what = match["what"].lower()
        low, high = number(match["low"]), number(match["high"])
        if low is None or high is None:
            continue
        if what in ("x", "y"):
            found.append(Requirement(kind="range", phrase=f"the {what}-values run from {match['low']} to {match['high']}", what=_plotted_thing(sentence), axis=what, low=low, high=high))
        else:
            found.append(Requirement(kind="range", phrase=f"the {what} runs from {match['low']} to {match['high']}", what=what, axis="x", low=low, high=high))
        if what == "number line":
            found += [Requirement(kind="text", phrase=f"the number line is numbered ({end} is written)", text=end) for end in (match["low"], match["high"])]
    for match in re.finditer(rf"\b(?:from|between)\s+x\s*=\s*(?P<low>{NUMBER})\s+(?:to|and)\s+x\s*=\s*(?P<high>{NUMBER})", sentence, re.I):
        low, high = number(match["low"]), number(match["high"])
        if low is not None and high is not None:
            what = _plotted_thing(sentence)
            found.append(Requirement(kind="range", phrase=f"the {what} spans x = {match['low']} to x = {match['high']}", what=what, axis="x", low=low, high=high))
    under = re.search(rf"\b(?:area|region)\s+(?:under|below|beneath)\s+(?:the\s+)?(?:curve\s+)?(?:y\s*=\s*)?[^,]+?\s+(?:from|between)\s+(?P<low>{NUMBER})\s+(?:to|and)\s+(?P<high>{NUMBER})\b", sentence, re.I)
    if under and not found and number(under["low"]) is not None and number(under["high"]) is not None:
        low, high = number(under["low"]), number(under["high"])
        found.append(Requirement(kind="range", phrase=f"the shaded area spans x = {under['low']} to x = {under['high']}", what="area", axis="x", low=low, high=high))
    plot = re.search(rf"\b(?:plot|graph|draw)\s+(?:the\s+)?(?:curve\s+)?(?:y\s*=\s*)?[^,]+?\s+from\s+(?P<low>{NUMBER})\s+to\s+(?P<high>{NUMBER})", sentence, re.I)
    if plot and not found:
        low, high = number(plot["low"]), number(plot["high"])
        if low is not None and high is not None:
            found.append(Requirement(kind="range", phrase=f"the curve runs from x = {plot['low']} to x = {plot['high']}", what="curve", axis="x", low=low, high=high))
    return found


def _plotted_thing(sentence: str) -> str:
    """What an x-range belongs to: a shaded area, a moving point, else the curve."""
    if re.search(r"\b(shade|area|region)\b", sentence, re.I):
        return "area"
    if re.search(r"\b(mov\w*|dot|point)\b.*\balong\b", sentence, re.I):
        return "dot"
    return "curve"


def curves(sentence: str) -> list[Requirement]:
    """ "Plot y = 2x + 1", "the parabola y = x^2", "cos(x) in blue", "the curve y = 1/x": a drawn curve, its colour and label."""
    found = []
    for match in re.finditer(r"\b(?:plot|graph|draw|show)\s+(?:the\s+)?(?:curve\s+|line\s+|lines\s+|parabola\s+|graph of\s+|exponential curve\s+)?(?P<formula>y\s*=\s*[^,;]+?|[a-z]+\(x\)|e\^x)(?=\s+(?:from|for|on|in|and|between|as|approaching|crossing|meeting|intersecting|,)|[,.;]|$)", sentence, re.I):
        formula = match["formula"].strip()
        colour = _colour_after(sentence, match.end())
        labelled = re.search(r"\blabel(?!led axes)", sentence, re.I)
        phrase = f"the curve {formula} is drawn" + (f" in {colour}" if colour else "") + (", labelled" if labelled else "")
        found.append(Requirement(kind="object", phrase=phrase, what="curve", colour=colour, label=formula if labelled else None, text=formula))
        for other in re.finditer(r"^\s*(?:in\s+\w+\s+)?and\s+(?:the\s+)?(?:curve\s+|line\s+)?(?P<formula>y\s*=\s*[^,;]+?|[a-z]+\(x\))(?:\s+in\s+(?P<colour>\w+))?(?=\s+(?:from|for|on|and|between|crossing|meeting|intersecting)\b|[,.;]|$)", sentence[match.end() :], re.I):
            other_colour = colour_word(other["colour"]) if other["colour"] else None
            phrase = f"the curve {other['formula']} is drawn" + (f" in {other_colour}" if other_colour else "")
            found.append(Requirement(kind="object", phrase=phrase, what="curve", colour=other_colour, text=other["formula"]))
    for match in re.finditer(r"\b(?:along|under|below|above)\s+(?:the\s+)?(?:line\s+|curve\s+|parabola\s+)?(?P<formula>y\s*=\s*[^,;]+?)(?=\s+(?:from|for|between|as|while|and)\b|[,.;]|$)", sentence, re.I):
        if not any(item.text == match["formula"].strip() for item in found):
            found.append(Requirement(kind="object", phrase=f"the curve {match['formula'].strip()} is drawn", what="curve", text=match["formula"].strip()))
    derivative = WORDED[1].search(sentence)
    if derivative and re.search(r"\b(?:plot|graph|draw)\s+(?:them\s+)?both\b|\bboth\s+curves\b", sentence, re.I):
        for formula in (derivative["f"].strip(), derivative["g"].strip()):
            found.append(Requirement(kind="object", phrase=f"the curve y = {formula} is drawn", what="curve", text=f"y = {formula}"))
    if re.search(r"\b(?:axes|plane|plot\w*)\b|\bgraph (?:of|y)\b", sentence, re.I) and not re.search(r"\bnumber line\b", sentence, re.I):
        found.append(Requirement(kind="object", phrase="axes to plot on", what="axes"))
    return found


TIME_FORMULA = re.compile(
    r"\b(?:line|curve|graph|plot)\s+(?:of\s+)?(?P<formula>(?P<name>[a-z])\s*=\s*(?P<body>[-\d.+*/^() ]*\bt\b[-\d.+*/^() t]*|[-\d.+*/^() ]*\dt\b[-\d.+*/^() t]*))"
    r"(?=\s+(?:from|for|between|in)\b|[,.;]|$)",
    re.I,
)
AGAINST = re.compile(r"\b(?P<up>[a-z]+)\s+(?:against|versus|vs\.?)\s+(?P<across>[a-z]+)\b", re.I)


def time_graphs(sentence: str) -> list[Requirement]:
    """ "Plot velocity against time as the line v = 2t from t = 0 to t = 5": a curve of t drawn over the range of t
    asked, and the axes named as the sentence names them."""
    found = []
    for match in TIME_FORMULA.finditer(sentence):
        formula = re.sub(r"\s+", " ", match["formula"].strip())
        found.append(Requirement(kind="object", phrase=f"the graph of {formula} is drawn", what="curve", text=formula))
        span = re.search(rf"\bfrom\s+t\s*=\s*(?P<low>{NUMBER})\s+to\s+t\s*=\s*(?P<high>{NUMBER})", sentence, re.I)
        if span and number(span["low"]) is not None and number(span["high"]) is not None:
            found.append(Requirement(kind="range", phrase=f"the graph spans t = {span['low']} to t = {span['high']}", what="curve", axis="x", low=number(span["low"]), high=number(span["high"])))
    named = AGAINST.search(sentence)
    if found and named:
        found += [Requirement(kind="text", phrase=f"the {axis} axis is named {name.lower()} ({named['up'].lower()} against {named['across'].lower()})", what="axis", text=name.lower()) for axis, name in (("vertical", named["up"]), ("horizontal", named["across"]))]
    return found


def areas(sentence: str) -> list[Requirement]:
    """ "Shade the area under y = x", "shade the region between them", "rectangles under the curve"."""
    shade = re.search(r"\bshad\w*\b[^.;]*?\b(?:area|region)\b", sentence, re.I)
    if shade is None:
        return []
    tinted = re.match(rf"[^.;,]*?\bin\s+({COLOUR})\b", sentence[shade.end() :], re.I)
    colour = colour_word(tinted[1]) if tinted else None
    return [Requirement(kind="object", phrase="a shaded area under or between the curves" + (f", in {colour}" if colour else ""), what="area", colour=colour)]


def moves(sentence: str) -> list[Requirement]:
    """ "move a red dot from 2 to 7", "jump from 4 to 12", "moving a dot from 7 to 3", "3 units to the right"."""
    found = []
    for match in re.finditer(rf"\b(?:mov\w*|jump\w*|slid\w*|go\w*|hop\w*)\b[^.;]*?(?:\b(?P<what>dot|point|ball|marker)\b[^.;]*?)?\bfrom\s+(?P<low>{NUMBER})\s+to\s+(?P<high>{NUMBER})\b", sentence, re.I):
        low, high = number(match["low"]), number(match["high"])
        if low is not None and high is not None and re.search(r"\bnumber line\b", sentence, re.I):
            stops = _stops(sentence, low, high)
            hops = f" in {COUNT_NAMES.get(len(stops) + 1, len(stops) + 1)} hops, stopping at {', '.join(stops)}" if stops else ""
            phrase = f"a dot on the number line moves from {match['low']} to {match['high']}{hops}"
            found.append(Requirement(kind="move", phrase=phrase, what="dot", low=low, high=high, items=stops))
    for match in re.finditer(rf"\bcount\w*\s+(?:up\s+|down\s+|backwards?\s+|forwards?\s+)?(?:by\s+\w+\s+)?from\s+(?P<low>{NUMBER})\s+to\s+(?P<high>{NUMBER})\b", sentence, re.I):
        low, high = number(match["low"]), number(match["high"])
        if low is not None and high is not None and re.search(r"\bnumber line\b", sentence, re.I) and not found:
            stops = _stops(sentence, low, high, counting=True)
            hops = f" in {COUNT_NAMES.get(len(stops) + 1, len(stops) + 1)} hops, stopping at {', '.join(stops)}" if stops else ""
            found.append(Requirement(kind="move", phrase=f"a dot counts along the number line from {match['low']} to {match['high']}{hops}", what="dot", low=low, high=high, items=stops))
    for match in re.finditer(r"\b(?P<verb>fall\w*|drop\w*|sink\w*|ris(?:e|es|ing)|float\w* up)\b", sentence, re.I):
        subject = SHAPE.search(sentence[: match.start()]) or SHAPE.search(sentence, match.end())
        what = shape_kind(subject["shape"]) if subject else "object"
        down = not match["verb"].lower().startswith(("ris", "float"))
        faster = down and re.search(r"\b(?:speed\w* up|accelerat\w*|faster)\b", sentence, re.I)
        ends = " from the top to the bottom" if down and re.search(r"\btop\b.*\bbottom\b", sentence, re.I) else ""
        ends = " from the bottom to the top" if not down and re.search(r"\bbottom\b.*\btop\b", sentence, re.I) else ends
        phrase = f"the {what} {'falls' if down else 'rises'}{ends}" + (", speeding up" if faster else "")
        found.append(Requirement(kind="move", phrase=phrase, what=what, direction="down" if down else "up"))
    for match in re.finditer(r"\b(?:mov\w*|slid\w*|translat\w*|roll\w*|push\w*|travel\w*|back)\b[^.;]*?\b(?:to the|towards the)\s+(?P<direction>left|right)\b", sentence, re.I):
        subject = re.search(r"\b(square|circle|dot|ball|box|block|car|wheel|triangle|wave)\b", sentence[: match.end()], re.I)
        what = (shape_kind(subject[1]) or subject[1].lower()) if subject else "object"
        across = " across the screen" if re.search(r"\bacross\s+the\s+screen\b", sentence, re.I) else ""
        found.append(Requirement(kind="move", phrase=f"the {what} moves to the {match['direction']}{across}", what=what, direction=match["direction"].lower()))
    return found


SKIPS = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "tens": 10}


def _stops(sentence: str, low: float, high: float, counting: bool = False) -> list[str]:
    """Where a dot stops on its way in "two hops of 4", "jumps of 3", "by 2s" or "by twos": the values between its
    ends (counting, every whole number when no step is named)."""
    hop = re.search(rf"\b(?:in\s+(?:{COUNT_WORD})\s+)?(?:hops|jumps|steps)\s+of\s+(\d+)\b|\bby\s+(\d+)s\b|\bby\s+({'|'.join(SKIPS)})\b", sentence, re.I)
    size = float(hop[1] or hop[2] or SKIPS[hop[3].lower()]) if hop else 1.0 if counting else 0.0
    if size <= 0 or size >= abs(high - low) or abs(high - low) / size > 12:
        return []
    direction = 1 if high > low else -1
    count = int(abs(high - low) // size)
    stops = [low + direction * size * index for index in range(1, count + 1)]
    return [f"{stop:g}" for stop in stops if abs(stop - high) > 1e-9]


def colour_changes(sentence: str) -> list[Requirement]:
    """ "the circle turns red", "changes colour to blue", "turning yellow", "highlight ... in yellow"."""
    found = []
    for match in re.finditer(rf"\b(?:turn\w*|chang\w*(?:\s+colou?r)?\s+to|becom\w*)\s+({COLOUR})\b", sentence, re.I):
        subject = SHAPE.search(sentence[: match.start()])
        what = shape_kind(subject["shape"]) if subject else None
        colour = colour_word(match[1])
        found.append(Requirement(kind="colour", phrase=f"the {what or 'object'} turns {colour}", what=what, colour=colour))
    return found


def transforms(sentence: str) -> list[Requirement]:
    """ "a circle transforms into a square", "turns into", "morphs into", "becomes a triangle"."""
    found = []
    for match in re.finditer(rf"\b(?:transform\w*|turn\w*|morph\w*|chang\w*|becom\w*)\s+(?:it\s+)?(?:into\s+)?(?:an?\s+)?{ADJECTIVE}(?:{COLOUR}\s+)?(?P<shape>{SHAPE_WORD})\b", sentence, re.I):
        subject = SHAPE.search(sentence[: match.start()])
        what, other = (shape_kind(subject["shape"]) if subject else None), shape_kind(match["shape"])
        if other and what != other and not re.search(r"\binto\b", match[0], re.I) and not re.search(r"\bbecom", match[0], re.I):
            continue
        if other and what != other:
            found.append(Requirement(kind="transform", phrase=f"the {what or 'object'} becomes {_article(other)} {other}", what=what, other=other))
    for match in re.finditer(rf"\b(?:transform|turn|morph|change)\s+(?:an?|the)\s+{ADJECTIVE}(?:{COLOUR}\s+)?(?P<what>{SHAPE_WORD})\s+into\s+(?:an?\s+)?{ADJECTIVE}(?:{COLOUR}\s+)?(?P<other>{SHAPE_WORD})\b", sentence, re.I):
        what, other = shape_kind(match["what"]), shape_kind(match["other"])
        if what and other and what != other:
            found.append(Requirement(kind="transform", phrase=f"the {what} becomes {_article(other)} {other}", what=what, other=other))
    return found


def rotations(sentence: str) -> list[Requirement]:
    """ "rotating by 45 degrees", "rotate it by 72°", "a rotation by 90 degrees" (of a grid: the transform shows it)."""
    found = []
    for match in re.finditer(r"\b(?:rotat\w*|turn\w*|spin\w*)\b[^.;]*?\bby\s+(?P<degrees>-?\d+(?:\.\d+)?)\s*(?:degrees|°)", sentence, re.I):
        if re.search(r"\bmatrix\b", sentence, re.I):
            continue
        subject = SHAPE.search(sentence[: match.end()])
        what = shape_kind(subject["shape"]) if subject else None
        found.append(Requirement(kind="rotate", phrase=f"the {what or 'object'} turns by {match['degrees']}°", what=what, degrees=float(match["degrees"])))
    return found


def reflections(sentence: str) -> list[Requirement]:
    """ "Reflect a red triangle across the y-axis", "reflect it in the x-axis": the shape mirrored across that axis."""
    found = []
    for match in re.finditer(r"\b(?:reflect\w*|mirror\w*|flip\w*)\b[^.;]*?\b(?:across|over|in|about)\s+the\s+(?P<axis>[xy])-axis\b", sentence, re.I):
        subject = SHAPE.search(sentence[: match.end()])
        what = shape_kind(subject["shape"]) if subject else None
        axis = f"{match['axis'].lower()}-axis"
        found.append(Requirement(kind="reflect", phrase=f"the {what or 'shape'} is mirrored across the {axis}", what=what, other=axis))
    return found


def scalings(sentence: str) -> list[Requirement]:
    """ "stretches to twice its width", "grows to twice its size", "scale the vector by 3"."""
    found = []
    pattern = (
        r"\b(?:stretch\w*|grow\w*|doubl\w*|shrink\w*)\b[^.;]*?\bto\s+(?P<word>twice|double|half|three times)(?:\s+(?:its|the)\s+(?P<measure>width|height|size|length))?"
        r"|\bscal\w*\b[^.;]*?\bby\s+(?P<factor>\d+(?:\.\d+)?)|\b(?P<verb>doubl|halv|tripl)\w*\s+(?:its|the)\s+(?P<measure2>width|height|size|length)\b"
    )
    for match in re.finditer(pattern, sentence, re.I):
        word = (match["word"] or match["verb"] or "").lower()
        factor = {"twice": 2.0, "double": 2.0, "doubl": 2.0, "half": 0.5, "halv": 0.5, "three times": 3.0, "tripl": 3.0}.get(word) or float(match["factor"])
        subject = SHAPE.search(sentence[: match.start()]) or SHAPE.search(sentence)
        what = shape_kind(subject["shape"]) if subject else None
        measure = match["measure"] or match["measure2"]
        axis = {"width": "x", "height": "y"}.get((measure or "").lower())
        found.append(Requirement(kind="scale", phrase=f"the {what or 'object'} grows to {factor:g} times its {measure or 'size'}", what=what, factor=factor, axis=axis))
    return found


def sequences(sentence: str) -> list[Requirement]:
    """ "the numbers 1 to 5 one after another", "10, 20, 30 and 40 one by one", "one step per line"."""
    if not SEQUENCE_WORDS.search(sentence) or re.search(r"\bnumber line\b", sentence, re.I) and re.search(r"\b(?:count|mov|jump|hop)\w*", sentence, re.I):
        return []
    listed = re.search(r"(-?\d+(?:\s*,\s*-?\d+)+(?:,?\s*and\s+-?\d+)?)", sentence)
    span = re.search(r"\b(?:from\s+)?(\d+)\s+to\s+(\d+)\b", sentence)
    items: list[str] = []
    if listed:
        items = re.findall(r"-?\d+", listed[1])
    elif span and 0 < int(span[2]) - int(span[1]) <= 12 and not re.search(r"[×=]", sentence):
        items = [str(value) for value in range(int(span[1]), int(span[2]) + 1)]
    phrase = f"{', '.join(items)} appear one after another" if items else "the steps appear one after another, not all at once"
    return [Requirement(kind="sequence", phrase=phrase, items=items)]


def orders(sentence: str) -> list[Requirement]:
    """ "sort them" / "sort ... into 1, 2, 3" (the numbers end in order), "swap the first and last elements",
    "10, 20, 30 and 40 ... from left to right"."""
    listed = re.search(r"(-?\d+(?:\s*,\s*-?\d+)+(?:,?\s*and\s+-?\d+)?)", sentence)
    if listed is None:
        return []
    items = re.findall(r"-?\d+", listed[1])
    if re.search(r"\bfrom left to right\b|\bin a row\b|\bside by side\b", sentence, re.I) and not re.search(r"\bsort|\bswap", sentence, re.I):
        return [Requirement(kind="order", phrase=f"{', '.join(items)} stand side by side, left to right", items=items)]
    if re.search(r"\bsort\w*\b", sentence, re.I):
        descending = re.search(r"\b(?:largest|biggest|greatest|highest)\s+to\s+(?:the\s+)?(?:smallest|lowest)\b|\b(?:descending|decreasing)\b", sentence, re.I)
        ordered = sorted(items, key=float, reverse=bool(descending))
        neighbours = ", swapping neighbours (bubble sort)" if re.search(r"\bbubble\b|\bneighbou?rs?\b|\badjacent\b", sentence, re.I) else ""
        return [Requirement(kind="order", phrase=f"at the end the numbers read {', '.join(ordered)} from left to right{neighbours}", items=ordered)]
    if re.search(r"\bswap\w*\s+the\s+first\s+and\s+(?:the\s+)?last\b", sentence, re.I) and len(items) > 1:
        swapped = [items[-1], *items[1:-1], items[0]]
        return [Requirement(kind="order", phrase=f"at the end the numbers read {', '.join(swapped)} from left to right", items=swapped)]
    return []


LINEAR = re.compile(r"(?P<a>-?\d*)\s*x\s*(?:(?P<sign>[-+])\s*(?P<b>\d+))?\s*=\s*(?P<c>-?\d+)\b")
OPERATION = re.compile(
    r"\b(?P<verb>add|subtract|divide|multiply)(?:ing)?\s+(?:(?:both sides|each side)\s+)?(?:(?P<amount>-?\d+)\s+(?:to|from)\s+both sides|by\s+(?P<factor>-?\d+))",
    re.I,
)


def equation_steps(sentence: str) -> list[Requirement]:
    """ "Solve 3x - 6 = 9 step by step: add 6 to both sides, then divide by 3": each equation the steps reach,
    worked out here (a linear equation in x with whole numbers), to be written one after another."""
    solve = re.search(r"\b(?:solve|equation)\b", sentence, re.I)
    equation = LINEAR.search(sentence[solve.end() :]) if solve else None
    if equation is None or not (OPERATION.search(sentence) or re.search(r"\bstep by step\b", sentence, re.I)):
        return []
    a = Fraction(int(equation["a"]) if equation["a"] not in ("", "-") else -1 if equation["a"] == "-" else 1)
    b = Fraction(int(equation["b"] or 0) * (-1 if equation["sign"] == "-" else 1))
    c = Fraction(int(equation["c"]))
    operations = [(match["verb"].lower(), Fraction(int(match["amount"] or match["factor"]))) for match in OPERATION.finditer(sentence)]
    if not operations:
        operations = ([("subtract", b)] if b else []) + ([("divide", a)] if a != 1 else [])
    first = _linear(a, b, c)
    found = [Requirement(kind="formula", phrase=f"the formula {first} is shown as typeset maths", text=first)]
    for verb, amount in operations:
        if verb in ("divide", "multiply") and amount == 0:
            return []
        if verb == "add":
            b, c = b + amount, c + amount
        elif verb == "subtract":
            b, c = b - amount, c - amount
        elif verb == "divide":
            a, b, c = a / amount, b / amount, c / amount
        else:
            a, b, c = a * amount, b * amount, c * amount
        step = _linear(a, b, c)
        how = f"{verb} {amount} {'to' if verb == 'add' else 'from'} both sides" if verb in ("add", "subtract") else f"{verb} both sides by {amount}"
        found.append(Requirement(kind="formula", phrase=f"{how}: {step} is written next", text=step))
    return found


def times_table(sentence: str) -> list[Requirement]:
    """ "the 3 times table from 3 × 1 = 3 to 3 × 5 = 15": every line of it, worked out, one a requirement."""
    table = re.search(r"\b(\d+)\s+times\s+table\s+from\s+(?:\1\s*[×x*]\s*)?(\d+)(?:\s*=\s*\d+)?\s+to\s+(?:\1\s*[×x*]\s*)?(\d+)\b", sentence, re.I)
    if table is None:
        return []
    base, first, last = int(table[1]), int(table[2]), int(table[3])
    if not 0 <= last - first <= 12:
        return []
    lines = [f"{base} × {factor} = {base * factor}" for factor in range(first, last + 1)]
    return [Requirement(kind="formula", phrase=f"the {base} times table line {line} is written", text=line) for line in lines]


def _linear(a: Fraction, b: Fraction, c: Fraction) -> str:
    """`a`x + `b` = `c` as a person writes it: "3x - 6 = 9", "x = 5", "x = 5/2"."""
    term = "x" if a == 1 else "-x" if a == -1 else f"{a}x"
    constant = "" if b == 0 else f" + {b}" if b > 0 else f" - {-b}"
    return f"{term}{constant} = {c}"


PARTS = {"halves": 2, "thirds": 3, "quarters": 4, "fifths": 5, "sixths": 6, "eighths": 8}


def parts(sentence: str) -> list[Requirement]:
    """ "a rectangle divided into three equal parts with two of them shaded", "a circle cut into quarters",
    "split into 4 equal slices with 3 of them shaded orange", "… with 1 part shaded"."""
    found = []
    split = re.search(rf"\b(?:divided|split|cut)\s+into\s+(?:(?P<count>{COUNT_WORD})\s+)?(?:equal\s+)?(?P<noun>parts|pieces|slices|sectors|{'|'.join(PARTS)})\b", sentence, re.I)
    if split is None:
        return found
    count = PARTS.get(split["noun"].lower()) or _count(split["count"])
    if count:
        found.append(Requirement(kind="object", phrase=f"{count} equal parts", what="part", count=count))
    fraction = re.search(r"\bfraction\s+(\d+/\d+)\b", sentence, re.I)
    if fraction:
        found.append(Requirement(kind="formula", phrase=f"the fraction {fraction[1]} is written", text=fraction[1]))
    shaded = re.search(
        rf"\b(?:with\s+)?(?P<count>{COUNT_WORD})\s+(?:of\s+them|of\s+the\s+(?:parts|pieces|slices)|(?:equal\s+)?(?:parts?|pieces?|slices?|sectors?))\s+"
        rf"(?:shaded|coloured|colored|filled)(?:\s+(?:in\s+)?(?P<colour>{COLOUR}))?",
        sentence,
        re.I,
    )
    if shaded and _count(shaded["count"]):
        colour = colour_word(shaded["colour"]) if shaded["colour"] else None
        number = _count(shaded["count"])
        found.append(Requirement(kind="object", phrase=f"{number} of them shaded" + (f" {colour}" if colour else ""), what="shaded part", count=number if number and number > 1 else None, colour=colour))
    return found


def removals(sentence: str) -> list[Requirement]:
    """ "fades out", "disappears", "then pop 3", "the front box leaves", "the words 'Hi' are written, then fade out"."""
    found = []
    added = re.search(r"\b(?:push\w*|enqueu\w*|insert\w*)\s+(?P<items>(?:-?\d+|(?-i:[A-Z]))(?:\s*,\s*(?:-?\d+|(?-i:[A-Z])))*(?:,?\s+and\s+(?:-?\d+|(?-i:[A-Z])))?)\b", sentence, re.I)
    waiting = re.findall(r"-?\d+|[A-Z]", added["items"]) if added else []
    taken = r"(?:the\s+)?(?P<end>top|last|front|first)(?:\s+(?:one|item|element|value|box|number))?|(?P<item>-?\d+|(?-i:[A-Z]))\b"
    for match in re.finditer(rf"\b(?:fades?\s+out|disappear\w*|vanish\w*|leaves(?!\s+\d)|(?:pop|dequeue)\w*\s+(?:{taken}))", sentence, re.I):
        subject = SHAPE.search(sentence[: match.start()])
        quoted = [next(text for text in found_text.groups() if text) for found_text in QUOTED.finditer(sentence[: match.start()])]
        end = (match["end"] or "").lower()
        item = match["item"] or (waiting[-1] if end in ("top", "last") and waiting else waiting[0] if end in ("front", "first") and waiting else None)
        if end and item is None:
            continue
        what = item or (shape_kind(subject["shape"]) if subject else quoted[-1] if quoted else None)
        named = f'the text "{what}"' if what and not subject and not item else what or "the object"
        found.append(Requirement(kind="disappear", phrase=f"{named} leaves the screen", what=what))
    return found


def relations(sentence: str) -> list[Requirement]:
    """ "a circle inscribed in a square", "write its name below it"."""
    found = []
    inscribed = re.search(rf"\b(?P<what>{SHAPE_WORD})\s+inscribed\s+in\s+(?:an?\s+|the\s+)?(?P<other>{SHAPE_WORD})\b", sentence, re.I)
    if inscribed:
        what, other = shape_kind(inscribed["what"]), shape_kind(inscribed["other"])
        found.append(Requirement(kind="relation", phrase=f"the {what} is inside the {other}", what=what, relation="inside", other=other))
    return found


def marks(sentence: str) -> list[Requirement]:
    """ "mark the two points where it crosses the x-axis", "mark where they cross", "mark the intersection"."""
    found = []
    pattern = rf"\bmark\w*\s+(?:the\s+|its\s+|their\s+)?(?:(?P<count>{COUNT_WORD}|both)\s+)?(?:points?\s+|roots?\s+|zeros?\s+)?(?:where\s+(?:it|the \w+|they|the \w+ and the \w+)\s+(?P<verb>cross\w*|meet\w*|intersect\w*)(?:\s+the\s+(?P<axis>x-axis))?|(?P<noun>intersection|roots|zeros|x-intercepts))"
    for match in re.finditer(pattern, sentence, re.I):
        crossing = "x-axis" if match["axis"] or (match["noun"] or "").lower() in ("roots", "zeros", "x-intercepts") else "curve"
        count = 2 if (match["count"] or "").lower() == "both" else _count(match["count"])
        where = "the curve crosses the x-axis" if crossing == "x-axis" else "the curves cross"
        found.append(Requirement(kind="mark", phrase=f"{count or 'a'} point{'s' if (count or 1) > 1 else ''} marked where {where}", count=count, other=crossing))
    return found


def tangents(sentence: str) -> list[Requirement]:
    """ "the tangent line to y = sin(x) at x = 0", "a tangent to the parabola y = x^2 at x = 1": the curve and the line."""
    found = []
    pattern = rf"\btangent(?:\s+line)?\s+to\s+(?:the\s+)?(?:curve\s+|graph\s+of\s+|parabola\s+)?(?P<formula>y\s*=\s*[^,;]+?|[a-z]+\(x\))\s+at\s+x\s*=\s*(?P<x>{NUMBER})"
    plotted = [item.text for item in curves(sentence) if item.what == "curve" and item.text]
    bare = rf"\btangent(?:\s+line)?\s+at\s+x\s*=\s*(?P<x>{NUMBER})"
    for match in [*re.finditer(pattern, sentence, re.I), *(re.finditer(bare, sentence, re.I) if len(plotted) == 1 else [])]:
        x = number(match["x"])
        if x is None:
            continue
        formula = (match.groupdict().get("formula") or plotted[0] or "").strip()
        found.append(Requirement(kind="object", phrase=f"the curve {formula} is drawn", what="curve", text=formula))
        found.append(Requirement(kind="tangent", phrase=f"a tangent line touches it at x = {match['x']}", text=formula, low=x))
    return found


def traces(sentence: str) -> list[Requirement]:
    """ "move a dot along the curve", "a point moving along the line", "orbiting the Sun"."""
    found = []
    along = re.search(r"\b(?P<what>dot|point|ball)\b[^.;]*?\balong\b|\balong\b[^.;]*?\b(?P<later>dot|point)\b", sentence, re.I)
    if along and re.search(r"\b(mov\w*|run\w*|travel\w*|slid\w*)\b", sentence, re.I) and not re.search(r"\bnumber line\b", sentence, re.I):
        found.append(Requirement(kind="trace", phrase="a dot travels along the curve", what="dot", other="curve"))
    circling = re.search(r"\b(?P<what>dot|point|ball)\b[^.;]*?\b(?:mov\w*|go\w*|travel\w*|run\w*|spin\w*)\s+(?:in\s+a\s+circle|around\s+(?:the\s+origin|an?\s+circle|the\s+circle))", sentence, re.I)
    if circling:
        kind = shape_kind(circling["what"]) or "dot"
        radius = re.search(r"\bcircle\s+(?:of|with)\s+radius\s+(\d+(?:\.\d+)?)\b", sentence, re.I)
        size = f" of radius {radius[1]}" if radius else ""
        centre = " around the origin" if re.search(r"\baround\s+the\s+origin\b", sentence, re.I) else ""
        found.append(Requirement(kind="trace", phrase=f"the {kind} goes around a circle{size}{centre}", what=kind, other="circle", high=float(radius[1]) if radius else None))
    if re.search(r"\borbit\w*\b", sentence, re.I):
        found.append(Requirement(kind="trace", phrase="one body goes around the other in a circle", what="circle", other="circle"))
    return found


LISTED = re.compile(r"(-?\d+(?:\s*,\s*-?\d+)+(?:,?\s*and\s+-?\d+)?)")
PICKS: dict[str, Callable[[list[str]], list[str]]] = {
    "largest": lambda values: [max(values, key=float)], "biggest": lambda values: [max(values, key=float)],
    "smallest": lambda values: [min(values, key=float)],
    "even": lambda values: [value for value in values if float(value) % 2 == 0], "odd": lambda values: [value for value in values if float(value) % 2 == 1],
    "negative": lambda values: [value for value in values if float(value) < 0], "positive": lambda values: [value for value in values if float(value) > 0],
}  # fmt: skip


def highlights(sentence: str) -> list[Requirement]:
    """ "linear search for 6 in the array 2, 6, 4, 8" (each value checked in turn until 6), "binary search for 7 in
    the sorted array 1, 3, 5, 7, 9, 11" (the middles it probes), "highlight the largest number in the list 3, 9, 2
    in red", "highlight the even numbers from 1 to 10 in green"."""
    listed = LISTED.search(sentence)
    values = re.findall(r"-?\d+", listed[1]) if listed else []
    search = re.search(r"\b(?P<how>linear|binary)\s+search\w*\s+(?:for\s+)?(?P<target>-?\d+)", sentence, re.I)
    if search and values:
        how, target = search["how"].lower(), search["target"]
        probed = _probes(values, target) if how == "binary" else values[: values.index(target) + 1] if target in values else values
        if not probed:
            return []
        end = "where it is found" if probed[-1] == target else f"{target} is not there"
        return [Requirement(kind="highlight", phrase=f"{how} search checks {', '.join(probed)} one after another, {end}", items=probed, text=target)]
    pick = re.search(rf"\bhighlight\w*\s+(?:all\s+)?(?:the\s+)?(?P<which>{'|'.join(PICKS)})\s+(?:numbers?|values?|elements?)(?:\s+from\s+(?P<low>-?\d+)\s+to\s+(?P<high>-?\d+))?", sentence, re.I)
    if pick is None:
        return []
    found = []
    if not values and pick["low"] is not None and 0 < int(pick["high"]) - int(pick["low"]) <= 19:
        values = [str(value) for value in range(int(pick["low"]), int(pick["high"]) + 1)]
        found.append(Requirement(kind="order", phrase=f"the numbers {values[0]} to {values[-1]} stand side by side, left to right", items=values))
    chosen = PICKS[pick["which"].lower()](values) if values else []
    if not chosen:
        return []
    colour = _colour_after(sentence, pick.end()) or _colour_after(sentence, listed.end() if listed else pick.end())
    tint = f" in {colour}" if colour else ""
    return [*found, Requirement(kind="highlight", phrase=f"the {pick['which'].lower()} {', '.join(chosen)} picked out{tint}", items=chosen, colour=colour)]


def _probes(values: list[str], target: str) -> list[str]:
    """The middles binary search looks at in a sorted list, in turn; none when the list is not sorted."""
    numbers = [float(value) for value in values]
    if numbers != sorted(numbers):
        return []
    low, high, probed = 0, len(values) - 1, []
    while low <= high:
        middle = (low + high) // 2
        probed.append(values[middle])
        if numbers[middle] == float(target):
            break
        low, high = (middle + 1, high) if numbers[middle] < float(target) else (low, middle - 1)
    return probed


FIGURE_PARTS = {"side": "side", "sides": "side", "vertex": "vertex", "vertices": "vertex", "corner": "vertex", "corners": "vertex",
                "radius": "radius", "diameter": "diameter", "hypotenuse": "hypotenuse", "leg": "side", "legs": "side", "chord": "chord",
                "side length": "side"}  # fmt: skip
SEGMENTS = {"diagonal": "diagonal", "diagonals": "diagonal", "radius": "radius", "diameter": "diameter", "chord": "chord"}
"""Lines a figure is drawn with: a square's diagonals, a circle's radius, diameter or chord."""


def figure_segments(sentence: str) -> list[Requirement]:
    """ "a square and its two diagonals", "a circle and a chord", "a circle with its radius": the lines drawn on a figure."""
    found = []
    for match in re.finditer(rf"\b(?P<count>two|both|its|the|an?)\s+(?:two\s+)?(?P<part>{'|'.join(SEGMENTS)})\b", sentence, re.I):
        part = SEGMENTS[match["part"].lower()]
        count = 2 if match["part"].lower() == "diagonals" else None
        found.append(Requirement(kind="object", phrase=f"{'two' if count else 'a'} {part}{'s' if count else ''} drawn on the figure", what="line", count=count, label=None, other=part))
    return found


def figure_labels(sentence: str) -> list[Requirement]:
    """ "a right triangle with sides labelled 3, 4 and 5", "vertices labelled A, B and C", "its radius labelled r",
    "label each side a": the labels and the part of the figure each names."""
    found = []
    parts = "|".join(sorted(FIGURE_PARTS, key=len, reverse=True))
    pattern = (
        rf"\b(?:(?:its|the|each|all|with)\s+)*(?P<part>{parts})\s+(?:(?:are|is)\s+)?(?:label(?:l?ed)?\s+|(?:of\s+)?(?=\d)|(?-i:(?=[A-Z](?:\s*,|\s+and\b))))(?P<labels>(?:(?!\b(?:{parts})\b)[^.;])+)"
        rf"|\blabel\s+(?:its|the|each|all)\s+(?P<part2>{parts})\s+(?P<labels2>[^.;]+)"
    )
    for match in re.finditer(pattern, sentence, re.I):
        written = (match["part"] or match["part2"]).lower()
        part = FIGURE_PARTS[written]
        labels = _listed(match["labels"] or match["labels2"], equations=True)
        each = re.search(r"\b(?:each|all)\s+$", sentence[: match.start("part2") if match["part2"] else match.start("part")], re.I)
        found += [Requirement(kind="text", phrase=f'{"each" if each else "the"} {written} labelled "{label}"', what=part, text=label) for label in labels]
    return found


def matrices(sentence: str) -> list[Requirement]:
    """ "the matrix [[1, 2], [3, 4]]": a matrix with those entries."""
    found = []
    for match in re.finditer(r"\bmatrix\s+(?P<matrix>\[\s*\[[-\d.,\s]*\](?:\s*,\s*\[[-\d.,\s]*\])*\s*\])", sentence, re.I):
        rows = [re.findall(r"-?\d+(?:\.\d+)?", row) for row in re.findall(r"\[([-\d.,\s]*)\]", match["matrix"])]
        if rows and len({len(row) for row in rows}) == 1 and 0 < len(rows) <= 6 and 0 < len(rows[0]) <= 6:
            text = "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"
            found.append(Requirement(kind="object", phrase=f"the matrix {text}", what="matrix", text=text))
    return found


def trees(sentence: str) -> list[Requirement]:
    """ "a tree with root A and three children B, C and D": the root above, its children in a row below, joined."""
    tree = re.search(rf"\btree\b[^.;]*?\broot\s+(?P<root>\w+)\s+(?:and|with)\s+(?:(?:{COUNT_WORD})\s+)?(?:children|child nodes|leaves)\s+(?P<children>[^.;]+)", sentence, re.I)
    children = _listed(tree["children"]) if tree else []
    if tree is None or not children:
        return []
    count = COUNT_NAMES.get(len(children), str(len(children)))
    return [
        Requirement(kind="object", phrase=f"a tree: root {tree['root']} above its {count} children {', '.join(children)}", what="node", count=len(children) + 1, items=[tree["root"], *children]),
        Requirement(kind="object", phrase=f"{count} lines joining the root to each child", what="line", count=len(children), other="tree"),
    ]


POINTING = re.compile(
    rf"\b(?:(?P<colour>{COLOUR})\s+)?(?:force\s+)?arrow\b(?P<between>[^.;]{{0,40}}?)\b(?P<verb>pointing|points|pushing|pulling|acting)\s+(?:it\s+|on\s+it\s+)?"
    r"(?:to\s+the\s+|towards\s+the\s+)?(?P<direction>left|right|up|down)(?:wards?)?\b",
    re.I,
)


def pointing(sentence: str) -> list[Requirement]:
    """ "a red arrow pointing right labelled F", "a force arrow pushing it to the right", "an arrow labelled F = 10 N
    pointing to the right": an arrow that points that way, with its colour and a one-word label."""
    found = []
    for match in POINTING.finditer(sentence):
        colour = colour_word(match["colour"]) if match["colour"] else None
        named = re.search(r"\blabel(?:l?ed)?\s+([^.;]+)", match["between"] + sentence[match.end() :], re.I)
        labels = _listed(named[1]) if named else []
        label = labels[0] if len(labels) == 1 else None
        direction = match["direction"].lower()
        pushing = " pushing" if match["verb"].lower() == "pushing" else ""
        phrase = f"{_article(colour or 'arrow')} {colour + ' ' if colour else ''}arrow{pushing} pointing {direction}" + (f", labelled {label}" if label else "")
        found.append(Requirement(kind="object", phrase=phrase, what="arrow", colour=colour, direction=direction, label=label))  # type: ignore[arg-type]
    ground = re.search(r"\bon\s+(?:a|the)\s+(?:flat\s+)?(?P<ground>surface|ground|floor|table)\b", sentence, re.I)
    if found and ground:
        found.append(Requirement(kind="object", phrase=f"the {ground['ground'].lower()} drawn as a line under it", what="line", other="ground"))
    return found


CONTAINERS = {"stack": "a stack: boxes piled from the bottom up", "queue": "a queue: boxes in a row, joining at the back",
              "linked list": "a linked list: boxes joined by arrows"}  # fmt: skip


def containers(sentence: str) -> list[Requirement]:
    """ "push 3, 5 and 8 onto a stack", "a queue", "a linked list of the nodes 1, 2 and 3"."""
    return [Requirement(kind="object", phrase=phrase, what=name) for name, phrase in CONTAINERS.items() if re.search(rf"\b{name}s?\b", sentence, re.I)]


RULES: tuple[Callable[[str], list[Requirement]], ...] = (
    objects, parts, vectors, pointing, matrices, containers, trees, curves, time_graphs, areas, texts, figure_labels, figure_segments, highlights, equation_steps, times_table, formulas, ranges, moves, colour_changes, transforms, rotations,
    reflections, scalings, sequences, orders, removals, relations, marks, tangents, traces,
)  # fmt: skip
