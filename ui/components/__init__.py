"""Custom Streamlit components (v2: HTML/CSS/JS handed over as text, no build step, no iframes).

Each component's browser code is in the ``.js`` / ``.css`` files beside its module, read once at
import (:mod:`ui.components.sources`); the code several components share (the delivery of user
actions, the teardown rule) is one file, put in front of each component's own code.

* :func:`token_boundary_editor` — segment a text by clicking between tokens.
* :func:`curve_canvas` — place, drag and remove the validity-curve points on the log-time chart.
* :func:`annotation_surface` — the whole workbench for one sample (segments, axes, curve, flag,
  submit), sending the annotator's edits as an ordered event log.
* ``ui.components.case_top.case_top`` — open a new review case at the top of the page (nothing
  visible; imported from its module by the Review page).
* ``ui.components.session_cookie.session_cookie`` — write or clear the sign-in cookie (nothing
  visible; imported from its module by ``ui.session``).

Keyboard shortcuts need no component: Streamlit 1.67's ``st.button(..., shortcut="Alt+Right")``
binds a key combination to a button natively (it shows the keys on the button, prevents the
browser default such as Alt+Left = "back", and ignores plain keys while the focus is in a text
field, but fires combinations with Ctrl/Cmd/Alt there too).
"""

from ui.components.annotation_surface import annotation_surface
from ui.components.curve_canvas import curve_canvas
from ui.components.token_boundaries import token_boundary_editor

__all__ = ["annotation_surface", "curve_canvas", "token_boundary_editor"]
