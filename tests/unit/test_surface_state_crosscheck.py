"""The annotation surface's local state (``ui/components/surface_state.js``) against the server's
replay (:func:`annotation.workbench.event_log.replay`), on the same seeded random event sequences.

The surface draws every edit at once, before the server answers, with its own copy of the
editing rules; what it draws must be what the server will store. Each sequence starts from a
random stored content and holds edits of every kind, valid and invalid ones (gaps outside the
text, unknown axes and flags, segments and points that do not exist, steps out of range, fields
of the wrong type); it is replayed here as ``apply_events`` replays a batch — parsed by
``parse_events``, replayed with ``stop_at_submit`` and, after a submit, on with the rest, as when
the submit cannot be made — and through the JS reducer by ``node tests/js/replay_cli.js`` (one
run for all sequences).

Compared: the boundaries, the segment axes, the points, the step, the flags and the note — what
both sides compute. Not compared: the curve's parameters (ξ, ω, α, RMSE, their source), which only
the server computes (it fits the curve; the surface shows the stored one, marked stale, until
the answer comes). Points placed from durations (``place``) are the server's alone too: for a
sequence in which the server placed points, its points are compared from the last ``place`` on,
starting from what the server stored after it (as the surface re-applies its pending edits on
the server's answer). Also compared, on each sequence's final stored content: what stops a plain
submit (``protocol.submission_problems`` against the surface's ``unflaggedSubmitProblems``).

The same again for context pairs (:func:`test_the_surface_draws_what_the_server_stores_for_pairs`):
the sequences also edit the second curve (``"curve": "context"``, and curves that do not exist),
choose change labels (valid and not), and step across the pair's steps (the ones before a
pair's first step refused, the step to the follow-up copying the first curve), in projects that
segment their targets and ones that do not; also compared: the second curve's points and the
change label.

Needs Node.js (as ``test_js_units.py``): skipped with the reason when ``node`` is missing, a
failure when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from annotation.axes import AXIS_NAMES
from annotation.curves import MAX_POINTS
from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.timeaxis import X_MAX
from annotation.workbench import editing
from annotation.protocols import CONTEXT_PAIRS, SINGLE_TEXTS, ProjectProtocol
from annotation.settings import ProjectSettings
from annotation.workbench.event_log import Replay, parse_events, replay
from annotation.workbench.protocol import PAIR_STEPS, STEPS
from annotation.content import CHANGE_CHOICES, AnnotationContent
from ui.workbench_view import surface_rules

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "tests" / "js" / "replay_cli.js"
SEED = 2303
N_SEQUENCES = 400
COMPARED = ("boundaries", "segment_axes", "points", "flags", "note")
PAIR_COMPARED = (*COMPARED, "context_points", "change")
SINGLE = (SINGLE_TEXTS, ProjectSettings())

# whitespace Python's str.strip and JS's String.trim disagree on (\x1c-\x1f, \x85; \ufeff), and
# some both strip
WHITESPACE = (" ", "\t", "\n", "\r", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000",
              "\ufeff")
UNKNOWN = "not_a_name"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):  # test.sh installs Node.js: in CI a missing node is a failure
            pytest.fail("node is not installed: the surface's reducer cannot be cross-checked")
        pytest.skip("node is not installed (apt-get install nodejs): the surface's reducer "
                    "was not cross-checked against the server's replay")
    return node


# --- random sequences -----------------------------------------------------------------------


def _number(rng: random.Random, lo: float, hi: float) -> float:
    """A number in [lo, hi] with 0 to 4 decimals, or one that lies exactly halfway between two
    hundredths (k + 0.125, k + 0.625: Python's round() goes to the even one)."""
    if rng.random() < 0.15:
        return float(int(rng.uniform(lo, hi))) + rng.choice((0.125, 0.375, 0.625, 0.875))
    return round(rng.uniform(lo, hi), rng.randint(0, 4))


def _odd(rng: random.Random) -> Any:
    """A value of a wrong type or shape for any field."""
    return rng.choice((None, True, False, "1", "x", [], ["main"], 1.5))


def _note(rng: random.Random) -> str:
    pad = lambda: "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(0, 3)))  # noqa: E731
    word = rng.choice(("", "unclear", "two events", "see \u2003 text", "x\ty"))
    return pad() + word + pad()


def _event(rng: random.Random, n_tokens: int, pair: bool = False) -> dict[str, Any]:
    steps = PAIR_STEPS if pair else STEPS
    kind = rng.choices(
        ("boundary", "reset_segments", "axis", "point", "params", "refit", "place", "step",
         "flag", "submit", "dance", "change"),
        weights=(10, 1, 8, 10, 1, 1, 1, 3, 3, 1, 1, 3 if pair else 0))[0]
    event: dict[str, Any] = {"kind": kind}
    if pair and kind in ("point", "params", "refit", "place") and rng.random() < 0.6:
        # the second curve mostly; now and then a curve that does not exist, or null (the first)
        event["curve"] = "context" if rng.random() < 0.9 else rng.choice(("follow_up", None, 1))
    bad = rng.random() < 0.2  # a field of the wrong type or out of range
    if kind == "boundary":
        event["gap"] = (rng.choice((0, -1, n_tokens, n_tokens + 2, 2.5, _odd(rng))) if bad
                        else rng.randint(1, max(n_tokens - 1, 1)))
    elif kind == "axis":
        event["segment"] = rng.choice((-1, 0.5, 9, _odd(rng))) if bad else rng.randint(0, 5)
        event["axis"] = rng.choice((UNKNOWN, 3, False, "MAIN")) if bad else rng.choice(
            (*AXIS_NAMES, None, ""))
        if rng.random() < 0.05:
            del event["axis"]  # a missing axis clears the segment's
    elif kind == "point":
        event["action"] = rng.choice(("add", "move", "remove")) if rng.random() < 0.95 else rng.choice(
            ("spin", None))
        if event["action"] != "add":
            event["index"] = rng.choice((-1, 5, 1.0, _odd(rng))) if bad else rng.randint(0, 4)
        if event["action"] != "remove":
            event["x"] = _odd(rng) if bad and rng.random() < 0.5 else _number(rng, -20, X_MAX + 20)
            event["y"] = _odd(rng) if bad and rng.random() < 0.5 else _number(rng, -0.3, 1.3)
    elif kind == "params":
        event.update(xi=_number(rng, -150, 350), omega=_number(rng, 0, 250),
                     alpha=_odd(rng) if bad else _number(rng, -30, 30))
    elif kind == "place":
        peak = _number(rng, 1, 100_000)
        event.update(peak_minutes=peak, half_gone_minutes=_odd(rng) if bad else peak * rng.uniform(0.5, 60))
    elif kind == "step":
        event["step"] = rng.choice((-1, len(steps), 1.5, _odd(rng))) if bad else rng.randint(0, len(steps) - 1)
        if pair and not bad:
            event["step"] = rng.choice((2, 3, 3, 2, 0, 1))  # mostly between the curves
        if bad and rng.random() < 0.3:
            event["step"] = float(rng.randint(0, len(steps) - 1))  # 2.0: a whole number all the same
    elif kind == "change":
        event["change"] = rng.choice((UNKNOWN, 2, ["neutral"], True)) if bad else rng.choice(
            (*CHANGE_CHOICES, None))
        if rng.random() < 0.05:
            del event["change"]  # missing: the derived one
    elif kind == "flag":
        codes = [*ANNOTATOR_FLAG_CODES, *([UNKNOWN] if bad else [])]
        flags = rng.sample(codes, rng.randint(0, len(codes)))  # in any order
        if flags and rng.random() < 0.2:
            flags.append(flags[0])  # named twice
        event["flags"] = rng.choice(("other", None, [1])) if bad and rng.random() < 0.5 else flags
        event["note"] = rng.choice((None, 5)) if bad and rng.random() < 0.3 else _note(rng)
        for name in ("flags", "note"):
            if rng.random() < 0.05:
                del event[name]  # missing: no flags / an empty note
    elif kind == "submit":
        if rng.random() < 0.8:
            event["flagged"] = rng.choice(("yes", None)) if bad else rng.choice((True, False))
        if rng.random() < 0.3:
            event["accept_misses"] = rng.choice((True, False, 1))
    return event


def _stored(rng: random.Random, pair: bool = False) -> tuple[AnnotationContent, int, int]:
    """A random stored draft: (content, step, number of tokens) — of a pair: with a second curve
    (or none yet) and a change label."""
    n_tokens = rng.randint(1, 24)
    starts = sorted(rng.sample(range(1, n_tokens), rng.randint(0, min(5, n_tokens - 1))))
    boundaries = (0, *starts)
    content = AnnotationContent(
        boundaries=boundaries,
        segment_axes=tuple(rng.choice((None, *AXIS_NAMES)) for _ in boundaries),
        points=tuple((_number(rng, 0, X_MAX), round(rng.uniform(0, 1), 2))
                     for _ in range(rng.randint(0, MAX_POINTS))),
        flags=tuple(c for c in ANNOTATOR_FLAG_CODES if rng.random() < 0.2),
        note=rng.choice(("", "stored note")))
    if rng.random() < 0.3:
        content = editing.refit(content)[0]  # fitted parameters (or cleared: too few points)
    if not pair:
        return content, rng.randint(0, len(STEPS) - 1), n_tokens
    if rng.random() < 0.5:
        second = AnnotationContent(points=tuple((_number(rng, 0, X_MAX), round(rng.uniform(0, 1), 2))
                                                for _ in range(rng.randint(1, MAX_POINTS))))
        if rng.random() < 0.3:
            second = editing.refit(second)[0]
        content = replace(content, **{k: getattr(second.with_context_copied(), k) for k in (
            "context_points", "context_xi", "context_omega", "context_alpha", "context_scale",
            "context_rmse")})
    content = replace(content, change=rng.choice(CHANGE_CHOICES))
    return content, rng.randint(2, len(PAIR_STEPS) - 1), n_tokens


def _sequences(pair: bool = False) -> list[tuple[AnnotationContent, int, int, list[dict[str, Any]]]]:
    rng = random.Random(SEED + pair)
    out = []
    for _ in range(N_SEQUENCES):
        content, step, n_tokens = _stored(rng, pair)
        events = [_event(rng, n_tokens, pair) for _ in range(rng.randint(1, 30))]
        for seq, event in enumerate(events, start=1):
            event["seq"] = seq
        out.append((content, step, n_tokens, json.loads(json.dumps(events))))  # as JSON delivers them
    return out


# --- the two sides ----------------------------------------------------------------------------


def server_replay(content: AnnotationContent, step: int, n_tokens: int,
                  raw_events: list[dict[str, Any]],
                  project: tuple[ProjectProtocol, ProjectSettings] = SINGLE) -> tuple[Replay, set[int]]:
    """The batch as ``apply_events`` replays it when no submit can be made, with the rules of
    ``project`` (its protocol and settings); also the seqs it refused."""
    protocol, settings = project
    rules = protocol.edit_rules(settings)
    events = parse_events(raw_events)
    r = replay(content, step, n_tokens, 0, events, stop_at_submit=True, rules=rules)
    refused = {x.seq for x in r.refused}
    while r.submit is not None:  # the submit was not made (incomplete): the batch goes on
        r = replay(r.content, r.step, n_tokens, r.last_seq, events, stop_at_submit=True, rules=rules)
        refused |= {x.seq for x in r.refused}
    return r, refused


def _view(content: AnnotationContent, step: int, n_tokens: int,
          project: tuple[ProjectProtocol, ProjectSettings] = SINGLE) -> dict[str, Any]:
    """What the reducer reads of a view: the stored content and step, the text's length and the
    rules, as the workbench sends them."""
    return {"content": content.to_json(), "step": step, "tokens": [f"t{i}" for i in range(n_tokens)],
            **surface_rules(*project)}


def _compared(content: dict[str, Any], step: int, fields: tuple[str, ...] = COMPARED) -> dict[str, Any]:
    return json.loads(json.dumps({**{k: content[k] for k in fields}, "step": step}))


def surface_replay(cases: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases), encoding="utf-8")
    done = subprocess.run([_node(), str(CLI), str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"node {CLI.name} failed:\n{done.stderr[-4000:]}"
    drawn = json.loads(done.stdout)
    assert len(drawn) == len(cases)
    return drawn


# --- the test ---------------------------------------------------------------------------------


def _cross_check(tmp_path: Path, pair: bool) -> tuple[Counter[str], Counter[str]]:
    """Every sequence through both sides; the counts of applied and refused kinds."""
    _node()
    fields = PAIR_COMPARED if pair else COMPARED
    placed_fields = ("points", "context_points") if pair else ("points",)
    cases: list[dict[str, Any]] = []
    expected: list[tuple[str, dict[str, Any]]] = []
    applied: Counter[str] = Counter()
    refused_kinds: Counter[str] = Counter()
    rng = random.Random(SEED)
    for number, (content, step, n_tokens, events) in enumerate(_sequences(pair)):
        project = SINGLE
        if pair:  # a pairs project that does not segment its targets, or one that does
            project = (CONTEXT_PAIRS, ProjectSettings(protocol="pairs", segment_targets=rng.random() < 0.3))
        protocol, settings = project
        r, refused = server_replay(content, step, n_tokens, events, project)
        for event in events:
            (refused_kinds if event["seq"] in refused else applied)[event["kind"]] += 1
        final = _compared(r.content.to_json(), r.step, fields)
        placed = [i for i, e in enumerate(events) if e["kind"] == "place" and e["seq"] not in refused]
        # the whole sequence from the stored draft (without the points when the server placed some)
        cases.append({"view": _view(content, step, n_tokens, project), "events": events})
        expected.append((f"sequence {number}", {k: v for k, v in final.items()
                                                if not (placed and k in placed_fields)}))
        if placed:  # from what the server stored after its last placing, as after its answer
            last = placed[-1]
            r_then, _ = server_replay(content, step, n_tokens, events[:last + 1], project)
            cases.append({"view": _view(r_then.content, r_then.step, n_tokens, project),
                          "events": events[last + 1:]})
            expected.append((f"sequence {number} after its place event {events[last]['seq']}", final))
        # what stops a plain submit of the stored result
        cases.append({"view": _view(r.content, r.step, n_tokens, project), "events": [], "problems": True})
        unflagged = replace(r.content, flags=(), note="")
        expected.append((f"sequence {number}: problems",
                         {"problems": protocol.submission_problems(unflagged, n_tokens, settings)}))

    drawn = surface_replay(cases, tmp_path)
    differences = []
    for case, (name, want), got in zip(cases, expected, drawn):
        got_compared = {**_compared(got["content"], got["step"], fields), "problems": got["problems"]}
        got_compared = {k: got_compared[k] for k in want}
        if got_compared != want:
            differences.append(f"{name}: server {want}\n  surface {got_compared}\n"
                               f"  stored {case['view']['content']} step {case['view']['step']}, "
                               f"{len(case['view']['tokens'])} tokens\n  events {case['events']}")
    assert not differences, (f"{len(differences)} of {len(cases)} cases differ; the first:\n"
                             + "\n".join(differences[:3]))
    return applied, refused_kinds


def test_the_surface_draws_what_the_server_stores(tmp_path: Path):
    applied, refused_kinds = _cross_check(tmp_path, pair=False)
    # the sequences reach every rule: each kind both applied and refused (refit and reset are
    # never refused)
    for kind in ("boundary", "reset_segments", "axis", "point", "params", "refit", "place", "step",
                 "flag", "submit"):
        assert applied[kind] > 10, f"too few {kind} events applied: {applied}"
    for kind in ("boundary", "axis", "point", "params", "place", "step", "flag", "submit", "dance"):
        assert refused_kinds[kind] > 5, f"too few {kind} events refused: {refused_kinds}"


def test_the_surface_draws_what_the_server_stores_for_pairs(tmp_path: Path):
    applied, refused_kinds = _cross_check(tmp_path, pair=True)
    for kind in ("point", "params", "refit", "place", "step", "change", "submit"):
        assert applied[kind] > 10, f"too few {kind} events applied: {applied}"
    for kind in ("point", "params", "step", "change"):
        assert refused_kinds[kind] > 5, f"too few {kind} events refused: {refused_kinds}"
