"""Plain helpers for the page tests (fixtures are in conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from annotation.workbench import editing
from annotation.content import AnnotationContent
from annotation.services.workbench import queue
from annotation.corpus.text_import import TextRecord
from ui.display import WORD_JOINER
import workbench_writes
from streamlit_internals import registered_pages, run_with_states, widget_state, widget_states

REPO_ROOT = Path(__file__).resolve().parents[2]
APP_PATH = str(REPO_ROOT / "app.py")
#: AppTest's per-run timeout (seconds): pages import plotly, scipy and the domain on first run
TIMEOUT = 30
#: every user the page tests create signs in with this password
PASSWORD = "correct-horse"

#: Five points of a single-peaked curve (as in the service tests).
GOOD_POINTS: tuple[tuple[float, float], ...] = (
    (27.6, 0.77), (21.6, 0.41), (31.6, 0.41), (14.9, 0.19), (34.9, 0.2),
)


def run(at: AppTest) -> AppTest:
    """Run the app once and fail on any uncaught exception shown by the page."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # every table shows a missing value as "—", never "None" (ui.tables.show_table)
    assert all(df.proto.placeholder == "—" for df in at.dataframe), [df.proto.placeholder for df in at.dataframe]
    return at


def ask_for_work(at: AppTest) -> AppTest:
    """Go to Annotate as My queue's "Start the next sample" does: the annotator asked for a
    sample (opening Annotate by itself hands nothing out). Run the app after it."""
    at.session_state["workbench.ask_next"] = True
    at.switch_page("screens/workbench.py")
    return at


def reported_states(widgets):  # type: ignore[no-untyped-def]
    """The WidgetState messages a browser sends for ``widgets`` (AppTest widgets) right now."""
    return [widget_state(w) for w in widgets]


def run_with_gone_widgets(at: AppTest, gone_states) -> AppTest:  # type: ignore[no-untyped-def]
    """Run the app once as a browser does right after a run that took widgets off the page: its
    rerun request still carries ``gone_states`` (:func:`reported_states` of an earlier run).
    Streamlit's frontend forgets a widget only once a run ends normally, and the server still
    calls a gone widget's ``on_change`` when the value reported differs from the one it dropped.
    AppTest itself reports only the widgets on the page (hence :mod:`streamlit_internals`)."""
    states = widget_states(at)
    states.widgets.extend(gone_states)
    return run_with_states(at, states)


def shown(markdown: str) -> str:
    """What a reader sees of Markdown that :func:`ui.display.plain` escaped: the text with the
    escapes, hard line breaks, character references and word joiners taken out again. Messages
    that quote user text are escaped, so tests compare what is *read*."""
    text = markdown.replace("\\\n", "\n")
    text = re.sub(r"&#(\d+);", lambda m: chr(int(m.group(1))), text)
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return text.replace(WORD_JOINER, "")


def titles(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]


def infos(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.info]


def successes(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.success]


def toasts(at: AppTest) -> list[str]:
    return [shown(t.value) for t in at.toast]


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def markdown_values(at: AppTest) -> list[str]:
    """Every string of the last run that Streamlit renders as Markdown."""
    values: list[str] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                 "success", "toast"):
        values += [e.value for e in at.get(kind)]
    values += [b.label for b in at.button]
    for root in (at.main, at.sidebar):  # every element's tooltip (``help=``) renders Markdown too
        for node in root:
            tip = getattr(getattr(node, "proto", None), "help", None)
            if isinstance(tip, str) and tip:
                values.append(tip)
    for m in at.metric:
        values += [m.label, str(m.value)]
    for r in at.radio:
        values += [r.format_func(o) if callable(getattr(r, "format_func", None)) else str(o) for o in r.options]
    for t in at.table:
        values += [str(v) for v in t.value.to_numpy().ravel()]
    return values


def nav_titles(at: AppTest) -> list[str]:
    """Titles of the pages st.navigation registered in the last run that the menu lists: the
    page scripts. The hidden stand-ins ``ui.navigation`` registers under every other page's
    URL (the sign-in form while signed out, a refusal for a page the role does not allow) are
    functions, with no script path.

    AppTest has no public accessor for the navigation menu; it keeps the registry that
    ``switch_page`` resolves against.
    """
    return [info.get("page_name") for info in registered_pages(at) if info.get("script_path")]


def registered_url_paths(at: AppTest) -> set[str]:
    """Every URL path the last run's st.navigation answers (menu pages and hidden stand-ins)."""
    return {info.get("url_pathname") for info in registered_pages(at)}


def metric_values(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def complete_content(**overrides) -> AnnotationContent:
    """A complete, unflagged annotation of a one-segment text: axis Main, five points, fitted."""
    values = dict(boundaries=(0,), segment_axes=("main",), points=GOOD_POINTS)
    values.update(overrides)
    content, message = editing.refit(AnnotationContent(**values))
    assert message is None, message
    return content


def sample_header(at: AppTest) -> str | None:
    """The workbench's header ("Sample B1-0001"), with markdown escapes removed."""
    for m in at.markdown:
        if m.value.startswith("### Sample "):
            return re.sub(r"\\(.)", r"\1", m.value[4:])
    return None


def text_records(n: int) -> list[TextRecord]:
    """``n`` distinct single-sentence texts with ids ``S-000``… (14 tokens each)."""
    return [TextRecord(f"Sample number {i} says the shop on street {i} is closed this week.", 1,
                       f"S-{i:03d}", i + 1) for i in range(n)]


#: Two segmentations of a text of at least 7 tokens (e.g. ``text_records``' "Sample number 0
#: says the shop on street 0 is closed this week.", 14 tokens) that disagree on the boundary.
SPLIT_A = dict(boundaries=(0, 4), segment_axes=("static", "main"))
SPLIT_B = dict(boundaries=(0, 6), segment_axes=("static", "main"))


def annotate(db, user, pid, **content):  # type: ignore[no-untyped-def]
    """``user`` takes their next sample and submits a complete annotation of it."""
    item = queue.next_item(db, user, pid)
    workbench_writes.submit(db, user, item.annotation_id, item.version, complete_content(**content))
    return item
