"""The single-texts protocol (Chronocept): one text, segmented, an axis per segment, one
validity curve; exported as the benchmark configurations, scored on the benchmarks' leaderboard.
"""

from __future__ import annotations

from annotation.agreement.catalogue import SEGMENTED_CURVE
from annotation.content import CURVE, SEGMENTS
from annotation.protocols.protocol import ExportLayout, ProjectProtocol
from annotation.settings import PROTOCOL_NAMES
from annotation.workbench.event_log import EVENT_KINDS, PAIR_EVENT_KINDS
from annotation.workbench.protocol import STEPS

#: the default layout: a configuration per benchmark and the annotations (the names of
#: annotation.export.dataset, written out: the export package reads the protocols' domain)
LAYOUT = ExportLayout("default", ("benchmark_1", "benchmark_2", "annotations"))

SINGLE_TEXTS = ProjectProtocol(
    "single", PROTOCOL_NAMES["single"], STEPS, LAYOUT,
    content_parts=frozenset({SEGMENTS, CURVE, "flags"}),
    event_kinds=EVENT_KINDS - PAIR_EVENT_KINDS,
    provides=SEGMENTED_CURVE,
)

__all__ = ["LAYOUT", "SINGLE_TEXTS"]
