"""An annotator's quality: the warm-up qualification against gold, the ongoing gold checks, feedback
on settled work against the gold, and the annotators' statistics."""
