"""What a checklist leaves unread: the parts of the sentence no requirement speaks for.

The rules read only the words whose meaning is certain, so a checklist can be silent on what matters
most ("highlight the negative numbers in red", "a new box joins at the back"), and a checker that
says "all held" then flatters the scene. Each clause with a word that carries meaning and that no
requirement accounts for becomes an item of kind `look`: shown to the teacher as a part to look for
in the video, never held by the checker. The scene builder answers only for a checklist with none.
"""

from __future__ import annotations

import re

from manimgen.checks.requirements import Checklist, Requirement

FILLER = set(
    """a an the and then of to from on in at by with as it its them their this that these those is are be being show shows
    showing draw draws drawing write writes writing display displays plot plots plotting make makes create creates scene
    screen animation animate animated each one after another while so same time step per line lines value values number
    numbers appear appears appearing using use into over finally first last all x y for up down give gives get gets shown
    proper formula formulas equation expression identity where whose until about""".split()
)  # fmt: skip
"""Words that ask for nothing a viewer could miss: grammar, and the verbs of showing anything at all."""
IMPLIED = {
    "object": "label labelled labeled labels coloured colored color colour rows row columns grid",
    "text": "label labelled labeled labels labelling labeling words word text written",
    "formula": "becomes become transform transforms transforming into solve solving integral derivative definite which equals letters digits",
    "range": "from to between axes axis",
    "relation": "left right above below under beside next centre center middle side sides",
    "move": "move moves moving moved left right up down by hop hops hopping jump jumps jumping back along count counts counting twos threes fours fives tens ones top bottom speeding accelerating "
    "fall falls falling drop drops dropping rise rises rising backwards forwards across",
    "colour": "turn turns turning becomes become coloured colored color colour",
    "transform": "turn turns turning becomes become transform transforms transforming",
    "rotate": "rotate rotates rotating turn turns turning degrees degree by around about center centre own",
    "reflect": "reflect reflects reflected reflecting reflection mirror mirrored flip flipped across over about axis image",
    "disappear": "fade fades fading out disappear disappears disappearing vanish vanishes leave leaves removed",
    "scale": "by twice its width size stretch stretches height scale scales scaled scaling double doubles doubled grow grows growing shrink shrinks shrinking longer shorter bigger smaller larger",
    "sequence": "array list elements next count counts counting below under beneath",
    "order": "sort sorted sorting swap swapping swaps array elements element selection bubble pair pairs list left right side neighbours neighbors adjacent row smallest largest biggest "
    "greatest lowest highest ascending descending increasing decreasing order until",
    "trace": "move moves moving moved along around",
    "tangent": "tangent touches touching line to at",
    "highlight": "highlight highlights highlighted highlighting search searches searching linear binary check checks checked each box boxes found find finds number numbers array list",
    "mark": "mark marks marked point points root roots zero zeros intersection intercepts cross crosses crossing meet meets meeting intersect intersects they it both",
}
"""Words a requirement kind stands for although its phrase does not use them (an order is what a sort ends in)."""
IMPLIED_BY_WHAT = {
    "node": "tree binary root children child leaves node nodes joined",
    "part": "fraction divided split cut equal parts pieces slices sectors halves thirds quarters fifths sixths eighths",
    "shaded part": "shaded coloured colored filled",
    "curve": "parabola graph function horizontal straight wave both",
    "area": "region shaded shade",
    "bar": "chart charts height heights tall",
    "stack": "stack push pushes pushed pushing onto pop pops top",
    "queue": "queue enqueue enqueued dequeue dequeued enter enters entering join joins back front",
    "determinant": "det next beside",
    "linked list": "linked list node nodes arrow arrows between next pointer pointers",
}
"""Words an object stands for: a shape in equal parts is a fraction."""
NAMED = ("quadratic formula", "pythagorean theorem", "euler's identity")
COUNT_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve",
    13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen", 19: "nineteen", 20: "twenty",
}  # fmt: skip
"""The counts a sentence writes as words (and `checks/extract.py` reads)."""
QUOTED = re.compile(r"""(?<![\w'])'([^'\n]{1,60})'(?![\w'])|"([^"\n]{1,60})"|“([^”\n]{1,60})”""")
"""Text in quotes: what the sentence asks to be written, word for word."""
CLAUSE_BREAK = re.compile(r"[()\[\]]|[;:]|,(?=\s+(?:and\s+|then\s+)?[a-z]{3,})|\b(?=(?:then|while|where|until|so that|by \w+ing)\b)", re.I)


def _spoken_for(checklist: Checklist) -> str:
    """The words the checklist's requirements account for, as one lowercase text."""
    return " ".join(
        " ".join(str(value) for value in (item.phrase, item.what, item.text, item.other, item.colour, item.label, *item.items) if value)
        + f" {IMPLIED.get(item.kind, '')} {_count_words(item.count, item.rows)}"
        + (" vector vectors origin components columns column add adds adding added tip tail force forces" if item.what == "arrow" else "")
        + f" {IMPLIED_BY_WHAT.get(item.what or '', '')}"
        for item in checklist.requirements
        if item.kind != "look"
    ).lower()


def _count_words(count: int | None, rows: int | None) -> str:
    """A count as the words that say it: "12 in 3 rows" reads "twelve", "three" and "four"."""
    numbers = [count, rows, count // rows if count and rows else None]
    return " ".join(COUNT_NAMES.get(number, "") for number in numbers if number)


def clauses(sentence: str) -> list[str]:
    """The sentence cut where another part of what it asks begins: at ";", ":", ", <word>", "then", "while", "by …ing"
    (never inside brackets or quotes)."""
    pieces, depth, start = [], 0, 0
    quoted = [found.span() for found in QUOTED.finditer(sentence)]
    for match in CLAUSE_BREAK.finditer(sentence):
        token = match[0]
        if any(first < match.start() < last for first, last in quoted):
            continue
        if token in ("(", "["):
            depth += 1
        elif token in (")", "]"):
            depth = max(depth - 1, 0)
        elif depth == 0 and match.start() > start:
            pieces.append(sentence[start : match.start()])
            start = match.end()
    pieces.append(sentence[start:])
    return [clause for piece in pieces if (clause := piece.strip(" ,.;:"))]


def _unread_words(text: str, used: str, named: list[str]) -> list[str]:
    """The words of `text` that carry meaning and that neither the requirements' words (`used`) nor a named formula account for."""
    words = re.findall(r"[a-z]+", text.lower())
    return [word for word in words if word not in FILLER and word not in used and not any(word in name for name in named)]


def unread(checklist: Checklist, room: int | None = None) -> list[Requirement]:
    """A `look` item for each clause of the sentence with a word that carries meaning and that no requirement reads;
    at most `room` of them, the last standing for the clauses past it."""
    used = _spoken_for(checklist)
    named = [name for name in NAMED if name in checklist.sentence.lower()]
    left = [clause for clause in clauses(checklist.sentence) if _unread_words(clause, used, named)]
    if room is not None and len(left) > room:
        left = [*left[: room - 1], "; ".join(left[room - 1 :])] if room > 0 else []
    return [Requirement(kind="look", phrase=clause[:200], text=clause[:120]) for clause in left]
