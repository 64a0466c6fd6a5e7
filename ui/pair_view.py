"""What the annotation surface draws of a context pair beyond a single text — no Streamlit here.

A pair's view (:func:`ui.workbench_view.build_view`) carries the follow-up statement, the second
curve (the target given the follow-up) drawn and described like the first, and the change the
two curves say, read here on the server from what is stored (:func:`annotation.pairs.change.read_change`
against the project's time factor, with both TVCP duration classes), so the reading the surface
shows after an answer is the one stored edits make. Nothing of a pair's references or of an
author's intent is here: the work item does not hold them (annotators stay blind).
"""

from __future__ import annotations

from typing import Any

from annotation.pairs.change import CHANGE_LABELS, factor_text, read_change
from annotation.settings import ProjectSettings
from annotation.content import AnnotationContent


def change_reading(content: AnnotationContent, settings: ProjectSettings) -> dict[str, Any] | None:
    """The change the two curves of ``content`` say, for the surface: the derived ``label``, the
    ``words`` ("The follow-up makes it valid ≈ ×3 longer: increased."), the time ``factor``
    (None when neither curve is half gone on the chart) and each curve's TVCP duration class
    (``alone_class``, ``given_class``: ``{"index", "name"}``, the name as the app shows it);
    None until both curves have parameters.

    >>> c = AnnotationContent(xi=45.0, omega=10.0, alpha=0.0, context_xi=56.53, context_omega=10.0,
    ...                       context_alpha=0.0)
    >>> r = change_reading(c, ProjectSettings(protocol="pairs"))
    >>> r["label"], r["words"], r["alone_class"]["name"], r["given_class"]["name"]
    ('increased', 'The follow-up makes it valid ≈ ×3 longer: increased.', '2–6 hours', '6 hours–1 day')
    >>> change_reading(AnnotationContent(xi=45.0, omega=10.0, alpha=0.0), ProjectSettings()) is None
    True
    """
    if not (content.has_parameters and content.has_context_parameters):
        return None
    reading = read_change((content.xi, content.omega, content.alpha),
                          (content.context_xi, content.context_omega, content.context_alpha),
                          settings.change_factor)
    factor = reading.factor
    return {
        "label": reading.label,
        "words": reading.words,
        # JSON has no infinity: a curve half valid past the chart's end reads as None here too
        "factor": None if factor is None or factor in (0.0, float("inf")) else factor,
        "alone_class": {"index": reading.alone_class.index, "name": reading.alone_class.label},
        "given_class": {"index": reading.given_class.index, "name": reading.given_class.label},
    }


def pair_panel(content: AnnotationContent, follow_up: str | None,
               settings: ProjectSettings) -> dict[str, Any]:
    """The view's ``pair_panel`` field: the follow-up (plain text; the surface sets it with
    textContent and shows it from the pair's last step on, never before), the change labels an
    annotator may choose, the threshold, the annotator's choice and the derived reading.

    >>> p = pair_panel(AnnotationContent(change="neutral"), "They moved it to Friday.", ProjectSettings(protocol="pairs"))
    >>> p["follow_up"], p["labels"], p["change"], p["reading"], p["threshold"]
    ('They moved it to Friday.', ['decreased', 'neutral', 'increased'], 'neutral', None, '×1.5')
    """
    return {
        "follow_up": follow_up or "",
        "labels": list(CHANGE_LABELS),
        "threshold": factor_text(settings.change_factor),
        "change": content.change,
        "reading": change_reading(content, settings),
    }
