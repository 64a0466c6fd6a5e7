"""First run on an empty database: create the administrator, optionally load the demo project."""

from ui.first_run import first_run_form

first_run_form()
