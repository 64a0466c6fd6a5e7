// @ts-check
/* ui/components/token_boundaries.js: the token boundary editor's pure parts — the segment
   starts drawn with the toggles still on their way, and the ink on a label's colour. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * token_boundaries.js is a component's module (not a declaration file): its functions' types
 * are stated here.
 * @typedef {object} TokenApi
 * @property {(hex: unknown) => string} inkFor
 * @property {(data: { tokens: string[], boundaries?: number[] }, pending: ReadonlyArray<{ gap: number }>) =>
 *   { starts: number[], pendingGaps: Set<number> }} displayedBoundaries
 */
const { inkFor, displayedBoundaries } = /** @type {TokenApi} */ (loadSource(["instance_cleanup.js", "delivery.js", "text_gaps.js",
  "token_boundaries.js"], ["inkFor", "displayedBoundaries"]));

const TOKENS = ["The", "shop", "is", "closed", "today", "."];

test("the starts drawn: Python's, inside the text, sorted, 0 first", () => {
  assert.deepEqual(displayedBoundaries({ tokens: TOKENS, boundaries: [4, 0, 2, 9, -1] }, []), { starts: [0, 2, 4], pendingGaps: new Set() });
  assert.deepEqual(displayedBoundaries({ tokens: TOKENS }, []).starts, [0]);
});

test("each toggle on its way flips its gap and is drawn dimmed; toggles outside the text do nothing", () => {
  const { starts, pendingGaps } = displayedBoundaries({ tokens: TOKENS, boundaries: [2] }, [{ gap: 2 }, { gap: 5 }, { gap: 3 }, { gap: 3 }, { gap: 6 }, { gap: 0 }]);
  assert.deepEqual(starts, [0, 5]);
  assert.deepEqual([...pendingGaps].sort(), [2, 3, 5]);
});

test("the ink on a label: dark on a light colour, white on a dark one or an unreadable colour", () => {
  assert.deepEqual([inkFor("#EECA3B"), inkFor("#ffffff"), inkFor("B0E0E6")], ["#1f2430", "#1f2430", "#1f2430"]);
  // #72B7B2's relative luminance is 0.41, under the 0.45 line: white
  assert.deepEqual([inkFor("#72B7B2"), inkFor("#4C78A8"), inkFor("#000000"), inkFor("#abc"), inkFor(null), inkFor("red")],
    ["#ffffff", "#ffffff", "#ffffff", "#ffffff", "#ffffff", "#ffffff"]);
});
