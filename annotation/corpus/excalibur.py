"""Reading EXCALIBUR's expert-judgment files: ``.dtt`` (the assessments) and ``.rls`` (the
realisations). Pure: it takes the files' text and names, and returns arrays for
:func:`annotation.quality.classical_dm.classical_model`.

The format (EXCALIBUR, the TU Delft expert judgment data base of Cooke & Goossens 2008, and the
files ANDURYL reads), as whitespace-separated fields:

* ``.dtt`` — a header ``* CLASS ASCII OUTPUT FILE. NQ=   3   QU=   5  50  95`` (NQ quantiles at
  the QU percentages), then one line per expert and item::

      expert-no  expert-id  item-no  item-id…  scale  q_1 … q_NQ  [description…]

  ``scale`` is ``uni`` or ``log`` (any case): the item's background measure. The item id may hold
  spaces (``Dead dogs``); the expert id is one word (EXCALIBUR gives it 8 characters).
* ``.rls`` — one line per item: ``item-no  item-id…  value  scale  [description…]``.

A value between −1000 and −990 (EXCALIBUR writes ``-9.995E+0002`` or ``-9.996E+0002``) or at or
below −9.99E+29 means *no value*: in the ``.rls`` the item is a target item (no realisation, not a
seed); in the ``.dtt`` the expert did not assess the item (NaN). An item of the ``.dtt`` with no
line in the ``.rls`` is a target item too. Items are matched by their id and kept in item-number
order, experts in expert-number order.

A malformed file is a ValueError naming the file and the line, on one line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The scale words of the files, mapped to the background names of the classical model.
SCALES: dict[str, str] = {"uni": "uniform", "log": "log"}


@dataclass(frozen=True)
class ExcaliburStudy:
    """A study read from a ``.dtt`` and a ``.rls``: ``assessments`` (E, N, Q) with NaN where an
    expert gave no value, ``realisations`` (N,) with NaN for target items, ``backgrounds`` one
    ``"uniform"``/``"log"`` per item, ``levels`` from the ``.dtt`` header (None without one)."""

    expert_ids: tuple[str, ...]
    item_ids: tuple[str, ...]
    backgrounds: tuple[str, ...]
    levels: tuple[float, ...] | None
    assessments: np.ndarray
    realisations: np.ndarray


def _is_missing(value: float) -> bool:
    return -1000.0 <= value <= -990.0 or value <= -9.99e29


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def _fail(name: str, line: int, reason: str) -> ValueError:
    return ValueError(f"{name}, line {line}: {reason}")


def parse_dtt_header(line: str, name: str = "the .dtt file") -> tuple[float, ...] | None:
    """The quantile levels of a ``.dtt`` header line (``QU=`` percentages), None when the line
    names none; a header whose NQ and QU disagree is a ValueError.

    Examples:
        >>> parse_dtt_header("* CLASS ASCII OUTPUT FILE. NQ=   3   QU=   5  50  95")
        (0.05, 0.5, 0.95)
    """
    upper = line.upper()
    if "QU=" not in upper:
        return None
    words = upper.split("QU=", 1)[1].split()
    values = [_number(w) for w in words]
    if not values or any(v is None for v in values):
        raise _fail(name, 1, "the header's QU= must be followed by percentages")
    if "NQ=" in upper:
        nq = _number(upper.split("NQ=", 1)[1].split()[0]) if upper.split("NQ=", 1)[1].split() else None
        if nq is None or int(nq) != len(values):
            raise _fail(name, 1, f"the header's NQ= does not match its {len(values)} QU= percentages")
    return tuple(float(v) / 100.0 for v in values)   # type: ignore[operator]


def _split_line(tokens: list[str], first: int, n_values: int, name: str, line: int
                ) -> tuple[list[str], str, list[float]]:
    """The id words, scale and values of a line whose id starts at token ``first`` and runs up
    to the first ``uni``/``log`` followed by ``n_values`` numbers."""
    for k in range(first + 1, len(tokens) - n_values + 1):
        if tokens[k].lower() in SCALES:
            values = [_number(t) for t in tokens[k + 1:k + 1 + n_values]]
            if all(v is not None for v in values):
                return tokens[first:k], SCALES[tokens[k].lower()], values  # type: ignore[return-value]
    raise _fail(name, line, f"expected an item id, a scale (uni or log) and {n_values} numbers")


def parse_dtt(text: str, name: str = "the .dtt file", n_quantiles: int | None = None
              ) -> tuple[tuple[float, ...] | None, list[tuple[int, str, int, str, str, list[float]]]]:
    """The header's levels and the assessment lines of a ``.dtt``: (expert-no, expert-id,
    item-no, item-id, background, values with NaN for "no value"). ``n_quantiles`` is needed only
    for a file without a header.

    Examples:
        >>> levels, rows = parse_dtt("* NQ= 2 QU= 5 95\\n  1  Ex1  1  Dead dogs log 1.0 8.0 note\\n")
        >>> levels, rows
        ((0.05, 0.95), [(1, 'Ex1', 1, 'Dead dogs', 'log', [1.0, 8.0])])
    """
    lines = text.splitlines()
    levels: tuple[float, ...] | None = None
    rows = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if raw.lstrip().startswith("*"):
            if rows:
                raise _fail(name, number, "a header line after the assessments")
            levels = parse_dtt_header(raw, name)
            continue
        nq = len(levels) if levels is not None else n_quantiles
        if nq is None:
            raise _fail(name, number, "no header (NQ= … QU= …) says how many quantiles a line holds")
        tokens = raw.split()
        if len(tokens) < 5 + nq or _number(tokens[0]) is None or _number(tokens[2]) is None:
            raise _fail(name, number, "expected: expert number, expert id, item number, item id, "
                                      f"scale and {nq} quantiles")
        words, scale, values = _split_line(tokens, 3, nq, name, number)
        values = [float("nan") if _is_missing(v) else v for v in values]
        rows.append((int(float(tokens[0])), tokens[1], int(float(tokens[2])), " ".join(words), scale, values))
    if not rows:
        raise _fail(name, max(len(lines), 1), "no assessments in the file")
    return levels, rows


def parse_rls(text: str, name: str = "the .rls file") -> dict[str, tuple[float, str, int]]:
    """The realisations of a ``.rls``: item id → (value, NaN for a target item; background; the
    line it stands on).

    Examples:
        >>> parse_rls("  1  Dead dogs  4.7E+0001 log  note\\n  2  q01 -9.996E+0002 UNI\\n")
        {'Dead dogs': (47.0, 'log', 1), 'q01': (nan, 'uniform', 2)}
    """
    out: dict[str, tuple[float, str, int]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        tokens = raw.split()
        if len(tokens) < 4 or _number(tokens[0]) is None:
            raise _fail(name, number, "expected: item number, item id, value and scale")
        for k in range(2, len(tokens) - 1):
            value = _number(tokens[k])
            if value is not None and tokens[k + 1].lower() in SCALES:
                item = " ".join(tokens[1:k])
                if item in out:
                    raise _fail(name, number, f"item {item!r} appears twice")
                out[item] = (float("nan") if _is_missing(value) else value, SCALES[tokens[k + 1].lower()],
                             number)
                break
        else:
            raise _fail(name, number, "expected: item number, item id, value and scale (uni or log)")
    if not out:
        raise _fail(name, 1, "no realisations in the file")
    return out


def read_excalibur(dtt_text: str, rls_text: str, dtt_name: str = "the .dtt file",
                   rls_name: str = "the .rls file", n_quantiles: int | None = None) -> ExcaliburStudy:
    """A whole study from the texts of its ``.dtt`` and ``.rls`` (module docstring): every expert
    must give every item once, with one scale per item in both files.

    Examples:
        >>> dtt = "* NQ= 3 QU= 5 50 95\\n 1 A 1 x UNI 1 2 3\\n 1 A 2 y LOG 1 2 3\\n 2 B 1 x UNI 2 3 4\\n 2 B 2 y LOG 2 3 4\\n"
        >>> study = read_excalibur(dtt, " 1 x 2.5 UNI\\n 2 y -9.995E+0002 LOG\\n")
        >>> study.expert_ids, study.item_ids, study.backgrounds, study.realisations.tolist()
        (('A', 'B'), ('x', 'y'), ('uniform', 'log'), [2.5, nan])
    """
    levels, rows = parse_dtt(dtt_text, dtt_name, n_quantiles)
    experts: dict[int, str] = {}
    items: dict[int, tuple[str, str]] = {}
    seen: set[tuple[int, int]] = set()
    lines = [n for n, raw in enumerate(dtt_text.splitlines(), start=1)
             if raw.strip() and not raw.lstrip().startswith("*")]
    for line, (e_no, e_id, i_no, i_id, scale, _values) in zip(lines, rows):
        if experts.setdefault(e_no, e_id) != e_id:
            raise _fail(dtt_name, line, f"expert number {e_no} is {experts[e_no]!r} and {e_id!r}")
        if items.setdefault(i_no, (i_id, scale)) != (i_id, scale):
            known = items[i_no]
            raise _fail(dtt_name, line, f"item number {i_no} is {known[0]!r} ({known[1]}) on an earlier "
                                        f"line and {i_id!r} ({scale}) here")
        if (e_no, i_no) in seen:
            raise _fail(dtt_name, line, f"expert {e_id!r} assesses item {i_id!r} twice")
        seen.add((e_no, i_no))
    if len({e for e in experts.values()}) != len(experts):
        raise _fail(dtt_name, lines[0], "two expert numbers share one expert id")
    if len({i for i, _ in items.values()}) != len(items):
        raise _fail(dtt_name, lines[0], "two item numbers share one item id")
    e_order, i_order = sorted(experts), sorted(items)
    e_index = {e: k for k, e in enumerate(e_order)}
    i_index = {i: k for k, i in enumerate(i_order)}
    n_q = len(rows[0][5])
    assessments = np.full((len(e_order), len(i_order), n_q), np.nan)
    filled = np.zeros((len(e_order), len(i_order)), dtype=bool)
    for e_no, _e, i_no, _i, _s, values in rows:
        assessments[e_index[e_no], i_index[i_no]] = values
        filled[e_index[e_no], i_index[i_no]] = True
    if not filled.all():
        e, i = np.argwhere(~filled)[0]
        raise _fail(dtt_name, lines[-1], f"expert {experts[e_order[e]]!r} has no line for item "
                                         f"{items[i_order[i]][0]!r}")
    realised = parse_rls(rls_text, rls_name)
    realisations = np.full(len(i_order), np.nan)
    for k, i_no in enumerate(i_order):
        item_id, scale = items[i_no]
        if item_id in realised:
            value, rls_scale, rls_line = realised[item_id]
            if rls_scale != scale:
                raise _fail(rls_name, rls_line,
                            f"item {item_id!r} is {rls_scale} here and {scale} in {dtt_name}")
            realisations[k] = value
    return ExcaliburStudy(
        expert_ids=tuple(experts[e] for e in e_order), item_ids=tuple(items[i][0] for i in i_order),
        backgrounds=tuple(items[i][1] for i in i_order), levels=levels, assessments=assessments,
        realisations=realisations)
