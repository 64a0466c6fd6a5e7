// @ts-check
/* Where the annotation surface breaks a long text into paragraphs (this file is put in front of
   the component's module at import, see ui/components/sources.py).

   A text of up to PARA_LONG tokens is one paragraph, drawn as before. A longer one is drawn in
   paragraphs, each a block the browser lays out and paints on its own and skips while it is
   scrolled out of the text's box (CSS content-visibility: auto). On a 2,500-token text drawn as
   one block, every boundary click laid out the whole text again and repainted all of it (~80 ms
   of the 116 ms p50 the bench measured). A paragraph starts after a sentence end (".", "!", "?",
   "…", closing quotes and brackets after them) once the paragraph holds PARA_MIN tokens; with
   no sentence end by PARA_MAX tokens, after a clause end ("," ";" ":"); with none by twice that,
   at the next space. It only starts where the text has a space, so no word is cut. */
const PARA_LONG = 400;
const PARA_MIN = 60;
const PARA_MAX = 120;
const SENTENCE_END = /[.!?…]["'”’»)\]]*$/;
const CLAUSE_END = /[,;:]["'”’»)\]]*$/;

/**
 * The first token of each paragraph, ascending, 0 first (`[]` for an empty text).
 * @param {string[]} tokens the text's tokens
 * @param {boolean[]} spaces `spaces[i]`: a space follows token i
 * @returns {number[]}
 */
function paragraphStarts(tokens, spaces) {
  const n = tokens.length;
  if (n === 0) return [];
  if (n <= PARA_LONG) return [0];
  const starts = [0];
  let start = 0;
  for (let i = 0; i < n - 1; i++) {
    if (!spaces[i]) continue;
    const held = i + 1 - start, tok = String(tokens[i]);
    if (held >= PARA_MIN && (SENTENCE_END.test(tok) || (held >= PARA_MAX && CLAUSE_END.test(tok)) || held >= 2 * PARA_MAX)) {
      start = i + 1;
      starts.push(start);
    }
  }
  return starts;
}
