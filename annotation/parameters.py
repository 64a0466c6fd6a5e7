"""The validity curve's three parameters — their names, symbols and labels, defined once.

Examples:
    >>> PARAMETERS
    ('xi', 'omega', 'alpha')
    >>> " · ".join(PARAMETER_LABELS[p] for p in PARAMETERS)
    'ξ location · ω scale · α skew'
"""

from __future__ import annotations

from typing import Mapping

#: The skew-normal's location, scale and shape, in this order everywhere (tables, exports, sums).
PARAMETERS: tuple[str, ...] = ("xi", "omega", "alpha")
#: The Greek letter each is written with.
PARAMETER_SYMBOLS: Mapping[str, str] = {"xi": "ξ", "omega": "ω", "alpha": "α"}
#: The letter and what it means, for headings.
PARAMETER_LABELS: Mapping[str, str] = {"xi": "ξ location", "omega": "ω scale", "alpha": "α skew"}
