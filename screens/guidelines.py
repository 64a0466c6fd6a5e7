"""The annotation guidelines, as their own page."""

import streamlit as st

from ui.guidelines_view import show_guidelines
from ui.session import current_project, require_actor

actor = require_actor()
project = current_project(actor)
st.title("Guidelines")
# the version the open project annotates under (the one the workbench's header names)
show_guidelines(project.settings.guidelines_version if project is not None else None)
