"""Lead: an export's files taken away from the server — the folder as a zip (the dataset byte for
byte) and, for a context-pairs export, one CSV for a spreadsheet (every text cell neutralised).
Which of the two a file is decides whether its cells are neutralised
(:mod:`annotation.corpus.csv_safety`)."""

from __future__ import annotations

from annotation import export as hf_export
from annotation.services.authz import Actor
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.export.export_records import REPLACED, ExportRecord, get_export
from annotation.services.number_limits import checks_numbers
from db.engine import Database


@checks_numbers
def zip_of_export(db: Database, actor: Actor, export_id: int) -> bytes:
    """Lead: the export folder as a zip archive, for download — the dataset byte for byte, its
    texts exactly as written (its CSVs are not neutralised: :mod:`annotation.corpus.csv_safety`)."""
    return hf_export.zip_export(_downloadable(db, actor, export_id).path)


@checks_numbers
def spreadsheet_of_export(db: Database, actor: Actor, export_id: int) -> str:
    """Lead: a context-pairs export's pairs as one CSV for a spreadsheet, every text cell
    neutralised (:func:`annotation.export.reader.spreadsheet_csv`)."""
    record = _downloadable(db, actor, export_id)
    if not record.layout.spreadsheet:
        raise InvalidInput(f"Export {export_id} holds single texts: its records are JSON Lines, with no CSV.")
    return hf_export.spreadsheet_csv(record.path)


def _downloadable(db: Database, actor: Actor, export_id: int) -> ExportRecord:
    record = get_export(db, actor, export_id)
    if record.status == REPLACED:  # the folder is there, with another export's files
        raise NotFound(f"Export {export_id} was {record.status_text}; repeat it to download it.")
    if not record.folder_exists:
        raise NotFound(f"The folder of export {export_id} ({record.path}) is no longer on this server.")
    return record
