// @ts-check
/* ui/components/surface_footer.js: the annotation surface's steps and footer — the step tabs,
   the "Saving…"/"Saved" line, Submit and what it still needs, the keys, the message line. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} FooterApi
 * @property {typeof globalThis.stepTabs} stepTabs
 * @property {typeof globalThis.savedLine} savedLine
 * @property {typeof globalThis.footerState} footerState
 * @property {typeof globalThis.messageItems} messageItems
 * @property {typeof globalThis.surfaceConfigOf} surfaceConfigOf
 * @property {typeof globalThis.readSurfaceContent} readSurfaceContent
 */
const { stepTabs, savedLine, footerState, messageItems, surfaceConfigOf, readSurfaceContent } = /** @type {FooterApi} */ (loadSource(
  ["dom_helpers.js", "curve_points.js", "surface_view.js", "surface_config.js", "surface_footer.js"],
  ["stepTabs", "savedLine", "footerState", "messageItems", "surfaceConfigOf", "readSurfaceContent"]));

/* A view of the test's own: three steps (the parts on 0, 1, 2), two axes, 2 … 4 points. */
const VIEW = {
  tokens: ["a", "b", "c"], steps: ["Cut", "Label", "Draw"], part_steps: { segments: 0, axes: 1, curve: 2 },
  axes: [{ name: "main", label: "Main", color: "#111", key_question: "?", digit: "1" },
    { name: "static", label: "Static", color: "#222", key_question: "?", digit: "2" }],
  min_points: 2, max_points: 4, x_max: 100, notice_levels: ["error", "warning", "info", "success"],
};
const C = surfaceConfigOf(VIEW);
const PAIR = surfaceConfigOf({ ...VIEW, steps: [...VIEW.steps, "Given"], pair: true, context_step: 3, first_step: 2,
  change_options: ["ok", "down", "same", "up"], change_confirm: "ok" });
/** @type {{ problems: string[], misses: string | null, submitting: boolean, rowsShown: boolean, panelKeys: string[] }} */
const BASE = { problems: [], misses: null, submitting: false, rowsShown: false, panelKeys: [] };

test("the step tabs: named by the view, done when their part is, numbered from the first open step", () => {
  const content = readSurfaceContent({ boundaries: [0, 2], segment_axes: ["main", null], points: [[1, 1], [2, 1]] });
  const tabs = stepTabs(C, content, 1);
  assert.deepEqual(tabs.map((t) => [t.name, t.hidden, t.current, t.done, t.check, t.num]),
    [["Cut", false, false, true, "", "1"], ["Label", false, true, false, "", "2"], ["Draw", false, false, true, "✓", "3"]]);
  const pairTabs = stepTabs(PAIR, readSurfaceContent({ context_points: [[1, 1], [2, 1]] }), 2);
  assert.deepEqual(pairTabs.map((t) => [t.hidden, t.current, t.done, t.check, t.num]),
    [[true, false, true, "", "-1"], [true, false, false, "", "0"], [false, true, false, "", "1"], [false, false, true, "✓", "2"]]);
});

test("the saved line: saved, saving, retrying after a stall, submitting, submitted, a conflict", () => {
  const s = { pending: 0, stalled: false, submitting: false };
  assert.deepEqual(savedLine(C, s), { cls: "as-saved ok", text: "Saved" });
  assert.deepEqual(savedLine(C, { ...s, pending: 2 }), { cls: "as-saved saving", text: "Saving…" });
  assert.deepEqual(savedLine(C, { ...s, pending: 2, stalled: true }), { cls: "as-saved stalled", text: "Not saved yet — retrying…" });
  assert.equal(savedLine(C, { ...s, pending: 1, submitting: true }).text, "Submitting…");
  assert.equal(savedLine(surfaceConfigOf({ ...VIEW, read_only: true }), s).text, "Submitted");
  assert.equal(savedLine(surfaceConfigOf({ ...VIEW, read_only: true, read_only_reason: "conflict" }), s).text,
    "Not saved: newer work in another tab");
});

test("Submit: enabled when nothing is missing; otherwise what is missing, in its title and the status", () => {
  const ready = footerState(C, BASE);
  assert.deepEqual([ready.submitDisabled, ready.submitText, ready.missing, ready.ready], [false, "Submit", "Ready to submit.", true]);
  const missing = footerState(C, { ...BASE, problems: ["Axis labels: segment 2 still needs an axis.", "Curve: place 2 to 4 points (now 1)."] });
  assert.equal(missing.submitDisabled, true);
  assert.equal(missing.missing, "To submit: Axis labels: segment 2 still needs an axis. Curve: place 2 to 4 points (now 1).");
  assert.equal(missing.submitTitle, "Axis labels: segment 2 still needs an axis. Curve: place 2 to 4 points (now 1).");
  assert.equal(footerState(C, { ...BASE, misses: "The curve misses point 2." }).missing,
    "Ready to submit — the hand-tuned curve misses your points: you will be asked to confirm.");
  const submitting = footerState(C, { ...BASE, submitting: true });
  assert.deepEqual([submitting.submitDisabled, submitting.submitText], [true, "Submitting…"]);
  const quota = footerState(surfaceConfigOf({ ...VIEW, quota_reached: true }), BASE);
  assert.deepEqual([quota.submitDisabled, quota.submitTitle, quota.missing, quota.ready],
    [true, "You reached today's quota", "Daily quota reached — saved as a draft.", false]);
  assert.deepEqual([footerState(surfaceConfigOf({ ...VIEW, read_only: true }), BASE).missing], [""]);
});

test("the keys: the axes' digits on the axis step, a panel's keys, the steps, submit", () => {
  assert.equal(footerState(C, { ...BASE, rowsShown: true }).keys, "1–2 axis · Tab/↑↓ segment · Alt+←/→ step · Enter submit");
  assert.equal(footerState(PAIR, { ...BASE, panelKeys: ["0–3 change", ""] }).keys, "0–3 change · Alt+←/→ step · Enter submit");
  assert.equal(footerState(surfaceConfigOf({ ...VIEW, layout: "single", confirm_submit: true }), BASE).keys,
    "Enter submit (then Enter to confirm)");
  assert.equal(footerState(surfaceConfigOf({ ...VIEW, read_only: true }), { ...BASE, rowsShown: true }).keys, "Alt+←/→ step");
});

test("the message line: the surface's own message, the notices not dismissed, Submitted", () => {
  const view = /** @type {any} */ ({ ...VIEW, version: 4, notices: [{ level: "error", text: "Refused." }, { level: "loud", text: "Odd level." },
    { level: "info", text: "Closed." }, null, { level: "info", text: 3 }] });
  const items = messageItems(surfaceConfigOf(view), view, { kind: "input", level: "warning", text: "Typed wrong." }, new Set(["4|info|Closed."]));
  assert.deepEqual(items, [{ level: "warning", text: "Typed wrong.", local: true }, { level: "error", text: "Refused.", key: "4|error|Refused." },
    { level: "info", text: "Odd level.", key: "4|info|Odd level." }]);
  const done = { ...VIEW, read_only: true, notices: /** @type {SurfaceNotice[]} */ ([]) };
  assert.deepEqual(messageItems(surfaceConfigOf(done), done, null, new Set()),
    [{ level: "info", text: "Submitted — this annotation can no longer be changed.", fixed: true }]);
});
