"""``python -m cli``: the ``chronocept`` command (how the app starts a background job's worker)."""

import sys

from cli import main

sys.exit(main())
