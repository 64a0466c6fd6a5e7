"""What an annotator does to one sample: the annotation's content (protocol), its edits as pure
functions (editing, curve_points, elicitation) and the event log the annotation surface sends
(event_log, event_batch, working_draft, edit_script)."""
