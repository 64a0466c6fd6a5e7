"""Which pages there are, who may open them, and the navigation the app builds for a visitor.

Every page has a fixed URL path (``PAGES``; the Annotate page is ``/workbench``), so links and
bookmarks stay valid. Each ``st.navigation`` below registers *every* path, so that no URL of the
app meets Streamlit's "Page not found" dialog:

* signed out: the sign-in page, plus a hidden stand-in under each page's path that draws the
  sign-in form. A deep link (``/review``, ``/workbench?annotation=12``) keeps its URL while the
  visitor signs in; Streamlit's rerun after sign-in asks for the same page again (a page is
  identified by the hash of its URL path), so the real page opens with its query string.
* first run (no user yet): the Welcome page, plus the same stand-ins drawing the Welcome form;
  once the administrator exists and is signed in, the rerun opens the page the URL named.
* signed in: the pages the role allows, in the sidebar; each page it does not allow is a hidden
  stand-in that leaves a plain message and switches to the default page (My queue).

Streamlit serves its *default* page at ``/`` and answers the default page's own ``url_path`` with
"Page not found" (``/queue`` did, for every signed-in user). So no real page is the default: the
default is a hidden page at ``/`` that switches to My queue at ``/queue``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from annotation.services.authz import Actor
from annotation.services.policy import Action, Policy, allows
from ui.first_run import first_run_form
from ui.session import PAGE_NOTICE_KEY
from ui.sign_in import sign_in_form


@dataclass(frozen=True)
class PageSpec:
    """One page: its script, menu entry, URL path, the action (of the services' policy) whose
    role may open it and the sidebar section it is listed under."""

    script: str
    title: str
    icon: str
    url_path: str
    action: Action
    section: str
    default: bool = False

    @property
    def role(self) -> str:
        """The least role that may open the page: its action's."""
        return self.action.role


ANNOTATION, BACK_OFFICE, ACCOUNT = "Annotation", "Back office", "Account"

PAGES: tuple[PageSpec, ...] = (
    PageSpec("screens/queue.py", "My queue", ":material/list_alt:", "queue", Policy.ANNOTATE, ANNOTATION, default=True),
    PageSpec("screens/workbench.py", "Annotate", ":material/edit_note:", "workbench", Policy.ANNOTATE, ANNOTATION),
    PageSpec("screens/authoring.py", "Write follow-ups", ":material/edit_square:", "authoring", Policy.FOLLOW_UPS_WRITE, ANNOTATION),
    PageSpec("screens/feedback.py", "Feedback", ":material/reviews:", "feedback", Policy.OWN_FEEDBACK, ANNOTATION),
    PageSpec("screens/guidelines.py", "Guidelines", ":material/menu_book:", "guidelines", Policy.ANNOTATE, ANNOTATION),
    PageSpec("screens/projects.py", "Projects & texts", ":material/folder_open:", "projects", Policy.PROJECT_MANAGE, BACK_OFFICE),
    PageSpec("screens/duplicates.py", "De-duplication", ":material/content_copy:", "duplicates", Policy.DUPLICATES, BACK_OFFICE),
    PageSpec("screens/review.py", "Review", ":material/rate_review:", "review", Policy.REVIEW, BACK_OFFICE),
    PageSpec("screens/agreement.py", "Agreement", ":material/insights:", "agreement", Policy.QUALITY_READ, BACK_OFFICE),
    PageSpec("screens/warmup.py", "Warm-up & qualification", ":material/school:", "warmup", Policy.WARMUP_SET, BACK_OFFICE),
    PageSpec("screens/annotators.py", "Annotators", ":material/groups:", "annotators", Policy.QUALITY_READ, BACK_OFFICE),
    PageSpec("screens/export.py", "Export dataset", ":material/ios_share:", "export", Policy.EXPORT, BACK_OFFICE),
    PageSpec("screens/statistics.py", "Dataset statistics", ":material/bar_chart:", "statistics", Policy.EXPORT, BACK_OFFICE),
    PageSpec("screens/training.py", "Baseline training", ":material/model_training:", "training", Policy.JOBS_RUN, BACK_OFFICE),
    PageSpec("screens/users.py", "Users", ":material/admin_panel_settings:", "users", Policy.USERS_MANAGE, ACCOUNT),
    PageSpec("screens/account.py", "My account", ":material/person:", "account", Policy.OWN_ACCOUNT, ACCOUNT),
)

_DEFAULT = next(spec for spec in PAGES if spec.default)


def _sign_in_under(spec: PageSpec) -> Callable[[], None]:
    def sign_in_stand_in() -> None:
        sign_in_form(target=spec.title, default_title=_DEFAULT.title)

    return sign_in_stand_in


def signed_out_navigation() -> st.navigation:
    """The sign-in page at ``/`` and the form under every page's path. The stand-ins are hidden,
    so there is no menu; the default position (not ``"hidden"``) matters: with it Streamlit also
    closes the sidebar a signed-in run had opened when the visitor signs out."""
    pages = [st.Page("screens/login.py", title="Sign in", icon=":material/key:", default=True)]
    pages += [st.Page(_sign_in_under(spec), title="Sign in", icon=":material/key:",
                      url_path=spec.url_path, visibility="hidden") for spec in PAGES]
    return st.navigation(pages)


def first_run_navigation() -> st.navigation:
    """An empty database: the Welcome page at ``/`` and the Welcome form under every page's path
    (hidden, as the signed-out stand-ins)."""
    pages = [st.Page("screens/first_run.py", title="Welcome", icon=":material/waving_hand:", default=True)]
    pages += [st.Page(first_run_form, title="Welcome", icon=":material/waving_hand:",
                      url_path=spec.url_path, visibility="hidden") for spec in PAGES]
    return st.navigation(pages)


def _refusal(spec: PageSpec, actor: Actor, default: st.Page) -> Callable[[], None]:
    def not_for_this_role() -> None:
        st.session_state[PAGE_NOTICE_KEY] = (
            f"The page “{spec.title}” needs the {spec.role} role; you are signed in as "
            f"{actor.role}. Here is {default.title} instead.")
        st.switch_page(default)

    return not_for_this_role


#: the URL path of the hidden page at ``/`` (module docstring); no page of ``PAGES`` may take it
HOME_PATH = "start"


def _home(default: st.Page) -> Callable[[], None]:
    def start_page() -> None:
        st.switch_page(default)

    return start_page


def signed_in_navigation(actor: Actor) -> st.navigation:
    """The pages ``actor``'s role allows, by section, a hidden refusal under every other page's
    path, and the hidden page at ``/`` that opens the default page (module docstring)."""
    allowed = [spec for spec in PAGES if allows(actor, spec.action)]
    real = {spec.url_path: st.Page(spec.script, title=spec.title, icon=spec.icon, url_path=spec.url_path)
            for spec in allowed}
    default = next(real[spec.url_path] for spec in allowed if spec.default)
    sections: dict[str, list[st.Page]] = {}
    for spec in allowed:
        sections.setdefault(spec.section, []).append(real[spec.url_path])
    hidden = [st.Page(_refusal(spec, actor, default), title=spec.title, icon=spec.icon,
                      url_path=spec.url_path, visibility="hidden")
              for spec in PAGES if spec.url_path not in real]
    hidden.append(st.Page(_home(default), title=default.title, icon=default.icon, url_path=HOME_PATH,
                          default=True, visibility="hidden"))
    # hidden pages draw nothing in the menu; they join the last section
    sections[list(sections)[-1]].extend(hidden)
    return st.navigation(sections, expanded=True)
