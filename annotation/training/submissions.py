"""A model's predictions for an export's test split: reading the file (all or nothing), scoring it
against the export, and keeping the scored submission in the export's folder.

**The file.** JSON Lines (``.jsonl``, ``.ndjson``, ``.json``) or CSV (``.csv``), UTF-8, one
prediction per test sample of the chosen benchmark: a line ``{"_id": "B1-00042", "xi": 53.2,
"omega": 10.9, "alpha": -0.2}``, or a row ``B1-00042,53.2,10.9,-0.2`` under ``_id,xi,omega,alpha``.

ξ, ω, α in the export's log base (its manifest's ``base``). A training run's own predictions file
(``RUN/predictions/<model>__<ablation>.csv``: ``_id``, ``<param>_gold``, ``<param>_pred``) is
read too; its gold columns are not used (the export's gold is). The whole file is refused — one
line, naming the line and the reason — for: an unknown extension, no lines, more than
:data:`MAX_PREDICTION_BYTES` bytes or :data:`MAX_PREDICTION_LINES` lines, text that is not
UTF-8, other columns, a missing, unknown (not in the test split) or repeated ``_id``, a value
that is not a finite number, and parameters no curve fit could give (outside the fit's bounds,
:func:`annotation.curves.parameter_bounds_problem`, compared on the chart's base-1.1 axis) or a
curve entirely off the time axis.

**Kept submissions.** A scored file is kept as one JSON document in the export's folder,
``EXPORT/scores/<UTC time>-<slug of the name>.json`` (:func:`write_submission`: a temporary
file, then a hard link that never replaces another submission). It holds the name (at most
:data:`MAX_NAME_CHARS` characters), who and when, the file's name and SHA-256, the export id,
benchmark and base, and the figures with their intervals (:class:`~annotation.training.scoring.ModelScore`).
No database table: the leaderboard reads the folder (:func:`read_submissions`), and a document of
another export (the folder was written again) is left out.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from annotation.corpus.json_lines import decode_json_line
from annotation.curves import parameter_bounds_problem
from annotation.curves.distance import curve_masses
from annotation.timeaxis import DEFAULT_BASE

from .data import MIN_SAMPLES_PER_SPLIT, SPLIT_FILES, TARGET_KEYS, benchmark_folder, read_manifest, read_split_file
from .errors import ExportFormatError, NotEnoughSamplesError
from .reference_scores import score_against_references
from .references import Comparison
from .scoring import ModelScore, score_predictions

#: the largest predictions file read (a test split of 10,000 samples is about 1 MB)
MAX_PREDICTION_BYTES = 10 * 1024 * 1024
#: the most lines it may have (five times the test split of a 100k-text project)
MAX_PREDICTION_LINES = 50_000
#: the longest name of a submission
MAX_NAME_CHARS = 80
#: the predicted parameters' columns, in (ξ, ω, α) order
PARAMETER_COLUMNS: tuple[str, ...] = ("xi", "omega", "alpha")
#: the same in a training run's predictions file, and the gold columns it also has
RUN_COLUMNS: tuple[str, ...] = tuple(f"{key}_pred" for key in TARGET_KEYS)
RUN_GOLD_COLUMNS: tuple[str, ...] = tuple(f"{key}_gold" for key in TARGET_KEYS)
#: the folder of an export that keeps its scored submissions
SCORES_FOLDER = "scores"
#: the format of a kept submission
SUBMISSION_FORMAT = "chronocept-score/1"
_EXTENSIONS = {"jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl", "csv": "csv"}
_ID_SHOWN = 40


class PredictionFileError(ValueError):
    """The predictions cannot be scored; ``line`` is 1-based (0 for the whole file)."""

    def __init__(self, line: int, reason: str):
        self.line, self.reason = line, reason
        super().__init__(f"line {line}: {reason}" if line else reason)


@dataclass(frozen=True)
class PredictionFile:
    """The predictions of a file: sample ids, (ξ, ω, α) rows in the file's order, and the line
    each came from."""

    ids: tuple[str, ...]
    params: np.ndarray
    lines: tuple[int, ...]


def _shown_id(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= _ID_SHOWN else text[:_ID_SHOWN] + "…")


def parse_predictions(data: bytes, filename: str) -> PredictionFile:
    """Read a predictions file (module docstring); raises :class:`PredictionFileError` on the
    first problem, so nothing of a bad file is used.

    Examples:
        >>> f = parse_predictions(b'{"_id": "B1-1", "xi": 50, "omega": 9.5, "alpha": 0}\\n', "p.jsonl")
        >>> f.ids, f.params.tolist(), f.lines
        (('B1-1',), [[50.0, 9.5, 0.0]], (1,))
        >>> parse_predictions(b"_id,xi,omega,alpha\\nB1-1,50,9.5,0\\nB1-1,51,9,0\\n", "p.csv")
        Traceback (most recent call last):
        ...
        annotation.training.submissions.PredictionFileError: line 3: _id 'B1-1' also appears on line 2
    """
    ids: list[str] = []
    params: list[tuple[float, float, float]] = []
    lines: list[int] = []
    for line, sample_id, values in prediction_rows(data, filename, _columns_problem):
        ids.append(sample_id)
        params.append(tuple(_number(v, name, line) for name, v in zip(PARAMETER_COLUMNS, values)))  # type: ignore[arg-type]
        lines.append(line)
    if not ids:
        raise PredictionFileError(0, "the file holds no predictions")
    return PredictionFile(tuple(ids), np.array(params, dtype=np.float64).reshape(-1, 3), tuple(lines))


def prediction_rows(data: bytes, filename: str,
                    columns_of: Callable[[Sequence[str]], tuple[str, ...] | str]
                    ) -> Iterator[tuple[int, str, list[Any]]]:
    """The rows of a predictions file as ``(line, _id, values)``, after the checks every
    predictions file gets — its size, type (``.jsonl`` or ``.csv``), UTF-8, number of lines, a
    malformed line, the columns (``columns_of`` gives the value columns a header's names stand
    for, or why they are not ones it reads), a missing or repeated ``_id``. Raises
    :class:`PredictionFileError` naming the line at the first problem.

    Examples:
        >>> cols = lambda names: ("y",) if sorted(names) == ["_id", "y"] else "no"
        >>> list(prediction_rows(b"_id,y\\na,1\\n", "p.csv", cols))
        [(2, 'a', ['1'])]
    """
    if len(data) > MAX_PREDICTION_BYTES:
        raise PredictionFileError(0, f"the file is larger than {MAX_PREDICTION_BYTES // 2**20} MB")
    ext = PurePath(filename).suffix.lower().lstrip(".")
    if ext not in _EXTENSIONS:
        raise PredictionFileError(0, f"unsupported file type '.{ext}'; use .jsonl or .csv")
    try:
        content = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PredictionFileError(data[: exc.start].count(b"\n") + 1, "the file is not UTF-8 text") from None
    n_lines = len(content.splitlines())
    if n_lines > MAX_PREDICTION_LINES:
        raise PredictionFileError(0, f"the file has {n_lines:,} lines; at most "
                                     f"{MAX_PREDICTION_LINES:,} are read")
    rows = (_jsonl_rows(content, columns_of) if _EXTENSIONS[ext] == "jsonl"
            else _csv_rows(content, columns_of))
    seen: dict[str, int] = {}
    for line, raw_id, values in rows:
        sample_id = _sample_id(raw_id, line)
        if sample_id in seen:
            raise PredictionFileError(line, f"_id {_shown_id(sample_id)} also appears on line {seen[sample_id]}")
        seen[sample_id] = line
        yield line, sample_id, values


def _columns_problem(columns: Sequence[str]) -> tuple[str, ...] | str:
    """The value columns of a header in (ξ, ω, α) order, or why it is not one we read."""
    given = list(columns)
    if sorted(given) == sorted(("_id", *PARAMETER_COLUMNS)):
        return PARAMETER_COLUMNS
    if sorted(given) == sorted(("_id", *RUN_COLUMNS, *RUN_GOLD_COLUMNS)):
        return RUN_COLUMNS
    shown = ", ".join(repr(c[:_ID_SHOWN]) for c in given[:10]) + (", …" if len(given) > 10 else "")
    return (f"the columns must be _id, xi, omega, alpha (or a training run's predictions file); "
            f"got {shown or 'none'}")


def _jsonl_rows(content: str, columns_of):  # type: ignore[no-untyped-def]
    for line, raw in enumerate(content.splitlines(), start=1):
        if not raw.strip():
            continue
        obj = decode_json_line(raw, line, PredictionFileError)
        if not isinstance(obj, dict):
            raise PredictionFileError(line, "each line must be a JSON object")
        columns = columns_of(list(obj))
        if isinstance(columns, str):
            raise PredictionFileError(line, columns)
        yield line, obj["_id"], [obj[c] for c in columns]


def _csv_rows(content: str, columns_of):  # type: ignore[no-untyped-def]
    reader = csv.reader(io.StringIO(content, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return
        columns = columns_of([c.strip() for c in header])
        if isinstance(columns, str):
            raise PredictionFileError(1, columns)
        position = {c.strip(): i for i, c in enumerate(header)}
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise PredictionFileError(line, f"{len(row)} fields where the header has {len(header)}")
            yield line, row[position["_id"]], [row[position[c]] for c in columns]
    except csv.Error as exc:
        raise PredictionFileError(reader.line_num, f"not valid CSV ({exc})") from None


def _sample_id(value: object, line: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise PredictionFileError(line, "_id must be a string")
    text = str(value).strip()
    if not text:
        raise PredictionFileError(line, "_id is missing")
    return text


def _number(value: object, name: str, line: int) -> float:
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise PredictionFileError(line, f"{name} must be a number, got {_shown_id(value)}") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:   # an integer beyond any float
            number = math.inf
    else:
        raise PredictionFileError(line, f"{name} must be a number, got {_shown_id(value)}")
    if not math.isfinite(number):
        raise PredictionFileError(line, f"{name} must be a finite number, got {_shown_id(value)}")
    return number


def align_predictions(predictions: PredictionFile, test_ids: Sequence[str], base: float) -> np.ndarray:
    """The predictions as an ``(n, 3)`` array in the order of ``test_ids`` (the test split's), in
    log ``base``; refuses an unknown or missing id and parameters no fit could give.

    Examples:
        >>> f = parse_predictions(b"_id,xi,omega,alpha\\nb,60,9,0\\na,50,9.5,1\\n", "p.csv")
        >>> align_predictions(f, ["a", "b"], 1.1).tolist()
        [[50.0, 9.5, 1.0], [60.0, 9.0, 0.0]]
        >>> align_predictions(f, ["a", "b", "c"], 1.1)
        Traceback (most recent call last):
        ...
        annotation.training.submissions.PredictionFileError: 1 test sample has no prediction (the first: 'c')
    """
    index = {sample_id: i for i, sample_id in enumerate(test_ids)}
    out = np.full((len(index), 3), math.nan)
    to_chart = math.log(base) / math.log(DEFAULT_BASE)
    for sample_id, row, line in zip(predictions.ids, predictions.params, predictions.lines):
        if sample_id not in index:
            raise PredictionFileError(line, f"_id {_shown_id(sample_id)} is not in the test split")
        xi, omega, alpha = float(row[0]) * to_chart, float(row[1]) * to_chart, float(row[2])
        problem = parameter_bounds_problem(xi, omega, alpha)
        if problem is not None:
            where = "" if base == DEFAULT_BASE else f" (on the base-{DEFAULT_BASE:g} chart)"
            raise PredictionFileError(line, f"{problem}{where}")
        if np.isnan(curve_masses(np.array([[xi, omega, alpha]]))).any():
            raise PredictionFileError(line, "the predicted curve lies entirely off the time axis")
        out[index[sample_id]] = row
    missing = [sample_id for sample_id, i in index.items() if np.isnan(out[i, 0])]
    if missing:
        many = "s have" if len(missing) > 1 else " has"
        raise PredictionFileError(0, f"{len(missing)} test sample{many} no prediction "
                                     f"(the first: {_shown_id(missing[0])})")
    return out


@dataclass(frozen=True)
class ScoredFile:
    """A predictions file scored against an export: the export's id and base, the benchmark
    (1, 2, or ``"tvcp"`` for change labels, :mod:`~annotation.training.change_scoring`), the
    file's SHA-256, and the score."""

    export_id: str
    base: float
    benchmark: int | str
    sha256: str
    score: ModelScore
    references: Mapping[str, ModelScore] = field(default_factory=dict)  # reference_scores
    vs_reference: Mapping[str, Comparison] = field(default_factory=dict)


def score_export(export_dir: str | Path, data: bytes, filename: str, benchmark: int = 1, *,
                 resamples: int | None = None) -> ScoredFile:
    """Read and check a predictions file, then score it, and the trivial references beside it,
    against the test split of ``benchmark`` of the export in ``export_dir`` (z-scoring with its
    training split). Raises :class:`PredictionFileError` for the file and a
    :class:`~annotation.training.errors.TrainingInputError` for the export.

    Examples:
        >>> import tempfile
        >>> from annotation.training.synthetic import write_synthetic_export
        >>> folder = write_synthetic_export(Path(tempfile.mkdtemp()) / "e", 30, seed=1)
        >>> test = [json.loads(line) for line in (folder / "benchmark_1" / "test.json").open()]
        >>> lines = [json.dumps({"_id": r["_id"], **dict(zip(("xi", "omega", "alpha"),
        ...                      r["target_values"].values()))}) for r in test]
        >>> scored = score_export(folder, "\\n".join(lines).encode(), "gold.jsonl")
        >>> scored.export_id, scored.score.n_test, scored.score.figures["mse"].value
        ('synthetic-1-30', 3, 0.0)
    """
    if benchmark not in (1, 2):
        raise ExportFormatError(f"the benchmark must be 1 or 2, got {benchmark!r}")
    manifest = read_manifest(export_dir)
    folder = benchmark_folder(export_dir, benchmark)
    splits = {}
    for split in ("train", "test"):
        path = folder / SPLIT_FILES[split]
        if not path.is_file():
            raise ExportFormatError(f"export {manifest.export_id!r} has no benchmark_{benchmark}/{SPLIT_FILES[split]}")
        splits[split] = read_split_file(path)
    short = [f"{s}: {len(splits[s])}" for s in splits if len(splits[s]) < MIN_SAMPLES_PER_SPLIT]
    if short:
        raise NotEnoughSamplesError(
            f"benchmark {benchmark} of export {manifest.export_id!r} has too few samples ({', '.join(short)}); "
            f"scoring needs at least {MIN_SAMPLES_PER_SPLIT} in the test split and in the training "
            "split (whose statistics z-score the targets)")
    predictions = parse_predictions(data, filename)
    test_ids = [s.id for s in splits["test"]]
    pred = align_predictions(predictions, test_ids, manifest.base)
    gold = np.array([s.targets for s in splits["test"]], dtype=np.float64)
    train = np.array([s.targets for s in splits["train"]], dtype=np.float64)
    score = score_predictions(gold, pred, train, base=manifest.base, resamples=resamples)
    axes = [[s.axes for s in splits[split]] for split in ("train", "test")]
    references = score_against_references(gold, pred, train, *axes, base=manifest.base, resamples=resamples)
    return ScoredFile(manifest.export_id, manifest.base, benchmark, hashlib.sha256(data).hexdigest(), score,
                      *references)


def check_name(name: str) -> str:
    """The submission's name, stripped; refused when empty, longer than :data:`MAX_NAME_CHARS`
    characters, or holding a control character.

    Examples:
        >>> check_name("  my model v2 ")
        'my model v2'
        >>> check_name("x" * 81)
        Traceback (most recent call last):
        ...
        ValueError: the name is longer than 80 characters
    """
    text = str(name).strip()
    if not text:
        raise ValueError("the submission needs a name")
    if len(text) > MAX_NAME_CHARS:
        raise ValueError(f"the name is longer than {MAX_NAME_CHARS} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError("the name holds a control character (a line break, a tab…)")
    return text


def submission_file_name(name: str, when: datetime) -> str:
    """``<UTC time>-<slug>.json`` of a submission: the name in lower-case letters and digits
    joined by '-' (at most 40 characters, "submission" when nothing is left).

    Examples:
        >>> submission_file_name("My Model — v2!", datetime(2026, 5, 1, 9, 30, tzinfo=timezone.utc))
        '20260501-093000-my-model-v2.json'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-") or "submission"
    return f"{when.astimezone(timezone.utc):%Y%m%d-%H%M%S}-{slug}.json"


def submission_record(scored: ScoredFile, *, name: str, submitted_by: str, file_name: str,
                      via: str, when: datetime) -> dict[str, Any]:
    """The JSON document kept for a scored file (module docstring).

    Examples:
        >>> from annotation.training.scoring import Figure
        >>> scored = ScoredFile("7", 1.1, 1, "ab" * 32, ModelScore({"mse": Figure(0.5)}, n_test=3))
        >>> record = submission_record(scored, name="m", submitted_by="lea", file_name="p.csv",
        ...                            via="app", when=datetime(2026, 5, 1, tzinfo=timezone.utc))
        >>> record["format"], record["export_id"], record["submitted_at"], record["score"]["n_test"]
        ('chronocept-score/1', '7', '2026-05-01T00:00:00+00:00', 3)
    """
    return {"format": SUBMISSION_FORMAT, "name": check_name(name), "submitted_by": submitted_by,
            "via": via, "submitted_at": when.astimezone(timezone.utc).isoformat(timespec="seconds"),
            "file_name": file_name, "sha256": scored.sha256, "export_id": scored.export_id,
            "benchmark": scored.benchmark, "base": scored.base, "score": scored.score.to_dict()}


def write_submission(export_dir: str | Path, record: Mapping[str, Any]) -> Path:
    """Keep ``record`` as ``EXPORT/scores/<file name>``, written to a temporary file first and
    then linked into place, so a reader never sees half a document and a submission of the same
    name in the same second gets "-2", "-3"… instead of replacing it. Returns the path.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> record = {"name": "m", "submitted_at": "2026-05-01T00:00:00+00:00"}
        >>> [write_submission(folder, record).name for _ in range(2)]
        ['20260501-000000-m.json', '20260501-000000-m-2.json']
    """
    folder = Path(export_dir) / SCORES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stem = submission_file_name(str(record["name"]), datetime.fromisoformat(str(record["submitted_at"])))[:-5]
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".score.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=2, ensure_ascii=False, allow_nan=False)
        for attempt in range(1, 1000):
            path = folder / (f"{stem}.json" if attempt == 1 else f"{stem}-{attempt}.json")
            try:
                os.link(tmp, path)
                return path
            except FileExistsError:
                continue
        raise OSError(f"no free file name for {stem} in {folder}")
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_submissions(export_dir: str | Path, export_id: str,
                     benchmark: int | str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The kept submissions of export ``export_id`` (of ``benchmark`` when given), oldest first,
    and the names of the documents that could not be read. Documents of another export are left
    out silently (the folder was written again).

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = write_submission(folder, {"name": "m", "submitted_at": "2026-05-01T00:00:00+00:00",
        ...                               "export_id": "7", "benchmark": 1, "score": {"figures": {}}})
        >>> (folder / "scores" / "broken.json").write_text("{")
        1
        >>> kept, unreadable = read_submissions(folder, "7")
        >>> [r["name"] for r in kept], unreadable
        (['m'], ['broken.json'])
    """
    folder = Path(export_dir) / SCORES_FOLDER
    kept: list[dict[str, Any]] = []
    unreadable: list[str] = []
    if not folder.is_dir():
        return kept, unreadable
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict) or not isinstance(record.get("score"), dict):
                raise ValueError("not a kept submission")
            ModelScore.from_dict(record["score"])
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
            unreadable.append(path.name)
            continue
        if str(record.get("export_id")) != str(export_id):
            continue
        if benchmark is not None and record.get("benchmark") != benchmark:
            continue
        kept.append({**record, "file": path.name})
    # oldest first; of two in the same second, "-2" after the first
    kept.sort(key=lambda r: (str(r.get("submitted_at")), len(r["file"]), r["file"]))
    return kept, unreadable
