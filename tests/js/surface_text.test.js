// @ts-check
/* ui/components/surface_text.js: the annotation surface's text part — which gap a press on a
   token reaches, the classes a token and a gap get, a paragraph's height before it is drawn. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} TextApi
 * @property {typeof globalThis.gapInReach} gapInReach
 * @property {typeof globalThis.tokenClasses} tokenClasses
 * @property {typeof globalThis.gapClasses} gapClasses
 * @property {typeof globalThis.paragraphHeight} paragraphHeight
 */
const { gapInReach, tokenClasses, gapClasses, paragraphHeight } = /** @type {TextApi} */ (loadSource(
  ["dom_helpers.js", "surface_text.js"], ["gapInReach", "tokenClasses", "gapClasses", "paragraphHeight"]));

test("a press near a space reaches the gap within 4 px", () => {
  assert.equal(gapInReach(3, 40, "spaced", "spaced"), "before");
  assert.equal(gapInReach(4, 40, "spaced", "spaced"), "before");
  assert.equal(gapInReach(5, 40, "spaced", "spaced"), null);
  assert.equal(gapInReach(40, 4, "spaced", "spaced"), "after");
  assert.equal(gapInReach(20, 20, "spaced", "spaced"), null);
});

test("a gap before punctuation is reached 7 px into the word, 3 px into the punctuation", () => {
  assert.equal(gapInReach(40, 7, "spaced", "tight"), "after");   // the word before "."
  assert.equal(gapInReach(40, 8, "spaced", "tight"), null);
  assert.equal(gapInReach(3, 5, "tight", "spaced"), "before");    // the "." itself, near its left edge
  assert.equal(gapInReach(3.5, 40, "tight", "spaced"), null);
});

test("both gaps in reach: the nearer one (the left on a tie); a missing gap is never reached", () => {
  assert.equal(gapInReach(2, 3, "spaced", "spaced"), "before");
  assert.equal(gapInReach(3, 2, "spaced", "spaced"), "after");
  assert.equal(gapInReach(2, 2, "tight", "tight"), "before");
  assert.equal(gapInReach(1, 40, null, "spaced"), null);  // the first token has no gap before it
  assert.equal(gapInReach(40, 1, "spaced", null), null);  // nor the last one after it
});

test("a token's classes: its tint, its segment's start and end, the segment being labelled", () => {
  assert.equal(tokenClasses("as-tint0", false, false, false), "as-tok as-tint0");
  assert.equal(tokenClasses("as-tint2", true, true, true), "as-tok as-tint2 seg-start seg-end hl");
});

test("a gap's classes: tight, a boundary or inside, active while editable, highlighted only inside", () => {
  assert.equal(gapClasses("as-tint1", true, false, false, false), "as-gap as-tint1 inside");
  assert.equal(gapClasses("as-tint1", false, true, true, true), "as-gap as-tint1 tight boundary active");
  assert.equal(gapClasses("as-tint1", true, false, true, true), "as-gap as-tint1 inside active hl");
});

test("a paragraph not yet drawn is as high as its characters make it", () => {
  const tokens = ["Ab", "cd", "."], spaces = [true, false, false];
  // (2+1)+1, (2+0)+1, (1+0)+1 = 9 characters; 4 a line: 3 lines of 2.15 em
  assert.equal(paragraphHeight(tokens, spaces, 0, 3, 4), "auto 6.45em");
  assert.equal(paragraphHeight(tokens, spaces, 2, 3, 40), "auto 2.15em");
  assert.equal(paragraphHeight(tokens, spaces, 1, 1, 40), "auto 0.00em");
});
