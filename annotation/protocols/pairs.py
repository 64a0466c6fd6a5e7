"""The context-pairs protocol (after Wenzel & Jatowt's Temporal Validity Change Prediction): a
target statement's curve alone, then given a follow-up statement, and the change between them
(the domain: :mod:`annotation.pairs`; settling: :mod:`annotation.review.pair_settling`).

A pairs project exports the TVCP release's layout only (:mod:`annotation.export.tvcp`):
Chronocept's benchmark records need segmented texts, and one target's several follow-ups would
repeat it as several samples. Its exports are scored on the change labels' leaderboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.agreement.catalogue import SEGMENTED_CURVE
from annotation.agreement.ratings import Consumes
from annotation.content import CHANGE, CONTEXT, CURVE, SEGMENTS
from annotation.flag_reasons import PAIR_FLAG_CODES
from annotation.protocols.protocol import ExportLayout, ProjectProtocol, SettleRule
from annotation.review.pair_settling import pair_flag_hits, pair_gold
from annotation.settings import PROTOCOL_NAMES
from annotation.workbench.event_log import EVENT_KINDS
from annotation.workbench.protocol import CONTEXT_STEP, PAIR_STEPS


def pair_problems(pairs: Sequence[Any]) -> list[str]:
    """Why gold pairs cannot be exported, one line each (:meth:`annotation.export.tvcp.PairGold.problem`).

    >>> from annotation.export.tvcp import PairGold
    >>> pair_problems([PairGold("p1", "t1", "Meeting at 3.", "It moved.", 50.0, 10.0, 0.0, None, None, None)])
    ['p1: its gold has no curve of the target given the follow-up']
    """
    return [p for p in (g.problem() for g in pairs) if p]


def _gold(annotations: Sequence[Any], n_tokens: int, alone: Any, settings: Any) -> Any:
    return pair_gold(annotations, n_tokens, alone, settings.change_factor)


def _hits(contents: Sequence[Any], spread: Any, settings: Any, names: Sequence[str], facts: Any, part: Any) -> Any:
    return pair_flag_hits(contents, spread, settings, names, intended_change=facts.intended_change,
                          settled=part.change)


#: (the names of annotation.export.tvcp and .dataset, written out: the export package reads
#: the protocols' domain)
LAYOUT = ExportLayout(
    "tvcp", ("tvcp", "annotations"), noun="pair", checks=pair_problems, card="tvcp",
    sizes_caption=("pairs (tvcp, JSON Lines and CSV): {train} train / {validation} validation / {test} test, "
                   "all follow-ups of a target in one split"),
    sizes_line="pairs (tvcp, a target's follow-ups in one split): {train}/{validation}/{test}",
    no_statistics=("holds context pairs (tvcp): its card (README.md in the export folder) has the change "
                   "labels and duration classes per split"),
    spreadsheet=True, trainable=False, scoring="change")

CONTEXT_PAIRS = ProjectProtocol(
    "pairs", PROTOCOL_NAMES["pairs"], PAIR_STEPS, LAYOUT,
    content_parts=frozenset({SEGMENTS, CURVE, CONTEXT, CHANGE, "flags"}),
    event_kinds=EVENT_KINDS,
    provides=frozenset({Consumes.CURVE_PARAMETERS, Consumes.CHANGE_LABEL}),
    provides_when_segmented=SEGMENTED_CURVE,
    segmenting_setting="segment_targets", unsegmented_first_step=CONTEXT_STEP - 1,
    sample_noun="pair", own_settings=("change_factor", "segment_targets"),
    new_project_settings=(("hand_out_order", "random"),),
    flags=PAIR_FLAG_CODES, settle_rule=SettleRule(_gold, _hits), authored_samples=True,
)

__all__ = ["CONTEXT_PAIRS", "LAYOUT", "pair_problems"]
