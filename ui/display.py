"""Showing user text safely and consistently: escaped markdown, axis chips, curve samples."""

from __future__ import annotations

import re

from annotation.axes import axis_by_name
from annotation.curves import (
    ALPHA_BOUNDS,
    OMEGA_BOUNDS,
    XI_BOUNDS,
    CurveFitError,
    describe_curve,
    drawn_polyline,
)

#: Every ASCII character that CommonMark, GFM, remark-math or Streamlit's directives
#: (``:red[…]``, ``:material/…:``) give a meaning; CommonMark lets any ASCII punctuation be
#: backslash-escaped, so escaping one too many is harmless.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=/@])")
#: Streamlit rewrites some text *after* parsing, so a backslash cannot stop it: ``:name:`` shortcodes
#: (emoji, ``:streamlit:``, ``:material_icon:``) and standalone ``->``, ``<-``, ``<->``, ``--``,
#: ``>=``, ``<=``, ``~=`` (arrows, dashes). An invisible WORD JOINER (U+2060) breaks each pattern.
WORD_JOINER = "\u2060"
_SHORTCODE = re.compile(r":(?=[\w+-]+:)")
#: GFM's autolink literals are found after escapes are resolved, so ``http\:\/\/x.org`` still
#: became a live link: a word joiner inside ``http://``, ``www.`` and before ``@`` (an e-mail
#: address) breaks each pattern.
_AUTOLINK = re.compile(r"(?i)(?:https?(?=://)|www(?=\.)|(?=@))")
_LIGATURE = re.compile(r"(?:(?<=\s)|^)(<->|->|<-|--|>=|<=|~=)(?=\s|$)", re.MULTILINE)
_LEADING_BLANKS = re.compile(r"^[ \t]+", re.MULTILINE)
UNLABELLED_COLOR = "#B0B0B0"
CURVE_SAMPLES = 201
#: Label and input range of each curve parameter in the pages' number inputs — the fit's bounds.
PARAM_RANGES = {"xi": ("ξ location", *XI_BOUNDS), "omega": ("ω scale", *OMEGA_BOUNDS),
                "alpha": ("α skew", *ALPHA_BOUNDS)}


def plain(text: object) -> str:
    """Markdown source that Streamlit shows as exactly ``text`` (user text is never markup).

    For every element that renders its string as Markdown (``st.markdown``/``caption``/``info``/
    ``warning``/``error``/``toast``, widget labels, radio and segmented-control options, expander
    labels, metric values). Specials are backslash-escaped; Streamlit's post-parse shortcodes,
    arrow ligatures and web and e-mail addresses (which GFM links by themselves) are broken with
    an invisible word joiner; line breaks stay line breaks;
    leading blanks become character references so that they never start a code block. Prefer an
    element that shows text as text (``st.text``, a dataframe cell, a selectbox option) where one fits.
    """
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    text = _LIGATURE.sub(lambda m: m.group(1)[0] + WORD_JOINER + m.group(1)[1:], text)
    text = _SHORTCODE.sub(":" + WORD_JOINER, text)
    text = _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _LEADING_BLANKS.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group(0)), text)
    # A backslash before a line end is a hard line break; the last line needs none.
    return text.rstrip("\n").replace("\n", "\\\n")


def axis_color(name: str | None) -> str:
    return axis_by_name(name).color if name else UNLABELLED_COLOR


def axis_label(name: str | None) -> str:
    return axis_by_name(name).label if name else "—"


def curve_polyline(xi: float | None, omega: float | None, alpha: float | None,
                   scale: float | None = None, points=()) -> list[tuple[float, float]] | None:
    """What the chart draws (:func:`annotation.curves.drawn_polyline`, rounded for the page), or
    None without (valid) parameters. With the stored ``scale`` it is the fitted curve itself
    (peak height ≤ 100 %, through or near the points); without, the proportional curve (peak 1),
    for curves that have no points (a resolution). Passing ``points`` adds their x positions, so
    the line is exact where the points are."""
    if xi is None or omega is None or alpha is None:
        return None
    try:
        line = drawn_polyline(xi, omega, alpha, scale, points, samples=CURVE_SAMPLES)
    except CurveFitError:
        return None
    return [(round(x, 3), round(y, 4)) for x, y in line]


def curve_description(xi: float | None, omega: float | None, alpha: float | None) -> str:
    """The curve in words, capitalised ("" without parameters; the reason when the parameters
    give no curve). Stored parameters are in base 1.1 whatever the project's display base."""
    if xi is None or omega is None or alpha is None:
        return ""
    try:
        return describe_curve(xi, omega, alpha).capitalize()
    except CurveFitError as exc:
        return str(exc)
