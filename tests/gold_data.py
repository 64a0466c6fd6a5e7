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
    from annotation.services import annotation_import, projects, resolving

    p = projects.create_project(db, lead, name)
    units = list(UNIT_XI)
    text = ("Item {i}: the shop is closed for a few {unit} while they paint it." if learnable
            else "On day {i} the team will finish the report and then everybody rests.")
    records = [TextRecord(text.format(i=i, unit=units[i % len(units)]), 2 if i % 3 == 0 else 1, f"G-{i:03d}", i + 1)
               for i in range(n)]
    projects.import_texts(db, lead, p.id, records)
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
