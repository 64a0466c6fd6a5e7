"""The one policy: who may do what is said in annotation/services/policy.py and nowhere else.

The services call ``authorize(s, actor, Policy.X)``; no module spells a role to check one; every
action of the policy is used; the pages a role sees are read from the same actions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from annotation.services.authz import ROLES, Actor
from annotation.services.errors import PermissionDenied
from annotation.services.policy import ACTIONS, Action, Policy, allows, authorize_user
from db.models import User
from ui.navigation import PAGES

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "annotation" / "services" / "policy.py"
AUTHZ = ROOT / "annotation" / "services" / "authz.py"
#: the calls that check a role; only policy.py (and authz.py, which defines them) may call the
#: role-spelling ones
ROLE_CHECKS = {"require_role", "check_role", "has_role"}
POLICY_CHECKS = {"authorize", "authorize_user", "allows", "require_actor"}


def _sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("annotation", "ui", "screens", "cli", "db"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f not in (POLICY, AUTHZ)]


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            yield name, node


def test_no_module_checks_a_role_by_name():
    offences = []
    for path in _sources():
        for name, node in _calls(path):
            spelled = any(isinstance(a, ast.Constant) and a.value in ROLES for a in node.args)
            if name in ROLE_CHECKS or (name in POLICY_CHECKS and spelled):
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert not offences, "check a Policy action instead: " + ", ".join(offences)


def test_no_module_compares_a_role_to_a_literal():
    offences = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)
                    and node.left.attr == "role" and isinstance(node.left.value, ast.Name)
                    and node.left.value.id == "actor"):
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offences, "ask allows(actor, Policy.X) instead: " + ", ".join(offences)


def test_every_action_is_used():
    text = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    names = [name for name, value in vars(Policy).items() if isinstance(value, Action)]
    assert len(names) == len(ACTIONS)
    assert [n for n in names if f"Policy.{n}" not in text] == []


def test_the_pages_roles_come_from_the_policy():
    for spec in PAGES:
        assert spec.action in ACTIONS, spec.title
        assert spec.role == spec.action.role
    by_role = {role: [s.url_path for s in PAGES if allows(Actor(1, "x", role), s.action)] for role in ROLES}
    assert "users" in by_role["admin"] and "users" not in by_role["lead"]
    assert "review" in by_role["lead"] and "review" not in by_role["annotator"]
    assert set(by_role["annotator"]) <= set(by_role["lead"]) <= set(by_role["admin"])


def test_an_action_names_a_known_role():
    with pytest.raises(ValueError, match="unknown role"):
        Action("fly", "pilot")


@pytest.mark.parametrize("role, allowed", [("annotator", False), ("lead", True), ("admin", True)])
def test_authorize_refuses_as_require_role_did(role, allowed):
    user = User(id=1, username="u", role=role, is_active=True)
    if allowed:
        assert authorize_user(user, Policy.REVIEW) is user
    else:
        with pytest.raises(PermissionDenied, match="^This needs the lead role; you are signed in as annotator.$"):
            authorize_user(user, Policy.REVIEW)
    with pytest.raises(PermissionDenied, match="not active"):
        authorize_user(User(id=2, username="v", role="admin", is_active=False), Policy.ANNOTATE)
