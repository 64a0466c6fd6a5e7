"""Context pairs: the temporal-validity-change protocol (Wenzel & Jatowt, TVCP) with curves.

A pair is a *target statement* and a *follow-up statement*. The annotator draws the target's
validity curve alone, then given the follow-up; :mod:`.change` derives the change label from the
two curves and :mod:`.duration_classes` the TVCP duration class of each.
"""
