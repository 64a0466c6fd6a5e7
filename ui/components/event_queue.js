
const EVENT_NONCE = Math.random().toString(36).slice(2, 8) + Date.now().toString(36);
let eventCounter = 0;
const RETRY_MS = 1200;
const PARTIAL_ACK_RETRY_MS = 250;
const MAX_RETRY_MS = 8000;
const MAX_QUEUE = 32;

/* Queue of not-yet-acknowledged actions of one mounted component (see events.py). */
function createEventQueue(onChange) {
  const q = { pending: [], send: null, timer: null, retries: 0 };
  function schedule(delay) {
    if (q.timer) clearTimeout(q.timer);
    q.timer = null;
    if (!q.pending.length) return;
    q.timer = setTimeout(() => {
      q.timer = null;
      if (!q.pending.length) return;
      q.retries += 1;
      if (q.send) q.send(TRIGGER_NAME, q.pending.slice());
      schedule();
    }, delay || Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(q.retries, 3)));
  }
  q.push = (action) => {
    action.id = EVENT_NONCE + "-" + (++eventCounter);
    q.pending.push(action);
    if (q.pending.length > MAX_QUEUE) q.pending.splice(0, q.pending.length - MAX_QUEUE);
    q.retries = 0;
    if (q.send) q.send(TRIGGER_NAME, q.pending.slice());
    schedule();
    onChange();
  };
  q.acknowledge = (ackIds) => {
    const acked = new Set(Array.isArray(ackIds) ? ackIds : []);
    const before = q.pending.length;
    q.pending = q.pending.filter((a) => !acked.has(a.id));
    if (q.pending.length !== before) {
      // Python took some but not all (it returns one action per run on the return-value
      // path): offer the rest again soon rather than after the full retry delay.
      q.retries = 0;
      schedule(PARTIAL_ACK_RETRY_MS);
    } else {
      schedule();
    }
  };
  q.dispose = () => { if (q.timer) clearTimeout(q.timer); q.timer = null; q.send = null; };
  return q;
}
const TRIGGER_NAME = "events";

/* The default export of a component built on the queue: one instance per parentElement, made by
   createInstance(parentElement) and kept in instances (a WeakMap). Streamlit calls the export
   again (same parentElement, without running the previous cleanup) whenever `data` changes: the
   one instance is updated instead of stacking listeners. */
function mountQueued(component, instances, createInstance) {
  const { parentElement, data, setTriggerValue } = component;
  let inst = instances.get(parentElement);
  if (!inst) {
    inst = createInstance(parentElement);
    instances.set(parentElement, inst);
  }
  inst.queue.send = setTriggerValue;
  inst.data = data && typeof data === "object" ? data : {};
  inst.queue.acknowledge(inst.data.ack);
  inst.render();
  return instanceCleanup(inst, ++inst.generation, parentElement, instances);
}
