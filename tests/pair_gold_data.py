"""Seed data of the pairs export and scoring tests: a context-pairs project whose pairs have gold
(both curves and a change label), written straight into the tables — samples, ``sample_pairs``,
two submitted annotations each and the gold row — so these tests do not depend on the pairs
import or review being built."""

from __future__ import annotations

import math
from datetime import datetime, timezone

from annotation.pairs.change import CHANGE_LABELS
from annotation.segmentation import tokenize
from annotation.services.accounts import accounts
from annotation.services.projects import projects
from db.models import Annotation, GoldAnnotation, Sample, SamplePair

#: How far (base-1.1 log minutes) the curve given the follow-up moves for each change label: ×3
#: longer, the same, ×3 shorter — well past the ×1.5 threshold either way.
SHIFT = {"increased": math.log(3) / math.log(1.1), "neutral": 0.0, "decreased": -math.log(3) / math.log(1.1)}


def pair_id(target: int, change: str) -> str:
    return f"P-{target:03d}-{change[:3]}"


def pair_gold_project(db, lead, n_targets: int = 20, name: str = "Pairs", *, references: bool = False,
                      gold_change: bool = True) -> int:
    """A context-pairs project of ``n_targets`` targets with three follow-ups each (one per change
    label, ids :func:`pair_id`), each pair annotated by two annotators and settled into gold: the
    target alone at ξ = 40 + t mod 20 (ω 8, α 0.5), given the follow-up shifted by :data:`SHIFT`.
    ``references`` adds an imported release's labels; without ``gold_change`` the gold holds no
    change label (the export derives it)."""
    p = projects.create_project(db, lead, name)
    projects.update_settings(db, lead, p.id, protocol="pairs")
    annotators = [accounts.create_user_from_cli(db, f"{name.lower()}_ann{i}", "password-123456", "annotator").id
                  for i in (1, 2)]
    when = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)
    with db.write() as s:
        for t in range(n_targets):
            target = f"Job interview number {t} is tomorrow morning, wish me luck."
            xi = 40.0 + t % 20
            for change in CHANGE_LABELS:
                sample = Sample(project_id=p.id, external_id=pair_id(t, change), benchmark=1, parent_text=target,
                                n_tokens=len(tokenize(target)))
                s.add(sample)
                s.flush()
                s.add(SamplePair(sample_id=sample.id, target_key=f"T-{t:03d}",
                                 follow_up=f"Follow-up {change} for target {t}: they moved it, maybe.",
                                 reference_alone=6 if references else None,
                                 reference_given=(7 if change == "increased" else 5 if change == "decreased" else 6)
                                 if references else None,
                                 reference_change=change if references else ""))
                for who in annotators:  # one segment without an axis: an unsegmented target, as the workbench stores it
                    s.add(Annotation(sample_id=sample.id, annotator_id=who, status="submitted", step=3,
                                     boundaries=[0], segment_axes=[None],
                                     xi=xi, omega=8.0, alpha=0.5, context_xi=xi + SHIFT[change],
                                     context_omega=8.0, context_alpha=0.5, submitted_at=when))
                s.add(GoldAnnotation(sample_id=sample.id, boundaries=[], segment_axes=[], xi=xi, omega=8.0,
                                     alpha=0.5, source="automatic", context_xi=xi + SHIFT[change],
                                     context_omega=8.0, context_alpha=0.5,
                                     change=change if gold_change else ""))
    return p.id
