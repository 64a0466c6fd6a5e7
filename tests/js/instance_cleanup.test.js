// @ts-check
/* ui/components/instance_cleanup.js: the cleanup every component's default export returns — an
   instance is torn down only once it has left the page, and only by its newest call. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

const { instanceCleanup } = /** @type {{ instanceCleanup: typeof globalThis.instanceCleanup }} */ (
  loadSource("instance_cleanup.js", ["instanceCleanup"]));

/**
 * An instance stand-in on or off the page, counting its teardowns.
 * @param {boolean} connected
 */
function instance(connected) {
  const inst = { root: /** @type {Node} */ (/** @type {unknown} */ ({ isConnected: connected })), generation: 1, destroyed: 0,
    destroy: () => { inst.destroyed += 1; } };
  return inst;
}

test("an instance off the page is destroyed and forgotten", () => {
  const inst = instance(false), parent = /** @type {HTMLElement} */ (/** @type {unknown} */ ({})), instances = new WeakMap([[parent, inst]]);
  instanceCleanup(inst, 1, parent, instances)();
  assert.equal(inst.destroyed, 1);
  assert.equal(instances.has(parent), false);
});

test("a newer call owns the instance: an older cleanup does nothing", () => {
  const inst = instance(false), parent = /** @type {HTMLElement} */ (/** @type {unknown} */ ({})), instances = new WeakMap([[parent, inst]]);
  const older = instanceCleanup(inst, 1, parent, instances);
  inst.generation = 2;
  older();
  assert.deepEqual([inst.destroyed, instances.get(parent)], [0, inst]);
});

test("an instance still on the page is looked at again later, and destroyed once it has left", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const inst = instance(true), parent = /** @type {HTMLElement} */ (/** @type {unknown} */ ({})), instances = new WeakMap([[parent, inst]]);
  instanceCleanup(inst, 1, parent, instances)();
  assert.equal(inst.destroyed, 0);
  t.mock.timers.tick(2000);
  assert.equal(inst.destroyed, 0);  // still shown: looked at again in 2 s
  inst.root = /** @type {Node} */ (/** @type {unknown} */ ({ isConnected: false }));
  t.mock.timers.tick(2000);
  assert.deepEqual([inst.destroyed, instances.has(parent)], [1, false]);
});
