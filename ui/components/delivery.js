// @ts-check
/* The one way a component's user actions reach Python exactly once (the reasons, Streamlit 1.67
   merging trigger payloads, are in ui/components/events.py; the contract in CONTRACT.md,
   "Delivery (all components)"). Put in front of a component's ES module at import, after
   instance_cleanup.js (see ui/components/sources.py): a component's module cannot import another.

   Each mounted instance numbers its actions from 1 under its `client` id (random per mount,
   unless the page gives one, as the annotation surface's view does), keeps every action Python
   has not acknowledged, and sends that whole queue as the value of the trigger "events":
   {client, events: [{seq, ...}], ...extra}. Python answers with a number in the component's
   data, `acked`: the highest seq it has delivered for `client`. Acknowledged actions leave the
   queue; the rest are sent again after DELIVERY_RESEND_MS without an acknowledgement, the wait
   doubling up to DELIVERY_RESEND_MAX_MS. The queue is never cut short: an action leaves it only
   when Python has it.

   The queue arithmetic is pure (newDeliveryQueue, queueEvent, acknowledgeQueue, deliveryBatch,
   nextResendDelay; unit-tested with `node --test`, tests/js/delivery.test.js); createDelivery
   adds the sending and the timers (injectable, so the tests drive them too). */

const DELIVERY_TRIGGER = "events";
// Re-send after this long without an acknowledgement, doubling up to the maximum. Every send
// restarts the page's script run, so a fixed short wait would never let a run slower than it (a
// loaded server) finish and acknowledge anything; progress starts the wait over.
const DELIVERY_RESEND_MS = 1000;
const DELIVERY_RESEND_MAX_MS = 8000;

/**
 * One user action on its way: `seq` numbers it (from 1 per client); the other fields are the
 * component's own.
 * @typedef {{ seq: number }} DeliveryEvent
 */

/**
 * How a new, numbered event joins the queue of unacknowledged ones: a new array, nothing changed
 * in place (a send in flight may hold the old one). The default appends; the annotation surface
 * folds consecutive moves of one point (edit_queue.js's enqueueEdit).
 * @template {DeliveryEvent} E
 * @typedef {(pending: ReadonlyArray<E>, event: E, acked: number) => E[]} DeliveryJoin
 */

/**
 * A numbered queue: the client it numbers for, the highest seq acknowledged, the next seq to
 * give, and the events not yet acknowledged, oldest first.
 * @template {DeliveryEvent} E
 * @typedef {{ client: string, acked: number, nextSeq: number, pending: ReadonlyArray<E> }} DeliveryQueue
 */

/**
 * The trigger value: the client, the whole unacknowledged queue, and any extra fields.
 * @typedef {{ client: string, events: DeliveryEvent[], [field: string]: unknown }} DeliveryBatch
 */

/**
 * The timer functions a delivery uses (the page's by default; a test's fake ones).
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => unknown,
 *   clearTimeout: (handle: any) => void, now: () => number }} DeliveryTimers
 */

/**
 * Streamlit's setTriggerValue of the current call.
 * @typedef {(name: string, value: unknown) => void} DeliverySend
 */

/**
 * An empty queue for `client`, `acked` already acknowledged (numbering goes on after it).
 * @template {DeliveryEvent} E
 * @param {string} client
 * @param {number} [acked]
 * @returns {DeliveryQueue<E>}
 */
function newDeliveryQueue(client, acked = 0) {
  const a = Number.isInteger(acked) && acked > 0 ? acked : 0;
  return { client, acked: a, nextSeq: a + 1, pending: [] };
}

/**
 * The default join: `event` goes to the end.
 * @template {DeliveryEvent} E
 * @param {ReadonlyArray<E>} pending
 * @param {E} event
 * @returns {E[]}
 */
function appendEvent(pending, event) {
  return [...pending, event];
}

/**
 * The queue after the action `fields` joins it, numbered with the queue's next seq; and that
 * event. Neither the queue nor `fields` is changed.
 * @template {DeliveryEvent} E
 * @param {DeliveryQueue<E>} queue
 * @param {Omit<E, "seq">} fields
 * @param {DeliveryJoin<E>} [join]
 * @returns {{ queue: DeliveryQueue<E>, event: E }}
 */
function queueEvent(queue, fields, join = appendEvent) {
  const event = /** @type {E} */ ({ ...fields, seq: queue.nextSeq });
  const pending = join(queue.pending, event, queue.acked);
  return { queue: { ...queue, nextSeq: queue.nextSeq + 1, pending }, event };
}

/**
 * The queue after Python acknowledged everything up to `acked`: the same queue when that is no
 * progress (not a whole number, or not above what was acknowledged already: the data of a run
 * that a newer one overtook), else a new one without the events numbered up to `acked`. An event
 * that stands for a run of numbers (the surface's folded moves) stays until its own seq is
 * acknowledged.
 * @template {DeliveryEvent} E
 * @param {DeliveryQueue<E>} queue
 * @param {unknown} acked
 * @returns {DeliveryQueue<E>}
 */
function acknowledgeQueue(queue, acked) {
  if (typeof acked !== "number" || !Number.isInteger(acked) || acked <= queue.acked) return queue;
  return {
    ...queue,
    acked,
    nextSeq: Math.max(queue.nextSeq, acked + 1),
    pending: queue.pending.filter((e) => e.seq > acked),
  };
}

/**
 * The trigger value for `queue`: `{...extra, client, events}`, the events copied (Streamlit
 * serialises the value later; the queue may change meanwhile).
 * @param {DeliveryQueue<DeliveryEvent>} queue
 * @param {Record<string, unknown>} [extra]
 * @returns {DeliveryBatch}
 */
function deliveryBatch(queue, extra) {
  return { ...(extra || {}), client: queue.client, events: queue.pending.map((e) => ({ ...e })) };
}

/**
 * The wait before the next re-send, after one that waited `delay` and got no acknowledgement.
 * @param {number} delay
 * @returns {number}
 */
function nextResendDelay(delay) {
  return Math.min(Math.max(delay, DELIVERY_RESEND_MS) * 2, DELIVERY_RESEND_MAX_MS);
}

/**
 * A new client id: 16 hex characters (what the workbench makes for the surface).
 * @returns {string}
 */
function randomClientId() {
  const bytes = new Uint8Array(8);
  if (globalThis.crypto && typeof globalThis.crypto.getRandomValues === "function") {
    globalThis.crypto.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The delivery of one mounted instance (see createDelivery).
 * @template {DeliveryEvent} E
 * @typedef {object} Delivery
 * @property {() => DeliveryQueue<E>} queue the queue as it stands (a value: replaced, never changed)
 * @property {() => string} client the client id the events are numbered under
 * @property {() => ReadonlyArray<E>} pending the events not yet acknowledged, oldest first
 * @property {() => number} lastProgress when the queue last moved on (an acknowledgement, or a
 *   first event into an empty queue), in the timers' `now`
 * @property {(send: DeliverySend | null) => void} setSend the current call's setTriggerValue
 * @property {(fields: Omit<E, "seq">) => E} push number an action, queue it, send the queue
 * @property {(acked: unknown) => boolean} acknowledge Python's `acked`; whether it was progress
 * @property {() => void} send send the queue now (when it holds anything) and wait for the answer
 * @property {(client: string, acked?: number) => void} reset start over under `client` (the
 *   pending events are dropped: they were numbered for another client)
 * @property {(other: Delivery<E>) => void} takeOver carry on with `other`'s client and queue (an
 *   instance mounted anew for the same client); `other` stops sending
 * @property {() => void} dispose stop the timer and sending
 */

/**
 * The sending side of the protocol for one mounted instance.
 *
 * Every push sends the whole queue at once; without an acknowledgement the queue is sent again
 * after DELIVERY_RESEND_MS, then after twice as long each time up to DELIVERY_RESEND_MAX_MS.
 * Progress (an acknowledgement that covers more, or a first event into an empty queue) starts
 * the wait over; an answer that acknowledges nothing new leaves the running timer alone.
 *
 * @template {DeliveryEvent} E
 * @param {object} [options]
 * @param {string} [options.client] the client id (default: a new random one)
 * @param {number} [options.acked] what is acknowledged already for that client (default 0)
 * @param {DeliveryJoin<E>} [options.join] how an event joins the queue (default: appended)
 * @param {() => Record<string, unknown>} [options.extra] fields sent beside client and events
 * @param {() => void} [options.onResend] called after each re-send by the timer
 * @param {DeliveryTimers} [options.timers] default: the page's setTimeout, clearTimeout, Date.now
 * @returns {Delivery<E>}
 */
function createDelivery(options = {}) {
  const timers = options.timers || {
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (handle) => clearTimeout(handle),
    now: () => Date.now(),
  };
  const join = options.join || appendEvent;
  /** @type {DeliveryQueue<E>} */
  let queue = newDeliveryQueue(options.client || randomClientId(), options.acked);
  /** @type {DeliverySend | null} */
  let sendTrigger = null;
  /** @type {unknown} */
  let timer = null;
  let delay = DELIVERY_RESEND_MS;
  let lastProgress = timers.now();

  function stopTimer() {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
  }
  function startTimer() {
    stopTimer();
    if (!queue.pending.length) return;
    timer = timers.setTimeout(() => {
      timer = null;
      delay = nextResendDelay(delay);
      send();
      if (options.onResend) options.onResend();
    }, delay);
  }
  function send() {
    stopTimer();
    if (!queue.pending.length) return;
    if (sendTrigger) sendTrigger(DELIVERY_TRIGGER, deliveryBatch(queue, options.extra ? options.extra() : undefined));
    startTimer();
  }
  function progressed() {
    lastProgress = timers.now();
    delay = DELIVERY_RESEND_MS;
  }

  /** @type {Delivery<E>} */
  const delivery = {
    queue: () => queue,
    client: () => queue.client,
    pending: () => queue.pending,
    lastProgress: () => lastProgress,
    setSend(fn) { sendTrigger = fn; },
    push(fields) {
      if (!queue.pending.length) progressed();
      const next = queueEvent(queue, fields, join);
      queue = next.queue;
      send();
      return next.event;
    },
    acknowledge(acked) {
      const next = acknowledgeQueue(queue, acked);
      if (next === queue) {
        if (queue.pending.length && timer === null) startTimer();
        return false;
      }
      queue = next;
      progressed();
      startTimer();  // the rest (if any) is sent again after the first wait
      return true;
    },
    send,
    reset(client, acked = 0) {
      stopTimer();
      queue = newDeliveryQueue(client, acked);
      progressed();
    },
    takeOver(other) {
      const theirs = other.queue();
      other.dispose();
      stopTimer();
      queue = acknowledgeQueue({ ...theirs, nextSeq: Math.max(theirs.nextSeq, queue.nextSeq) }, queue.acked);
      progressed();
    },
    dispose() {
      stopTimer();
      sendTrigger = null;
    },
  };
  return delivery;
}

/**
 * A component instance that delivers its actions (the curve canvas, the token boundary editor).
 * @typedef {object} DeliveringInstance
 * @property {HTMLElement} root
 * @property {number} generation
 * @property {Record<string, unknown>} data the data of the latest call
 * @property {Delivery<any>} delivery
 * @property {() => void} render
 * @property {() => void} destroy
 */

/**
 * The arguments Streamlit 1.67 passes to a component's default export (the part used here).
 * @typedef {{ parentElement: HTMLElement, data: unknown, setTriggerValue: DeliverySend }} ComponentCall
 */

/**
 * The default export of a component that delivers actions: one instance per parentElement, made
 * by createInstance(parentElement) and kept in `instances`. Streamlit calls the export again
 * (same parentElement, without running the previous cleanup) whenever `data` changes: the one
 * instance takes the new data, and the acknowledgement in it when it is for its own client.
 * @template {DeliveringInstance} I
 * @param {ComponentCall} component
 * @param {WeakMap<HTMLElement, I>} instances
 * @param {(parentElement: HTMLElement) => I} createInstance
 * @returns {() => void} the cleanup (instance_cleanup.js)
 */
function mountDelivering(component, instances, createInstance) {
  const { parentElement, data, setTriggerValue } = component;
  let inst = instances.get(parentElement);
  if (!inst) {
    inst = createInstance(parentElement);
    instances.set(parentElement, inst);
  }
  inst.delivery.setSend(setTriggerValue);
  inst.data = data && typeof data === "object" ? /** @type {Record<string, unknown>} */ (data) : {};
  if (inst.data.client === inst.delivery.client()) inst.delivery.acknowledge(inst.data.acked);
  inst.render();
  return instanceCleanup(inst, ++inst.generation, parentElement, instances);
}
