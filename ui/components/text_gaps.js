
// @ts-check
/* Keys between the gaps of a text, shared by the token boundary editor and the annotation
   surface (this file is put in front of each component's module at import, see
   ui/components/sources.py): Left/Right move the focus to the previous/next of gaps (the active
   gap elements, in text order), Home/End to the first/last; other keys are left alone. */

/**
 * @param {KeyboardEvent} e
 * @param {ReadonlyArray<Element>} gaps the active gap elements, in text order
 * @param {Element} gapEl the focused gap
 */
function moveGapFocus(e, gaps, gapEl) {
  const at = gaps.indexOf(gapEl);
  let next = null;
  if (e.key === "ArrowRight") next = gaps[at + 1];
  else if (e.key === "ArrowLeft") next = gaps[at - 1];
  else if (e.key === "Home") next = gaps[0];
  else if (e.key === "End") next = gaps[gaps.length - 1];
  else return;
  e.preventDefault();
  e.stopPropagation();
  if (next) /** @type {HTMLElement} */ (next).focus();
}
