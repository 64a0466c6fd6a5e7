// @ts-check
/* The annotation surface's queue of not-yet-acknowledged edits: how a new, numbered edit joins
   it. Pure (no DOM, no timers); put in front of the surface's module at import (see
   ui/components/sources.py) and unit-tested with `node --test` (tests/js/edit_queue.test.js).

   Why fold: the surface re-sends its whole queue after every edit until the server
   acknowledges it, and a held arrow key on a chart point pushes one move per key repeat, so
   an unfolded queue grows by one event per repeat while the server is busy (each send then
   carries, and each replay applies, every one of them). A move sets an absolute position, so
   a run of consecutive moves of one point makes what its last move makes: the last one stands
   for all of them, carrying `first` = the first number of the run (annotation.workbench.event_log
   accepts such an event when the next number it expects lies in first … seq, also when it had
   applied part of the run from an earlier send). */

/**
 * One numbered edit as the surface sends it: `seq`, `kind` and the kind's fields; `first` only
 * on a folded run of point moves (it stands for the edits first … seq).
 * @typedef {{ seq: number, kind: string, first?: number, action?: string, index?: number,
 *   [field: string]: unknown }} QueuedEdit
 */

/**
 * Whether `edit` moves one point of the chart (`{kind: "point", action: "move", index}`).
 * @param {QueuedEdit | undefined} edit
 * @returns {boolean}
 */
function isPointMove(edit) {
  return !!edit && edit.kind === "point" && edit.action === "move" && Number.isInteger(edit.index);
}

/**
 * The queue after `edit` (already numbered: one more than the queue's last) joins `pending`,
 * as a new array; neither the queue nor any event in it is changed (a send in flight may hold
 * them).
 *
 * The fold rule: when `edit` is a point move and the queue's last event is a move of the same
 * point of the same curve (folded or not) numbered just before it and not yet acknowledged (`seq > acked`), that
 * last event is replaced by a copy of `edit` carrying `first` = the replaced event's `first`
 * (its `seq` when it had none). Anything else is appended: no fold across another event, none
 * onto an acknowledged one.
 *
 * @param {ReadonlyArray<QueuedEdit>} pending the not-yet-acknowledged edits, oldest first
 * @param {QueuedEdit} edit the new edit
 * @param {number} acked the last number the server acknowledged
 * @returns {QueuedEdit[]}
 */
function enqueueEdit(pending, edit, acked) {
  const last = pending.length ? pending[pending.length - 1] : undefined;
  if (last && isPointMove(edit) && isPointMove(last) && last.index === edit.index
      && (last.curve ?? null) === (edit.curve ?? null)  // a pair's two curves have points of the same number
      && last.seq > acked && edit.seq === last.seq + 1) {
    const first = Number.isInteger(last.first) ? /** @type {number} */ (last.first) : last.seq;
    return [...pending.slice(0, -1), { ...edit, first }];
  }
  return [...pending, edit];
}
