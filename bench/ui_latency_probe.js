/* In-page timer of bench/ui_latency.py (installed with page.add_init_script).

   window.__uiLatency.arm(spec) -> id starts one measurement:
     spec.start   "pointerdown" | "keydown": t0 is the timeStamp of the first such event after
                  arming (a capture listener on window sees events aimed into shadow roots too);
     spec.base    optional expression evaluated once at arming; its value is `base` below;
     spec.checks  {name: expression}: each is evaluated after every DOM mutation (document and
                  every open shadow root are observed) and on every animation frame, until true;
     spec.paint   names whose time is taken after the frame that draws the change (the next
                  animation frame, then a message-channel task: the frame's paint is done then),
                  instead of the moment the DOM first shows it.
   Expressions see the helpers below as variables: q(sel), qa(sel) (query across open shadow
   roots), fresh(el) (not inside a stale Streamlit element), heading(text), startsHeading(prefix),
   sig(el) (a signature of a subtree's markup), runEnded() (a Streamlit script run that started
   after t0 has finished), base, t0.
   window.__uiLatency.wait(id, timeoutMs) -> Promise of {t0, times: {name: ms after t0}, missing}.
   All times are performance.now() milliseconds of this page: no Playwright round trip is in them.
*/
(() => {
  if (window.__uiLatency) return;

  const observed = new WeakSet();
  const measurements = new Map();
  let nextId = 1;
  let runStart = null;      // performance.now() when the app root last went to "running"
  let runEnd = null;        // ... and back to "notRunning" after that

  let cachedRoots = null;  // the roots of the check under way (one scan per check)
  function roots() {
    if (cachedRoots) return cachedRoots;
    const out = [document];
    for (let i = 0; i < out.length; i++) {
      for (const el of out[i].querySelectorAll("*")) {
        if (el.shadowRoot) out.push(el.shadowRoot);
      }
    }
    return out;
  }
  function q(sel) {
    for (const r of roots()) {
      const found = r.querySelector(sel);
      if (found) return found;
    }
    return null;
  }
  function qa(sel) {
    const out = [];
    for (const r of roots()) out.push(...r.querySelectorAll(sel));
    return out;
  }
  function fresh(el) {
    let node = el;
    while (node) {
      if (node.closest && node.closest('[data-stale="true"]')) return false;
      const root = node.getRootNode();
      node = root instanceof ShadowRoot ? root.host : null;
    }
    return true;
  }
  const text = (el) => (el.textContent || "").replace(/\s+/g, " ").trim();
  function heading(t) {
    return qa("h1, h2, h3").some((h) => fresh(h) && text(h) === t);
  }
  function startsHeading(prefix) {
    const h = qa("h1, h2, h3").find((x) => fresh(x) && text(x).startsWith(prefix));
    return h ? text(h) : null;
  }
  function sig(el) {
    return el ? el.outerHTML.length + ":" + el.outerHTML : null;
  }
  const helpers = { q, qa, fresh, heading, startsHeading, sig };

  function compile(src) {
    return new Function("h", "base", "t0", "runEnded",
      "const {q, qa, fresh, heading, startsHeading, sig} = h; return (" + src + ");");
  }

  function watchScriptState() {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || observed.has(app)) return;
    observed.add(app);
    new MutationObserver((records) => {
      // Each record holds the value before the change; the value after it is the next
      // record's old value, or the current one for the last record.
      const now = performance.now();
      const states = records.map((r) => r.oldValue);
      states.push(app.getAttribute("data-test-script-state"));
      for (let i = 1; i < states.length; i++) {
        if (states[i] === "running" && states[i - 1] !== "running") { runStart = now; runEnd = null; }
        if (states[i] === "notRunning" && runStart !== null && runEnd === null) runEnd = now;
      }
      check();
    }).observe(app, { attributes: true, attributeOldValue: true,
                      attributeFilter: ["data-test-script-state"] });
  }

  function afterPaint(cb) {
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => cb(performance.now());
      ch.port2.postMessage(null);
    });
  }

  function check() {
    watchScriptState();
    const active = [...measurements.values()].some((m) => m.t0 !== null && !m.done);
    if (!active) return;
    cachedRoots = null;
    cachedRoots = roots();
    try { checkActive(); } finally { cachedRoots = null; }
  }
  function checkActive() {
    for (const r of cachedRoots) {
      if (!observed.has(r)) {
        observed.add(r);
        mutations.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
      }
    }
    const now = performance.now();
    for (const m of measurements.values()) {
      if (m.t0 === null || m.done) continue;
      const runEnded = () => runStart !== null && runStart >= m.t0 && runEnd !== null;
      for (const [name, fn] of m.checks) {
        if (name in m.seen) continue;
        let ok = false;
        try { ok = !!fn(helpers, m.base, m.t0, runEnded); } catch (e) { ok = false; }
        if (!ok) continue;
        m.seen[name] = now;
        if (m.paint.has(name)) {
          m.waiting += 1;
          afterPaint((t) => { m.times[name] = t - m.t0; m.waiting -= 1; finish(m); });
        } else {
          m.times[name] = now - m.t0;
        }
      }
      finish(m);
    }
  }
  function finish(m) {
    if (m.done || m.waiting || Object.keys(m.seen).length < m.checks.length) return;
    m.done = true;
    window.removeEventListener(m.start, m.listener, true);
    m.resolve({ t0: m.t0, times: m.times, missing: [] });
  }
  const mutations = new MutationObserver(check);
  function frame() { check(); requestAnimationFrame(frame); }
  requestAnimationFrame(frame);

  window.__uiLatency = {
    q, qa,
    arm(spec) {
      const id = nextId++;
      const m = { t0: null, done: false, waiting: 0, seen: {}, times: {}, start: spec.start,
                  checks: Object.entries(spec.checks).map(([k, v]) => [k, compile(v)]),
                  paint: new Set(spec.paint || []), base: null };
      if (spec.base) m.base = compile(spec.base)(helpers, null, null, () => false);
      m.promise = new Promise((resolve) => { m.resolve = resolve; });
      m.listener = (e) => {
        if (m.t0 === null) { m.t0 = e.timeStamp; check(); }
      };
      window.addEventListener(spec.start, m.listener, true);
      measurements.set(id, m);
      check();
      return id;
    },
    wait(id, timeoutMs) {
      const m = measurements.get(id);
      const timeout = new Promise((resolve) => setTimeout(() => resolve({
        t0: m.t0, times: m.times,
        missing: m.checks.map(([k]) => k).filter((k) => !(k in m.times)),
      }), timeoutMs));
      return Promise.race([m.promise, timeout]).then((r) => {
        m.done = true;
        measurements.delete(id);
        window.removeEventListener(m.start, m.listener, true);
        return r;
      });
    },
  };
})();
