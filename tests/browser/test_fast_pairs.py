"""An annotator doing context pairs fast in Chromium: clicks and drags 100 ms apart on both
curves, an override of the change, the submit key and the next pair — then the database must
hold every edit on the sample and the curve the screen named.

Each pair: the surface opens at the target's curve with nothing of the follow-up drawn; three
points are clicked onto the chart; Alt+→ goes to the last step, where the follow-up is shown
(exactly as written, never parsed) with the target's curve behind a copy of it; the copy's
points are dragged later on the time axis; the change is overridden with a key or a click (or
confirmed as derived with key 0); Alt+Enter submits. Nothing waits for the server between actions. The
intended result is computed here from the actions (the points aimed at, the change chosen); a
stored point more than one pixel (plus the 0.01 rounding) from where it was aimed, a point on
the wrong curve, a change not recorded or recorded on another sample is a failure.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from annotation.services.accounts import accounts
from annotation.services.workbench import queue
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from tests.pair_data import pairs_from_texts
from tests.browser.flow_steps import open_annotate, sign_in, wait_until
from tests.browser.test_fast_input import NOTHING_PENDING_JS, SURFACE, Driver, open_surface

pytestmark = pytest.mark.browser

USER, PASSWORD = "pairs1", "pairs1-password"
PACE_MS = 100
#: The target's curve, then the same shape later (the follow-up makes it valid longer)
FIRST = ((40.0, 0.5), (58.0, 0.96), (85.0, 0.3))
SHIFT = 40.0
#: How each pair's change is chosen: a key, a click on the choice, or the derived one confirmed
#: with its key (a pair is never labelled by leaving it: a submit without a choice is refused)
CHOICES = (("key", "1", "decreased"), ("click", "neutral", "neutral"), ("key", "0", "derived"))
FOLLOW_UP = "Update for target {n}: they moved it to *next* <b>Friday</b> & beyond"

#: The surface's visible text (it lives in a shadow root) and the pair panel's state.
PAIR_STATE_JS = """(id) => {
  const find = (selector, root = document) => {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      const inner = el.shadowRoot && find(selector, el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };
  const s = find('[data-testid="surface"][data-annotation-id="' + id + '"]');
  if (!s) return null;
  const panel = s.querySelector('[data-testid="pair-panel"]');
  return { step: s.getAttribute("data-step"), curve: s.getAttribute("data-curve"), text: s.innerText,
           panelHidden: !panel || panel.hidden, followUp: (s.querySelector('[data-testid="follow-up-text"]') || {}).textContent,
           behind: !!s.querySelector('[data-testid="curve-alone"]'),
           reading: (s.querySelector('[data-testid="change-reading"]') || {}).textContent,
           pending: s.getAttribute("data-pending"), acked: s.getAttribute("data-acked"),
           message: (s.querySelector('[data-testid="surface-message"]') || {}).textContent,
           missing: (s.querySelector('[data-testid="surface-missing"]') || {}).textContent,
           points: (s.querySelector('[data-testid="curve-canvas"]') || { getAttribute: () => null }).getAttribute("data-points") };
}"""


@pytest.fixture(scope="module")
def pairs_app(tmp_path_factory, run_streamlit_module):
    url = f"sqlite:///{tmp_path_factory.mktemp('fast-pairs') / 'pairs.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, USER, PASSWORD, "annotator")
    pairs_from_texts(db, admin, "Pairs fast", [
        TextRecord(f"Target {n}: the job interview is tomorrow morning, wish me luck.", 1, f"PAIR-{n}", n)
        for n in range(1, len(CHOICES) + 2)], lambda smp: FOLLOW_UP.format(n=smp.id),
        settings={"change_factor": 1.5}, reference_change="increased", intended_change="decreased")
    actor = accounts.authenticate(db, USER, PASSWORD)
    base = run_streamlit_module("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    yield base, db, actor
    db.dispose()


def _pair_state(page, aid: int) -> dict:
    return page.evaluate(PAIR_STATE_JS, aid)


def _next_surface(page, previous: int | None) -> int:
    """The next pair's annotation id once its surface is drawn; a failure names what the
    previous pair's surface said (a submit refused, edits still pending)."""
    try:
        return open_surface(page, previous)
    except PlaywrightTimeout:
        shown = _pair_state(page, previous) if previous is not None else None
        pytest.fail(f"no next pair after annotation {previous}; its surface: {shown}", pytrace=False)


def test_pairs_done_fast_land_on_the_sample_and_curve_the_screen_named(chromium_browser, pairs_app):
    base, db, actor = pairs_app
    context = chromium_browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    rng = random.Random(2511)
    driver = Driver(page, rng)
    intended: dict[int, tuple] = {}
    shown_follow_ups: dict[int, str] = {}
    try:
        sign_in(page, base, USER, PASSWORD)
        open_annotate(page)
        aid = None
        for how, what, change in CHOICES:
            aid = _next_surface(page, aid)
            before = _pair_state(page, aid)
            assert before["step"] == "2" and before["curve"] == "target"
            assert before["panelHidden"] and not before["followUp"]
            assert "moved it to" not in before["text"]  # the follow-up is not on screen
            first = [(x + rng.uniform(-2, 2), y) for x, y in FIRST]
            for x, y in first:  # the target's curve: three clicks, 100 ms apart
                driver.click(*driver.pixel(x, y))
                page.wait_for_timeout(PACE_MS)
            page.keyboard.press("Alt+ArrowRight")  # the follow-up's step, at once
            page.wait_for_timeout(PACE_MS)
            state = _pair_state(page, aid)
            assert state["step"] == "3" and state["curve"] == "context" and not state["panelHidden"]
            second = list(first)
            for index in (2, 1, 0):  # the copy's points dragged later, the last one first
                g = driver.geometry()
                start = driver.pixel(*second[index], g)
                second[index] = (second[index][0] + SHIFT, second[index][1])
                page.mouse.move(*start)
                page.mouse.down()
                page.mouse.move(*driver.pixel(*second[index], g), steps=2)
                page.mouse.up()
                page.wait_for_timeout(PACE_MS)
            if how == "key":
                page.keyboard.press(what)
            elif how == "click":
                page.locator(f'{SURFACE} [data-change-option="{what}"]').click()
            page.wait_for_timeout(PACE_MS)
            # the target's curve is drawn faintly behind once the server's fit of it has come (it
            # is the server's: under load that is after this hurried annotator's next key)
            wait_until(lambda: _pair_state(page, aid)["behind"], what="the target's curve behind")
            follow_up = _pair_state(page, aid)["followUp"]
            shown_follow_ups[aid] = follow_up
            page.keyboard.press("Alt+Enter")
            intended[aid] = (first, second, change)
            page.wait_for_function(NOTHING_PENDING_JS, arg=aid, polling=20, timeout=30_000)
        # the last submit handed out the next pair: it opens at the target alone again
        nxt = _next_surface(page, aid)
        assert _pair_state(page, nxt)["panelHidden"]
    finally:
        context.close()

    tol = driver.tol
    for aid, (first, second, change) in intended.items():
        item = wait_until(lambda: (lambda it: it if it.status == "submitted" else None)(
            queue.open_item(db, actor, aid)), timeout=20.0, what=f"annotation {aid} submitted")
        c = item.content
        assert item.follow_up == shown_follow_ups[aid] == FOLLOW_UP.format(n=item.sample_id), (
            "the follow-up shown is the sample's own, as written")
        for stored, aimed, name in ((c.points, first, "target's"), (c.context_points, second, "second")):
            assert len(stored) == len(aimed), f"annotation {aid}: the {name} curve has {stored}, aimed {aimed}"
            for (sx, sy), (ax, ay) in zip(stored, aimed):
                assert abs(sx - ax) <= tol[0] and abs(sy - ay) <= tol[1], (
                    f"annotation {aid}: the {name} curve has {stored}, aimed {aimed} (± {tol})")
        assert c.change == change, f"annotation {aid}: change {c.change!r}, chosen {change!r}"
        assert c.has_parameters and c.has_context_parameters and c.context_xi > c.xi
