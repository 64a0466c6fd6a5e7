"""``chronocept import texts|pairs|annotations``: the project's pool and existing work, from files.

* ``import texts FILE`` — texts (JSON Lines, CSV or plain text) into a single-texts project;
* ``import pairs FILE`` — context pairs (JSON Lines or CSV with ``target``, ``follow_up``, or the
  TVCP release's CSV) into a context-pairs project;
* ``import annotations FILE`` — interchange records into the project's samples; FILE may be an
  export folder, whose ``annotations`` config is imported (its values taken back to base 1.1).

``--project NAME`` names the project; the texts and pairs imports create it when it does not
exist (of their protocol), as part of the import itself, so a refused file leaves no empty
project behind. Without ``--project`` the only project is meant (or "Default project" is made
when there is none).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli.acting import acting_user, named_project_id, new_project_name
from cli.output import CliError
from db.engine import Database


def _file(args: argparse.Namespace) -> Path:
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"{path}: no such file")
    return path


def _target(db: Database, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The acting user, and the project to import into — or, when there is none of that name
    (or none at all), the name of the project the import creates. A dead import that was
    creating a project of that name is cleaned up first, so that project is either gone
    (created anew here) or finished (imported into); a dead import into any other project is
    left to the next import into that project."""
    from annotation.services.corpus import text_imports  # on use (LAZY)

    actor = acting_user(db, args.user)
    try:
        return actor, named_project_id(db, actor, args.project), None
    except CliError:
        new_project = new_project_name(db, actor, args.project)
    if text_imports.recover_import_creating(db, new_project):
        try:
            return actor, named_project_id(db, actor, args.project), None
        except CliError:
            pass  # rolled back with its project: this import creates it
    return actor, None, new_project


def cmd_import_texts(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.corpus import text_imports  # on use (LAZY)
    path = _file(args)
    text_imports.check_text_file_size(path.name, path.stat().st_size)  # before reading it
    actor, pid, new_project = _target(db, args)
    summary = text_imports.import_text_file(db, actor, pid, path.read_bytes(), path.name,
                                            default_benchmark=args.benchmark, new_project=new_project)
    return (f"imported {summary.added} texts ({summary.benchmark_counts[1]} benchmark 1, "
            f"{summary.benchmark_counts[2]} benchmark 2); {summary.already_present} already present")


def cmd_import_pairs(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.corpus import pair_imports, text_imports  # on use (LAZY)
    from annotation.wording import counted
    path = _file(args)
    text_imports.check_text_file_size(path.name, path.stat().st_size)  # before reading it
    actor, pid, new_project = _target(db, args)
    summary = pair_imports.import_pair_file(db, actor, pid, path.read_bytes(), path.name,
                                            new_project=new_project)
    return (f"imported {counted(summary.added, 'pair')} of {counted(summary.targets, 'target')}; "
            f"{summary.already_present} already present")


def _annotation_file(args: argparse.Namespace) -> tuple[bytes, str]:
    """The interchange file to import and its name in messages. An export folder gives its
    ``annotations`` config (lines counted through train, valid, test) in base 1.1; a split file
    of an export written in another base is refused, since its values would be read as base 1.1."""
    from annotation.export import ANNOTATIONS_CONFIG, MANIFEST_FILE, ExportError  # on use (LAZY)
    from annotation.export.reader import annotations_as_interchange, read_manifest
    from annotation.timeaxis import DEFAULT_BASE

    path = Path(args.file)
    try:
        if path.is_dir():
            return annotations_as_interchange(path), f"{path.name}/{ANNOTATIONS_CONFIG}"
        folder = path.parent.parent
        if path.parent.name == ANNOTATIONS_CONFIG and (folder / MANIFEST_FILE).is_file():
            base = read_manifest(folder).base
            if base != DEFAULT_BASE:
                raise CliError(f"{path} is part of an export written in log base {base:g}, and an import reads "
                               f"base {DEFAULT_BASE:g}: import the export folder ({folder}) instead, which "
                               "converts its values back")
    except ExportError as exc:
        raise CliError(str(exc)) from None
    return _file(args).read_bytes(), path.name


def cmd_import_annotations(db: Database, args: argparse.Namespace) -> str:
    from annotation.services.corpus import annotation_import  # on use (LAZY)

    data, source = _annotation_file(args)
    actor = acting_user(db, args.user)
    pid = named_project_id(db, actor, args.project)
    summary = annotation_import.import_annotations(db, actor, pid, data, source)
    made = f"; new (inactive) accounts: {', '.join(summary.new_accounts)}" if summary.new_accounts else ""
    return f"imported {summary.added} annotations; {summary.already_present} already present{made}"


def add_commands(sub) -> None:  # type: ignore[no-untyped-def]
    """``import`` and its three kinds, on the top-level subparsers ``sub``."""
    p = sub.add_parser("import", help="import texts, context pairs or annotations")
    isub = p.add_subparsers(dest="what", required=True)
    t = isub.add_parser("texts", help="import texts (JSON Lines, CSV or plain text)")
    t.add_argument("file")
    t.add_argument("--project", help="project name (created if missing)")
    t.add_argument("--benchmark", type=int, choices=(1, 2), help="benchmark of records without one")
    t.add_argument("--user", help="act as this user (default: the first admin)")
    t.set_defaults(func=cmd_import_texts)

    t = isub.add_parser("pairs", help="import context pairs (JSON Lines or CSV: target, follow_up; "
                                      "or the TVCP release's CSV)")
    t.add_argument("file")
    t.add_argument("--project", help="project name (created as a context-pairs project if missing)")
    t.add_argument("--user", help="act as this user (default: the first admin)")
    t.set_defaults(func=cmd_import_pairs)

    a = isub.add_parser("annotations", help="import annotations (interchange JSON Lines, or an export "
                                            "folder's annotations config)")
    a.add_argument("file", help="a JSON Lines file, or an export folder")
    a.add_argument("--project", help="project name (needed when there are several)")
    a.add_argument("--user", help="act as this user (default: the first admin)")
    a.set_defaults(func=cmd_import_annotations)
