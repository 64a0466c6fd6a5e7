"""A figure judged against its threshold: the one pass/fail rule every page and decision uses.

A :class:`Rule` says how a figure reads against its threshold — a **minimum** (higher is
better) or a **maximum** (lower is better), and whether a value equal to the threshold passes.
:func:`judge` applies it and returns a frozen :class:`Verdict`: ``passes`` (True, False, or
None when the figure could not be computed) and the words a page shows. The project's settings
mean (SPEC section 5, ``ProjectSettings``):

* ``qualify_icc_min`` — ICC **above** it passes (:data:`ICC_RULE`, strict);
* ``qualify_jaccard_min`` — Jaccard **above** it passes (:data:`JACCARD_RULE`, strict);
* ``qualify_pk_max`` — Pk **below** it passes (:data:`PK_RULE`, strict);
* ``flag_w1_max`` — a curve distance **at most** it passes; above it is flagged (:data:`W1_RULE`).

The shown value never contradicts the verdict: it is written with 3 decimals, or with as many
more as it takes for the written number to sit on the same side of the threshold as the value
itself ("0.7498 < 0.75", never "0.750 — below 0.75"). An undefined figure (None or NaN) is
shown as "—" with the reason it has no value ("— needs ≥ 3 samples with a curve").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

from annotation.agreement.icc import minimum_samples

#: what an undefined figure shows in place of a number
MISSING = "—"
#: decimals a value is shown with unless more are needed to keep its side of the threshold
DEFAULT_DIGITS = 3
_MAX_DIGITS = 12


@dataclass(frozen=True)
class Rule:
    """How a figure called ``name`` reads against its threshold.

    ``minimum``: the threshold is a minimum (the figure must be above it) rather than a maximum;
    ``inclusive``: a value equal to the threshold passes; ``undefined``: the reason shown when
    the figure has no value and the caller gives none.
    """

    name: str
    minimum: bool
    inclusive: bool = False
    undefined: str = "not enough data"

    @property
    def symbol(self) -> str:
        """The comparison a passing value satisfies: ">", "≥", "<" or "≤"."""
        if self.minimum:
            return "≥" if self.inclusive else ">"
        return "≤" if self.inclusive else "<"

    @property
    def bound(self) -> str:
        """"minimum" or "maximum"."""
        return "minimum" if self.minimum else "maximum"

    def holds(self, value: float, threshold: float) -> bool:
        """Whether a defined ``value`` passes ``threshold`` under this rule."""
        if value == threshold:
            return self.inclusive
        return value > threshold if self.minimum else value < threshold

    def named(self, name: str) -> "Rule":
        """The same rule for a figure shown under another name ("ICC ξ")."""
        return replace(self, name=name)


#: qualification and the Agreement page: ICC(1,1) above ``qualify_icc_min``
ICC_RULE = Rule("ICC", minimum=True, undefined="needs ≥ 3 samples with both curves")
#: Jaccard of (token, axis) labels above ``qualify_jaccard_min``
JACCARD_RULE = Rule("Jaccard", minimum=True, undefined="needs ≥ 1 sample with axis labels")
#: Pk (both ways) below ``qualify_pk_max``
PK_RULE = Rule("Pk", minimum=False, undefined="needs ≥ 1 sample with a segmentation")
#: curve distance W1 (log-time units) at most ``flag_w1_max``: above it a pair is flagged
W1_RULE = Rule("W1", minimum=False, inclusive=True, undefined="needs two curves")


@dataclass(frozen=True)
class Verdict:
    """A figure read against its threshold.

    ``passes`` is None when the figure is undefined; ``shown`` is the value as written (or "—"),
    ``text`` the whole verdict in words, ``reason`` why an undefined figure has no value.
    """

    value: float | None
    threshold: float
    rule: Rule
    passes: bool | None
    shown: str
    text: str
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.passes is not None

    @property
    def mark(self) -> str:
        """"✓" (passes), "✗" (does not) or "—" (undefined)."""
        return MISSING if self.passes is None else ("✓" if self.passes else "✗")


def shown_threshold(threshold: float) -> str:
    """The threshold with 2 decimals, or more when it has more ("0.15", "0.90", "0.155").

    Examples:
        >>> shown_threshold(0.15), shown_threshold(0.9), shown_threshold(0.155), shown_threshold(12)
        ('0.15', '0.90', '0.155', '12.00')
    """
    for digits in range(2, _MAX_DIGITS + 1):
        text = f"{threshold:.{digits}f}"
        if float(text) == threshold:
            return text
    return repr(float(threshold))


def shown_value(value: float, threshold: float, digits: int = DEFAULT_DIGITS) -> str:
    """``value`` with ``digits`` decimals, or as many more as it takes for the written number
    to compare with ``threshold`` as the value does (below, equal or above).

    Examples:
        >>> shown_value(0.812, 0.75), shown_value(0.7498, 0.75), shown_value(0.75, 0.75)
        ('0.812', '0.7498', '0.750')
        >>> shown_value(0.150004, 0.15)
        '0.150004'
    """
    side = (value > threshold) - (value < threshold)
    for d in range(digits, _MAX_DIGITS + 1):
        text = f"{value:.{d}f}"
        written = float(text)
        if (written > threshold) - (written < threshold) == side:
            return text
    return repr(float(value))


def _undefined(value: float | None) -> bool:
    return value is None or math.isnan(float(value))


def judge(value: float | None, threshold: float, *, rule: Rule, reason: str = "",
          digits: int = DEFAULT_DIGITS) -> Verdict:
    """``value`` read against ``threshold`` under ``rule`` (module docstring).

    ``reason`` says why an undefined value (None or NaN) has none; the rule's own reason is
    used when it is empty.

    Examples:
        >>> judge(0.151, 0.15, rule=PK_RULE).text
        'does not pass: Pk 0.151 is above the 0.15 maximum'
        >>> judge(0.812, 0.75, rule=JACCARD_RULE).text
        'passes: Jaccard 0.812 > 0.75'
        >>> judge(0.7498, 0.75, rule=JACCARD_RULE).text
        'does not pass: Jaccard 0.7498 is below the 0.75 minimum'
        >>> judge(0.75, 0.75, rule=JACCARD_RULE).text
        'does not pass: Jaccard 0.750 equals the 0.75 minimum; it must be above it'
        >>> judge(None, 0.9, rule=ICC_RULE, reason="needs ≥ 2 samples with a curve").text
        '— needs ≥ 2 samples with a curve'
        >>> judge(12.0, 12.0, rule=W1_RULE).passes
        True
    """
    if _undefined(value):
        why = reason or rule.undefined
        return Verdict(None, threshold, rule, None, MISSING, f"{MISSING} {why}", why)
    value = float(value)  # type: ignore[arg-type]
    ok = rule.holds(value, threshold)
    shown, limit = shown_value(value, threshold, digits), shown_threshold(threshold)
    figure = f"{rule.name} {shown}" if rule.name else shown
    if ok:
        text = f"passes: {figure} {rule.symbol} {limit}"
    elif value == threshold:
        side = "above" if rule.minimum else "below"
        text = f"does not pass: {figure} equals the {limit} {rule.bound}; it must be {side} it"
    else:
        side = "below" if rule.minimum else "above"
        text = f"does not pass: {figure} is {side} the {limit} {rule.bound}"
    return Verdict(value, threshold, rule, ok, shown, text)


def icc_reason(n_used: int, raters: int, problem: str = "") -> str:
    """Why an ICC over ``n_used`` samples of ``raters`` ratings has no value, in a verdict's
    words: too few samples (:func:`~annotation.agreement.icc.minimum_samples`), too few raters,
    or the ICC's own ``problem`` (no variance).

    Examples:
        >>> icc_reason(2, 2)
        'needs ≥ 3 samples with every curve (2 so far)'
        >>> icc_reason(8, 2, "not enough data: every rating has the same value (no variance)")
        'every rating has the same value (no variance)'
    """
    needed = minimum_samples(raters)
    if raters < 2:
        return "needs ≥ 2 annotations per sample"
    if n_used < needed:
        return f"needs ≥ {needed} samples with every curve ({n_used} so far)"
    return problem.removeprefix("not enough data: ") or ICC_RULE.undefined


def all_pass(verdicts: Mapping[str, Verdict]) -> bool:
    """Every figure passes (an undefined one does not).

    Examples:
        >>> all_pass({"pk": judge(0.1, 0.15, rule=PK_RULE), "icc": judge(None, 0.9, rule=ICC_RULE)})
        False
    """
    return all(v.passes is True for v in verdicts.values())


def verdicts_summary(verdicts: Mapping[str, Verdict]) -> str:
    """One short line for a table cell: "✓ all pass", or the figures that do not pass ("✗ Pk")
    and those without a value ("— ICC").

    Examples:
        >>> verdicts_summary({"jaccard": judge(0.8, 0.75, rule=JACCARD_RULE),
        ...                   "pk": judge(0.2, 0.15, rule=PK_RULE), "icc": judge(None, 0.9, rule=ICC_RULE)})
        '✗ Pk · — ICC'
        >>> verdicts_summary({"pk": judge(0.1, 0.15, rule=PK_RULE)})
        '✓ all pass'
    """
    if all_pass(verdicts):
        return "✓ all pass"
    parts = [f"✗ {v.rule.name}" for v in verdicts.values() if v.passes is False]
    parts += [f"{MISSING} {v.rule.name}" for v in verdicts.values() if v.passes is None]
    return " · ".join(parts)


__all__ = [
    "ICC_RULE",
    "JACCARD_RULE",
    "MISSING",
    "PK_RULE",
    "W1_RULE",
    "Rule",
    "Verdict",
    "all_pass",
    "icc_reason",
    "judge",
    "shown_threshold",
    "shown_value",
    "verdicts_summary",
]
