// @ts-check
/* Writes or clears the sign-in cookie (see session_cookie.py); draws nothing. */

/**
 * The value of cookie `name` in `cookies` (as document.cookie reads: "a=1; b=2"), or null.
 * @param {string} cookies
 * @param {string} name
 * @returns {string | null}
 */
function cookieValue(cookies, name) {
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** @param {{ parentElement: HTMLElement, data: unknown }} component */
export default function (component) {
  const { parentElement, data } = component;
  const d = /** @type {{ name?: unknown, value?: unknown, action?: unknown, max_age?: unknown }} */ (
    data && typeof data === "object" ? data : {});
  const marker = parentElement.querySelector('[data-testid="session-cookie"]');
  const name = String(d.name || "");
  const value = String(d.value || "");
  if (!/^[A-Za-z0-9_]+$/.test(name) || !/^[A-Za-z0-9_-]+$/.test(value)) return;
  const attributes = "; Path=/; SameSite=Strict" + (location.protocol === "https:" ? "; Secure" : "");
  const current = cookieValue(document.cookie, name);
  let state;
  if (d.action === "set") {
    const maxAge = Math.max(1, Math.floor(Number(d.max_age) || 0));
    if (current === value) {
      state = "kept";
    } else {
      document.cookie = name + "=" + value + "; Max-Age=" + maxAge + attributes;
      state = "set";
    }
  } else if (d.action === "clear") {
    if (current === value) {
      document.cookie = name + "=; Max-Age=0" + attributes;
      state = "cleared";
    } else {
      state = "absent";
    }
  }
  if (marker && state) marker.setAttribute("data-state", state);
}
