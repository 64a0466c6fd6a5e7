"""First run on an empty database: create the administrator, optionally load the demo projects."""

from ui.first_run import first_run_form

first_run_form()
