"""The neural baselines (PyTorch) and their training loop with early stopping.

* :class:`FeedForwardRegressor` reads a sample's feature block (k, d) flattened to k·d numbers:
  ``hidden_layers`` × (Linear → ReLU → Dropout), then Linear → 3 outputs.
* :class:`BiLstmRegressor` reads the block as a sequence of k vectors of dimension d (k = 9:
  parent text, then the eight axes in fixed order; k = 1 without axes) with a bidirectional LSTM;
  the last layer's final forward and backward hidden states, concatenated, go through Dropout →
  Linear → 3 outputs.

:func:`train_network` trains either with Adam on mini-batches (MSE on z-scored targets), checks
the validation loss after every epoch, stops after ``patience`` epochs without a strict
improvement, and restores a deep copy of the best epoch's weights — so the returned network is
the best one seen, not the last one (early stopping as in Prechelt 1998, "Early stopping — but
when?").
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from torch import nn

from .errors import TrainingCancelled


@dataclass(frozen=True)
class NetworkSettings:
    """Training-loop settings shared by the neural baselines (epochs, patience in epochs,
    mini-batch size in samples)."""

    max_epochs: int = 100
    patience: int = 10
    batch_size: int = 32


@dataclass(frozen=True)
class EpochLoss:
    """Mean training loss (with dropout active) and validation loss after one epoch (MSE on
    z-scored targets)."""

    epoch: int
    train_loss: float
    valid_loss: float


@dataclass(frozen=True)
class NetworkFit:
    """Outcome of :func:`train_network`: the loss curve, the best epoch (1-based) and its
    validation loss, and whether patience ran out before ``max_epochs``."""

    history: tuple[EpochLoss, ...]
    best_epoch: int
    best_valid_loss: float
    stopped_early: bool


class FeedForwardRegressor(nn.Module):
    """MLP over the flattened (rows × dim) feature block → (ξ, ω, α) z-scores."""

    def __init__(self, rows: int, dim: int, hidden_size: int = 256, hidden_layers: int = 2,
                 dropout: float = 0.1, outputs: int = 3) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = rows * dim
        for _ in range(hidden_layers):
            layers += [nn.Linear(width, hidden_size), nn.ReLU(), nn.Dropout(dropout)]
            width = hidden_size
        layers.append(nn.Linear(width, outputs))
        self.net = nn.Sequential(*layers)

    def forward(self, blocks: torch.Tensor) -> torch.Tensor:
        return self.net(blocks.flatten(1))


class BiLstmRegressor(nn.Module):
    """Bidirectional LSTM over the sequence of embeddings → (ξ, ω, α) z-scores."""

    def __init__(self, dim: int, hidden_size: int = 128, num_layers: int = 1,
                 dropout: float = 0.1, outputs: int = 3) -> None:
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden_size, num_layers=num_layers, batch_first=True,
                            bidirectional=True, dropout=dropout if num_layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(2 * hidden_size, outputs)

    def forward(self, blocks: torch.Tensor) -> torch.Tensor:
        _, (hidden, _) = self.lstm(blocks)
        # hidden: (num_layers * 2, batch, hidden_size); the last two are the top layer's
        # forward (end of the sequence) and backward (start of the sequence) states
        top = torch.cat([hidden[-2], hidden[-1]], dim=1)
        return self.head(self.dropout(top))


def _tensor(array: np.ndarray, device: str) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(array), dtype=torch.float32, device=device)


def predict_network(module: nn.Module, blocks: np.ndarray, device: str,
                    batch_size: int = 1024) -> np.ndarray:
    """Predictions (n, 3) of ``module`` in eval mode, in batches, as float64 NumPy."""
    module.eval()
    outputs = []
    with torch.no_grad():
        for start in range(0, len(blocks), batch_size):
            outputs.append(module(_tensor(blocks[start:start + batch_size], device)).cpu().numpy())
    if not outputs:
        return np.zeros((0, 3))
    return np.concatenate(outputs).astype(np.float64)


def validation_loss(module: nn.Module, blocks: np.ndarray, targets: np.ndarray,
                    device: str) -> float:
    """MSE of ``module``'s predictions against ``targets``, over all samples and outputs."""
    return float(np.mean((predict_network(module, blocks, device) - targets) ** 2))


def train_network(module: nn.Module, train: tuple[np.ndarray, np.ndarray],
                  valid: tuple[np.ndarray, np.ndarray], *, settings: NetworkSettings,
                  learning_rate: float, weight_decay: float = 0.0, device: str = "cpu",
                  seed: int = 0, should_stop: Callable[[], bool] | None = None,
                  on_epoch: Callable[[EpochLoss], None] | None = None) -> NetworkFit:
    """Train ``module`` in place (moved to ``device``) and restore its best weights.

    ``train``/``valid`` are (feature blocks (n, k, d), z-scored targets (n, 3)). Mini-batches
    are reshuffled every epoch from a generator seeded with ``seed``. ``should_stop`` is
    checked before every epoch (raises :class:`TrainingCancelled`); ``on_epoch`` receives each
    epoch's losses. The best epoch is the one with the lowest validation loss (first one on
    ties); its ``state_dict`` is deep-copied when reached and loaded back at the end.
    """
    module.to(device)
    x_train, y_train = _tensor(train[0], device), _tensor(train[1], device)
    optimiser = torch.optim.Adam(module.parameters(), lr=learning_rate, weight_decay=weight_decay)
    loss_fn = nn.MSELoss()
    generator = torch.Generator().manual_seed(seed)
    n = len(x_train)
    batch = max(1, settings.batch_size)
    history: list[EpochLoss] = []
    best_loss, best_epoch, best_state = math.inf, 0, None
    since_best = 0
    for epoch in range(1, settings.max_epochs + 1):
        if should_stop is not None and should_stop():
            raise TrainingCancelled(f"cancelled before epoch {epoch}")
        module.train()
        order = torch.randperm(n, generator=generator).to(device)
        total = 0.0
        for start in range(0, n, batch):
            index = order[start:start + batch]
            optimiser.zero_grad()
            loss = loss_fn(module(x_train[index]), y_train[index])
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(index)
        valid_loss = validation_loss(module, valid[0], valid[1], device)
        record = EpochLoss(epoch=epoch, train_loss=total / max(n, 1), valid_loss=valid_loss)
        history.append(record)
        if on_epoch is not None:
            on_epoch(record)
        if valid_loss < best_loss:
            best_loss, best_epoch, since_best = valid_loss, epoch, 0
            best_state = copy.deepcopy(module.state_dict())
        else:
            since_best += 1
            if since_best >= settings.patience:
                break
    if best_state is not None:
        module.load_state_dict(best_state)
    else:   # every validation loss was NaN: keep the last weights and say so in the numbers
        best_epoch = len(history)
        best_loss = history[-1].valid_loss if history else math.nan
    return NetworkFit(history=tuple(history), best_epoch=best_epoch, best_valid_loss=best_loss,
                      stopped_early=len(history) < settings.max_epochs)
