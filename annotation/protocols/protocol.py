"""What a protocol declares: :class:`ProjectProtocol` and its :class:`ExportLayout`.

A protocol is a plug-in: one registration (``annotation/protocols/<key>.py``) says what a
sample is, which parts of an :class:`~annotation.content.AnnotationContent` its annotators fill
in, which edit events its workbench accepts and its steps, how a sample settles, which agreement
measures its annotations can feed (selected from the catalogue by what they consume,
:func:`annotation.agreement.catalogue.measures_for`), its export layout and its scoring. Code
outside the protocol rooms asks the project's protocol (:func:`annotation.protocols.protocol_of`)
for a declared part instead of testing which protocol it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.agreement.catalogue import measures_for
from annotation.agreement.measure import Measure
from annotation.agreement.ratings import Consumes
from annotation.content import CONTEXT, AnnotationContent
from annotation.settings import ProjectSettings
from annotation.workbench.event_log import EditRules
from annotation.workbench.protocol import submission_problems


def no_problems(samples: Sequence[Any]) -> list[str]:
    """An export check that finds nothing to refuse.

    >>> no_problems([object()])
    []
    """
    return []


@dataclass(frozen=True)
class SettleRule:
    """A protocol's part of settling a sample (review/settle_plan): ``gold`` makes the part its
    gold holds besides the target's resolution, from ``[(annotator id, content)]``, the token
    count, that resolution and the project's settings; ``hits`` the protocol's own flags from
    the contents, the parameter spread, the settings, the annotators' names, the sample's facts
    and the part the gold would hold."""

    gold: Callable[..., Any]
    hits: Callable[..., Any]


@dataclass(frozen=True)
class ExportLayout:
    """How a protocol's gold is exported: the configurations it writes (``config``, its writer's
    key in :func:`annotation.export.export_dataset`, first), the checks its gold must pass
    before anything is recorded (one line per refused sample), the card's agreement section, how
    an export's sizes are said, and what can be done with it afterwards."""

    #: the writer's key (:data:`annotation.export.WRITERS`) and the configurations it writes
    config: str
    configs: tuple[str, ...]
    #: what one exported sample is called ("sample", "pair")
    noun: str = "sample"
    #: the gold's checks: the problems that refuse the export (nothing is recorded)
    checks: Callable[[Sequence[Any]], list[str]] = no_problems
    #: the card's agreement section: "benchmarks" (per benchmark configuration) or the layout's own
    card: str = "benchmarks"
    #: the sizes of an export, said on the Export page and by the CLI ({train}, {validation},
    #: {test}: the layout's own configuration's); empty: per benchmark configuration
    sizes_caption: str = ""
    sizes_line: str = ""
    #: what an export of the layout "holds" instead of the Statistics page's statistics, which are
    #: of curves over segmented texts (empty: they are computed)
    no_statistics: str = ""
    #: whether a CSV for spreadsheets can be downloaded, and whether the baselines train on it
    spreadsheet: bool = False
    trainable: bool = True
    #: the leaderboard that scores predictions on it: "benchmarks" (annotation.training.scoring)
    #: or "change" (annotation.training.change_scoring)
    scoring: str = "benchmarks"

    def own_sizes(self, counts: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
        """The split sizes of the layout's own configuration in an export's ``counts`` (empty for
        a layout written per benchmark configuration)."""
        return dict(counts.get(self.config, {})) if self.sizes_caption else {}

    def said(self, template: str, sizes: Mapping[str, int]) -> str:
        """``template`` with the split ``sizes`` filled in (a missing split is 0).

        >>> ExportLayout("x", ("x",)).said("{train}/{validation}/{test}", {"train": 3})
        '3/0/0'
        """
        return template.format(**{s: sizes.get(s, 0) for s in ("train", "validation", "test")})


@dataclass(frozen=True)
class ProjectProtocol:
    """One protocol: its stored ``key`` (``ProjectSettings.protocol``), its name and what its
    registration declares (module docstring)."""

    key: str
    name: str
    #: the workbench's steps
    steps: tuple[str, ...]
    export: ExportLayout
    #: the parts of an annotation's content it uses (annotation.content.CONTENT_PARTS)
    content_parts: frozenset[str]
    #: the edit events its workbench accepts (annotation.workbench.event_log)
    event_kinds: frozenset[str]
    #: what its annotations provide to agreement measures, and what segmented ones add
    provides: frozenset[Consumes]
    provides_when_segmented: frozenset[Consumes] = frozenset()
    #: the setting that decides whether annotators segment (None: they always do)
    segmenting_setting: str | None = None
    #: the step a project that does not segment opens at
    unsegmented_first_step: int = 0
    #: what one sample is called where samples are counted and imported ("text", "pair")
    sample_noun: str = "text"
    #: the settings only this protocol's projects have, in the order the settings form shows them
    own_settings: tuple[str, ...] = ()
    #: settings a new project of this protocol starts with instead of ProjectSettings' defaults
    new_project_settings: tuple[tuple[str, object], ...] = ()
    #: the flag reasons its settling raises besides everyone's (annotation.review.flags)
    flags: tuple[str, ...] = ()
    #: the pure settle rule a sample's gold gets its protocol's part from (None: the gold is the
    #: curve and segmentation alone); see annotation.services.review.settle_plan
    settle_rule: SettleRule | None = None
    #: whether its samples are written by annotators (the Write follow-ups page)
    authored_samples: bool = False

    def uses(self, part: str) -> bool:
        """Whether its annotations use content ``part`` (annotation.content.CONTENT_PARTS)."""
        return part in self.content_parts

    def settings_of_new_project(self, settings: ProjectSettings) -> ProjectSettings:
        """``settings`` as a new project of this protocol starts: a pairs project hands out at
        random, so the follow-ups of one target — imported one after another — do not reach an
        annotator one after another (they would redraw the same target three times in a row and
        could guess the set of intended changes).

        >>> from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS
        >>> CONTEXT_PAIRS.settings_of_new_project(ProjectSettings(protocol="pairs")).hand_out_order
        'random'
        >>> SINGLE_TEXTS.settings_of_new_project(ProjectSettings()).hand_out_order
        'import'
        """
        return settings.updated(**dict(self.new_project_settings))

    def gold_counts(self, gold_by_benchmark: dict[int, int]) -> list[tuple[str, int]]:
        """The gold counts the Export page shows: per benchmark configuration, or the layout's
        own configuration holding both benchmarks' samples.

        >>> from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS
        >>> CONTEXT_PAIRS.gold_counts({1: 4, 2: 5})
        [('Gold pairs · tvcp', 9)]
        >>> SINGLE_TEXTS.gold_counts({1: 4, 2: 5})
        [('Gold · benchmark 1', 4), ('Gold · benchmark 2', 5)]
        """
        if self.export.sizes_caption:
            return [(f"Gold {self.sample_noun}s · {self.export.config}", sum(gold_by_benchmark.values()))]
        return [(f"Gold · benchmark {b}", n) for b, n in sorted(gold_by_benchmark.items())]

    def segmented(self, settings: ProjectSettings) -> bool:
        """Whether annotators segment the text and label each segment's axis."""
        return self.segmenting_setting is None or bool(getattr(settings, self.segmenting_setting))

    def first_step(self, settings: ProjectSettings) -> int:
        """The step a fresh annotation opens at: a project that does not segment starts at the
        curve."""
        return 0 if self.segmented(settings) else self.unsegmented_first_step

    def open_steps(self, settings: ProjectSettings) -> range:
        """The steps an annotator may go to: from :meth:`first_step` to the protocol's last.

        >>> from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS
        >>> list(CONTEXT_PAIRS.open_steps(ProjectSettings(protocol="pairs"))), list(SINGLE_TEXTS.open_steps(ProjectSettings()))
        ([2, 3], [0, 1, 2])
        """
        return range(self.first_step(settings), len(self.steps))

    def provided(self, settings: ProjectSettings) -> frozenset[Consumes]:
        """What the annotations of a project with ``settings`` provide to agreement measures."""
        return self.provides | (self.provides_when_segmented if self.segmented(settings) else frozenset())

    def agreement_measures(self, settings: ProjectSettings) -> tuple[Measure, ...]:
        """The measures of the agreement report (of the target alone, for a pair): the
        catalogue's whose consumption the annotations provide.

        >>> from annotation.protocols import CONTEXT_PAIRS
        >>> [m.name for m in CONTEXT_PAIRS.agreement_measures(ProjectSettings(protocol="pairs"))]
        ['icc', 'curve', 'krippendorff_curve', 'change']
        """
        return measures_for(self.provided(settings))

    def edit_rules(self, settings: ProjectSettings) -> EditRules:
        """What the workbench's event log lets an annotator of a project with ``settings`` do.

        >>> from annotation.protocols import SINGLE_TEXTS
        >>> rules = SINGLE_TEXTS.edit_rules(ProjectSettings())
        >>> list(rules.steps), "change" in rules.kinds, rules.second_curve
        ([0, 1, 2], False, False)
        """
        return EditRules(self.open_steps(settings), self.event_kinds, self.content_parts)

    def submission_problems(self, content: AnnotationContent, n_tokens: int,
                            settings: ProjectSettings, *, points_required: bool = True) -> list[str]:
        """What stops ``content`` from being submitted in a project with ``settings``."""
        return submission_problems(content, n_tokens, points_required=points_required,
                                   segmented=self.segmented(settings), pair=self.uses(CONTEXT))


def registry(protocols: Iterable[ProjectProtocol]) -> dict[str, ProjectProtocol]:
    """The protocols by key; two registrations of one key are a mistake.

    >>> registry([])
    {}
    """
    out: dict[str, ProjectProtocol] = {}
    for p in protocols:
        if p.key in out:
            raise ValueError(f"two protocols registered as {p.key!r}")
        out[p.key] = p
    return out


__all__ = ["ExportLayout", "ProjectProtocol", "SettleRule", "no_problems", "registry"]
