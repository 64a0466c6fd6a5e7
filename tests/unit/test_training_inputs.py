"""Training inputs: the export loader and its errors, the synthetic export, configuration and
grids, encoders, the feature layout and its cache, the ablations, device choice and seeds."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from annotation.axes import EXPORT_KEYS
from annotation.training import (
    TrainingConfig,
    apply_ablation,
    load_split_records,
    read_manifest,
    write_synthetic_export,
)
from annotation.training.device import resolve_device, seed_everything
from annotation.training.encoders import HashingEncoder, TextEncoder, make_encoder
from annotation.training.errors import (
    BadConfigError,
    BadGridError,
    DeviceUnavailableError,
    ExportFormatError,
    ExportNotFoundError,
    NotEnoughSamplesError,
    TrainingInputError,
    UnknownModelError,
)
from annotation.training.features import FEATURE_ROWS, embed_splits
from annotation.training.grids import DEFAULT_GRIDS, check_grid, expand_grid

#: the training baselines on torch (the inner loop skips them: ./test.sh -m "not slow" tests/unit)
pytestmark = pytest.mark.slow


class CountingEncoder:
    """A HashingEncoder that counts the texts it is asked to encode."""

    def __init__(self, dim: int = 8) -> None:
        self.inner = HashingEncoder(dim=dim)
        self.calls = 0
        self.texts = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.encode(texts)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return write_synthetic_export(tmp_path_factory.mktemp("exp") / "e", 40, seed=3)


# --- export loader --------------------------------------------------------------------------

def test_synthetic_export_has_the_exporter_layout(export):
    manifest = read_manifest(export)
    assert manifest.export_id == "synthetic-3-40" and manifest.base == 1.1 and manifest.seed == 3
    splits = load_split_records(export, 1)
    assert [len(splits[s]) for s in ("train", "validation", "test")] == [28, 8, 4]
    line = (export / "benchmark_1" / "train.json").read_text().splitlines()[0]
    record = json.loads(line)
    assert list(record["axes"]) == list(EXPORT_KEYS)
    assert list(record["target_values"]) == ["location", "scale", "skewness"]
    sample = splits["train"][0]
    assert sample.id == record["_id"] and sample.parent_text == record["parent_text"]
    assert sample.axes == tuple(record["axes"][k] for k in EXPORT_KEYS)
    assert sample.targets[1] > 0
    assert (export / "benchmark_2" / "valid.json").read_text() == ""


def test_synthetic_location_follows_the_duration_word(tmp_path):
    folder = write_synthetic_export(tmp_path / "e", 200, seed=1, noise=0.0)
    samples = [s for split in load_split_records(folder, 1).values() for s in split]
    minutes = [s.targets[0] for s in samples if "minutes" in s.parent_text]
    years = [s.targets[0] for s in samples if " years" in s.parent_text]
    assert minutes and years and max(minutes) < min(years)


def test_missing_folder_and_non_export_are_clear_errors(tmp_path):
    with pytest.raises(ExportNotFoundError, match="does not exist"):
        load_split_records(tmp_path / "nowhere", 1)
    (tmp_path / "plain").mkdir()
    with pytest.raises(ExportNotFoundError, match="not a Chronocept export"):
        load_split_records(tmp_path / "plain", 1)
    assert issubclass(ExportNotFoundError, ValueError)


def test_malformed_line_names_file_and_line(tmp_path, export):
    folder = write_synthetic_export(tmp_path / "e", 12, seed=0)
    path = folder / "benchmark_1" / "valid.json"
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(ExportFormatError, match=r"valid\.json, line \d+"):
        load_split_records(folder, 1)


def test_non_positive_scale_is_rejected(tmp_path):
    folder = write_synthetic_export(tmp_path / "e", 12, seed=0)
    path = folder / "benchmark_1" / "test.json"
    record = json.loads(path.read_text().splitlines()[0])
    record["target_values"]["scale"] = 0
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(ExportFormatError, match="'scale' must be > 0"):
        load_split_records(folder, 1)


def test_benchmark_with_too_few_samples(export):
    with pytest.raises(NotEnoughSamplesError, match="train: 0"):
        load_split_records(export, 2)
    with pytest.raises(ExportFormatError, match="benchmark_3"):
        load_split_records(export, 3)


def test_export_without_manifest_uses_folder_name(tmp_path):
    folder = write_synthetic_export(tmp_path / "chronocept-release", 12, seed=0)
    (folder / "export.json").unlink()
    assert read_manifest(folder).export_id == "chronocept-release"


# --- configuration and grids ----------------------------------------------------------------

def test_config_round_trips_through_json_with_complete_grids():
    config = TrainingConfig(models=["linear", "svr"], encoder="hashing",
                            ablations=("none", "no_axes"), grids={"svr": {"C": [0.5, 2]}})
    assert config.models == ("linear", "svr")
    assert config.grids["svr"] == {"C": (0.5, 2.0), "epsilon": DEFAULT_GRIDS["svr"]["epsilon"]}
    assert config.grids["linear"] == DEFAULT_GRIDS["linear"]
    again = TrainingConfig.from_json(config.to_json())
    assert again == config


@pytest.mark.parametrize("kwargs, error, message", [
    ({"models": ("linear", "gpt")}, UnknownModelError, "unknown model 'gpt'"),
    ({"grids": {"svr": {"gamma": [1]}}}, BadGridError, "unknown parameter 'gamma'"),
    ({"grids": {"svr": {"C": []}}}, BadGridError, "has no values"),
    ({"grids": {"svr": {"C": [-1]}}}, BadGridError, "'C' values must each be a number > 0"),
    ({"grids": {"xgboost": {"max_depth": [2.5]}}}, BadGridError, "an integer > 0"),
    ({"grids": {"ffnn": {"dropout": [True]}}}, BadGridError, "dropout"),
    ({"grids": {"ffnn": "big"}}, BadGridError, "mapping"),
    ({"grids": {"nope": {}}}, UnknownModelError, "nope"),
    ({"ablations": ("none", "half")}, BadConfigError, "unknown ablation 'half'"),
    ({"encoder": "bert"}, BadConfigError, "unknown encoder 'bert'"),
    ({"device": "tpu"}, BadConfigError, "unknown device 'tpu'"),
    ({"max_epochs": 0}, BadConfigError, "max_epochs"),
    ({"models": ()}, BadConfigError, "at least one"),
    # issue 9: a benchmark the export cannot hold, and seeds out of range, were accepted
    ({"benchmark": 3}, BadConfigError, "benchmark must be 1 .* or 2"),
    ({"benchmark": 0}, BadConfigError, "benchmark must be 1"),
    ({"benchmark": True}, BadConfigError, "benchmark must be 1"),
    ({"benchmark": 1.0}, BadConfigError, "benchmark must be 1"),
    ({"seed": -1}, BadConfigError, "seed must be an integer from 0 to 4294967295"),
    ({"seed": 2**32}, BadConfigError, "seed must be an integer from 0"),
    ({"seed": 1.5}, BadConfigError, "seed must be an integer"),
    ({"max_epochs": -5}, BadConfigError, "max_epochs"),
    ({"patience": 0}, BadConfigError, "patience"),
])
def test_bad_settings_raise_clear_value_errors(kwargs, error, message):
    with pytest.raises(error, match=message) as info:
        TrainingConfig(**kwargs)
    assert isinstance(info.value, TrainingInputError) and isinstance(info.value, ValueError)


def test_config_from_json_rejects_unknown_keys():
    with pytest.raises(BadConfigError, match="epochs"):
        TrainingConfig.from_json('{"epochs": 3}')
    with pytest.raises(BadConfigError, match="not valid JSON"):
        TrainingConfig.from_json("{")


def test_grid_expansion():
    grid = check_grid("xgboost", {"max_depth": [2, 4], "learning_rate": 0.3})
    points = expand_grid(grid)
    assert len(points) == 2 * len(DEFAULT_GRIDS["xgboost"]["n_estimators"])
    assert {p["max_depth"] for p in points} == {2, 4}
    assert all(p["learning_rate"] == 0.3 for p in points)
    assert expand_grid(check_grid("mean")) == [{}]
    with pytest.raises(BadGridError, match="combinations"):
        check_grid("linear", {"alpha": list(range(1000))})


# --- encoders and features ------------------------------------------------------------------

def test_hashing_encoder_is_deterministic_and_normalised():
    a, b = HashingEncoder(dim=32), HashingEncoder(dim=32)
    texts = ["The shop is closed for days.", "", "every Friday", "the SHOP is closed for days"]
    va, vb = a.encode(texts), b.encode(texts)
    assert va.shape == (4, 32) and va.dtype == np.float32
    assert np.array_equal(va, vb)
    assert np.linalg.norm(va[0]) == pytest.approx(1.0, abs=1e-6)
    assert not va[1].any()                       # "" → the zero vector
    assert np.allclose(va[0], va[3])             # case and punctuation do not matter
    assert HashingEncoder(dim=32, seed=1).name != a.name
    assert isinstance(a, TextEncoder)
    with pytest.raises(BadConfigError):
        make_encoder("word2vec")


def test_feature_blocks_are_parent_text_then_the_eight_axes_in_order(export):
    splits = load_split_records(export, 1)
    encoder = HashingEncoder(dim=16)
    embedded = embed_splits(splits, encoder)
    assert FEATURE_ROWS == ("parent_text", *EXPORT_KEYS)
    for split, samples in splits.items():
        block = embedded.features[split]
        assert block.shape == (len(samples), 9, 16) and block.dtype == np.float32
        for i, sample in enumerate(samples):
            expected = encoder.encode([sample.parent_text, *sample.axes])
            assert np.array_equal(block[i], expected)
    empty = [(i, j) for i, s in enumerate(splits["train"]) for j, t in enumerate(s.axes) if not t]
    assert empty and all(not embedded.features["train"][i, j + 1].any() for i, j in empty)


def test_embedding_cache_hit_does_not_call_the_encoder(tmp_path, export):
    splits = load_split_records(export, 1)
    first = CountingEncoder()
    one = embed_splits(splits, first, cache_dir=tmp_path, export_id="e1")
    assert first.calls >= 1 and not one.cache_hit
    assert first.texts == one.n_unique_texts     # every distinct text embedded once
    assert len(list(tmp_path.glob("e1__hashing-8-seed0__*.npz"))) == 1

    second = CountingEncoder()
    two = embed_splits(splits, second, cache_dir=tmp_path, export_id="e1")
    assert second.calls == 0 and two.cache_hit
    for split in splits:
        assert np.array_equal(one.features[split], two.features[split])

    changed = dict(splits)
    changed["test"] = splits["test"][1:]
    third = CountingEncoder()
    embed_splits(changed, third, cache_dir=tmp_path, export_id="e1")
    assert third.calls >= 1                      # other content → other cache entry
    fourth = CountingEncoder(dim=4)
    embed_splits(splits, fourth, cache_dir=tmp_path, export_id="e1")
    assert fourth.calls >= 1                     # other encoder → other cache entry


# --- ablations --------------------------------------------------------------------------------

def _blocks(n: int = 6, d: int = 3) -> np.ndarray:
    return np.arange(n * 9 * d, dtype=np.float32).reshape(n, 9, d)


def test_no_axes_keeps_only_the_parent_text_row():
    blocks = _blocks()
    for split in ("train", "validation", "test"):
        out = apply_ablation(blocks, "no_axes", split=split)
        assert out.shape == (6, 1, 3)
        assert np.array_equal(out[:, 0], blocks[:, 0])


def test_shuffled_axes_permutes_each_training_sample_and_nothing_else():
    blocks = _blocks(n=50)
    original = blocks.copy()
    out = apply_ablation(blocks, "shuffled_axes", split="train", rng=np.random.default_rng(0))
    assert np.array_equal(blocks, original)                  # input untouched
    assert out.shape == blocks.shape
    assert np.array_equal(out[:, 0], blocks[:, 0])           # parent text stays first
    moved = 0
    for i in range(len(blocks)):
        rows_in = sorted(map(tuple, blocks[i, 1:]))
        rows_out = sorted(map(tuple, out[i, 1:]))
        assert rows_in == rows_out                           # same eight rows...
        moved += not np.array_equal(out[i, 1:], blocks[i, 1:])
    assert moved >= 45                                       # ...in a new order, per sample
    orders = {tuple(out[i, 1:, 0] - blocks[i, 0, 0]) for i in range(len(blocks))}
    assert len(orders) > 40                                  # permutations differ by sample
    for split in ("validation", "test"):
        assert np.array_equal(apply_ablation(blocks, "shuffled_axes", split=split), blocks)
    assert np.array_equal(apply_ablation(blocks, "none", split="train"), blocks)


# --- device and seeds ---------------------------------------------------------------------------

def test_auto_device_follows_cuda_availability(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"
    assert resolve_device("cuda") == "cuda"
    assert resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    with pytest.raises(DeviceUnavailableError, match="no CUDA device"):
        resolve_device("cuda")
    with pytest.raises(BadConfigError):
        resolve_device("gpu")


def test_seed_everything_fixes_python_numpy_and_torch(monkeypatch):
    seeded = []
    monkeypatch.setattr(torch.cuda, "manual_seed_all", lambda s: seeded.append(s))
    draws = []
    for _ in range(2):
        seed_everything(21)
        draws.append((random.random(), float(np.random.rand()), float(torch.rand(1))))
    assert draws[0] == draws[1]
    assert seeded and set(seeded) == {21}       # torch.manual_seed also seeds CUDA


@pytest.mark.parametrize("name, absurd, highest, lowest", [
    ("max_epochs", 10**12, 10_000, 1),
    ("patience", 10**12, 10_000, 1),
    ("batch_size", 10**12, 4_096, 1),
    ("torch_threads", 10**6, 256, 0),
])
def test_training_loop_settings_are_bounded(name, absurd, highest, lowest):
    """A setting a slip of the keyboard makes absurd (a worker busy for ages, a batch larger than
    memory, a million threads) is refused in one line; the bounds themselves are accepted."""
    with pytest.raises(BadConfigError) as info:
        TrainingConfig(**{name: absurd})
    message = str(info.value)
    assert message.startswith(f"{name} must be ") and f"up to {highest}, got {absurd}" in message
    assert "\n" not in message
    with pytest.raises(BadConfigError, match=f"up to {highest}, got {highest + 1}"):
        TrainingConfig(**{name: highest + 1})
    with pytest.raises(BadConfigError, match=f"got {lowest - 1}"):
        TrainingConfig(**{name: lowest - 1})
    assert getattr(TrainingConfig(**{name: highest}), name) == highest
    assert getattr(TrainingConfig(**{name: lowest}), name) == lowest
