// @ts-check
/* ui/components/surface_state.js: what the annotation surface draws before the server answers.
   tests/unit/test_surface_state_crosscheck.py checks the same reducer against the server's
   replay on random event sequences; these tests name the rules one by one. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} SurfaceStateApi
 * @property {typeof globalThis.readSurfaceContent} readSurfaceContent
 * @property {typeof globalThis.surfaceRulesOf} surfaceRulesOf
 * @property {typeof globalThis.toggleSurfaceBoundary} toggleSurfaceBoundary
 * @property {typeof globalThis.applySurfaceEvent} applySurfaceEvent
 * @property {typeof globalThis.replaySurfaceEvents} replaySurfaceEvents
 * @property {typeof globalThis.unflaggedSubmitProblems} unflaggedSubmitProblems
 */
const { readSurfaceContent, surfaceRulesOf, toggleSurfaceBoundary, applySurfaceEvent, replaySurfaceEvents, unflaggedSubmitProblems } =
  /** @type {SurfaceStateApi} */ (loadSource(["curve_points.js", "surface_view.js", "surface_state.js"],
    ["readSurfaceContent", "surfaceRulesOf", "toggleSurfaceBoundary", "applySurfaceEvent", "replaySurfaceEvents",
      "unflaggedSubmitProblems"]));

/* A small view of its own (not the real axes and limits: the reducer must take them from the
   view): a 10-token text, three axes, two flags, at most 4 points on 0 … 100. */
const VIEW = {
  tokens: ["The", "shop", "is", "closed", "today", "because", "of", "a", "flood", "."],
  steps: ["Segments", "Axes", "Curve"],
  axes: [{ name: "main", label: "Main", color: "#111", key_question: "?", digit: "1" },
    { name: "static", label: "Static", color: "#222", key_question: "?", digit: "2" },
    { name: "generic", label: "Generic", color: "#333", key_question: "?", digit: "3" }],
  flags: [{ code: "no_main_timeline", label: "No timeline", needs_note: false },
    { code: "other", label: "Other", needs_note: true }],
  x_max: 100, max_points: 4, min_points: 3,
  parameters: [{ name: "xi", symbol: "ξ", min: -10, max: 30 }, { name: "omega", symbol: "ω", min: 0.5, max: 20 },
    { name: "alpha", symbol: "α", min: -2, max: 2 }],
  time_units: [{ name: "minutes", minutes: 1 }, { name: "hours", minutes: 60 }],
  note_max_chars: 50,
  curve_edits: ["point", "params", "refit", "place"],
  // the server's list holds the curve's scale too, which the surface does not keep
  context_fields: [["points", "context_points"], ["xi", "context_xi"], ["omega", "context_omega"], ["alpha", "context_alpha"],
    ["scale", "context_scale"], ["rmse", "context_rmse"], ["params_source", "context_params_source"]],
};
const RULES = surfaceRulesOf(VIEW);

/**
 * The local state for `content` (partial AnnotationContent JSON) at `step`.
 * @param {Record<string, unknown>} [content]
 * @param {number} [step]
 */
const at = (content = {}, step = 0) => ({ content: readSurfaceContent(content), step });
/**
 * The state after `events`, one by one, from `content`.
 * @param {Record<string, unknown>} content
 * @param {SurfaceEditData[]} events
 */
const after = (content, events) => events.reduce((s, ev) => applySurfaceEvent(s, ev, RULES), at(content));

test("the rules come from the view; a view without them knows none", () => {
  assert.equal(RULES.n, 10);
  assert.deepEqual([RULES.xMax, RULES.maxPoints, RULES.minPoints, RULES.noteMaxChars], [100, 4, 3, 50]);
  assert.deepEqual(RULES.steps, ["Segments", "Axes", "Curve"]);
  assert.deepEqual(RULES.axisNames, ["main", "static", "generic"]);
  assert.deepEqual(RULES.flagCodes, ["no_main_timeline", "other"]);
  assert.deepEqual(RULES.parameters[1], { name: "omega", symbol: "ω", min: 0.5, max: 20 });
  assert.deepEqual(RULES.timeUnits, [{ name: "minutes", minutes: 1 }, { name: "hours", minutes: 60 }]);
  assert.deepEqual(RULES.curveEdits, ["point", "params", "refit", "place"]);
  assert.deepEqual(RULES.contextFields[0], ["points", "context_points"]);
  const none = surfaceRulesOf({});
  assert.deepEqual([none.n, none.maxPoints, none.minPoints, none.noteMaxChars], [0, 0, 0, 0]);
  assert.deepEqual([none.steps, none.axisNames, none.flagCodes, none.parameters, none.timeUnits], [[], [], [], [], []]);
  assert.deepEqual([none.curveEdits, none.contextFields], [[], []]);
  const malformed = surfaceRulesOf(/** @type {any} */ ({ context_fields: [["points"], ["xi", 1], "alpha", ["omega", "context_omega"]] }));
  assert.deepEqual(malformed.contextFields, [["omega", "context_omega"]]);
  assert.equal(none.xMax, 1);  // any positive width: the chart's arithmetic stays finite
  const odd = surfaceRulesOf({ ...VIEW, time_units: [{ name: "days", minutes: 0 }, null, { name: "weeks", minutes: 10080 }] });
  assert.deepEqual(odd.timeUnits, [{ name: "weeks", minutes: 10080 }]);
});

test("stored content is read defensively: one axis per segment, malformed points dropped", () => {
  const c = readSurfaceContent({ boundaries: [0, 4], segment_axes: ["main"], points: [[10, 0.5], [1, "x"], "p", [20, 1]],
    xi: 5, omega: "2", params_source: "manual", flags: ["other"], note: "n" });
  assert.deepEqual(c.segment_axes, ["main", null]);
  assert.deepEqual(c.points, [[10, 0.5], [20, 1]]);
  assert.deepEqual([c.xi, c.omega, c.alpha, c.params_source], [5, null, null, "manual"]);
  assert.deepEqual(readSurfaceContent(null), {
    boundaries: [0], segment_axes: [null], points: [], xi: null, omega: null, alpha: null, rmse: null,
    params_source: "fit", flags: [], note: "", context_points: [], context_xi: null, context_omega: null,
    context_alpha: null, context_rmse: null, context_params_source: "fit", change: "" });
  assert.deepEqual(readSurfaceContent({ boundaries: [0], segment_axes: ["main", "static"] }).segment_axes, ["main"]);
});

test("a new boundary's segment takes the axis of the segment it splits", () => {
  const c = readSurfaceContent({ boundaries: [0, 5], segment_axes: ["main", "static"] });
  assert.deepEqual(toggleSurfaceBoundary(c, 10, 3), { ...c, boundaries: [0, 3, 5], segment_axes: ["main", "main", "static"] });
  assert.deepEqual(toggleSurfaceBoundary(c, 10, 7).segment_axes, ["main", "static", "static"]);
});

test("a removed boundary merges its segment into the one before, which keeps its axis", () => {
  const c = readSurfaceContent({ boundaries: [0, 3, 5], segment_axes: ["main", null, "static"] });
  assert.deepEqual(toggleSurfaceBoundary(c, 10, 3), { ...c, boundaries: [0, 5], segment_axes: ["main", "static"] });
  assert.deepEqual(toggleSurfaceBoundary(c, 10, 5), { ...c, boundaries: [0, 3], segment_axes: ["main", null] });
});

test("a gap outside 1 … n−1 or not a whole number changes nothing", () => {
  const c = readSurfaceContent({ boundaries: [0, 5], segment_axes: ["main", "static"] });
  for (const gap of [0, -1, 10, 11, 2.5, "3", null, undefined, true]) assert.equal(toggleSurfaceBoundary(c, 10, gap), c);
});

test("boundary and reset_segments", () => {
  const s = after({ boundaries: [0, 5], segment_axes: ["main", "static"] }, [{ kind: "boundary", gap: 2 }]);
  assert.deepEqual(s.content.boundaries, [0, 2, 5]);
  const reset = applySurfaceEvent(s, { kind: "reset_segments" }, RULES);
  assert.deepEqual([reset.content.boundaries, reset.content.segment_axes], [[0], [null]]);
});

test("axis labels one segment; null or an empty name clears it", () => {
  const base = { boundaries: [0, 5], segment_axes: /** @type {(string | null)[]} */ ([null, null]) };
  assert.deepEqual(after(base, [{ kind: "axis", segment: 1, axis: "static" }]).content.segment_axes, [null, "static"]);
  assert.deepEqual(after(base, [{ kind: "axis", segment: 0, axis: "main" }, { kind: "axis", segment: 0, axis: null }])
    .content.segment_axes, [null, null]);
  assert.deepEqual(after(base, [{ kind: "axis", segment: 0, axis: "main" }, { kind: "axis", segment: 0, axis: "" }])
    .content.segment_axes, [null, null]);
});

test("an axis event for a segment that does not exist, or with an axis the view does not name, changes nothing", () => {
  const base = { boundaries: [0, 5], segment_axes: ["main", null] };
  const s = at(base);
  for (const segment of [2, -1, 0.5, "0", null]) assert.equal(applySurfaceEvent(s, { kind: "axis", segment, axis: "static" }, RULES), s);
  for (const axis of ["opinion", "MAIN", 3, false, ["main"]]) assert.equal(applySurfaceEvent(s, { kind: "axis", segment: 1, axis }, RULES), s);
  assert.deepEqual(applySurfaceEvent(s, { kind: "axis", segment: 0 }, RULES).content.segment_axes, [null, null]);  // no axis: cleared
});

test("points: add, move and remove on the view's range, at most max_points", () => {
  let s = after({}, [{ kind: "point", action: "add", x: 20.123, y: 0.5 }, { kind: "point", action: "add", x: 150, y: 1.5 },
    { kind: "point", action: "add", x: -3, y: -1 }]);
  assert.deepEqual(s.content.points, [[20.12, 0.5], [100, 1], [0, 0]]);
  s = applySurfaceEvent(s, { kind: "point", action: "move", index: 1, x: 40, y: 0.25 }, RULES);
  s = applySurfaceEvent(s, { kind: "point", action: "remove", index: 0 }, RULES);
  assert.deepEqual(s.content.points, [[40, 0.25], [0, 0]]);
  const full = after({ points: [[1, 0], [2, 0], [3, 0], [4, 0]] }, [{ kind: "point", action: "add", x: 5, y: 0 }]);
  assert.equal(full.content.points.length, 4);  // the view's max_points
  for (const ev of [{ kind: "point", action: "move", index: 4, x: 1, y: 1 }, { kind: "point", action: "remove", index: -1 },
    { kind: "point", action: "move", index: 0, x: null, y: 1 }, { kind: "point", action: "spin", index: 0 }]) {
    assert.deepEqual(applySurfaceEvent(full, ev, RULES).content.points, full.content.points);
  }
});

test("a point lands on the hundredth Python's round() gives, a tie on the even one", () => {
  const s = after({}, [{ kind: "point", action: "add", x: 20.125, y: 0.625 }, { kind: "point", action: "add", x: 20.375, y: 0.875 },
    { kind: "point", action: "add", x: 0.015, y: 0.015 }]);
  // 0.015 is 0.01499… as a double: Math.round(0.015 * 100) / 100 gave 0.02
  assert.deepEqual(s.content.points, [[20.12, 0.62], [20.38, 0.88], [0.01, 0.01]]);
});

test("params are hand-tuned within the view's bounds; refit goes back to the fitted curve", () => {
  const s = after({ xi: 1, omega: 2, alpha: 0 }, [{ kind: "params", xi: 10, omega: 5, alpha: 1 }]);
  assert.deepEqual([s.content.xi, s.content.omega, s.content.alpha, s.content.params_source], [10, 5, 1, "manual"]);
  assert.equal(applySurfaceEvent(s, { kind: "refit" }, RULES).content.params_source, "fit");
  for (const bad of [{ xi: 31 }, { omega: 0.4 }, { alpha: -2.5 }, { alpha: "1" }, { xi: null }]) {
    assert.equal(applySurfaceEvent(s, { kind: "params", xi: 10, omega: 5, alpha: 1, ...bad }, RULES), s);
  }
});

test("step: one of the view's steps, else nothing changes", () => {
  assert.equal(after({}, [{ kind: "step", step: 2 }]).step, 2);
  for (const step of [3, -1, 1.5, "1", true, null, undefined]) {
    assert.equal(after({}, [{ kind: "step", step: 1 }, { kind: "step", step }]).step, 1);
  }
});

test("flag sets the view's known flags in their order, each once, and the note stripped as Python strips", () => {
  const s = after({}, [{ kind: "flag", flags: ["other", "no_main_timeline", "other"], note: "\u3000 why \n\x1f" }]);
  assert.deepEqual([s.content.flags, s.content.note], [["no_main_timeline", "other"], "why"]);
  assert.equal(after({}, [{ kind: "flag", flags: [], note: "\ufeffwhy" }]).content.note, "\ufeffwhy");  // not whitespace to Python
  const cleared = applySurfaceEvent(s, { kind: "flag", flags: [], note: "" }, RULES);
  assert.deepEqual([cleared.content.flags, cleared.content.note], [[], ""]);
  assert.deepEqual(applySurfaceEvent(s, { kind: "flag" }, RULES).content.flags, []);  // no flags, no note: cleared
  for (const bad of [{ flags: ["multiple_peaks"] }, { flags: "other" }, { flags: null }, { flags: [1] }, { note: 5 }, { note: null }]) {
    assert.equal(applySurfaceEvent(s, { kind: "flag", flags: ["other"], note: "x", ...bad }, RULES), s);
  }
});

test("a plain submit drops the flag and the note; a flagged one keeps them", () => {
  const s = at({ flags: ["other"], note: "why" });
  assert.deepEqual(applySurfaceEvent(s, { kind: "submit", flagged: false }, RULES).content.flags, []);
  assert.equal(applySurfaceEvent(s, { kind: "submit" }, RULES).content.note, "");
  assert.equal(applySurfaceEvent(s, { kind: "submit", flagged: true, accept_misses: true }, RULES), s);
  for (const bad of [{ flagged: "no" }, { flagged: null }, { accept_misses: 1 }]) {
    assert.equal(applySurfaceEvent(s, { kind: "submit", flagged: false, ...bad }, RULES), s);
  }
});

test("place and unknown kinds draw nothing before the server answers", () => {
  const s = at({ points: [[1, 0.5]] });
  assert.equal(applySurfaceEvent(s, { kind: "place", peak_minutes: 60, half_gone_minutes: 600 }, RULES), s);
  assert.equal(applySurfaceEvent(s, { kind: "dance" }, RULES), s);
});

test("what stops a plain submit: axes, points, a curve (the fit's own reason when it gave one)", () => {
  const problems = (/** @type {Record<string, unknown>} */ content, curvePending = false, fitMessage = /** @type {string | null} */ (null)) =>
    unflaggedSubmitProblems(readSurfaceContent(content), RULES, { curvePending, fitMessage });
  assert.deepEqual(problems({ boundaries: [0, 3, 6], segment_axes: [null, "main", null], points: [[1, 1]] }), [
    "Axis labels: segments 1 and 3 still need an axis.", "Curve: place 3 to 4 points (now 1)."]);
  const three = { segment_axes: /** @type {(string | null)[]} */ ([null]), points: [[1, 1], [2, 0.5], [3, 0]] };
  assert.deepEqual(problems(three), ["Axis labels: segment 1 still needs an axis.", "Curve: the points do not define a curve yet."]);
  assert.deepEqual(problems(three, true), ["Axis labels: segment 1 still needs an axis."]);
  assert.deepEqual(problems({ ...three, segment_axes: ["main"] }, false, "Points 1 and 3 are both peaks."), ["Curve: Points 1 and 3 are both peaks."]);
  assert.deepEqual(problems({ ...three, segment_axes: ["main"], xi: 1, omega: 2, alpha: 0, flags: ["other"] }), []);
});

test("an edit makes a new state and leaves the old one as it was", () => {
  const s = at({ boundaries: [0, 5], segment_axes: ["main", null], points: [[1, 0.5]], flags: ["other"] });
  const copy = structuredClone(s);
  for (const ev of [{ kind: "boundary", gap: 3 }, { kind: "axis", segment: 1, axis: "static" }, { kind: "reset_segments" },
    { kind: "point", action: "move", index: 0, x: 2, y: 0.1 }, { kind: "flag", flags: ["other"], note: "x" }, { kind: "step", step: 2 },
    { kind: "params", xi: 1, omega: 1, alpha: 1 }, { kind: "refit" }, { kind: "submit", flagged: false }]) {
    assert.notEqual(applySurfaceEvent(s, ev, RULES), s);
  }
  assert.deepEqual(s, copy);
});

test("the pending edits are re-applied on top of what the view stores", () => {
  const stored = { boundaries: [0, 5], segment_axes: ["main", null], points: [[10, 0.5]] };
  const pending = [{ kind: "axis", segment: 1, axis: "static" }, { kind: "point", action: "add", x: 20, y: 1 }, { kind: "step", step: 2 }];
  assert.deepEqual(replaySurfaceEvents(stored, 1, pending, RULES), {
    content: readSurfaceContent({ boundaries: [0, 5], segment_axes: ["main", "static"], points: [[10, 0.5], [20, 1]] }), step: 2 });
  assert.deepEqual(replaySurfaceEvents(stored, 1, [], RULES), { content: readSurfaceContent(stored), step: 1 });
  assert.equal(replaySurfaceEvents(stored, "x", [], RULES).step, 0);
});

/* A context pair: the same small rules, with a fourth step (the curve given the follow-up), a
   first step at the curve (the target is not segmented) and the change labels. */
const PAIR_VIEW = { ...VIEW, steps: ["Segments", "Axes", "Curve", "Given the follow-up"], first_step: 2, segmented: false,
  pair: true, context_step: 3, change_options: ["derived", "decreased", "neutral", "increased"], change_confirm: "derived" };
const PAIR = surfaceRulesOf(PAIR_VIEW);
/**
 * The state after `events` on a pair, from `content` at `step`.
 * @param {Record<string, unknown>} content
 * @param {number} step
 * @param {SurfaceEditData[]} events
 */
const afterPair = (content, step, events) => events.reduce((s, ev) => applySurfaceEvent(s, ev, PAIR), at(content, step));

test("a pair's rules come from the view; a single text's view has none of them", () => {
  assert.deepEqual([PAIR.firstStep, PAIR.segmented, PAIR.pair, PAIR.contextStep], [2, false, true, 3]);
  assert.deepEqual([PAIR.changeOptions, PAIR.changeConfirm], [["derived", "decreased", "neutral", "increased"], "derived"]);
  assert.deepEqual([RULES.firstStep, RULES.segmented, RULES.pair, RULES.contextStep, RULES.changeOptions], [0, true, false, -1, []]);
});

test("the second curve's fields and the curve edits are the view's", () => {
  // only the fields the content holds are swapped (the view's scale is the server's alone)
  const s = afterPair({ points: [[10, 0.5]], xi: 1, context_points: [[40, 0.5]] }, 3,
    [{ kind: "point", action: "add", x: 60, y: 0.3, curve: "context" }]);
  assert.deepEqual([s.content.points, s.content.context_points, s.content.xi], [[[10, 0.5]], [[40, 0.5], [60, 0.3]], 1]);
  assert.equal("scale" in s.content || "context_scale" in s.content, false);
  // a view that names no curve edits knows of no edit of the second curve: it is applied to the first
  const noCurveKinds = surfaceRulesOf({ ...PAIR_VIEW, curve_edits: [] });
  const first = applySurfaceEvent(at({ points: [[10, 0.5]] }, 3), { kind: "point", action: "add", x: 1, y: 1, curve: "context" }, noCurveKinds);
  assert.deepEqual(first.content.points, [[10, 0.5], [1, 1]]);
});

test("a step to the follow-up copies the first curve while the second has no points, once", () => {
  const first = { points: [[10, 0.5], [20, 1], [30, 0.2]], xi: 5, omega: 2, alpha: 1, params_source: "manual" };
  const s = afterPair(first, 2, [{ kind: "step", step: 3 }]);
  assert.equal(s.step, 3);
  assert.deepEqual(s.content.context_points, first.points);
  assert.deepEqual([s.content.context_xi, s.content.context_omega, s.content.context_alpha, s.content.context_params_source], [5, 2, 1, "manual"]);
  const moved = [{ kind: "point", action: "move", index: 0, x: 15, y: 0.7, curve: "context" }, { kind: "step", step: 2 }, { kind: "step", step: 3 }];
  const again = moved.reduce((st, ev) => applySurfaceEvent(st, ev, PAIR), s);
  assert.deepEqual(again.content.context_points[0], [15, 0.7]);
  assert.deepEqual(again.content.points, first.points);
});

test("a pair's steps before its first one, and past its last, are refused", () => {
  const s = at({}, 2);
  for (const step of [0, 1, 4]) assert.equal(applySurfaceEvent(s, { kind: "step", step }, PAIR), s);
  assert.equal(replaySurfaceEvents({}, 0, [], PAIR).step, 2);  // a stored step before the first opens at the first
  assert.equal(applySurfaceEvent(at({}, 2), { kind: "step", step: 3 }, RULES).step, 2);  // a single text has no step 3
});

test("curve edits with curve: context edit the second curve with the first curve's rules", () => {
  const s = afterPair({ points: [[10, 0.5]], context_points: [[40, 0.5]] }, 3, [
    { kind: "point", action: "add", x: 50.004, y: 1.2, curve: "context" },
    { kind: "point", action: "remove", index: 0, curve: "context" },
    { kind: "point", action: "move", index: 0, x: 45, y: 0.9 },
    { kind: "params", xi: 3, omega: 2, alpha: 0, curve: "context" }]);
  assert.deepEqual(s.content.context_points, [[50, 1]]);
  assert.deepEqual(s.content.points, [[45, 0.9]]);
  assert.deepEqual([s.content.context_xi, s.content.context_params_source, s.content.xi, s.content.params_source], [3, "manual", null, "fit"]);
  const refit = applySurfaceEvent(s, { kind: "refit", curve: "context" }, PAIR);
  assert.equal(refit.content.context_params_source, "fit");
  assert.equal(refit.content.params_source, "fit");
});

test("an unknown curve, and any pair edit in a single-text project, are refused", () => {
  const s = at({ points: [[10, 0.5]], context_points: [[40, 0.5]] }, 2);
  assert.equal(applySurfaceEvent(s, { kind: "point", action: "add", x: 1, y: 1, curve: "follow_up" }, PAIR), s);
  for (const ev of [{ kind: "point", action: "add", x: 1, y: 1, curve: "context" }, { kind: "refit", curve: "context" },
    { kind: "change", change: "increased" }]) {
    assert.equal(applySurfaceEvent(s, ev, RULES), s);
  }
  // a curve of null is the first curve, as the server reads it
  assert.deepEqual(applySurfaceEvent(s, { kind: "point", action: "add", x: 1, y: 1, curve: null }, PAIR).content.points, [[10, 0.5], [1, 1]]);
});

test("the change is confirmed as derived, one of the labels, or empty for none chosen yet", () => {
  const s = afterPair({}, 3, [{ kind: "change", change: "decreased" }]);
  assert.equal(s.content.change, "decreased");
  assert.equal(applySurfaceEvent(s, { kind: "change", change: "derived" }, PAIR).content.change, "derived");
  assert.equal(applySurfaceEvent(s, { kind: "change" }, PAIR).content.change, "");
  assert.equal(applySurfaceEvent(s, { kind: "change", change: null }, PAIR).content.change, "");
  for (const change of ["longer", 2, ["neutral"], true]) assert.equal(applySurfaceEvent(s, { kind: "change", change }, PAIR), s);
});

test("what stops a pair's plain submit: no axes, both curves, a choice of the change", () => {
  const three = [[1, 1], [2, 0.5], [3, 0]];
  /** @type {(c: Record<string, unknown>) => string[]} */
  const problems = (c) => unflaggedSubmitProblems(readSurfaceContent(c), PAIR, { curvePending: false, fitMessage: null });
  assert.deepEqual(problems({ segment_axes: [null], points: three, xi: 1, omega: 2, alpha: 0 }),
    ["Given the follow-up: place 3 to 4 points (now 0).", "Given the follow-up: confirm the change the curves give, or choose another."]);
  assert.deepEqual(problems({ points: three, xi: 1, omega: 2, alpha: 0, context_points: three, change: "derived" }),
    ["Given the follow-up: the points do not define a curve yet."]);
  const both = { points: three, xi: 1, omega: 2, alpha: 0, context_points: three, context_xi: 1, context_omega: 2, context_alpha: 0 };
  assert.deepEqual(problems({ ...both, change: "neutral" }), []);
  assert.deepEqual(problems(both), ["Given the follow-up: confirm the change the curves give, or choose another."]);
});

test("back at the target alone a confirmed derived label is asked for again; an own label stays", () => {
  const first = { points: [[10, 0.5], [20, 1], [30, 0.2]], context_points: [[10, 0.5], [20, 1], [30, 0.2]] };
  const confirmed = afterPair({ ...first, change: "derived" }, 3, [{ kind: "step", step: 2 }]);
  assert.deepEqual([confirmed.step, confirmed.content.change], [2, ""]);
  const own = afterPair({ ...first, change: "increased" }, 3, [{ kind: "step", step: 2 }]);
  assert.equal(own.content.change, "increased");
});
