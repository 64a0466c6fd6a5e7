// @ts-check
/* ui/components/dom_helpers.js: what an event's target is (a text field, a control a key
   activates, inside which element) and the colour check, on stand-in elements. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} DomApi
 * @property {typeof globalThis.isTextField} isTextField
 * @property {typeof globalThis.isActivatable} isActivatable
 * @property {typeof globalThis.closestFrom} closestFrom
 * @property {typeof globalThis.safeColor} safeColor
 */
const { isTextField, isActivatable, closestFrom, safeColor } = /** @type {DomApi} */ (loadSource("dom_helpers.js",
  ["isTextField", "isActivatable", "closestFrom", "safeColor"]));

/**
 * An element stand-in: a tag, an input type, a role.
 * @param {string} tagName
 * @param {{ type?: string, role?: string, isContentEditable?: boolean }} [more]
 * @returns {EventTarget}
 */
const node = (tagName, more = {}) => /** @type {EventTarget} */ (/** @type {unknown} */ ({
  tagName, type: more.type, isContentEditable: !!more.isContentEditable,
  getAttribute: (/** @type {string} */ name) => (name === "role" ? more.role ?? null : null) }));

test("text fields take typed keys: text inputs, text areas, selects, editable elements", () => {
  for (const t of [node("TEXTAREA"), node("select"), node("INPUT"), node("INPUT", { type: "number" }), node("INPUT", { type: "Search" }),
    node("DIV", { isContentEditable: true })]) assert.equal(isTextField(t), true);
  for (const t of [node("INPUT", { type: "checkbox" }), node("INPUT", { type: "radio" }), node("INPUT", { type: "button" }),
    node("BUTTON"), node("DIV"), null]) assert.equal(isTextField(t), false);
  assert.equal(isTextField(/** @type {EventTarget} */ (/** @type {unknown} */ ({}))), false);  // the window
});

test("controls a key activates: buttons, links, summaries, inputs and elements with a control's role", () => {
  for (const t of [node("BUTTON"), node("a"), node("SUMMARY"), node("INPUT"), node("DIV", { role: "button" }),
    node("SPAN", { role: "slider" }), node("LI", { role: "option" })]) assert.equal(isActivatable(t), true);
  for (const t of [node("DIV"), node("SPAN", { role: "note" }), node("BODY"), null]) assert.equal(isActivatable(t), false);
});

test("closestFrom asks the target, and is null for a target that cannot be asked", () => {
  const found = { id: "row" };
  const inside = /** @type {EventTarget} */ (/** @type {unknown} */ ({ closest: (/** @type {string} */ sel) => (sel === "[data-segment]" ? found : null) }));
  assert.equal(closestFrom(inside, "[data-segment]"), found);
  assert.equal(closestFrom(inside, "[data-gap]"), null);
  assert.equal(closestFrom(null, "[data-gap]"), null);
  assert.equal(closestFrom(/** @type {EventTarget} */ (/** @type {unknown} */ ({})), "[data-gap]"), null);
});

test("a colour set in a style is a #hex colour, else the fallback", () => {
  assert.deepEqual([safeColor("#4C78A8", "#888"), safeColor(" #abc ", "#888"), safeColor("#12345678", "#888")], ["#4C78A8", "#abc", "#12345678"]);
  for (const bad of ["red", "#12", "#1234567890", "#abc; color: red", "", null, 7]) assert.equal(safeColor(bad, "#888"), "#888");
});
