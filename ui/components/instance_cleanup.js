// @ts-check
/* The cleanup a component's default export returns. Streamlit 1.67 (BidiComponent) also runs
   it for a call whose data was replaced while the call's module import was still resolving: the
   component is still on the page then and the next call comes to the same parentElement, so
   tearing it down would rebuild it under the user's pointer and drop its queue (a lost click
   under load). Only an instance that has left the document is destroyed; one still shown is
   looked at again later. */

/**
 * What the cleanup needs of a mounted instance: its root element, the number of the call that
 * last updated it, and how to tear it down.
 * @typedef {{ root: Node, generation: number, destroy: () => void }} CleanableInstance
 */

/**
 * The cleanup for the call numbered `generation` of `inst`, kept in `instances` under
 * `parentElement`.
 * @template {CleanableInstance} I
 * @template {HTMLElement | ShadowRoot} P
 * @param {I} inst
 * @param {number} generation
 * @param {P} parentElement
 * @param {WeakMap<P, I>} instances
 * @returns {() => void}
 */
function instanceCleanup(inst, generation, parentElement, instances) {
  const cleanup = () => {
    if (inst.generation !== generation) return;  // a newer call owns the instance
    if (inst.root.isConnected) { setTimeout(cleanup, 2000); return; }
    inst.destroy();
    if (instances.get(parentElement) === inst) instances.delete(parentElement);
  };
  return cleanup;
}
