"""Seed data shared by the service, page and browser tests: a project whose samples have gold."""

from __future__ import annotations

from annotation.corpus.text_import import TextRecord


#: the units of :func:`gold_project`'s learnable texts and the curve location each gives
UNIT_XI = {"minutes": 24.0, "hours": 55.0, "days": 88.0, "weeks": 104.0, "months": 130.0}


def gold_project(db, lead, n: int = 40, name: str = "Gold", *, learnable: bool = False) -> int:
    """A project of ``n`` texts (every third one benchmark 2), each annotated alike by two
    imported annotators and resolved into gold: a main segment then one of the other axes.
    ``learnable``: each text names a unit of time that sets its curve's location (:data:`UNIT_XI`),
    so a model of the words beats the mean curve; else the location cycles with the text's number."""
    import json

    from annotation.axes import AXIS_NAMES
    from annotation.services.corpus import annotation_import
    from annotation.services.projects import projects
    from annotation.services.corpus import text_imports
    from annotation.services.review import resolving

    p = projects.create_project(db, lead, name)
    units = list(UNIT_XI)
    text = ("Item {i}: the shop is closed for a few {unit} while they paint it." if learnable
            else "On day {i} the team will finish the report and then everybody rests.")
    records = [TextRecord(text.format(i=i, unit=units[i % len(units)]), 2 if i % 3 == 0 else 1, f"G-{i:03d}", i + 1)
               for i in range(n)]
    text_imports.import_texts(db, lead, p.id, records)
    lines = []
    for i in range(n):
        for who in ("ann_x", "ann_y"):
            lines.append(json.dumps({
                "sample_id": f"G-{i:03d}", "annotator": who, "boundaries": [0, 5],
                "segment_axes": ["main", AXIS_NAMES[1 + i % 7]],
                "xi": UNIT_XI[units[i % len(units)]] + i % 3 if learnable else 40.0 + i % 20,
                "omega": 8.0, "alpha": 0.5,
                "submitted_at": f"2026-11-{1 + i % 20:02d}T10:00:00Z"}))
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "gold.jsonl")
    summary = resolving.resolve_project(db, lead, p.id)  # the import settled them already
    assert summary.gold + summary.settled == n, summary
    return p.id


#: where a curve (ξ, ω = 10, α = 0) is half gone, after its location ξ (log-time units)
HALF_GONE_AFTER_XI = 11.774100
#: each seed text's realisation minus a centred annotator's half-gone point: spread across the
#: quantiles (5/25/50/75/95 % gone at −8.6, −4.2, 0, +4.9, +12.7 from the half-gone point) roughly
#: as the quantiles say, so the centred annotator is not rejected
CENTRED_MISSES = (-10.0, -6.0, -3.0, -1.0, 0.5, 2.0, 3.5, 6.0, -2.0, 1.0, 8.0, 14.0)
#: how much later than the realisation a late annotator's curves are half gone
LATE_BY = 25.0


def seed_minutes(i: int) -> float:
    """Text ``i``'s known outcome (minutes after the text): 1.1 ** (30 + 7 i)."""
    return 1.1 ** (30.0 + 7.0 * i)


def expert_project(db, lead, seeds: dict[str, int] | None = None, *, n: int = 12, name: str = "Experts",
                   late: tuple[str, ...] = ("ann_late",)) -> int:
    """A project of ``n`` texts imported with ``stopped_holding_minutes`` (:func:`seed_minutes`),
    and annotations imported for each annotator of ``seeds`` on their first ``seeds[name]`` texts:
    curves (ξ, 10, 0) half gone :data:`CENTRED_MISSES` away from the realisation, or
    :data:`LATE_BY` after it for the annotators in ``late``. Every annotation is a seed."""
    import json
    import math

    from annotation.services.corpus import annotation_import, text_imports
    from annotation.services.projects import projects

    seeds = seeds if seeds is not None else {"ann_centred": n, "ann_late": n, "ann_new": 5}
    p = projects.create_project(db, lead, name)
    text_imports.import_texts(db, lead, p.id, [
        TextRecord(f"Text {i}: the bridge on road {i} is closed while they repair it.", 1, f"E-{i:03d}", i + 1,
                   seed_minutes(i)) for i in range(n)])
    lines = []
    for who, count in seeds.items():
        for i in range(count):
            realisation = math.log(seed_minutes(i)) / math.log(1.1)
            half_gone = realisation + (LATE_BY if who in late else -CENTRED_MISSES[i % len(CENTRED_MISSES)])
            lines.append(json.dumps({
                "sample_id": f"E-{i:03d}", "annotator": who, "boundaries": [0], "segment_axes": ["main"],
                "xi": half_gone - HALF_GONE_AFTER_XI, "omega": 10.0, "alpha": 0.0,
                "submitted_at": f"2026-11-{1 + i % 20:02d}T10:00:00Z"}))
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "experts.jsonl")
    return p.id
