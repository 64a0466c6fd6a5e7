"""Sign in with username and password (the form is :func:`ui.sign_in.sign_in_form`, also drawn
under any page's URL while signed out, so a deep link opens its page after sign-in)."""

from ui.sign_in import sign_in_form

sign_in_form()
