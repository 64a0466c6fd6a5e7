#!/usr/bin/env bash
# Set up (the first time) and start Chronocept Studio: ./start.sh [streamlit options]
# Creates .venv when missing, installs the project, then runs `streamlit run app.py`.
# The database is $CHRONOCEPT_DATABASE_URL, by default ./data/chronocept.db (SQLite).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup.sh app
exec streamlit run app.py "$@"
