// @ts-check
/* ui/components/edit_queue.js: how a new edit joins the surface's queue (the fold rule). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} EditQueueApi
 * @property {typeof globalThis.enqueueEdit} enqueueEdit
 * @property {typeof globalThis.isPointMove} isPointMove
 */
const { enqueueEdit, isPointMove } = /** @type {EditQueueApi} */ (loadSource("edit_queue.js", ["enqueueEdit", "isPointMove"]));

/**
 * A move of point `index` to (x, y), numbered `seq` (standing for first … seq when `first` is given).
 * @param {number} seq
 * @param {number} index
 * @param {number} x
 * @param {number} y
 * @param {number} [first]
 * @returns {QueuedEdit}
 */
const move = (seq, index, x, y, first) => (first === undefined
  ? { kind: "point", action: "move", index, x, y, seq }
  : { kind: "point", action: "move", index, x, y, seq, first });

/**
 * Push `edits` one by one (numbered from `start`), as the surface does; acked stays `acked`.
 * @param {{ kind: string, [field: string]: unknown }[]} edits
 * @returns {QueuedEdit[]}
 */
function pushAll(edits, start = 1, acked = 0) {
  /** @type {QueuedEdit[]} */
  let queue = [];
  edits.forEach((e, i) => { queue = enqueueEdit(queue, { ...e, seq: start + i }, acked); });
  return queue;
}

test("a held arrow key: consecutive moves of one point fold into the last", () => {
  const queue = pushAll([1, 2, 3, 4, 5].map((k) => ({ kind: "point", action: "move", index: 1, x: 50, y: 0.5 + k / 100 })));
  assert.deepEqual(queue, [move(5, 1, 50, 0.55, 1)]);
});

test("the second move folds the first: first is the replaced event's seq", () => {
  const queue = enqueueEdit([move(7, 0, 10, 0.2)], move(8, 0, 11, 0.2), 6);
  assert.deepEqual(queue, [move(8, 0, 11, 0.2, 7)]);
});

test("a folded event folds again, keeping its first", () => {
  const queue = enqueueEdit([move(9, 2, 10, 0.2, 4)], move(10, 2, 12, 0.3), 3);
  assert.deepEqual(queue, [move(10, 2, 12, 0.3, 4)]);
});

test("a run partly applied by the server (acked inside it) still folds, first unchanged", () => {
  // the server applied 4 … 7 from an earlier send; 9 is still pending: 10 joins it
  const queue = enqueueEdit([move(9, 2, 10, 0.2, 4)], move(10, 2, 12, 0.3), 7);
  assert.deepEqual(queue, [move(10, 2, 12, 0.3, 4)]);
});

test("moves of another point are not folded together", () => {
  const queue = pushAll([
    { kind: "point", action: "move", index: 0, x: 1, y: 0.1 },
    { kind: "point", action: "move", index: 1, x: 2, y: 0.2 },
    { kind: "point", action: "move", index: 0, x: 3, y: 0.3 },
  ]);
  assert.deepEqual(queue, [move(1, 0, 1, 0.1), move(2, 1, 2, 0.2), move(3, 0, 3, 0.3)]);
});

test("never across another event: an add, a remove, a step or a boundary breaks the run", () => {
  for (const between of [
    { kind: "point", action: "add", x: 5, y: 0.5 },
    { kind: "point", action: "remove", index: 3 },
    { kind: "step", step: 1 },
    { kind: "boundary", gap: 2 },
    { kind: "params", xi: 1, omega: 2, alpha: 0 },
    { kind: "refit" },
  ]) {
    const queue = pushAll([
      { kind: "point", action: "move", index: 0, x: 1, y: 0.1 },
      between,
      { kind: "point", action: "move", index: 0, x: 3, y: 0.3 },
    ]);
    assert.deepEqual(queue, [move(1, 0, 1, 0.1), { ...between, seq: 2 }, move(3, 0, 3, 0.3)], between.kind);
  }
});

test("a move after a remove of the same point is not folded into it", () => {
  const queue = pushAll([
    { kind: "point", action: "remove", index: 0 },
    { kind: "point", action: "move", index: 0, x: 3, y: 0.3 },
  ]);
  assert.equal(queue.length, 2);
  assert.ok(!("first" in queue[1]));
});

test("only the last pending event can be folded into, not an earlier move of the point", () => {
  const queue = pushAll([
    { kind: "point", action: "move", index: 0, x: 1, y: 0.1 },
    { kind: "point", action: "move", index: 0, x: 2, y: 0.2 },
    { kind: "axis", segment: 0, axis: "main" },
    { kind: "point", action: "move", index: 0, x: 4, y: 0.4 },
    { kind: "point", action: "move", index: 0, x: 5, y: 0.5 },
  ]);
  assert.deepEqual(queue, [move(2, 0, 2, 0.2, 1), { kind: "axis", segment: 0, axis: "main", seq: 3 },
    move(5, 0, 5, 0.5, 4)]);
});

test("never onto an acknowledged event", () => {
  // a queue still holding an event the server acknowledged (the surface filters them on each
  // view; the rule does not rely on it)
  const queue = enqueueEdit([move(3, 0, 1, 0.1)], move(4, 0, 2, 0.2), 3);
  assert.deepEqual(queue, [move(3, 0, 1, 0.1), move(4, 0, 2, 0.2)]);
});

test("an empty queue: the edit is appended as it is", () => {
  assert.deepEqual(enqueueEdit([], move(12, 0, 1, 0.1), 11), [move(12, 0, 1, 0.1)]);
});

test("numbers must follow: no fold over a gap in the numbering", () => {
  const queue = enqueueEdit([move(3, 0, 1, 0.1)], move(5, 0, 2, 0.2), 0);
  assert.equal(queue.length, 2);
});

test("nothing is changed in place: the queue and its events stay as they were", () => {
  const last = Object.freeze(move(2, 0, 1, 0.1));
  const before = Object.freeze([Object.freeze({ kind: "step", step: 2, seq: 1 }), last]);
  const edit = move(3, 0, 2, 0.2);
  const queue = enqueueEdit(before, edit, 0);
  assert.notEqual(queue, before);
  assert.deepEqual(before, [{ kind: "step", step: 2, seq: 1 }, move(2, 0, 1, 0.1)]);
  assert.deepEqual(edit, move(3, 0, 2, 0.2));  // no `first` written into the caller's edit
  assert.notEqual(queue[1], edit);
  assert.deepEqual(queue, [before[0], move(3, 0, 2, 0.2, 2)]);
  assert.equal(queue[0], before[0]);  // events kept are the same objects
  const appended = enqueueEdit(before, { kind: "refit", seq: 3 }, 0);
  assert.deepEqual(appended.slice(0, 2), before);
});

test("the folded queue covers every number: ranges abut, none overlaps (what the server checks)", () => {
  // a random mix of edits, as parse_events sees the queue: each event stands for first … seq,
  // the runs are contiguous and together cover every number from the first pending one
  let seed = 20260501;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const kinds = [
    () => ({ kind: "point", action: "move", index: Math.floor(random() * 3), x: 10, y: 0.5 }),
    () => ({ kind: "point", action: "move", index: 0, x: 10, y: 0.5 }),
    () => ({ kind: "point", action: "add", x: 10, y: 0.5 }),
    () => ({ kind: "boundary", gap: 3 }),
  ];
  /** @type {QueuedEdit[]} */
  let queue = [];
  for (let seq = 1; seq <= 400; seq++) {
    queue = enqueueEdit(queue, { ...kinds[Math.floor(random() * kinds.length)](), seq }, 0);
  }
  let expected = 1;
  for (const e of queue) {
    const first = e.first === undefined ? e.seq : e.first;
    assert.equal(first, expected);
    assert.ok(first <= e.seq);
    if (first < e.seq) assert.ok(isPointMove(e));
    expected = e.seq + 1;
  }
  assert.equal(expected, 401);
  // no two neighbours are moves of one point (they would have folded)
  for (let i = 1; i < queue.length; i++) {
    assert.ok(!(isPointMove(queue[i]) && isPointMove(queue[i - 1]) && queue[i].index === queue[i - 1].index));
  }
});

test("isPointMove: a move with a whole index only", () => {
  assert.equal(isPointMove(move(1, 0, 1, 1)), true);
  assert.equal(isPointMove({ kind: "point", action: "move", seq: 1 }), false);
  assert.equal(isPointMove({ kind: "point", action: "move", index: 1.5, seq: 1 }), false);
  assert.equal(isPointMove({ kind: "point", action: "add", seq: 1 }), false);
  assert.equal(isPointMove({ kind: "axis", action: "move", index: 0, seq: 1 }), false);
  assert.equal(isPointMove(undefined), false);
});

test("a pair's two curves: moves of the same point number on different curves do not fold", () => {
  const queue = pushAll([
    { kind: "point", action: "move", index: 0, x: 10, y: 0.5 },
    { kind: "point", action: "move", index: 0, x: 12, y: 0.5, curve: "context" },
    { kind: "point", action: "move", index: 0, x: 14, y: 0.6, curve: "context" },
    { kind: "point", action: "move", index: 0, x: 16, y: 0.7 }]);
  assert.deepEqual(queue.map((e) => [e.seq, e.first, e.curve]), [[1, undefined, undefined], [3, 2, "context"], [4, undefined, undefined]]);
});
