// @ts-check
/* ui/components/segment_tints.js: the neutral tints of unlabelled segments, kept through edits. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

const { assignTints } = /** @type {{ assignTints: typeof globalThis.assignTints }} */ (
  loadSource("segment_tints.js", ["assignTints"]));
const N = 2500;

/**
 * Apply `assignTints` to each segmentation in turn, as the surface's renders do.
 * @param {number[][]} segmentations
 * @param {(j: number, starts: number[]) => boolean} [labelled]
 * @returns {number[][]}
 */
function walk(segmentations, labelled = () => false) {
  /** @type {Map<number, number>} */
  let kept = new Map();
  return segmentations.map((starts) => {
    const out = assignTints(kept, starts, starts.map((_, j) => labelled(j, starts)), N);
    kept = out.kept;
    return out.tints;
  });
}
/** @type {(tints: number[]) => boolean} */
const neighboursDiffer = (tints) => tints.every((t, j) => j === 0 || t === -1 || tints[j - 1] === -1 || t !== tints[j - 1]);

test("a fresh text alternates from the first tint", () => {
  assert.deepEqual(walk([[0, 10, 20, 30]])[0], [0, 1, 0, 1]);
});

test("a split keeps every other segment's tint; the longer part keeps the split one's", () => {
  const [before, after] = walk([[0, 100, 2000], [0, 100, 1900, 2000]]);
  assert.deepEqual(before, [0, 1, 0]);
  assert.equal(after[0], 0);
  assert.equal(after[1], 1);          // 100..1900 is the longer part: keeps the tint
  assert.equal(after[3], 0);          // the segment after: untouched
  assert.ok(![after[1], after[3]].includes(after[2]));  // the short part: new, unlike both neighbours
});

test("a split near the start gives the short left part the new tint", () => {
  const [, after] = walk([[0, 1000], [0, 2, 1000]]);
  assert.equal(after[1], 0);          // 2..1000 keeps the tint of 0..1000
  assert.equal(after[2], 1);          // untouched
  assert.notEqual(after[0], 0);       // 0..2: new, unlike its neighbour
});

test("a join of two segments gives the next one a tint unlike the merged one's", () => {
  const [, joined] = walk([[0, 10, 20, 30], [0, 20, 30]]);
  assert.equal(joined[0], 0);
  assert.ok(neighboursDiffer(joined));
  assert.equal(joined[2], 1);         // the segment after the change keeps its tint
});

test("neighbours always differ through many random edits, and labelled segments take none", () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let starts = [0];
  /** @type {number[][]} */
  const steps = [];
  for (let k = 0; k < 300; k++) {
    const gap = 1 + Math.floor(rnd() * (N - 1));
    const set = new Set(starts);
    if (set.has(gap)) set.delete(gap); else set.add(gap);
    starts = [...set].sort((a, b) => a - b);
    steps.push(starts);
  }
  /** @type {(j: number, s: number[]) => boolean} */
  const labelled = (j, s) => s[j] % 7 === 0;
  walk(steps, labelled).forEach((tints, k) => {
    assert.ok(neighboursDiffer(tints), `step ${k}`);
    tints.forEach((t, j) => assert.equal(t === -1, labelled(j, steps[k])));
  });
});
