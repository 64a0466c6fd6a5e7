// @ts-check
/* ui/components/text_gaps.js: the keys between the gaps of a text (token boundary editor and
   annotation surface), on stand-in gaps and key events. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

const { moveGapFocus } = /** @type {{ moveGapFocus: typeof globalThis.moveGapFocus }} */ (loadSource("text_gaps.js", ["moveGapFocus"]));

/** Five gaps that record which was focused; a key event that records what was stopped. */
function setUp() {
  /** @type {number[]} */
  const focused = [];
  const gaps = [0, 1, 2, 3, 4].map((i) => ({ focus: () => focused.push(i) }));
  /** @type {(key: string) => { e: KeyboardEvent, stopped: () => boolean }} */
  const key = (k) => {
    let prevented = false, stoppedHere = false;
    const e = { key: k, preventDefault: () => { prevented = true; }, stopPropagation: () => { stoppedHere = true; } };
    return { e: /** @type {KeyboardEvent} */ (/** @type {unknown} */ (e)), stopped: () => prevented && stoppedHere };
  };
  return { focused, gaps: /** @type {Element[]} */ (/** @type {unknown} */ (gaps)), key };
}

test("←/→ move to the neighbouring gap, Home/End to the first and last", () => {
  const { focused, gaps, key } = setUp();
  for (const [k, from] of /** @type {[string, number][]} */ ([["ArrowRight", 1], ["ArrowLeft", 1], ["Home", 3], ["End", 1]])) {
    const { e, stopped } = key(k);
    moveGapFocus(e, gaps, gaps[from]);
    assert.equal(stopped(), true, k);
  }
  assert.deepEqual(focused, [2, 0, 0, 4]);
});

test("at the ends the key is taken but nothing moves; other keys are left alone", () => {
  const { focused, gaps, key } = setUp();
  const right = key("ArrowRight");
  moveGapFocus(right.e, gaps, gaps[4]);
  const left = key("ArrowLeft");
  moveGapFocus(left.e, gaps, gaps[0]);
  assert.deepEqual([right.stopped(), left.stopped(), focused], [true, true, []]);
  const enter = key("Enter");
  moveGapFocus(enter.e, gaps, gaps[2]);
  assert.deepEqual([enter.stopped(), focused], [false, []]);
});
