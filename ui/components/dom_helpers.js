// @ts-check
/* Small DOM helpers the components share (put in front of a component's module at import, see
   ui/components/sources.py): make an HTML or SVG element with its attributes, and ask what an
   event's target is (a text field, a control a key activates, inside which element). */

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * A new HTML element with attributes (`class`, `text` for its textContent; null, undefined
 * and false are left out, true is an empty attribute) and children. User text goes in as
 * `text` or a string child: it is never parsed as HTML.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = String(v);
    else if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

/**
 * A new SVG element with attributes, appended to `parent` when given.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name
 * @param {Record<string, unknown> | null} [attrs]
 * @param {Element} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** Input types that take no typed text (a key typed on them may be a shortcut). */
const UNTYPED_INPUTS = ["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"];
/** Roles of controls that a key activates (Enter on them is theirs). */
const ACTIVATABLE_ROLES = ["button", "radio", "tab", "link", "slider", "option", "menuitem", "checkbox", "switch",
  "combobox", "listbox", "spinbutton", "treeitem", "gridcell"];

/**
 * Whether `target` takes typed text (a key typed there is not a shortcut).
 * @param {EventTarget | null} target
 * @returns {boolean}
 */
function isTextField(target) {
  const t = /** @type {Partial<HTMLInputElement> | null} */ (target);
  if (!t || !t.tagName) return false;
  const tag = t.tagName.toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT" || t.isContentEditable) return true;
  if (tag !== "INPUT") return false;
  return !UNTYPED_INPUTS.includes(String(t.type || "text").toLowerCase());
}

/**
 * Whether `target` is a control a key activates (Enter on it is its own, not a submit).
 * @param {EventTarget | null} target
 * @returns {boolean}
 */
function isActivatable(target) {
  const t = /** @type {Partial<Element> | null} */ (target);
  if (!t || !t.tagName) return false;
  const tag = t.tagName.toUpperCase();
  if (["BUTTON", "A", "SUMMARY", "INPUT"].includes(tag)) return true;
  const role = t.getAttribute && t.getAttribute("role");
  return ACTIVATABLE_ROLES.includes(role);
}

/**
 * The element matching `selector` that `target` (an event's) is in or is, else null.
 * @param {EventTarget | null} target
 * @param {string} selector
 * @returns {HTMLElement | null}
 */
function closestFrom(target, selector) {
  const node = /** @type {Partial<Element> | null} */ (target);
  return node && node.closest ? /** @type {HTMLElement | null} */ (node.closest(selector)) : null;
}

/**
 * `c` when it is a #hex colour, else `fallback` (a colour is set in a style: never free text).
 * @param {unknown} c
 * @param {string} fallback
 * @returns {string}
 */
function safeColor(c, fallback) {
  const v = String(c || "").trim();
  return /^#[0-9a-fA-F]{3,8}$/.test(v) ? v : fallback;
}

/**
 * The key (or other event) is the component's: no default action, no other listener.
 * @param {Event} e
 */
function stopKey(e) { e.preventDefault(); e.stopImmediatePropagation(); }
