"""Colour words as a viewer uses them, and whether a drawn colour is one.

A teacher says "red"; Manim draws RED (#FC6255), RED_E, PURE_RED or a hex the model wrote. A viewer
would call all of them red, so a colour word names a region of hue, saturation and brightness rather
than one value. The regions overlap where people disagree (maroon is red to some, gold is yellow).
"""

from __future__ import annotations

import colorsys
import re

# word -> (hue ranges in degrees, lowest saturation, brightness range)
REGIONS: dict[str, tuple[tuple[tuple[float, float], ...], float, tuple[float, float]]] = {
    "red": (((330, 360), (0, 20)), 0.35, (0.3, 1.0)),
    "blue": (((180, 255),), 0.3, (0.25, 1.0)),
    "green": (((72, 165),), 0.25, (0.25, 1.0)),
    "yellow": (((40, 72),), 0.35, (0.55, 1.0)),
    "orange": (((14, 45),), 0.4, (0.5, 1.0)),
    "purple": (((255, 300),), 0.2, (0.2, 1.0)),
    "pink": (((290, 350),), 0.3, (0.5, 1.0)),
    "teal": (((150, 195),), 0.25, (0.3, 1.0)),
    "gold": (((25, 58),), 0.3, (0.5, 1.0)),
    "maroon": (((320, 360), (0, 15)), 0.3, (0.3, 0.85)),
    "brown": (((10, 45),), 0.35, (0.2, 0.7)),
    "white": (((0, 360),), 0.0, (0.85, 1.0)),
    "gray": (((0, 360),), 0.0, (0.25, 0.85)),
    "black": (((0, 360),), 0.0, (0.0, 0.2)),
}
SYNONYMS = {"grey": "gray", "violet": "purple", "magenta": "pink", "cyan": "teal", "turquoise": "teal", "crimson": "red", "navy": "blue"}
ACHROMATIC = {"white", "gray", "black"}
MAX_GRAY_SATURATION = 0.18
COLOUR_WORD = re.compile(r"\b(" + "|".join(sorted([*REGIONS, *SYNONYMS], key=len, reverse=True)) + r")\b", re.IGNORECASE)


def colour_word(word: str) -> str | None:
    """The region name a word refers to ("grey" -> "gray"); None for a word that is no colour."""
    lowered = word.lower()
    name = SYNONYMS.get(lowered, lowered)
    return name if name in REGIONS else None


def is_colour(hex_colour: str | None, word: str) -> bool:
    """Whether a viewer would call `hex_colour` (#RRGGBB) by the colour `word`."""
    name = colour_word(word)
    rgb = _rgb(hex_colour)
    if name is None or rgb is None:
        return False
    hue, saturation, value = colorsys.rgb_to_hsv(*rgb)
    hues, lowest_saturation, (dimmest, brightest) = REGIONS[name]
    if not dimmest <= value <= brightest:
        return False
    if name in ACHROMATIC:
        return saturation <= MAX_GRAY_SATURATION
    degrees = hue * 360
    return saturation >= lowest_saturation and any(low <= degrees <= high for low, high in hues)


def describe(hex_colour: str | None) -> str:
    """The first colour word that fits (for saying what was seen), else the hex itself."""
    return next((name for name in REGIONS if is_colour(hex_colour, name)), hex_colour or "no colour")


def _rgb(hex_colour: str | None) -> tuple[float, float, float] | None:
    if not hex_colour or not re.fullmatch(r"#?[0-9A-Fa-f]{6}", hex_colour):
        return None
    digits = hex_colour.lstrip("#")
    return tuple(int(digits[index : index + 2], 16) / 255 for index in (0, 2, 4))  # type: ignore[return-value]


def contrast(first: str | None, second: str | None) -> float | None:
    """The WCAG contrast ratio of two colours (1 = the same brightness, 21 = black on white); None if either is unknown."""
    luminances = [_luminance(rgb) for rgb in (_rgb(first), _rgb(second)) if rgb is not None]
    if len(luminances) != 2:
        return None
    light, dark = max(luminances), min(luminances)
    return (light + 0.05) / (dark + 0.05)


def _luminance(rgb: tuple[float, float, float]) -> float:
    linear = [channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4 for channel in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
