"""Fixtures shared by the service tests: fast password hashing, a lead, projects with texts."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from service_helpers import text_records


@pytest.fixture(autouse=True)
def fast_password_hashing(request, monkeypatch):
    """Argon2id with minimal cost, so that creating users and signing in is cheap in tests.

    The hash is still Argon2id (same code paths, same ``$argon2id$`` format); only the cost
    parameters shrink. A test that requests ``real_kdf`` keeps the production hasher.
    """
    if "real_kdf" in request.fixturenames:
        return
    fast = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(accounts, "_hasher", fast)


@pytest.fixture
def real_kdf():
    """Marker fixture: keep the production Argon2 parameters for this test."""
    return accounts._hasher


@pytest.fixture
def lead(make_user):
    return make_user("lead1", "lead")


@pytest.fixture
def make_project(db, lead):
    """Factory: a project with ``n`` texts and optional settings changes; returns its id."""
    made = {"n": 0}

    def _make(n: int = 10, **settings) -> int:
        made["n"] += 1
        p = projects.create_project(db, lead, f"Project {made['n']}")
        if settings:
            projects.update_settings(db, lead, p.id, **settings)
        if n:
            text_imports.import_texts(db, lead, p.id, text_records(n))
        return p.id

    return _make
