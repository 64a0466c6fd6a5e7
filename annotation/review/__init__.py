"""What a lead reviews: the automatic flags and their reasons, the per-pair figures they measure,
the resolution of two annotations into gold (resolution, pooling), the lead's decisions and
edits (adjudication, lead_edit), sample disagreement and the daily review sample."""
