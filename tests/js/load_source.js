// @ts-check
/* Loads a component's plain JS file (ui/components/NAME.js) for `node --test`, the way the
   browser gets it: not as a module of its own but as top-level declarations that
   ui/components/sources.py puts in front of a component's ES module (strict mode, as a module
   is). Evaluated in this realm (new Function, not vm), so its objects compare equal to the
   test's with assert.deepStrictEqual. */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const COMPONENTS = path.resolve(__dirname, "..", "..", "ui", "components");

/**
 * The declarations `names` of ui/components/`file`.
 * @param {string} file
 * @param {string[]} names
 * @returns {Record<string, any>}
 */
function loadSource(file, names) {
  const source = fs.readFileSync(path.join(COMPONENTS, file), "utf8");
  // eslint-disable-next-line no-new-func
  return new Function(`"use strict";\n${source}\nreturn { ${names.join(", ")} };`)();
}

module.exports = { loadSource };
