"""Authoring follow-ups: the second phase of TVCP's protocol, with curves.

An author is shown a target statement with its *settled* curve and writes one follow-up per
intended change (decrease, keep, increase), each with their own curve of the target given it.
Others then annotate the written pairs blind to the intent; how often their settled change
equals the intent validates the author (:mod:`annotation.quality.author_validation`).

**The settled curve of a target** is the gold target-alone curve (ξ, ω, α) of the *earliest
decided* gold among the target's samples (same ``target_key``; ties by sample id). One gold
rather than a pool of them: the curve an author wrote against stays the curve recorded as the
pair's source (``authored_from``), however many follow-ups of the target are settled later; a
pool would move under the authors' feet and leave "what did they see?" unanswerable. The first
settled gold is also the one settled from the fewest follow-up contexts — the target read most
nearly alone.

**The author's curve** is entered as two durations, as the workbench's "Enter durations
instead" does (:func:`annotation.workbench.elicitation.points_from_durations`, then the same
fit, :func:`annotation.curves.fit_curve`): when the target is at its most valid given the
follow-up, and by when half of that validity is gone. Pure: no database, no Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from annotation.text_limits import MAX_TEXT_CHARS
from annotation.curves import fit_curve, parameter_bounds_problem
from annotation.pairs.change import CHANGE_LABELS, ChangeReading, read_change
from annotation.segmentation import tokenize
from annotation.timeaxis import humanize_minutes
from annotation.workbench.elicitation import curve_feedback, points_from_durations

Curve = tuple[float, float, float]

#: The intents in the order an author writes them, with how the page names each.
INTENT_VERBS: dict[str, str] = {"decreased": "decrease", "neutral": "keep", "increased": "increase"}
assert tuple(INTENT_VERBS) == CHANGE_LABELS  # one follow-up per change label of the release


@dataclass(frozen=True)
class TargetGold:
    """One gold of one of a target's samples, as the choice of the settled curve reads it."""

    sample_id: int
    target_key: str
    decided_at: datetime
    curve: Curve


def settled_curves(golds: Iterable[TargetGold]) -> dict[str, TargetGold]:
    """The settled curve of each target: its earliest-decided gold (ties: the lowest sample id).

    Examples:
        >>> from datetime import datetime as dt
        >>> golds = [TargetGold(7, "t1", dt(2026, 5, 2), (60.0, 8.0, 0.0)),
        ...          TargetGold(3, "t1", dt(2026, 5, 1), (50.0, 8.0, 0.0)),
        ...          TargetGold(9, "t2", dt(2026, 5, 1), (70.0, 8.0, 0.0)),
        ...          TargetGold(4, "t2", dt(2026, 5, 1), (72.0, 8.0, 0.0))]
        >>> {key: g.sample_id for key, g in sorted(settled_curves(golds).items())}
        {'t1': 3, 't2': 4}
    """
    chosen: dict[str, TargetGold] = {}
    for gold in golds:
        best = chosen.get(gold.target_key)
        if best is None or (gold.decided_at, gold.sample_id) < (best.decided_at, best.sample_id):
            chosen[gold.target_key] = gold
    return chosen


def next_target(settled: dict[str, TargetGold], authored_counts: dict[str, int],
                mine: Iterable[str]) -> TargetGold | None:
    """The target to hand an author: among the settled targets they have not written for yet
    (``mine``), the one with the fewest authored follow-ups (``authored_counts``, by target),
    then the earliest settled; None when there is none.

    Examples:
        >>> from datetime import datetime as dt
        >>> settled = {k: TargetGold(i, k, dt(2026, 5, i), (60.0, 8.0, 0.0))
        ...            for i, k in enumerate(("a", "b", "c"), 1)}
        >>> next_target(settled, {"a": 3, "b": 0}, mine=["c"]).target_key
        'b'
        >>> next_target(settled, {}, mine=["a", "b", "c"]) is None
        True
    """
    taken = set(mine)
    open_targets = [g for key, g in settled.items() if key not in taken]
    if not open_targets:
        return None
    return min(open_targets, key=lambda g: (authored_counts.get(g.target_key, 0), g.decided_at, g.sample_id))


def default_durations(curve: Curve) -> tuple[str, str]:
    """The settled curve's peak and half-gone times as an author types durations (the author's
    curve starts as the settled one); ``""`` for a half-gone time past the chart's end.

    Examples:
        >>> default_durations((95.0, 12.0, 2.0))
        ('1.5 weeks', '4 weeks')
    """
    feedback = curve_feedback(*curve)
    half = feedback.half_gone_minutes
    return humanize_minutes(feedback.peak_minutes), "" if math.isinf(half) else humanize_minutes(half)


def curve_from_durations(peak_minutes: float, half_gone_minutes: float) -> Curve:
    """The author's curve (ξ, ω, α) from two durations in minutes: the points the workbench's
    entry by durations places, fitted as every curve is. ValueError (the message is for the
    author) for durations that place no single-peaked curve.

    Examples:
        >>> [round(v, 1) for v in curve_from_durations(24 * 60, 3 * 24 * 60)]
        [76.3, 9.8, 0.0]
        >>> curve_from_durations(60, 30)
        Traceback (most recent call last):
        annotation.workbench.elicitation.DurationEntryError: Half of the validity cannot be gone by 30 min when the peak is only at 1 hour: the half-gone time must come after the peak.
    """
    fit = fit_curve(points_from_durations(peak_minutes, half_gone_minutes))
    return fit.xi, fit.omega, fit.alpha


@dataclass(frozen=True)
class IntentReading:
    """What the author's curve says against the settled one, beside what they intend."""

    intended: str
    reading: ChangeReading

    @property
    def matches(self) -> bool:
        return self.reading.label == self.intended

    @property
    def warning(self) -> str:
        """"" when the curve says what the author intends; otherwise one line saying it does not
        (a warning, never a refusal: the blind annotators' settled change is what measures it)."""
        if self.matches:
            return ""
        return (f"Your curve says “{self.reading.label}”, not “{self.intended}”: it should "
                f"{INTENT_VERBS[self.intended]} how long the target stays valid.")


def read_intent(settled: Curve, given: Curve, intended: str, factor: float) -> IntentReading:
    """The derived change from the settled curve to the author's, against the intent.

    Examples:
        >>> r = read_intent((45.0, 10.0, 0.0), (45.0 + 11.53, 10.0, 0.0), "decreased", 1.5)
        >>> r.matches, r.reading.label
        (False, 'increased')
        >>> r.warning
        'Your curve says “increased”, not “decreased”: it should decrease how long the target stays valid.'
    """
    if intended not in INTENT_VERBS:
        raise ValueError(f"the intended change must be one of: {', '.join(CHANGE_LABELS)}")
    return IntentReading(intended, read_change(settled, given, factor))


@dataclass(frozen=True)
class FollowUpDraft:
    """One follow-up as the author hands it in: the change it should make, its text and the
    author's curve of the target given it (None: no curve yet)."""

    intended_change: str
    text: str
    curve: Curve | None


def _same_text(text: str) -> str:
    """The follow-up as compared for sameness: case and runs of white space do not count."""
    return " ".join(text.split()).casefold()


def follow_up_problem(drafts: Sequence[FollowUpDraft]) -> str | None:
    """Why the follow-ups cannot be saved, in one line, or None. They must be one per change
    label, each a text of words up to the text import's limit, no two the same, each with a
    curve the fit could have made.

    Examples:
        >>> ok = (60.0, 8.0, 0.0)
        >>> drafts = [FollowUpDraft("decreased", "It was cancelled.", ok),
        ...           FollowUpDraft("neutral", "I had toast.", ok),
        ...           FollowUpDraft("increased", "It was moved to next year.", ok)]
        >>> follow_up_problem(drafts) is None
        True
        >>> follow_up_problem(drafts[:2] + [FollowUpDraft("increased", " i had  TOAST. ", ok)])
        'The follow-ups to keep and to increase are the same text; write a different one for each.'
        >>> follow_up_problem(drafts[:2] + [FollowUpDraft("increased", "Later.", None)])
        'The follow-up to increase has no curve yet: give its two durations.'
        >>> follow_up_problem(None) == follow_up_problem(drafts[:2] + [FollowUpDraft(None, "Later.", ok)])
        True
    """
    one_per_change = "Write exactly one follow-up for each change: decrease, keep and increase."
    if isinstance(drafts, (str, bytes)) or not isinstance(drafts, Sequence):
        return one_per_change
    intents = [d.intended_change if isinstance(d, FollowUpDraft) else None for d in drafts]
    if not all(isinstance(i, str) for i in intents) or sorted(intents) != sorted(CHANGE_LABELS):
        return one_per_change
    seen: dict[str, str] = {}
    for draft in sorted(drafts, key=lambda d: CHANGE_LABELS.index(d.intended_change)):
        verb = INTENT_VERBS[draft.intended_change]
        text = draft.text.strip() if isinstance(draft.text, str) else ""
        if not text:
            return f"The follow-up to {verb} is empty."
        if len(text) > MAX_TEXT_CHARS:
            return (f"The follow-up to {verb} can be at most {MAX_TEXT_CHARS} characters "
                    f"(yours has {len(text)}).")
        if "\x00" in text:
            return f"The follow-up to {verb} contains a NUL character."
        if not any(any(ch.isalnum() for ch in tok.text) for tok in tokenize(text)):
            return f"The follow-up to {verb} has no words."
        same = seen.get(_same_text(text))
        if same is not None:
            return (f"The follow-ups to {same} and to {verb} are the same text; write a different "
                    "one for each.")
        seen[_same_text(text)] = verb
        if draft.curve is None:
            return f"The follow-up to {verb} has no curve yet: give its two durations."
        problem = _curve_problem(draft.curve)
        if problem:
            return f"The curve of the follow-up to {verb} cannot be used: {problem}."
    return None


def _curve_problem(curve: Curve) -> str | None:
    try:
        values = [float(v) for v in curve]
    except (TypeError, ValueError):
        return "its parameters are not numbers"
    if len(values) != 3:
        return "it needs ξ, ω and α"
    return parameter_bounds_problem(*values)


__all__ = ["FollowUpDraft", "INTENT_VERBS", "IntentReading", "TargetGold", "curve_from_durations",
           "default_durations", "follow_up_problem", "next_target", "read_intent", "settled_curves"]
