"""Custom Streamlit components (v2: inline HTML/CSS/JS, no build step, no iframes).

* :func:`token_boundary_editor` — segment a text by clicking between tokens.
* :func:`curve_canvas` — place, drag and remove the validity-curve points on the log-time chart.
* :func:`annotation_surface` — the whole workbench for one sample (segments, axes, curve, flag,
  submit), sending the annotator's edits as an ordered event log.
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
