// @ts-check
/* ui/components/session_cookie.js: reading a cookie's value from document.cookie's text (the
   writing needs a page: tests/browser's sign-in flow drives it). */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadSource } = require("./load_source.js");

/** session_cookie.js is a component's module: its function's type is stated here. */
const { cookieValue } = /** @type {{ cookieValue: (cookies: string, name: string) => string | null }} */ (
  loadSource("session_cookie.js", ["cookieValue"]));

test("a cookie's value by its exact name, or null", () => {
  const cookies = "theme=dark; chronocept_session=abc-DEF_123;  other_chronocept_session=x; empty=";
  assert.equal(cookieValue(cookies, "chronocept_session"), "abc-DEF_123");
  assert.equal(cookieValue(cookies, "theme"), "dark");
  assert.equal(cookieValue(cookies, "empty"), "");
  assert.equal(cookieValue(cookies, "session"), null);
  assert.equal(cookieValue("", "chronocept_session"), null);
  assert.equal(cookieValue("=abc; chronocept_session", "chronocept_session"), null);
});
