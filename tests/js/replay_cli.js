// @ts-check
/* Replays event sequences through the surface's reducer (ui/components/surface_state.js) for
   tests/unit/test_surface_state_crosscheck.py, which replays the same ones through the server.

   Usage: node tests/js/replay_cli.js CASES.json
   CASES.json: [{"view": {...a view: content, step, tokens and the rules...}, "events": [...]}, ...]
   Prints, as one JSON array, what the surface would draw for each case: {"content", "step",
   "problems"} (replaySurfaceEvents on the view, the rules read with surfaceRulesOf as the
   surface does; problems: what would stop a plain submit of that content, with no curve edit
   on its way and no fit message). */
"use strict";
const fs = require("node:fs");
const { loadSource } = require("./load_source.js");

/**
 * @typedef {object} ReplayApi
 * @property {typeof globalThis.surfaceRulesOf} surfaceRulesOf
 * @property {typeof globalThis.replaySurfaceEvents} replaySurfaceEvents
 * @property {typeof globalThis.unflaggedSubmitProblems} unflaggedSubmitProblems
 */
const { surfaceRulesOf, replaySurfaceEvents, unflaggedSubmitProblems } = /** @type {ReplayApi} */ (
  loadSource(["curve_points.js", "surface_view.js", "surface_state.js"], ["surfaceRulesOf", "replaySurfaceEvents", "unflaggedSubmitProblems"]));

/** @typedef {{ view: Partial<SurfaceView>, events: SurfaceEditData[] }} ReplayCase */

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node tests/js/replay_cli.js CASES.json\n");
  process.exit(2);
}
const cases = /** @type {ReplayCase[]} */ (JSON.parse(fs.readFileSync(file, "utf8")));
const drawn = cases.map(({ view, events }) => {
  const rules = surfaceRulesOf(view);
  const { content, step } = replaySurfaceEvents(view.content, view.step, events, rules);
  return { content, step, problems: unflaggedSubmitProblems(content, rules, { curvePending: false, fitMessage: null }) };
});
process.stdout.write(JSON.stringify(drawn));
