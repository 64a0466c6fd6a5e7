"""The rooms of the house: folders of modules that import one way, none of them crowded.

A *room* is a folder of modules that belong together: a package of the domain
(``annotation/review``), a room of the services (``annotation/services/quality``), ``cli``. A
module directly in ``annotation/`` (the shared vocabulary: ``content``, ``axes``, ``protocols``…)
or in ``annotation/services/`` (what every service room uses: ``authz``, ``rows``…) is a room of
its own, so the vocabulary may be imported from everywhere without tying the rooms above it
together. Two rooms that import each other (through any chain, an import inside a function
included: that is how a cycle hides) cannot be read, moved or tested apart, so the graph of
rooms has no cycle; neither has the graph of modules of the domain, the services and the CLI.
"""

from __future__ import annotations

from collections import defaultdict

from test_layers import REPO_ROOT, import_cycles, imports_of, module_name, project_sources

#: the most modules (``__init__`` not counted) one folder of code may hold
MAX_MODULES_PER_FOLDER = 15
#: the folders the limit holds for: the use cases' rooms and the command line (the domain's
#: rooms, ui/ and screens/ — one module per page — are not held to it yet)
ROOMED_ROOTS = ("annotation/services", "cli")


def room_of(module: str, packages: set[str]) -> str:
    """The room of ``module`` (a dotted name) given the set of package names.

    >>> packages = {"annotation", "annotation.review", "annotation.services", "annotation.services.quality", "cli"}
    >>> room_of("annotation.review.flags", packages), room_of("annotation.content", packages)
    ('annotation.review', 'annotation.content')
    >>> room_of("annotation.services.quality.experts", packages), room_of("annotation.services.rows", packages)
    ('annotation.services.quality', 'annotation.services.rows')
    >>> room_of("annotation.services.quality", packages), room_of("cli.output", packages)
    ('annotation.services.quality', 'cli')
    """
    if module in packages and module not in ("annotation", "annotation.services"):
        return module
    parent = module.rpartition(".")[0]
    if parent in ("annotation", "annotation.services") or not parent:
        return module
    return room_of(parent, packages)


def room_cycles(sources: dict[str, str]) -> list[str]:
    """The cycles among the rooms of ``sources`` (path → text), one line each with the imports
    that close it (the modules' own cycle finder run on one node per room)."""
    packages = {module_name(p) for p in sources if p.endswith("__init__.py")}
    modules = {module_name(p) for p in sources}
    by_room: dict[str, list[str]] = defaultdict(list)
    for path, source in sources.items():
        me = room_of(module_name(path), packages)
        for imp in imports_of(path, source):
            for name in imp.modules:
                if name in modules:
                    target = room_of(name, packages)
                    if target != me:
                        by_room[me].append(f"from {target} import _  # {path}:{imp.line}")
    # one synthetic module per room: its imports are the rooms it reaches
    rooms = {f"{room.replace('.', '/')}.py": "\n".join(sorted(set(lines))) + "\n" for room, lines in by_room.items()}
    return import_cycles(rooms)


def test_the_rooms_import_one_way():
    cycles = room_cycles(project_sources("annotation", "cli"))
    assert not cycles, "rooms that import each other:\n" + "\n".join(cycles)


def test_the_domain_services_and_cli_have_no_module_cycle():
    cycles = import_cycles(project_sources("annotation", "cli"))
    assert not cycles, "\n".join(cycles)


def test_no_folder_of_code_is_crowded():
    crowded = []
    for root in ROOMED_ROOTS:
        for folder in sorted({p.parent for p in (REPO_ROOT / root).rglob("*.py")}):
            rel = folder.relative_to(REPO_ROOT).as_posix()
            n = sum(1 for p in folder.glob("*.py") if p.name != "__init__.py")
            if n > MAX_MODULES_PER_FOLDER:
                crowded.append(f"{rel}: {n} modules")
    assert not crowded, f"folders over {MAX_MODULES_PER_FOLDER} modules: {crowded}"


def test_the_room_checker_finds_a_cycle_through_a_function_level_import():
    sources = {
        "annotation/services/__init__.py": "",
        "annotation/services/corpus/__init__.py": "",
        "annotation/services/corpus/imports.py": "from annotation.services.projects.projects import add\n",
        "annotation/services/projects/__init__.py": "",
        "annotation/services/projects/projects.py": "def demo():\n    from annotation.services.corpus import imports\n",
    }
    cycles = room_cycles(sources)
    assert len(cycles) == 1 and "annotation.services.corpus" in cycles[0] and "annotation.services.projects" in cycles[0]
    sources["annotation/services/projects/projects.py"] = "def demo():\n    return 1\n"
    assert room_cycles(sources) == []
