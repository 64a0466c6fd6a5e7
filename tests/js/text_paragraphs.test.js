// @ts-check
/* ui/components/text_paragraphs.js: where a long text is broken into paragraphs. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} ParagraphsApi
 * @property {typeof globalThis.paragraphStarts} paragraphStarts
 * @property {number} PARA_LONG
 * @property {number} PARA_MIN
 * @property {number} PARA_MAX
 */
const { paragraphStarts, PARA_LONG, PARA_MIN, PARA_MAX } = /** @type {ParagraphsApi} */ (loadSource("text_paragraphs.js",
  ["paragraphStarts", "PARA_LONG", "PARA_MIN", "PARA_MAX"]));

/**
 * Tokens and spaces of `text` split as the tokenizer does: words, and punctuation on its own.
 * @param {string} text
 */
function tokenize(text) {
  /** @type {string[]} */
  const tokens = [];
  /** @type {boolean[]} */
  const spaces = [];
  for (const m of text.matchAll(/(\w+|[^\w\s]+)(\s*)/gu)) {
    tokens.push(m[1]);
    spaces.push(m[2].length > 0);
  }
  return { tokens, spaces };
}
/** @type {(k: number, words: number) => string} */
const sentences = (k, words) => Array.from({ length: k }, (_, s) =>
  Array.from({ length: words }, (_, w) => `w${s}x${w}`).join(" ") + ".").join(" ");

test("an empty text has no paragraph and a short one is one paragraph", () => {
  assert.deepEqual(paragraphStarts([], []), []);
  const { tokens, spaces } = tokenize(sentences(20, 19));  // 400 tokens, 20 sentence ends
  assert.equal(tokens.length, PARA_LONG);
  assert.deepEqual(paragraphStarts(tokens, spaces), [0]);
});

test("a long text's paragraphs start after the first sentence end past the minimum", () => {
  const { tokens, spaces } = tokenize(sentences(50, 19));  // sentences of 20 tokens
  const starts = paragraphStarts(tokens, spaces);
  assert.equal(starts[0], 0);
  for (let p = 1; p < starts.length; p++) {
    assert.equal(tokens[starts[p] - 1], ".");                    // a sentence ended just before
    assert.equal(starts[p] - starts[p - 1], 60);                 // the first end at ≥ 60 tokens
  }
  assert.equal(starts.length, 17);                              // 0, 60, …, 960 of 1,000
});

test("without sentence ends a paragraph ends at a clause end past the maximum", () => {
  const text = Array.from({ length: 1250 }, (_, i) => "abcdefghijklmnopqrstuvwxyz"[i % 26]).join(", ") + ".";
  const { tokens, spaces } = tokenize(text);
  assert.equal(tokens.length, 2500);
  const starts = paragraphStarts(tokens, spaces);
  for (let p = 1; p < starts.length; p++) {
    assert.equal(tokens[starts[p] - 1], ",");
    assert.ok(starts[p] - starts[p - 1] >= PARA_MAX && starts[p] - starts[p - 1] <= PARA_MAX + 2);
  }
  assert.ok(starts.length >= 12);
});

test("with neither, at the next space past twice the maximum; never inside a word", () => {
  const text = Array.from({ length: 500 }, (_, i) => `word${i}-x`).join(" ");  // "word0", "-", "x" …
  const { tokens, spaces } = tokenize(text);
  const starts = paragraphStarts(tokens, spaces);
  assert.ok(starts.length >= 2);
  for (let p = 1; p < starts.length; p++) {
    assert.equal(spaces[starts[p] - 1], true);                   // a space before each start
    assert.ok(starts[p] - starts[p - 1] >= 2 * PARA_MAX);
    assert.ok(starts[p] - starts[p - 1] < 2 * PARA_MAX + 3);
  }
});

test("closing quotes and brackets after a sentence end count as its end", () => {
  const words = Array.from({ length: 70 }, (_, i) => `w${i}`).join(" ");
  const text = `${words} end.” ${words} (${words}.) ${words} ${words} ${words} ${words} ${words}`;
  const { tokens, spaces } = tokenize(text);
  assert.ok(tokens.length > PARA_LONG);
  const starts = paragraphStarts(tokens, spaces);
  assert.equal(tokens[starts[1] - 1], ".”");
  assert.equal(tokens[starts[2] - 1], ".)");
  assert.ok(starts[1] >= PARA_MIN);
});
