"""Project settings: thresholds, quota, k, log base, guidelines version — one object.

Stored as JSON on the project row; every component reads its thresholds from here, never from a
literal of its own. Unknown keys in stored JSON are ignored and missing keys take the defaults,
so adding a setting needs no data migration.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from annotation.guidelines import available_versions
from annotation.timeaxis import DEFAULT_BASE

#: the newest bundled guidelines (``guidelines/vX.Y.md``): a new project annotates under them
NEWEST_GUIDELINES = (available_versions() or ["1.0"])[-1]


#: The project protocols (:mod:`annotation.protocols` says what each decides) by their stored
#: key, as the settings form names them.
PROTOCOL_NAMES: dict[str, str] = {"single": "single texts", "pairs": "context pairs"}

#: The hand-out orders of a project's queue and how the settings form names them.
HAND_OUT_ORDERS: dict[str, str] = {"import": "in import order", "random": "at random",
                                   "uncertain": "most uncertain first (the latest applied model)"}

#: How a sample's gold curve pools its annotators' curves, and how the settings form names them.
GOLD_POOLINGS: dict[str, str] = {"equal": "equally (the mean of the curves)",
                                 "calibration": "by calibration (Cooke's classical model)",
                                 "model": "by the annotator model (bias, noise, confidence)"}


class SettingsError(ValueError):
    """A settings value out of its allowed range (message is user-facing)."""


@dataclass(frozen=True)
class ProjectSettings:
    """All tunable numbers of one project, with the defaults of SPEC sections 4–7."""

    annotators_per_sample: int = 2  # k
    daily_quota: int = 70
    quota_timezone: str = "UTC"  # the "calendar day" of the quota
    log_base: float = DEFAULT_BASE  # display/export base; stored values are always base 1.1
    guidelines_version: str = NEWEST_GUIDELINES  # the version new annotations record
    # qualification against gold (the warm-up board and the admission rule use them)
    qualify_icc_min: float = 0.90
    qualify_jaccard_min: float = 0.75
    qualify_pk_max: float = 0.15
    warmup_size: int = 50
    # automatic flags
    flag_pk_max: float = 0.2
    flag_sigma: float = 2.0
    # the deviation flags' fixed thresholds, used instead of flag_sigma·σ while σ is too thin to
    # trust (under 30 submitted annotations, or no spread: annotation.review.deviation). ξ and ω
    # in base-1.1 log-time units: 12 and 15 are the differences that alone put two curves W1 = 12
    # apart (W1 = |Δξ|; for equal ξ, W1 ≈ 0.8·|Δω|), so on thin data the parameter flags agree
    # with the curve-distance flag and name the parameter. α is unitless and its effect saturates
    # (a curve with α = 3 looks like one with α = 8): only a difference above 10 — opposite skews,
    # or a symmetric curve against a near half-normal one — is a change of shape on its own
    flag_xi_max: float = 12.0
    flag_omega_max: float = 15.0
    flag_alpha_max: float = 10.0
    # curve distance: Wasserstein-1 between two normalised curves, in base-1.1 log-time units
    # (12 units ≈ one curve sitting ×3.1 later in time); flags a pair above it
    flag_w1_max: float = 12.0
    review_rate: float = 0.10
    # de-duplication
    dedup_threshold: float = 0.7
    # consistency: pairs of texts at least this similar (SBERT cosine) whose gold differs
    consistency_similarity_min: float = 0.9
    # ongoing gold checks in production queues: the share of handed-out samples that are gold
    # checks (0 = off), the number of latest checks judged, and the share of them that must pass
    # (W1 ≤ flag_w1_max, Jaccard > qualify_jaccard_min, Pk < qualify_pk_max) to keep working
    gold_check_share: float = 0.0
    gold_check_window: int = 10
    gold_check_min_pass: float = 0.6
    # workbench: ask "Submit this annotation?" before a submit (off: one key submits)
    confirm_submit: bool = False
    # which unassigned sample is handed out next: "import" (oldest first), "random" (from a
    # random place in the pool, drawn anew at each hand-out) or "uncertain" (the latest applied
    # model's largest expected miss first, when that model beats the trivial reference under
    # cross-validation, else import order; samples it did not predict follow in import order)
    hand_out_order: str = "import"
    # the model's curve on a review case: leads may show it; off by default (no anchoring)
    show_model_curve: bool = False
    # the protocol: "single" (one text, one curve: Chronocept) or "pairs" (a target statement
    # and a follow-up, two curves and the change between them: TVCP); fixed once samples exist
    protocol: str = "single"
    # context pairs: the time factor the half-gone time must move by to count as a change
    # (≥ ×f increased, ≤ ×1/f decreased), and whether the target is segmented and its segments
    # given axes before its curve (off: the pair goes straight to the curve)
    change_factor: float = 1.5
    segment_targets: bool = False
    # how the automatic gold pools the annotators' curves: "equal" (the mean of ξ, ω, α),
    # "calibration" (weights from each annotator's calibration × information on the seeds:
    # Cooke's classical model) or "model" (the annotator model's bias-corrected, precision-weighted
    # mean); a rule that cannot weigh a sample (too few seeds, an annotator the model does not
    # know) pools it equally and the gold records so
    gold_pooling: str = "equal"
    # a third annotator where it pays: a complete sample that is flagged, or whose gold the
    # annotator model leaves wider than third_annotator_sd_max (SD of its half-gone position,
    # log-time units), is handed to one more annotator before it reaches a lead
    third_annotator: bool = False
    third_annotator_sd_max: float = 10.0

    def __post_init__(self) -> None:
        if not isinstance(self.confirm_submit, bool):
            raise SettingsError("the confirm-before-submit setting must be true or false")
        if not isinstance(self.show_model_curve, bool):
            raise SettingsError("the show-the-model's-curve setting must be true or false")
        if not isinstance(self.segment_targets, bool):
            raise SettingsError("the segment-the-targets setting must be true or false")
        if self.protocol not in PROTOCOL_NAMES:
            raise SettingsError("the protocol must be one of: " + ", ".join(PROTOCOL_NAMES))
        if not isinstance(self.third_annotator, bool):
            raise SettingsError("the third-annotator setting must be true or false")
        if self.gold_pooling not in GOLD_POOLINGS:
            raise SettingsError("the gold pooling must be one of: " + ", ".join(GOLD_POOLINGS))
        if self.hand_out_order not in HAND_OUT_ORDERS:
            raise SettingsError("the hand-out order must be one of: " + ", ".join(HAND_OUT_ORDERS))
        checks = [
            (1 <= self.annotators_per_sample <= 10, "annotators per sample must be between 1 and 10"),
            (1 <= self.daily_quota <= 10_000, "the daily quota must be between 1 and 10000"),
            (self.log_base > 1.0, "the log base must be greater than 1"),
            (bool(self.guidelines_version.strip()), "the guidelines version cannot be empty"),
            (0 <= self.qualify_icc_min <= 1, "the ICC threshold must be between 0 and 1"),
            (0 <= self.qualify_jaccard_min <= 1, "the Jaccard threshold must be between 0 and 1"),
            (0 <= self.qualify_pk_max <= 1, "the Pk threshold must be between 0 and 1"),
            (0 <= self.warmup_size <= 10_000, "the warm-up size must be between 0 and 10000"),
            (0 <= self.flag_pk_max <= 1, "the Pk flag threshold must be between 0 and 1"),
            (self.flag_sigma > 0, "the deviation flag must be a positive number of SDs"),
            (0.1 <= self.flag_xi_max <= 400, "the fixed ξ flag must be between 0.1 and 400 log-time units"),
            (0.1 <= self.flag_omega_max <= 200, "the fixed ω flag must be between 0.1 and 200 log-time units"),
            (0.1 <= self.flag_alpha_max <= 40, "the fixed α flag must be between 0.1 and 40"),
            (0 <= self.review_rate <= 1, "the review rate must be between 0 and 1"),
            (0 < self.dedup_threshold <= 1, "the de-duplication threshold must be in (0, 1]"),
            # W1 is resolved to half a unit (annotation.curves.distance), and texts below 0.5
            # cosine similarity are not "similar": the settings form offers the same ranges
            (0.5 <= self.flag_w1_max <= 200, "the curve-distance flag must be between 0.5 and 200 log-time units"),
            (0.5 <= self.consistency_similarity_min <= 1, "the consistency similarity must be between 0.5 and 1"),
            (0 <= self.gold_check_share <= 0.5, "the gold-check share must be between 0 and 0.5"),
            (1 <= self.gold_check_window <= 1000, "the gold-check window must be between 1 and 1000"),
            (0 <= self.gold_check_min_pass <= 1, "the gold-check pass share must be between 0 and 1"),
            (1.05 <= self.change_factor <= 100, "the change threshold must be a time factor from ×1.05 to ×100"),
            (0.5 <= self.third_annotator_sd_max <= 200,
             "the third annotator's width threshold must be between 0.5 and 200 log-time units"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingsError(message)
        try:
            ZoneInfo(self.quota_timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise SettingsError(f"unknown time zone {self.quota_timezone!r}") from exc

    @property
    def timezone(self) -> ZoneInfo:
        return ZoneInfo(self.quota_timezone)

    @property
    def deviation_max(self) -> dict[str, float]:
        """The deviation flags' fixed thresholds by parameter (``xi``, ``omega``, ``alpha``)."""
        return {"xi": self.flag_xi_max, "omega": self.flag_omega_max, "alpha": self.flag_alpha_max}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "ProjectSettings":
        """Build from stored JSON, ignoring unknown keys (settings of a later version) and
        checking each value's type."""
        if not data:
            return cls()
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data and data[f.name] is not None:
                kwargs[f.name] = _coerce(f.name, type(getattr(_DEFAULTS, f.name)), data[f.name])
        return cls(**kwargs)

    def updated(self, **changes: Any) -> "ProjectSettings":
        return replace(self, **changes)


_DEFAULTS = ProjectSettings()


#: Text forms of a yes/no setting accepted from stored JSON (a hand-edited row, an older export).
_TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS = frozenset({"false", "no", "off", "0"})


def _coerce(name: str, kind: type, value: Any) -> Any:
    """``value`` as ``kind``: whole numbers stay whole, numbers must be finite, a yes/no setting
    is a JSON boolean (or 0/1 or the words true/false, yes/no, on/off) and nothing else — a
    bare ``bool(value)`` would read the text "false" as true."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE_WORDS | _FALSE_WORDS:
            return value.strip().lower() in _TRUE_WORDS
        raise SettingsError(f"setting {name!r} must be true or false")
    if kind is str:
        if not isinstance(value, str):
            raise SettingsError(f"setting {name!r} must be text")
        return value
    if isinstance(value, bool):
        raise SettingsError(f"setting {name!r} must be a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SettingsError(f"setting {name!r} must be a number") from None
    if not math.isfinite(number):
        raise SettingsError(f"setting {name!r} must be a finite number")
    if kind is int:
        if not number.is_integer():
            raise SettingsError(f"setting {name!r} must be a whole number")
        return int(number)
    return number
