// @ts-check
/* Loads a component's plain JS file (ui/components/NAME.js) for `node --test`, the way the
   browser gets it: not as a module of its own but as top-level declarations that
   ui/components/sources.py puts in front of a component's ES module (strict mode, as a module
   is). Evaluated in this realm (new Function, not vm), so its objects compare equal to the
   test's with assert.deepStrictEqual. A component's own module (token_boundaries.js,
   session_cookie.js) loads the same way: its `export default` is read as a declaration of
   `defaultExport`, so its other top-level declarations can be tested. */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const COMPONENTS = path.resolve(__dirname, "..", "..", "ui", "components");

/**
 * The declarations `names` of ui/components/`file` — or of several files joined in the order
 * given, as sources.py joins them (surface_state.js uses curve_points.js's point rules).
 * The caller states the declarations' types with a JSDoc cast (`typeof globalThis.name`: the
 * type checker sees the plain files as global declarations).
 * @param {string | string[]} file
 * @param {string[]} names
 * @returns {unknown}
 */
function loadSource(file, names) {
  const files = Array.isArray(file) ? file : [file];
  const source = files.map((f) => fs.readFileSync(path.join(COMPONENTS, f), "utf8")).join("\n")
    .replace(/^export default /m, "const defaultExport = ");
  // eslint-disable-next-line no-new-func
  return new Function(`"use strict";\n${source}\nreturn { ${names.join(", ")} };`)();
}

module.exports = { loadSource };
