"""Seed data shared by the service, page and browser tests: a project whose samples have gold."""

from __future__ import annotations

from annotation.corpus.text_import import TextRecord


def gold_project(db, lead, n: int = 40, name: str = "Gold") -> int:
    """A project of ``n`` texts (every third one benchmark 2), each annotated alike by two
    imported annotators and resolved into gold: a main segment then one of the other axes."""
    import json

    from annotation.axes import AXIS_NAMES
    from annotation.services import annotation_import, projects, resolving

    p = projects.create_project(db, lead, name)
    records = [TextRecord(f"On day {i} the team will finish the report and then everybody rests.",
                          2 if i % 3 == 0 else 1, f"G-{i:03d}", i + 1) for i in range(n)]
    projects.import_texts(db, lead, p.id, records)
    lines = []
    for i in range(n):
        for who in ("ann_x", "ann_y"):
            lines.append(json.dumps({
                "sample_id": f"G-{i:03d}", "annotator": who, "boundaries": [0, 5],
                "segment_axes": ["main", AXIS_NAMES[1 + i % 7]],
                "xi": 40.0 + i % 20, "omega": 8.0, "alpha": 0.5,
                "submitted_at": f"2026-11-{1 + i % 20:02d}T10:00:00Z"}))
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "gold.jsonl")
    summary = resolving.resolve_project(db, lead, p.id)  # the import settled them already
    assert summary.gold + summary.settled == n, summary
    return p.id
