"""Seed data for the authoring tests (service, page, browser): a context-pairs project whose
targets have pair samples, some with gold, written straight as rows (as a pair import leaves
them) so the tests do not depend on the import's own code."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from annotation.pairs.authoring import FollowUpDraft
from annotation.segmentation import tokenize

#: The settled (target-alone) curve of every seeded target: peaks at ≈ 1.5 weeks, half gone by
#: ≈ 4 weeks (:func:`annotation.pairs.authoring.default_durations`).
SETTLED = (95.0, 12.0, 2.0)
#: Curves given a follow-up that read, against :data:`SETTLED` at ×1.5: decreased, neutral,
#: increased.
DECREASED, NEUTRAL, INCREASED = (75.0, 10.0, 0.0), (95.0, 12.0, 2.0), (110.0, 12.0, 2.0)
T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def target_text(i: int) -> str:
    return f"Target {i}: the bakery on Elm street is closed for renovation until further notice."


def pairs_project(db, lead, *, targets: int = 3, settled: int | None = None, name: str = "Pairs",
                  k: int = 2) -> int:
    """A pairs project with ``targets`` targets (keys ``T-0``, ``T-1`` …), each with one imported
    follow-up sample (external id ``P-<i>``); the first ``settled`` targets (all by default) have
    gold (:data:`SETTLED`), decided an hour apart in target order."""
    from annotation.services.projects import projects
    from db.models import GoldAnnotation, Sample, SamplePair

    p = projects.create_project(db, lead, name)
    projects.update_settings(db, lead, p.id, protocol="pairs", annotators_per_sample=k)
    settled = targets if settled is None else settled
    with db.write() as s:
        for i in range(targets):
            text = target_text(i)
            smp = Sample(project_id=p.id, external_id=f"P-{i}", benchmark=1, parent_text=text,
                         n_tokens=len(tokenize(text)), status="active", source="seed")
            s.add(smp)
            s.flush()
            s.add(SamplePair(sample_id=smp.id, target_key=f"T-{i}",
                             follow_up=f"Imported follow-up {i}: the owner says it reopens soon."))
            if i < settled:
                s.add(GoldAnnotation(sample_id=smp.id, boundaries=[0], segment_axes=[["main"]],
                                     xi=SETTLED[0], omega=SETTLED[1], alpha=SETTLED[2],
                                     source="resolution", decided_at=T0 + timedelta(hours=i),
                                     context_xi=SETTLED[0], context_omega=SETTLED[1],
                                     context_alpha=SETTLED[2], change="neutral"))
    return p.id


def three_drafts(prefix: str = "") -> list[FollowUpDraft]:
    """Three follow-ups, one per intent, each with a curve that says its intent."""
    return [FollowUpDraft("decreased", f"{prefix}The bakery burned down last night.", DECREASED),
            FollowUpDraft("neutral", f"{prefix}I bought a loaf at another bakery.", NEUTRAL),
            FollowUpDraft("increased", f"{prefix}The renovation was extended by two months.", INCREASED)]


def settle(db, sample_id: int, change: str, *, xi: float = SETTLED[0]) -> None:
    """Give the pair sample gold with the settled change ``change`` (as the review would)."""
    from db.models import GoldAnnotation

    with db.write() as s:
        s.add(GoldAnnotation(sample_id=sample_id, boundaries=[0], segment_axes=[["main"]], xi=xi,
                             omega=SETTLED[1], alpha=SETTLED[2], source="resolution",
                             decided_at=T0 + timedelta(days=30), context_xi=xi,
                             context_omega=SETTLED[1], context_alpha=SETTLED[2], change=change))
