// @ts-check
/* Which of three neutral tints each unlabelled segment of the annotation surface's text gets
   (this file is put in front of the component's module at import, see ui/components/sources.py).

   A segment keeps its tint, known by its first token, from one render to the next; a split gives
   the longer part the tint and the other part a new one; a segment whose tint equals its left
   neighbour's (after a join, say) gets one that differs from both neighbours. Alternating by
   position recoloured every segment after a split: on a 2,500-token text, thousands of
   elements per boundary click. Three tints always leave one that differs from two neighbours. */

/**
 * The tint (0, 1 or 2; -1 for a labelled segment) of each segment starting at `starts` in an
 * `n`-token text, and the tints to keep for the next call (by first token).
 * @param {ReadonlyMap<number, number>} previous what the last call kept
 * @param {ReadonlyArray<number>} starts
 * @param {ReadonlyArray<boolean>} labelled whether each segment has an axis
 * @param {number} n
 * @returns {{ tints: number[], kept: Map<number, number> }}
 */
function assignTints(previous, starts, labelled, n) {
  const prev = new Map(previous);
  for (let j = 1; j < starts.length; j++) {  // a new start right of a kept one: a split
    if (prev.has(starts[j]) || !prev.has(starts[j - 1]) || labelled[j] || labelled[j - 1]) continue;
    const end = j + 1 < starts.length ? starts[j + 1] : n;
    if (end - starts[j] > starts[j] - starts[j - 1]) {
      prev.set(starts[j], prev.get(starts[j - 1]));
      prev.delete(starts[j - 1]);
    }
  }
  const kept = new Map(), tints = new Array(starts.length).fill(-1);
  let left = -1;
  for (let j = 0; j < starts.length; j++) {
    if (labelled[j]) { left = -1; continue; }
    let t = prev.get(starts[j]);
    if (t === undefined || t === left) {
      const right = j + 1 < starts.length && !labelled[j + 1] ? prev.get(starts[j + 1]) : undefined;
      t = [0, 1, 2].find((x) => x !== left && x !== right);
    }
    kept.set(starts[j], t);
    tints[j] = t;
    left = t;
  }
  return { tints, kept };
}
