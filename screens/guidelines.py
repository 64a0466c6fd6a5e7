"""The annotation guidelines, as their own page."""

import streamlit as st

from annotation.guidelines import current_guidelines
from ui.session import require_actor

require_actor()
guide = current_guidelines()
st.title("Guidelines")
st.caption(f"Guidelines version {guide.version}")
st.markdown(guide.text)
