"""The Agreement page's parameter charts: points while they are few, a 2-D histogram beyond."""

from __future__ import annotations

import numpy as np

from ui.agreement_charts import SCATTER_POINTS, pairs_figure


def test_few_samples_are_drawn_as_svg_points_with_the_diagonal():
    fig = pairs_figure([1.0, 2.0, 3.0], [1.5, 2.0, 2.5], "ξ")
    [trace] = fig.data
    assert trace.type == "scatter" and list(trace.x) == [1.0, 2.0, 3.0]  # SVG, not scattergl
    [line] = fig.layout.shapes
    assert (line.x0, line.y0, line.x1, line.y1) == (1.0, 1.0, 3.0, 3.0)


def test_many_samples_are_counted_per_cell_not_drawn_one_by_one():
    rng = np.random.default_rng(1)
    first = rng.normal(50, 5, SCATTER_POINTS + 500).tolist()
    second = (np.array(first) + rng.normal(0, 1, len(first))).tolist()
    fig = pairs_figure(first, second, "ξ")
    [trace] = fig.data
    assert trace.type == "heatmap"
    z = np.asarray(trace.z, dtype=float)
    assert np.nansum(z) == len(first)        # every sample counted once
    assert np.isnan(z).any()                 # empty cells are blank, not a colour for zero
    assert len(trace.x) == len(trace.y) == 60
