"""A value that comes from the URL is shown literally on every page that reads it.

``/review?case=[re-login](http://…)`` drew a live link on Review, and ``![i](http://…)`` made the
lead's browser fetch an outside image. The query parameters are not listed here: they are found
in the code — every read of ``st.query_params`` (``.get(NAME)``, ``[NAME]``, ``NAME in``) in
app.py, screens/ and ui/, NAME a string or a module-level string constant (its own or imported).
A page reads the parameters read by every module it imports, and by app.py's (which runs before
every page). Each page of the app gets, in each of its parameters, each hostile value; no element
that renders Markdown may then hold the value raw or render a link, an image or HTML from it, and
a page that shows the value shows it as typed. (The browser's view: tests/browser/test_literal_text.py.)
"""

from __future__ import annotations

import ast
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from annotation.services.corpus import demo_projects
from page_helpers import SPLIT_A, SPLIT_B, annotate, markdown_values, run, shown
from ui.navigation import PAGES
from ui.session import PROJECT_KEY

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCES = [REPO_ROOT / "app.py", *sorted((REPO_ROOT / "screens").glob("*.py")),
           *sorted((REPO_ROOT / "ui").rglob("*.py"))]
HOSTILE = ("[x](http://evil.example/)", "![i](http://evil.example/i.png)", "<img src=x onerror=alert(1)>",
           "**bold**", ":red[x]")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


TREES = {_module_name(p): ast.parse(p.read_text(), str(p)) for p in SOURCES}


def _constants(tree: ast.Module) -> dict[str, str]:
    return {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def _imports(module: str, tree: ast.Module) -> tuple[set[str], dict[str, tuple[str, str]]]:
    """The app's modules ``module`` imports, and each name it imports from one (its module and
    its name there)."""
    modules: set[str] = set()
    names: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names if alias.name in TREES}
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in TREES:  # from ui import pair_review_view: a module
                    modules.add(sub)
                elif node.module in TREES:
                    modules.add(node.module)
                    names[alias.asname or alias.name] = (node.module, alias.name)
    return modules, names


def _is_query_params(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "query_params"


def _read_names(tree: ast.Module) -> list[ast.expr]:
    """The expressions naming each query parameter the module reads (writes and deletes are
    not reads)."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_query_params(node.func.value):
            if node.func.attr in ("get", "get_all", "pop") and node.args:
                found.append(node.args[0])
        elif isinstance(node, ast.Subscript) and _is_query_params(node.value) and isinstance(node.ctx, ast.Load):
            found.append(node.slice)
        elif isinstance(node, ast.Compare) and any(_is_query_params(c) for c in node.comparators):
            found.append(node.left)
    return found


def _resolve(module: str, expr: ast.expr, names: dict[str, tuple[str, str]]) -> str:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name):
        own = _constants(TREES[module])
        if expr.id in own:
            return own[expr.id]
        if expr.id in names:
            there, name = names[expr.id]
            return _resolve(there, ast.Name(name), _imports(there, TREES[there])[1])
    raise AssertionError(f"{module}: a query parameter named by {ast.unparse(expr)!r}, which this test "
                         "cannot resolve to a string: name it with a module-level constant")


IMPORTS = {m: _imports(m, t) for m, t in TREES.items()}
READS = {m: {_resolve(m, e, IMPORTS[m][1]) for e in _read_names(t)} for m, t in TREES.items()}


def _closure(module: str) -> set[str]:
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += IMPORTS[m][0]
    return seen


def parameters_read_by(script: str) -> list[str]:
    """The query parameters the page ``script`` (``screens/x.py``) reads, app.py's included."""
    modules = _closure("app") | _closure(_module_name(REPO_ROOT / script))
    return sorted(set().union(*(READS[m] for m in modules)))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def markup_from(body: str) -> list[str]:
    """What CommonMark makes of ``body`` that a URL value must never become: a link or an image
    to evil.example, or an HTML tag of its own."""
    parser = _Tags()
    parser.feed(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(body))
    bad = []
    for tag, attrs in parser.found:
        if "evil" in (attrs.get("href") or "") + (attrs.get("src") or "") or "onerror" in attrs or tag == "img":
            bad.append(f"<{tag} {attrs}>")
    return bad


def test_the_query_parameters_are_found_in_the_code():
    everything = set().union(*READS.values())
    # the ones there are today: a page's own deep link and the project every page keeps
    assert {"case", "annotation", "project"} <= everything
    assert "case" in parameters_read_by("screens/review.py")
    assert "annotation" in parameters_read_by("screens/workbench.py")
    assert all("project" in parameters_read_by(spec.script) for spec in PAGES)


@pytest.fixture
def open_case(db, admin, pair):
    """The demo project with one open review case (ann_a and ann_b split B1-0001 differently), so
    Review gets as far as its deep link."""
    project = demo_projects.load_demo_project(db, admin)
    a, b = pair
    annotate(db, a, project.id, **SPLIT_A)
    annotate(db, b, project.id, **SPLIT_B)
    return admin


def test_every_url_value_a_page_reads_is_shown_literally(make_app, open_case):
    for script in (spec.script for spec in PAGES):
        params = parameters_read_by(script)
        at = make_app(open_case)
        at.switch_page(script)
        for value in HOSTILE:
            # as a new session opened by the link (the only one that reads its ?project=); each
            # parameter carries its own name, so a value shown says which parameter it came from
            at.session_state[PROJECT_KEY] = None
            at.query_params.update({p: f"{p}{value}" for p in params})
            run(at)
            bodies = markdown_values(at) + [e.label for e in at.get("expander")]
            for body in bodies:
                assert value not in body, f"{script}: {value!r} raw in {body!r}"
                assert not markup_from(body), f"{script}: {body!r} renders {markup_from(body)}"
            showing = {p for p in params if any(f"{p}{value}" in shown(b) for b in bodies)}
            assert "project" in showing, f"{script}: the link's project is not named ({value!r})"
            if script == "screens/review.py":
                assert "case" in showing, f"{script}: the case of the link is not named ({value!r})"
            if script == "screens/workbench.py":
                assert "annotation" in showing, f"{script}: the annotation asked for is not named ({value!r})"
