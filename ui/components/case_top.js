// @ts-check
// Opens a new review case at the top of the page: Streamlit keeps the scroll position across
// reruns, so after a decision the next case would otherwise open where the previous one's
// decision buttons were. The case shown last is remembered on the window (the component may be
// mounted afresh on a rerun); a different one scrolls the page to its top, the same one never
// moves it (a widget on the case reruns the page too).

const SCROLLERS = '[data-testid="stMain"], [data-testid="stAppViewContainer"], section.main';

/**
 * The window, with the case shown last (kept across mounts).
 * @typedef {Window & { __chronocept_case_top?: string }} CaseTopWindow
 */

/** @param {{ parentElement: HTMLElement, data: unknown }} component */
export default function (component) {
  const { parentElement, data } = component;
  const d = /** @type {{ case?: unknown }} */ (data && typeof data === "object" ? data : {});
  const marker = parentElement.querySelector('[data-testid="case-top"]');
  const caseId = String(d.case ?? "");
  const win = /** @type {CaseTopWindow} */ (window);
  const last = win.__chronocept_case_top;
  win.__chronocept_case_top = caseId;
  if (last !== undefined && last !== caseId) {
    window.scrollTo(0, 0);
    for (const el of document.querySelectorAll(SCROLLERS)) el.scrollTop = 0;
    if (marker) marker.setAttribute("data-scrolled", caseId);
  }
  if (marker) marker.setAttribute("data-case", caseId);
}
