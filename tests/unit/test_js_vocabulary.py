"""The components' JavaScript keeps no copy of a vocabulary or a limit Python owns: the axes, flag
codes, steps, change choices and labels, event kinds and which of them edit a curve, a pair's
second-curve fields, point actions, parameters, duration units, notice levels, the chart's range
and number of points, the note's length, the event log's limits... Python sends each of them with
the component's data (``ui.workbench_view.surface_rules`` for the annotation surface), so a
change in Python cannot leave the browser behind.

The scan reads ``ui/components/*.js`` and ``bench/*.js`` (not the node tests: their fixtures are
small vocabularies of their own) as tokens, without comments, and fails on

* a collection — an array literal (a Set's or a Map's too) or an object literal's values —
  holding two or more words of one vocabulary;
* a ``const``/``let``/``var`` bound to one word of a vocabulary, or to a limit that no other
  number of the code could be taken for (100 or more: the chart's range, the note's length, the
  event log's batch, the minutes of a duration unit);
* a name that says a limit (``xMax``, ``maxPoints``, ``STEP_COUNT``...) given that limit's value
  as a literal: ``maxPoints: n > 0 ? n : 5``.

A single wire name of the component protocol (an event's ``kind: "axis"``, ``curve: "context"``)
is the contract both sides are written to (``ui/components/CONTRACT.md``), not a copy: the
scan leaves it alone. The scan's rules are tested on the copies the surface used to hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from annotation.axes import AXES, AXIS_NAMES
from annotation.curves import ALPHA_BOUNDS, MAX_POINTS, MIN_POINTS, OMEGA_BOUNDS, XI_BOUNDS
from annotation.pairs.change import CHANGE_LABELS
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.timeaxis import DURATION_UNITS, TICKS, X_MAX
from annotation.workbench.curve_points import ACTIONS
from annotation.workbench.event_log import FIT_KINDS, KINDS, MAX_EVENTS
from annotation.content import CHANGE_CHOICES, CONTEXT_FIELDS
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.workbench.protocol import CONTEXT_STEP, PAIR_STEPS, STEPS
from ui.components.events import MAX_CLIENT_LENGTH
from ui.workbench_view import DURATION_DEFAULTS, LAYOUTS, NOTICE_LEVELS, PART_STEPS

ROOT = Path(__file__).resolve().parents[2]
JS_FILES = sorted([*(ROOT / "ui" / "components").glob("*.js"), *(ROOT / "bench").glob("*.js")])

#: Python's vocabularies, by what they are.
VOCABULARIES: dict[str, frozenset[str]] = {
    "axis names": frozenset(AXIS_NAMES),
    "axis colours": frozenset(a.color for a in AXES),
    "flag codes": frozenset(ANNOTATOR_FLAG_CODES),
    "step names": frozenset(PAIR_STEPS),
    "parts of the steps": frozenset(PART_STEPS),
    "change choices and labels": frozenset(c for c in (*CHANGE_CHOICES, *CHANGE_LABELS) if c),
    "event kinds": frozenset(KINDS),
    "curve edit kinds": frozenset(FIT_KINDS),
    "a pair's curve fields": frozenset((*CONTEXT_FIELDS, *CONTEXT_FIELDS.values())),
    "point actions": frozenset(ACTIONS),
    "parameters": frozenset((*PARAMETERS, *PARAMETER_SYMBOLS.values())),
    "duration units": frozenset(name for name, _ in DURATION_UNITS),
    "duration defaults": frozenset(DURATION_DEFAULTS.values()),
    "time ticks": frozenset(label for label, _ in TICKS),
    "notice levels": frozenset(NOTICE_LEVELS),
    "layouts": frozenset(LAYOUTS),
}


@dataclass(frozen=True)
class Limit:
    """A number Python owns, and the words a JS name that says it holds (``xMax``: x, max)."""

    label: str
    value: float
    words: frozenset[str]


def _limit(label: str, value: float, *words: str) -> Limit:
    return Limit(label, float(value), frozenset(words))


LIMITS: tuple[Limit, ...] = (
    _limit("X_MAX", X_MAX, "x", "max"),
    _limit("MAX_POINTS", MAX_POINTS, "max", "point"),
    _limit("MIN_POINTS", MIN_POINTS, "min", "point"),
    _limit("NOTE_MAX_CHARS", NOTE_MAX_CHARS, "note", "max", "char"),
    _limit("MAX_EVENTS", MAX_EVENTS, "max", "event"),
    _limit("MAX_CLIENT_LENGTH", MAX_CLIENT_LENGTH, "max", "client", "length"),
    _limit("CONTEXT_STEP", CONTEXT_STEP, "context", "step"),
    _limit("len(PAIR_STEPS)", len(PAIR_STEPS), "step"),
    _limit("len(STEPS)", len(STEPS), "step"),
    _limit("len(AXES)", len(AXES), "axis"),
    *(_limit(f"{name} bound", bound, name, side)
      for name, bounds in zip(PARAMETERS, (XI_BOUNDS, OMEGA_BOUNDS, ALPHA_BOUNDS))
      for side, bound in zip(("min", "max"), bounds)),
    *(_limit(f"minutes of {name}", minutes, "minute") for name, minutes in DURATION_UNITS),
)
#: A limit at least this large is taken for a copy wherever a constant is bound to it: smaller
#: numbers (3 px, 5 units) are every program's, and count only under a name that says the limit.
DISTINCT_FROM = 100.0

# ------------------------------------------------------------------ tokens


@dataclass(frozen=True)
class Token:
    kind: str  # "str", "num", "name", "punct", "regex"
    text: str
    line: int


_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?")
# after these a "/" starts a regular expression, not a division
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "of", "in", "=>"}


def tokens(source: str) -> list[Token]:
    """The tokens of a JS source without its comments (template literals' text left out, the
    code in their ``${…}`` kept)."""
    out: list[Token] = []
    i, n, line = 0, len(source), 1
    stack: list[str] = []  # "{" for a brace, "`" for a template's ${ … }

    def previous() -> str:
        return out[-1].text if out and out[-1].kind in ("punct", "name") else ""

    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += source.count("\n", i, end)
            i = end
        elif c in "\"'":
            j, chars = i + 1, []
            while j < n and source[j] != c:
                if source[j] == "\\" and j + 1 < n:
                    chars.append(source[j + 1])
                    j += 2
                else:
                    chars.append(source[j])
                    j += 1
            out.append(Token("str", "".join(chars), line))
            i = j + 1
        elif c == "`" or (c == "}" and stack and stack[-1] == "`"):
            if c == "}":
                stack.pop()
            j = i + 1
            while j < n and source[j] != "`" and not source.startswith("${", j):
                j += 2 if source[j] == "\\" else 1
            line += source.count("\n", i, j)
            if source.startswith("${", j):
                stack.append("`")
                i = j + 2
            else:
                i = j + 1
            out.append(Token("punct", "`", line))  # a template: a value, not a word
        elif c == "/" and (not out or previous() in _REGEX_AFTER or out[-1].kind == "punct" and out[-1].text not in ")]"):
            j, in_class = i + 1, False
            while j < n and (source[j] != "/" or in_class):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and source[j].isalpha():
                j += 1
            out.append(Token("regex", source[i:j], line))
            i = j
        elif (m := _NAME.match(source, i)) is not None:
            out.append(Token("name", m.group(), line))
            i = m.end()
        elif c.isdigit() or (c == "." and i + 1 < n and source[i + 1].isdigit()):
            m = _NUMBER.match(source, i)
            out.append(Token("num", m.group().replace("_", ""), line))
            i = m.end()
        else:
            if c == "{":
                stack.append("{")
            elif c == "}" and stack:
                stack.pop()
            text = "=>" if source.startswith("=>", i) else c
            out.append(Token("punct", text, line))
            i += len(text)
    return out


def _number(toks: list[Token], k: int) -> float | None:
    """The number token ``k`` stands for, its sign read (``-100``: a minus after an operator)."""
    try:
        text = toks[k].text
        value = float(int(text, 16)) if text[:2] in ("0x", "0X") else float(text)
    except ValueError:
        return None
    unary = k >= 1 and toks[k - 1].text == "-" and (k < 2 or toks[k - 2].kind == "punct" and toks[k - 2].text not in ")]")
    return -value if unary else value


def name_words(name: str) -> frozenset[str]:
    """The words of a JS name, singular: ``maxPoints`` → {max, point}, ``X_MAX`` → {x, max}."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    words = set()
    for part in (p.lower() for p in parts):
        words.add("axis" if part == "axes" else part[:-1] if len(part) > 3 and part.endswith("s") else part)
    return frozenset(words)

# ------------------------------------------------------------------ the rules


_OPEN = {"[": "]", "(": ")", "{": "}"}


def _closing(toks: list[Token], start: int) -> int:
    """The index of the bracket that closes the one at ``start``."""
    depth = 0
    for k in range(start, len(toks)):
        if toks[k].kind != "punct":
            continue
        if toks[k].text in _OPEN:
            depth += 1
        elif toks[k].text in _OPEN.values():
            depth -= 1
            if depth == 0:
                return k
    return len(toks) - 1


def _vocabulary_words(strings: list[str]) -> list[str]:
    """What ``strings`` hold of one vocabulary, when two words or more of it."""
    found = []
    for name, words in VOCABULARIES.items():
        held = sorted(set(strings) & words)
        if len(held) >= 2:
            found.append(f"{len(held)} {name} ({', '.join(held)})")
    return found


def _is_array_literal(toks: list[Token], k: int) -> bool:
    if k == 0:
        return True
    before = toks[k - 1]
    return not (before.kind in ("name", "num", "str") and before.text not in ("return", "of", "in", "typeof", "case")
                or before.text in (")", "]"))


def _is_object_literal(toks: list[Token], k: int) -> bool:
    before = toks[k - 1].text if k else ""
    return before in ("=", "(", ",", ":", "[", "?", "return", "|", "&")


def violations(source: str) -> list[str]:
    """Where ``source`` copies a vocabulary or a limit of Python's (see the module docstring)."""
    toks = tokens(source)
    found: list[str] = []
    array_end = -1  # the arrays inside an array are read with it
    for k, tok in enumerate(toks):
        if tok.kind == "punct" and tok.text == "[" and k > array_end and _is_array_literal(toks, k):
            array_end = _closing(toks, k)
            inside = [t.text for t in toks[k:array_end + 1] if t.kind == "str"]
            found += [f"line {tok.line}: an array holds {words}" for words in _vocabulary_words(inside)]
        elif tok.kind == "punct" and tok.text == "{" and _is_object_literal(toks, k):
            end, depth, values = _closing(toks, k), 0, []
            for j in range(k + 1, end):
                t = toks[j]
                if t.kind == "punct" and t.text in _OPEN:
                    depth += 1
                elif t.kind == "punct" and t.text in _OPEN.values():
                    depth -= 1
                elif depth == 0 and t.kind == "str" and toks[j - 1].text == ":":
                    values.append(t.text)
            found += [f"line {tok.line}: an object's values hold {words}" for words in _vocabulary_words(values)]
        elif tok.kind == "name" and tok.text in ("const", "let", "var") and k + 3 < len(toks):
            name, eq = toks[k + 1], toks[k + 2]
            at = k + 4 if toks[k + 3].text == "-" and k + 4 < len(toks) else k + 3
            value = toks[at]
            if name.kind != "name" or eq.text != "=":
                continue
            if value.kind == "str":
                found += [f"line {tok.line}: {name.text} is one of the {v}: {value.text!r}"
                          for v, words in VOCABULARIES.items() if value.text in words]
            elif value.kind == "num" and (number := _number(toks, at)) is not None:
                found += [f"line {tok.line}: {name.text} = {value.text} is {lim.label}" for lim in LIMITS
                          if lim.value == number and (abs(number) >= DISTINCT_FROM or lim.words <= name_words(name.text))]
        if tok.kind == "name" and k + 1 < len(toks) and toks[k + 1].text in (":", "=") and \
                (k + 2 >= len(toks) or toks[k + 2].text not in ("=", ">")):
            said = [lim for lim in LIMITS if lim.words <= name_words(tok.text)]
            if not said:
                continue
            depth, j = 0, k + 2
            while j < len(toks):  # the expression after it, to the end of the property or statement
                t = toks[j]
                if t.kind == "punct" and t.text in _OPEN:
                    depth += 1
                elif t.kind == "punct" and t.text in _OPEN.values():
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and t.text in (",", ";"):
                    break
                if t.kind == "num" and (number := _number(toks, j)) is not None:
                    found += [f"line {t.line}: {tok.text} falls back to {number:g}, {lim.label}" for lim in said
                              if lim.value == number]
                j += 1
    return found

# ------------------------------------------------------------------ the tests


def test_the_scan_finds_the_copies_the_surface_used_to_hold():
    copies = {
        'const CURVE_KINDS = new Set(["point", "params", "refit", "place"]);': "curve edit kinds",
        'const CONTEXT_FIELDS = /** @type {const} */ ([["points", "context_points"], ["xi", "context_xi"]]);':
            "a pair's curve fields",
        'const level = ["error", "warning", "info", "success"].includes(n.level) ? n.level : "info";': "notice levels",
        'for (const [sel, preferred] of /** @type {[HTMLSelectElement, string][]} */ ([[peakU, "days"], [halfU, "weeks"]])) {}':
            "duration units",
        "const STEP_COUNT = 4;  // text, segment rows, chart": "len(PAIR_STEPS)",
        "return { xMax: finite(d.x_max) && d.x_max > 0 ? d.x_max : 200, disabled: !!d.disabled };": "X_MAX",
        "const cfg = { maxPoints: Number.isInteger(d.max_points) && d.max_points > 0 ? d.max_points : 5 };": "MAX_POINTS",
        "const LIMIT = 2000;": "NOTE_MAX_CHARS",
        "const bounds = { xiMin: -100, xiMax: 300 };": "xi bound",
        'const CONFIRM = "derived";': "change choices",
        'const units = { peak: "days", half_gone: "weeks" };': "duration units",
        "const axes = [{ name: 'main', digit: '1' }, { name: 'static', digit: '2' }];": "axis names",
    }
    for code, what in copies.items():
        found = violations(code)
        assert any(what in v for v in found), (code, found)


def test_the_scan_leaves_the_contract_and_the_codes_own_numbers_alone():
    fine = [
        'ctx.push({ kind: "point", action: "move", index: i, x, y });',  # wire names: the contract
        'const curveEdit = (edit) => (onContext() ? { ...edit, curve: "context" } : edit);',
        "const DRAG_START_PX = 3;  // a press becomes a drag",
        "const NUDGE = { x: 1, y: 0.02, xShift: 5, yShift: 0.1 };",
        "xMax: finite(v.x_max) && v.x_max > 0 ? v.x_max : 1,",
        'for (const a of ["role", "tabindex", "aria-pressed"]) gap.removeAttribute(a);',
        "const level = c.noticeLevels.includes(n.level) ? n.level : \"info\";",
        "/* the steps: [\"Segmentation\", \"Axis labels\"] */ const s = `${a ? \"days\" : \"weeks\"}`;",
        "const re = /[\"'](main|static)[\"']/g; const t = a / b / 2;",
        "setTimeout(cleanup, 2000);",
    ]
    for code in fine:
        assert violations(code) == [], code


def test_no_component_js_copies_a_python_vocabulary_or_limit():
    assert len(JS_FILES) > 10
    found = {p.relative_to(ROOT).as_posix(): v for p in JS_FILES if (v := violations(p.read_text(encoding="utf-8")))}
    assert not found, ("JS copies of Python's vocabularies or limits (send them with the component's data, "
                       f"e.g. ui.workbench_view.surface_rules): {found}")
