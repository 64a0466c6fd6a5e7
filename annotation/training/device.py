"""Device choice and seeding for the baselines.

The preference is "auto" (CUDA when ``torch.cuda.is_available()``, else the CPU), "cpu" or
"cuda" (an error when no CUDA device is available, rather than a silent fallback). Seeds are
fixed for Python's ``random``, NumPy's global generator, torch and every CUDA device, and cuDNN
is put in deterministic mode, so a run can be reproduced from its seed.
"""

from __future__ import annotations

import random

import numpy as np

from .errors import BadConfigError, DeviceUnavailableError

DEVICE_PREFERENCES: tuple[str, ...] = ("auto", "cpu", "cuda")


def check_device_preference(preference: str) -> str:
    """``preference`` if it is one of :data:`DEVICE_PREFERENCES`, else :class:`BadConfigError`."""
    if preference not in DEVICE_PREFERENCES:
        raise BadConfigError(
            f"unknown device {preference!r}; expected one of {', '.join(DEVICE_PREFERENCES)}")
    return preference


def resolve_device(preference: str = "auto") -> str:
    """The device to train on, "cpu" or "cuda", for a preference "auto" | "cpu" | "cuda"."""
    import torch

    check_device_preference(preference)
    available = bool(torch.cuda.is_available())
    if preference == "cuda" and not available:
        raise DeviceUnavailableError(
            "device 'cuda' was requested but torch finds no CUDA device on this machine "
            "(use device 'auto' or 'cpu')")
    if preference == "auto":
        return "cuda" if available else "cpu"
    return preference


def seed_everything(seed: int) -> None:
    """Seed python ``random``, NumPy, torch and all CUDA devices; deterministic cuDNN."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)   # lazy: a no-op without CUDA
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
