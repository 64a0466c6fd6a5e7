// @ts-check
/* ui/components/delivery.js: the numbered queue every component delivers its actions with. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} DeliveryApi
 * @property {typeof globalThis.newDeliveryQueue} newDeliveryQueue
 * @property {typeof globalThis.appendEvent} appendEvent
 * @property {typeof globalThis.queueEvent} queueEvent
 * @property {typeof globalThis.acknowledgeQueue} acknowledgeQueue
 * @property {typeof globalThis.deliveryBatch} deliveryBatch
 * @property {typeof globalThis.nextResendDelay} nextResendDelay
 * @property {typeof globalThis.randomClientId} randomClientId
 * @property {typeof globalThis.createDelivery} createDelivery
 * @property {string} DELIVERY_TRIGGER
 * @property {number} DELIVERY_RESEND_MS
 * @property {number} DELIVERY_RESEND_MAX_MS
 */
const {
  newDeliveryQueue, appendEvent, queueEvent, acknowledgeQueue, deliveryBatch, nextResendDelay,
  randomClientId, createDelivery, DELIVERY_TRIGGER, DELIVERY_RESEND_MS, DELIVERY_RESEND_MAX_MS,
} = /** @type {DeliveryApi} */ (loadSource("delivery.js", ["newDeliveryQueue", "appendEvent", "queueEvent", "acknowledgeQueue",
  "deliveryBatch", "nextResendDelay", "randomClientId", "createDelivery", "DELIVERY_TRIGGER",
  "DELIVERY_RESEND_MS", "DELIVERY_RESEND_MAX_MS"]));
const { enqueueEdit } = /** @type {{enqueueEdit: typeof globalThis.enqueueEdit}} */ (
  loadSource("edit_queue.js", ["enqueueEdit"]));

/**
 * Queue `actions` one by one into `queue`.
 * @param {ReturnType<typeof newDeliveryQueue>} queue
 * @param {object[]} actions
 * @param {Parameters<typeof queueEvent>[2]} [join]
 * @returns {ReturnType<typeof newDeliveryQueue>}
 */
function pushAll(queue, actions, join = appendEvent) {
  for (const a of actions) queue = queueEvent(queue, a, join).queue;
  return queue;
}

/**
 * Fake timers: `advance(ms)` runs what falls due, in order.
 * @returns {{ timers: any, advance: (ms: number) => void, due: () => number[] }}
 */
function fakeTimers() {
  let now = 0, nextId = 1;
  /** @type {Map<number, { at: number, fn: () => void }>} */
  const scheduled = new Map();
  const timers = {
    setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      const id = nextId++;
      scheduled.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (/** @type {number} */ id) => { scheduled.delete(id); },
    now: () => now,
  };
  function advance(/** @type {number} */ ms) {
    const end = now + ms;
    for (;;) {
      const next = [...scheduled.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      scheduled.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = end;
  }
  const due = () => [...scheduled.values()].map((t) => t.at - now);
  return { timers, advance, due };
}

test("a new queue numbers from 1, or on after what is acknowledged already", () => {
  assert.deepEqual(newDeliveryQueue("c"), { client: "c", acked: 0, nextSeq: 1, pending: [] });
  assert.deepEqual(newDeliveryQueue("c", 7), { client: "c", acked: 7, nextSeq: 8, pending: [] });
  assert.deepEqual(newDeliveryQueue("c", -2), newDeliveryQueue("c"));
  assert.deepEqual(newDeliveryQueue("c", 1.5), newDeliveryQueue("c"));
});

test("each action is numbered in turn and appended; nothing is changed in place", () => {
  const empty = Object.freeze(newDeliveryQueue("c"));
  const fields = Object.freeze({ gap: 3 });
  const { queue, event } = queueEvent(empty, fields);
  assert.deepEqual(event, { gap: 3, seq: 1 });
  assert.deepEqual(queue, { client: "c", acked: 0, nextSeq: 2, pending: [{ gap: 3, seq: 1 }] });
  assert.deepEqual(empty.pending, []);
  assert.deepEqual(fields, { gap: 3 });
  const more = pushAll(queue, [{ gap: 4 }, { gap: 5 }]);
  assert.deepEqual(more.pending.map((/** @type {any} */ e) => e.seq), [1, 2, 3]);
  assert.equal(more.pending[0], queue.pending[0]);
});

test("an acknowledgement drops the events numbered up to it", () => {
  const queue = pushAll(newDeliveryQueue("c"), [{ a: 1 }, { a: 2 }, { a: 3 }]);
  const acked = acknowledgeQueue(queue, 2);
  assert.deepEqual(acked, { client: "c", acked: 2, nextSeq: 4, pending: [{ a: 3, seq: 3 }] });
  assert.deepEqual(acknowledgeQueue(acked, 3).pending, []);
});

test("an acknowledgement that is no progress leaves the very same queue", () => {
  const queue = acknowledgeQueue(pushAll(newDeliveryQueue("c"), [{ a: 1 }, { a: 2 }]), 1);
  for (const stale of [1, 0, -1, 0.5, 1.5, "2", null, undefined, NaN, Infinity]) {
    assert.equal(acknowledgeQueue(queue, stale), queue, String(stale));
  }
});

test("an acknowledgement beyond the numbering moves the numbering on (a newer view)", () => {
  const queue = acknowledgeQueue(pushAll(newDeliveryQueue("c"), [{ a: 1 }]), 9);
  assert.deepEqual(queue, { client: "c", acked: 9, nextSeq: 10, pending: [] });
  assert.equal(queueEvent(queue, { a: 2 }).event.seq, 10);
});

test("the batch is the whole queue under the client, beside the extra fields, as copies", () => {
  const queue = pushAll(newDeliveryQueue("c"), [{ a: 1 }, { a: 2 }]);
  const batch = deliveryBatch(queue, { base_version: 4, client: "not this one" });
  assert.deepEqual(batch, { base_version: 4, client: "c", events: [{ a: 1, seq: 1 }, { a: 2, seq: 2 }] });
  assert.notEqual(batch.events[0], queue.pending[0]);
  assert.deepEqual(deliveryBatch(newDeliveryQueue("d")), { client: "d", events: [] });
});

test("the re-send wait doubles from its start up to its maximum", () => {
  const waits = [DELIVERY_RESEND_MS];
  for (let i = 0; i < 6; i++) waits.push(nextResendDelay(waits[waits.length - 1]));
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 8000, 8000, 8000]);
  assert.equal(DELIVERY_RESEND_MAX_MS, 8000);
});

test("client ids: 16 hex characters, a new one each time", () => {
  const ids = new Set(Array.from({ length: 50 }, () => randomClientId()));
  assert.equal(ids.size, 50);
  for (const id of ids) assert.match(id, /^[0-9a-f]{16}$/);
});

test("the surface's fold fits as the join: consecutive moves of one point become one event", () => {
  const move = (/** @type {number} */ x) => ({ kind: "point", action: "move", index: 1, x, y: 0.5 });
  let queue = pushAll(newDeliveryQueue("c"), [move(1), move(2), move(3)], enqueueEdit);
  assert.deepEqual(queue.pending, [{ ...move(3), seq: 3, first: 1 }]);
  assert.equal(queue.nextSeq, 4);
  queue = acknowledgeQueue(queue, 2);  // the server applied 1 … 2 of the run: the fold stays
  assert.deepEqual(queue.pending.map((/** @type {any} */ e) => e.seq), [3]);
  queue = pushAll(queue, [move(4)], enqueueEdit);
  assert.deepEqual(queue.pending, [{ ...move(4), seq: 4, first: 1 }]);
});

test("createDelivery: every push sends the whole queue at once under the trigger 'events'", () => {
  const { timers } = fakeTimers();
  /** @type {[string, any][]} */
  const sent = [];
  const d = createDelivery({ client: "abc", timers, extra: () => ({ base_version: 3 }) });
  d.setSend((/** @type {string} */ name, /** @type {any} */ value) => sent.push([name, value]));
  const first = d.push({ gap: 2 });
  d.push({ gap: 5 });
  assert.deepEqual(first, { gap: 2, seq: 1 });
  assert.equal(DELIVERY_TRIGGER, "events");
  assert.deepEqual(sent, [
    ["events", { base_version: 3, client: "abc", events: [{ gap: 2, seq: 1 }] }],
    ["events", { base_version: 3, client: "abc", events: [{ gap: 2, seq: 1 }, { gap: 5, seq: 2 }] }],
  ]);
  assert.equal(d.client(), "abc");
  assert.deepEqual(d.pending().map((/** @type {any} */ e) => e.seq), [1, 2]);
});

test("createDelivery: without an acknowledgement the queue is re-sent after 1, 2, 4, 8, 8 s", () => {
  const { timers, advance } = fakeTimers();
  /** @type {number[]} */
  const at = [];
  let resends = 0;
  const d = createDelivery({ timers, onResend: () => { resends += 1; } });
  d.setSend(() => at.push(timers.now()));
  d.push({ a: 1 });
  advance(1000 + 2000 + 4000 + 8000 + 8000);
  assert.deepEqual(at, [0, 1000, 3000, 7000, 15000, 23000]);
  assert.equal(resends, 5);
});

test("createDelivery: progress starts the wait over; an answer with nothing new does not", () => {
  const { timers, advance, due } = fakeTimers();
  /** @type {number[]} */
  const at = [];
  const d = createDelivery({ client: "c", timers });
  d.setSend(() => at.push(timers.now()));
  d.push({ a: 1 });
  d.push({ a: 2 });
  advance(3000);  // re-sent at 1 s and 3 s: the next wait is 4 s
  assert.deepEqual(at, [0, 0, 1000, 3000]);
  assert.deepEqual(due(), [4000]);
  assert.equal(d.acknowledge(0), false);
  assert.deepEqual(due(), [4000]);  // the running timer is left alone
  advance(500);
  assert.equal(d.acknowledge(1), true);
  assert.equal(d.lastProgress(), 3500);
  assert.deepEqual(due(), [1000]);  // event 2 is still pending: sent again after the first wait
  assert.equal(d.acknowledge(2), true);
  assert.deepEqual(due(), []);  // nothing left: no timer
  advance(60000);
  assert.deepEqual(at, [0, 0, 1000, 3000]);
});

test("createDelivery: a first push into an empty queue starts the wait over", () => {
  const { timers, advance, due } = fakeTimers();
  const d = createDelivery({ client: "c", timers });
  d.setSend(() => {});
  d.push({ a: 1 });
  advance(7000);  // re-sent at 1, 3, 7 s
  assert.deepEqual(due(), [8000]);
  d.push({ a: 2 });  // not into an empty queue: the current wait goes on
  assert.deepEqual(due(), [8000]);
  d.acknowledge(2);
  d.push({ a: 3 });
  assert.deepEqual(due(), [1000]);
});

test("createDelivery: nothing is sent without a send function, and the queue waits for one", () => {
  const { timers, advance } = fakeTimers();
  /** @type {any[]} */
  const sent = [];
  const d = createDelivery({ client: "c", timers });
  d.push({ a: 1 });
  d.setSend((/** @type {string} */ _name, /** @type {any} */ value) => sent.push(value));
  advance(1000);
  assert.deepEqual(sent, [{ client: "c", events: [{ a: 1, seq: 1 }] }]);
  d.dispose();
  advance(60000);
  assert.equal(sent.length, 1);
});

test("createDelivery: reset starts over under a new client; takeOver carries a queue on", () => {
  const { timers, advance } = fakeTimers();
  /** @type {any[]} */
  const oldSent = [];
  /** @type {any[]} */
  const newSent = [];
  const old = createDelivery({ client: "s1", timers });
  old.setSend((/** @type {string} */ _n, /** @type {any} */ v) => oldSent.push(v));
  old.push({ a: 1 });
  old.push({ a: 2 });
  old.acknowledge(1);

  const fresh = createDelivery({ timers });
  fresh.setSend((/** @type {string} */ _n, /** @type {any} */ v) => newSent.push(v));
  fresh.reset("s1", 0);
  fresh.takeOver(old);
  assert.equal(fresh.client(), "s1");
  assert.deepEqual(fresh.queue(), { client: "s1", acked: 1, nextSeq: 3, pending: [{ a: 2, seq: 2 }] });
  fresh.send();
  assert.deepEqual(newSent, [{ client: "s1", events: [{ a: 2, seq: 2 }] }]);
  const before = oldSent.length;
  advance(60000);
  assert.equal(oldSent.length, before);  // the old instance no longer sends

  fresh.reset("s2", 5);
  assert.deepEqual(fresh.queue(), { client: "s2", acked: 5, nextSeq: 6, pending: [] });
});

test("createDelivery: a random client per instance when none is given", () => {
  const a = createDelivery(), b = createDelivery();
  assert.match(a.client(), /^[0-9a-f]{16}$/);
  assert.notEqual(a.client(), b.client());
});

test("createDelivery: takeOver after reset to a newer acknowledgement (the surface's remount)", () => {
  const { timers } = fakeTimers();
  const move = (/** @type {number} */ x) => ({ kind: "point", action: "move", index: 0, x, y: 0.5 });
  const old = createDelivery({ client: "s1", timers, join: enqueueEdit });
  old.reset("s1", 4);  // the view it was drawn from had acknowledged 4
  old.push({ kind: "step", step: 1 });
  old.push(move(1));
  old.push(move(2));
  old.push({ kind: "step", step: 2 });
  // the new mount's view is newer: it acknowledges 6 (the step and the first move)
  const fresh = createDelivery({ timers, join: enqueueEdit });
  fresh.reset("s1", 6);
  fresh.takeOver(old);
  assert.deepEqual(fresh.queue(), { client: "s1", acked: 6, nextSeq: 9,
    pending: [{ ...move(2), seq: 7, first: 6 }, { kind: "step", step: 2, seq: 8 }] });
  // an older view (acknowledging 2) leaves the old instance's acknowledgement in place
  const older = createDelivery({ timers, join: enqueueEdit });
  older.reset("s1", 2);
  older.takeOver(fresh);
  assert.equal(older.queue().acked, 6);
  assert.equal(older.push({ kind: "refit" }).seq, 9);
});
