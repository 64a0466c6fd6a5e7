"""Showing user text safely and consistently: escaped markdown, axis chips, curve samples."""

from __future__ import annotations

import re

import numpy as np

from annotation.axes import axis_by_name
from annotation.curves import (
    ALPHA_BOUNDS,
    OMEGA_BOUNDS,
    XI_BOUNDS,
    CurveFitError,
    proportional_curve,
)
from annotation.timeaxis import X_MAX, X_MIN

#: Every ASCII character that CommonMark, GFM, remark-math or Streamlit's directives
#: (``:red[…]``, ``:material/…:``) give a meaning; CommonMark lets any ASCII punctuation be
#: backslash-escaped, so escaping one too many is harmless.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=/@])")
#: Streamlit rewrites some text *after* parsing, so a backslash cannot stop it: ``:name:`` shortcodes
#: (emoji, ``:streamlit:``, ``:material_icon:``) and standalone ``->``, ``<-``, ``<->``, ``--``,
#: ``>=``, ``<=``, ``~=`` (arrows, dashes). An invisible WORD JOINER (U+2060) breaks each pattern.
WORD_JOINER = "\u2060"
_SHORTCODE = re.compile(r":(?=[\w+-]+:)")
_LIGATURE = re.compile(r"(?:(?<=\s)|^)(<->|->|<-|--|>=|<=|~=)(?=\s|$)", re.MULTILINE)
_LEADING_BLANKS = re.compile(r"^[ \t]+", re.MULTILINE)
UNLABELLED_COLOR = "#B0B0B0"
CURVE_SAMPLES = 201
#: Label and input range of each curve parameter in the pages' number inputs — the fit's bounds.
PARAM_RANGES = {"xi": ("ξ location", *XI_BOUNDS), "omega": ("ω scale", *OMEGA_BOUNDS),
                "alpha": ("α skew", *ALPHA_BOUNDS)}
#: Where a hand-made curve starts when there is nothing to start from (about a day, symmetric).
DEFAULT_PARAMS = {"xi": 60.0, "omega": 10.0, "alpha": 0.0}


def plain(text: object) -> str:
    """Markdown source that Streamlit shows as exactly ``text`` (user text is never markup).

    For every element that renders its string as Markdown (``st.markdown``/``caption``/``info``/
    ``warning``/``error``/``toast``, widget labels, radio and segmented-control options, expander
    labels, metric values). Specials are backslash-escaped; Streamlit's post-parse shortcodes
    and arrow ligatures are broken with an invisible word joiner; line breaks stay line breaks;
    leading blanks become character references so that they never start a code block. Prefer an
    element that shows text as text (``st.text``, a dataframe cell, a selectbox option) where one fits.
    """
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    text = _LIGATURE.sub(lambda m: m.group(1)[0] + WORD_JOINER + m.group(1)[1:], text)
    text = _SHORTCODE.sub(":" + WORD_JOINER, text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _LEADING_BLANKS.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group(0)), text)
    # A backslash before a line end is a hard line break; the last line needs none.
    return text.rstrip("\n").replace("\n", "\\\n")


def axis_color(name: str | None) -> str:
    return axis_by_name(name).color if name else UNLABELLED_COLOR


def axis_label(name: str | None) -> str:
    return axis_by_name(name).label if name else "—"


def curve_polyline(xi: float | None, omega: float | None, alpha: float | None) -> list[tuple[float, float]] | None:
    """The proportional validity curve as chart points, or None without (valid) parameters."""
    if xi is None or omega is None or alpha is None:
        return None
    try:
        xs, ys = proportional_curve(xi, omega, alpha, np.linspace(X_MIN, X_MAX, CURVE_SAMPLES))
    except CurveFitError:
        return None
    return [(round(float(x), 3), round(float(y), 4)) for x, y in zip(xs, ys)]
