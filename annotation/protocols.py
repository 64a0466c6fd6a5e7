"""The project protocols: what a project's samples are and what annotating one means.

A project is either *single texts* (Chronocept: one text, segmented, an axis per segment, one
validity curve) or *context pairs* (after Wenzel & Jatowt's Temporal Validity Change
Prediction: a target statement's curve alone, then given a follow-up statement, and the change
between them, :mod:`annotation.pairs`). The protocol decides the workbench's steps, what a
submit needs, the agreement measures, the flags and the export; every place that differs asks
the project's :class:`ProjectProtocol` here instead of testing for pairs itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.agreement.measure import Measure
from annotation.agreement.pair_agreement import pair_measures
from annotation.agreement.report import DEFAULT_MEASURES
from annotation.settings import PROTOCOL_NAMES, ProjectSettings
from annotation.workbench.protocol import PAIR_STEPS, STEPS, submission_problems
from annotation.content import AnnotationContent


@dataclass(frozen=True)
class ProjectProtocol:
    """One protocol: its stored ``key`` (``ProjectSettings.protocol``), its name, the workbench's
    steps, and the export configurations it writes (the first is the default)."""

    key: str
    name: str
    steps: tuple[str, ...]
    export_configs: tuple[str, ...]
    has_follow_up: bool
    #: what one sample is called where samples are counted and imported ("text", "pair")
    sample_noun: str = "text"
    #: the settings only this protocol's projects have (``ProjectSettings`` field names), in the
    #: order the settings form shows them
    own_settings: tuple[str, ...] = ()
    #: settings a new project of this protocol starts with instead of ProjectSettings' defaults
    new_project_settings: tuple[tuple[str, object], ...] = ()

    def settings_of_new_project(self, settings: ProjectSettings) -> ProjectSettings:
        """``settings`` as a new project of this protocol starts: a pairs project hands out at
        random, so the follow-ups of one target — imported one after another — do not reach an
        annotator one after another (they would redraw the same target three times in a row and
        could guess the set of intended changes).

        >>> CONTEXT_PAIRS.settings_of_new_project(ProjectSettings(protocol="pairs")).hand_out_order
        'random'
        >>> SINGLE_TEXTS.settings_of_new_project(ProjectSettings()).hand_out_order
        'import'
        """
        return settings.updated(**dict(self.new_project_settings))

    def gold_counts(self, gold_by_benchmark: dict[int, int]) -> list[tuple[str, int]]:
        """The gold counts the Export page shows: per benchmark configuration for single texts;
        for pairs the one ``tvcp`` configuration holds both benchmarks' pairs.

        >>> CONTEXT_PAIRS.gold_counts({1: 4, 2: 5})
        [('Gold pairs · tvcp', 9)]
        >>> SINGLE_TEXTS.gold_counts({1: 4, 2: 5})
        [('Gold · benchmark 1', 4), ('Gold · benchmark 2', 5)]
        """
        if "tvcp" in self.export_configs:
            return [(f"Gold {self.sample_noun}s · tvcp", sum(gold_by_benchmark.values()))]
        return [(f"Gold · benchmark {b}", n) for b, n in sorted(gold_by_benchmark.items())]

    def first_step(self, settings: ProjectSettings) -> int:
        """The step a fresh annotation opens at: a pairs project that does not segment its
        targets starts at the curve."""
        return 2 if self.has_follow_up and not settings.segment_targets else 0

    def open_steps(self, settings: ProjectSettings) -> range:
        """The steps an annotator may go to: from :meth:`first_step` to the protocol's last.

        >>> list(CONTEXT_PAIRS.open_steps(ProjectSettings(protocol="pairs"))), list(SINGLE_TEXTS.open_steps(ProjectSettings()))
        ([2, 3], [0, 1, 2])
        """
        return range(self.first_step(settings), len(self.steps))

    def segmented(self, settings: ProjectSettings) -> bool:
        """Whether annotators segment the text and label each segment's axis."""
        return not self.has_follow_up or settings.segment_targets

    def agreement_measures(self, settings: ProjectSettings) -> tuple[Measure, ...]:
        """The measures of the agreement report (of the target alone, for a pair): every
        measure for single texts; for pairs the change label's and the curves', and the axis
        and segmentation measures only when targets are segmented."""
        if not self.has_follow_up:
            return DEFAULT_MEASURES
        return pair_measures(self.segmented(settings))

    def submission_problems(self, content: AnnotationContent, n_tokens: int,
                            settings: ProjectSettings, *, points_required: bool = True) -> list[str]:
        """What stops ``content`` from being submitted in a project with ``settings``."""
        return submission_problems(content, n_tokens, points_required=points_required,
                                   segmented=self.segmented(settings), pair=self.has_follow_up)


SINGLE_TEXTS = ProjectProtocol("single", PROTOCOL_NAMES["single"], STEPS, ("default",), False)
# a pairs project exports the TVCP release's layout only: Chronocept's benchmark records need
# segmented texts, and one target's several follow-ups would repeat it as several samples
CONTEXT_PAIRS = ProjectProtocol("pairs", PROTOCOL_NAMES["pairs"], PAIR_STEPS, ("tvcp",), True, "pair",
                                ("change_factor", "segment_targets"), (("hand_out_order", "random"),))
PROTOCOLS: dict[str, ProjectProtocol] = {p.key: p for p in (SINGLE_TEXTS, CONTEXT_PAIRS)}


def protocol_of(settings: ProjectSettings) -> ProjectProtocol:
    """The protocol a project with ``settings`` follows.

    >>> protocol_of(ProjectSettings()).name, protocol_of(ProjectSettings(protocol="pairs")).steps[-1]
    ('single texts', 'Given the follow-up')
    """
    return PROTOCOLS[settings.protocol]


__all__ = ["CONTEXT_PAIRS", "PROTOCOLS", "ProjectProtocol", "SINGLE_TEXTS", "protocol_of"]
