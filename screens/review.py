"""Lead: the review queue and the adjudication of one sample (SPEC section 5).

The queue lists open review items oldest first (or newest first, or by W1 or Pk between the
annotations, largest first); the open case shows every annotation side by side (segments coloured
by axis, axis table, flags, curve parameters), one chart with all curves, the automatic proposal
(mean) and the pooled one (refitted linear pool; marked when one curve stands for two far peaks),
and the decisions, each with the lead's confidence and error type. A decision is one service
call (``review.decide``) storing who, when and why; the next item then opens at its top
(:mod:`ui.components.case_top`: Streamlit keeps the scroll position of the decision buttons).

Only identities and the lead's unsaved edit live in ``st.session_state``, under ``review.*``
(per item: ``review.<item id>.*``); decisions and gold live in the database.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.wording import counted, signed, time_spent
from annotation.text_limits import NOTE_MAX_CHARS
from annotation.review.adjudication import CONFIDENCE_LEVELS, DECISIONS, ERROR_TYPES
from annotation.flag_reasons import FLAG_CODES, flag_label
from annotation.review.gold_rules import several_axes_problem
from annotation.review.lead_edit import LeadEdit
from annotation.parameters import PARAMETER_SYMBOLS, PARAMETERS
from annotation.review.sample_disagreement import can_be_taken, default_choice, sample_disagreement
from annotation.quality.weighted_gold import pooling_label
from annotation.segmentation import segment_texts, spaces_after, token_texts
from annotation.services.review import review
from annotation.services.errors import ServiceError
from annotation.timeaxis import X_MAX, tick_positions
from ui.components import curve_canvas, token_boundary_editor
from ui.components.case_top import case_top
from ui.display import axis_color, axis_label, curve_description, curve_polyline, plain
from ui.segment_editor import multi_axis_label, parameter_inputs, segment_axes_editor
from ui.session import lead_page, service_errors, toast_next_run
from ui.review_picker import K_ASKED, K_NEXT, case_controls, choose_case
from ui.model_loop_view import model_curve_lines, model_disagrees_panel
from ui import clicks
from ui.protocols import views_of
from ui.tables import show_table

K_FLASH = "review.flash"          # toast to show on the next run
# The Decision control keeps one key whatever case is open (a key that followed the case made a
# new widget at every case change, and a click on the control still on screen while the page
# drew the new case went to a widget the next run no longer had: the click was lost). Each case
# starts from its own default decision (Accept; Edit where the annotators share no boundary): the control is set back to it when the case it was last
# drawn for (K_ACTION_FOR) is no longer the open one — unless the lead chose since that draw
# (K_ACTION_CHOSEN, set by the control's own callback): a choice made while the page redraws is
# the lead's, for the case they see next. Which case is open: ui.review_picker.
K_ACTION = "review.action"        # the Decision control (Accept, Take a version, …)
K_ACTION_FOR = "review.action_for"
K_ACTION_CHOSEN = "review.action_chosen"
K_SORT = "review.sort"            # the queue's order
ALL = "__all__"
REASONS = (*FLAG_CODES, review.DAILY_REVIEW)

#: Annotator colours: (markdown colour name, hex of the chart line). No blue: the proposal is
#: drawn in the theme's primary colour (blue); no red, which reads as an error; no teal (pooled).
ANNOTATOR_COLORS = (("orange", "#ff8700"), ("violet", "#803df5"), ("green", "#21c354"),
                    ("gray", "#808495"))
POOLED_COLOR = "#0d9488"
SORT_LABELS = {"oldest": "Oldest first", "newest": "Newest first", "w1": "Largest W1 first",
               "pk": "Largest Pk first"}

#: The Decision box's options and the history's words, from the one table of decisions.
ACTIONS = {d.choice: d.choice_label for d in DECISIONS}
DECISION_LABELS = {"review opened": "Review opened", **{d.name: d.done_label for d in DECISIONS}}

actor, db, project = lead_page("Review", flash_key=K_FLASH)


# --- the queue -------------------------------------------------------------------------------

model_disagrees_panel(db, actor, project.id, next_pick_key=K_NEXT,
                      reset={"review.filter.reason": ALL, "review.filter.benchmark": ALL,
                             "review.filter.annotator": ALL})

order = st.session_state.get(K_SORT, "oldest")
with service_errors():
    everything = review.review_queue(db, actor, project.id, sort=order)

if not everything:
    st.success("Nothing to review in this project right now.", icon=":material/task_alt:")
    st.caption("Flagged samples and the daily review sample appear here, oldest first.")
    clicks.say_unanswered()
    st.stop()

reason_counts = {code: sum(code in r.reasons for r in everything) for code in REASONS}
annotator_names = sorted({name for r in everything for name in r.annotators})

f_reason, f_bench, f_ann, f_sort = st.columns([2, 1, 1, 1])
reason = f_reason.selectbox(
    "Reason", [ALL, *REASONS], key="review.filter.reason",
    format_func=lambda c: "All reasons" if c == ALL else f"{review.reason_label(c)} ({reason_counts[c]})")
benchmark = f_bench.selectbox("Benchmark", [ALL, 1, 2], key="review.filter.benchmark",
                              format_func=lambda b: "All" if b == ALL else f"Benchmark {b}")
annotator = f_ann.selectbox("Annotator", [ALL, *annotator_names], key="review.filter.annotator",
                            format_func=lambda a: "All" if a == ALL else a)
f_sort.selectbox("Order", list(review.SORTS), key=K_SORT, format_func=SORT_LABELS.__getitem__,
                 help="W1: how far apart the two furthest curves are; Pk: the two furthest segmentations.")

filtered = reason != ALL or benchmark != ALL or annotator != ALL
rows = review.filter_rows(everything, reason=None if reason == ALL else reason,
                          benchmark=None if benchmark == ALL else benchmark,
                          annotator=None if annotator == ALL else annotator) if filtered else everything

n_all = len(everything)
in_order = SORT_LABELS[order][0].lower() + SORT_LABELS[order][1:]
st.caption(f"**{len(rows)}** of {n_all} open item{'s' if n_all != 1 else ''} · {in_order}"
           if filtered else f"**{n_all}** open item{'s' if n_all != 1 else ''} · {in_order}")
if not rows:
    st.info("Nothing to review with these filters.", icon=":material/filter_alt_off:")
    clicks.say_unanswered()
    st.stop()

ids = [r.item_id for r in rows]
by_id = {r.item_id: r for r in rows}
pick: int = choose_case(rows, everything, order)


def _reasons_text(codes) -> str:  # type: ignore[no-untyped-def]
    return ", ".join(review.reason_label(c) for c in codes)


head = case_controls(rows, pick, _reasons_text)
with service_errors():
    case = review.open_case(db, actor, pick)
views = views_of(project.settings)  # the protocol's part of the case (a pair's follow-up, its change)
case_top(case.item_id, key="review.case_top")  # a new case opens at the top of the page
row = by_id[pick]
head.markdown(f"### Sample {plain(case.external_id)}")
head.caption(" · ".join([f"Benchmark {case.benchmark}", counted(len(case.versions), "annotation"),
                         *([f"W1 {row.w1:.1f} (×{1.1 ** row.w1:.1f})"] if row.w1 is not None else []),
                         *([f"Pk {row.pk:.2f}"] if row.pk is not None else []),
                         *views.head_figures(case),
                         f"review opened {row.opened_at:%Y-%m-%d %H:%M} UTC"]))

# --- the case -------------------------------------------------------------------------------

P = f"review.{case.item_id}"  # session-state namespace of this item
CASE = plain(case.external_id)  # every decision button names the case it decides
tokens = token_texts(case.parent_text)
spaces = spaces_after(case.parent_text)
versions = case.versions
names = {v.annotation_id: v.annotator for v in versions}
palette = {v.annotation_id: ANNOTATOR_COLORS[i % len(ANNOTATOR_COLORS)] for i, v in enumerate(versions)}
later = ids[ids.index(pick) + 1:] + ids[:ids.index(pick)][::-1]
next_id = later[0] if later else None


def _params_line(xi, omega, alpha, rmse=None) -> str:  # type: ignore[no-untyped-def]
    if None in (xi, omega, alpha):
        return "no curve"
    line = " · ".join(f"{PARAMETER_SYMBOLS[p]} **{signed(v)}**" for p, v in zip(PARAMETERS, (xi, omega, alpha)))
    return line + (f" · RMSE {rmse:.3f}" if rmse is not None else "")


# Per-sample agreement without the agreement module: shared boundaries and parameter gaps.
disagreement = sample_disagreement({v.annotation_id: v.content for v in versions}, case.n_tokens)
segs = disagreement.segmentations
why_col, figures_col = st.columns([3, 2])
with why_col, st.container(border=True):  # why the sample is here
    detailed = set()
    for d in case.details:
        code = d.get("code", "")
        detailed.add(code)
        who = [names[a] for a in d.get("annotation_ids") or [] if a in names]
        by = f" · {', '.join(plain(w) for w in who)}" if who else ""
        text = f" — {plain(str(d.get('detail') or ''))}" if d.get("detail") else ""
        st.markdown(f":material/flag: **{plain(review.reason_label(code))}**{text}{by}")
    for code in case.reasons:
        if code not in detailed:
            st.markdown(f":material/flag: **{plain(review.reason_label(code))}**")
    if disagreement.unshared:  # boundaries placed by some only, named by the word they come before
        st.caption("Boundaries not shared: " + "; ".join(
            f"before “{plain(tokens[b])}” ({', '.join(plain(names[aid]) for aid in who)})"
            for b, who in disagreement.unshared))

shared, placed = disagreement.shared, disagreement.placed
with figures_col:
    top = st.columns(2)
    bottom = st.columns(2)
    top[0].metric("Shared boundaries", f"{len(shared)} of {len(placed)}" if placed else "none used",
                  help="Segment boundaries every annotator placed, of all boundaries anyone placed.")
    for col, name in zip((top[1], bottom[0], bottom[1]), PARAMETERS):
        gap = disagreement.spread[name]
        col.metric(f"|Δ{PARAMETER_SYMBOLS[name]}|", "—" if gap is None else f"{gap:.2f}",
                   help="Largest difference between two annotators' values.")

views.sample_facts(case, versions)  # a context pair: the follow-up, the lead's facts, the two curves

# The annotations side by side
columns = st.columns(len(versions)) if versions else []
for col, v in zip(columns, versions):
    c = v.content
    md_color, _ = palette[v.annotation_id]
    with col, st.container(border=True):
        spent = f" · {time_spent(v.seconds_spent)}" if v.seconds_spent else ""
        st.markdown(f":{md_color}[●] **{plain(v.annotator)}** :gray[· "
                    + (f"submitted {v.submitted_at:%Y-%m-%d %H:%M} UTC" if v.submitted_at else "not submitted")
                    + f"{spent}]")
        token_boundary_editor(tokens, spaces, list(c.boundaries),
                              segment_colors=[axis_color(a) for a in c.segment_axes],
                              segment_labels=[axis_label(a) for a in c.segment_axes],
                              key=f"{P}.v{v.annotation_id}.text", disabled=True)
        seg = segs[v.annotation_id]
        if seg is not None and len(c.segment_axes) == seg.n_segments:
            # folded (a case fits in about 1.5 screens); st.table renders Markdown in its cells:
            # escaped, the segments read literally
            with st.expander("Segments and axes"):
                st.table(pd.DataFrame({"segment": [plain(t) for t in segment_texts(case.parent_text, seg)],
                                       "axis": [axis_label(a) for a in c.segment_axes]}),
                         hide_index=True, border="horizontal")
        elif case.segmented:
            st.caption("Segmentation unfinished.")
        if c.flags:
            st.warning("Flagged: " + ", ".join(flag_label(f) for f in c.flags)
                       + (f" — {plain(c.note)}" if c.note else ""), icon=":material/flag:")
        elif c.note:
            st.caption(f"Note: {plain(c.note)}")
        st.markdown(_params_line(c.xi, c.omega, c.alpha, c.rmse))
        if c.has_parameters:
            st.caption(curve_description(c.xi, c.omega, c.alpha))


def _annotator_curves() -> list[dict]:
    curves = []
    for v in versions:
        line = curve_polyline(v.content.xi, v.content.omega, v.content.alpha)
        if line:
            curves.append({"points": line, "color": palette[v.annotation_id][1],
                           "label": v.annotator, "dash": True})
    return curves


# One chart with every curve and the proposals beside it (pooled: marked over W1 2 from its pool)
proposal, pooled = case.proposal, case.pooled
pooled_label = "Pooled (teal; one curve for two far peaks)" if (case.pooled_fit_w1 or 0) > 2 else "Pooled (teal)"


def _pooled_curve() -> list[dict]:
    line = curve_polyline(pooled.xi, pooled.omega, pooled.alpha) if pooled else None
    return [{"points": line, "color": POOLED_COLOR, "label": "pooled resolution"}] if line else []


chart_col, proposal_col = st.columns(2)
with chart_col:
    st.markdown("**Validity curves**")
    curve_canvas([], curve=curve_polyline(proposal.xi, proposal.omega, proposal.alpha) if proposal else None,
                 extra_curves=_annotator_curves() + _pooled_curve() + model_curve_lines(
                     db, actor, case.sample_id, allowed=project.settings.show_model_curve, key=f"{P}.model_curve"),
                 ticks=tick_positions(), x_max=X_MAX,
                 key=f"{P}.chart", height=230, disabled=True, curve_label="mean resolution")
    views.second_chart(case, {v.annotation_id: palette[v.annotation_id][1] for v in versions},
                       key=f"{P}.given_chart")
with proposal_col:
    st.markdown("**Proposed resolution** · union of boundaries and axes")
    if proposal is None:
        st.info("No automatic proposal: no annotation of this sample is complete.")
    else:
        token_boundary_editor(tokens, spaces, list(proposal.boundaries),
                              segment_colors=[axis_color(a[0] if a else None) for a in proposal.segment_axes],
                              segment_labels=[multi_axis_label(a) for a in proposal.segment_axes],
                              key=f"{P}.proposal", disabled=True)
    for label, res in ((pooling_label(proposal) if proposal else "", proposal), (pooled_label, pooled)):
        if res is not None and res.has_parameters:
            st.markdown(f"{label} · " + _params_line(res.xi, res.omega, res.alpha) + "  \n:gray["
                        + plain(curve_description(res.xi, res.omega, res.alpha)) + "]")


# --- decisions --------------------------------------------------------------------------------

def _forget_item() -> None:
    for k in [k for k in st.session_state if isinstance(k, str) and k.startswith(P + ".")]:
        del st.session_state[k]


K_CONFIDENCE, K_ERROR, K_CHANGE = f"{P}.confidence", f"{P}.error_type", f"{P}.change"


def _decide(decision: str, message: str, note_key: str, **extra) -> None:  # type: ignore[no-untyped-def]
    """One decision through the service; on success toast it and open the next item."""
    extra.update(views.decision_values(case, decision, st.session_state.get(K_CHANGE)))
    try:
        review.decide(db, actor, case.item_id, decision, note=st.session_state.get(note_key, ""),
                      confidence=st.session_state.get(K_CONFIDENCE),
                      error_type=st.session_state.get(K_ERROR), **extra)
    except ServiceError as exc:
        st.error(plain(exc))
        return
    _forget_item()
    st.session_state[K_NEXT] = next_id
    toast_next_run(K_FLASH, f"{case.external_id}: {message}")
    st.rerun()


def _note(action: str, placeholder: str) -> str:
    st.text_area("Note — the sample's annotators read it on their Feedback page (name no one)",
                 key=(key := f"{P}.note.{action}"), max_chars=NOTE_MAX_CHARS, height=68, placeholder=placeholder)
    return key


def _chose_action() -> None:
    st.session_state[K_ACTION_CHOSEN] = True


opening = default_choice(disagreement, proposal)  # "edit" where no boundary is shared or axes differ
if not st.session_state.pop(K_ACTION_CHOSEN, False) and st.session_state.get(K_ACTION_FOR) != case.item_id:
    st.session_state[K_ACTION] = opening
st.session_state[K_ACTION_FOR] = case.item_id
action = st.segmented_control("Decision", list(ACTIONS), format_func=ACTIONS.__getitem__,
                              required=True, key=K_ACTION, on_change=_chose_action)
conf_col, error_col = st.columns([2, 3])
conf_col.segmented_control("Your confidence", CONFIDENCE_LEVELS, key=K_CONFIDENCE,
                           help="Required with every decision: 1 a guess … 5 certain.")
error_col.segmented_control("Error type", list(ERROR_TYPES), format_func=ERROR_TYPES.__getitem__,
                            key=K_ERROR, help="Required with every decision: why the annotators "
                            "disagreed, or what you found.")
views.decision_box(case, K_CHANGE)


def _why(action: str, optional: str, edit_now: LeadEdit | None = None) -> str:
    """The note of ``action``, required (and said so) where the change label it would store is a
    lead override of the decision's gold curves."""
    override = views.note_required(case, action, st.session_state.get(K_CHANGE), edit_now)
    return _note(action, "Required: why the change label overrides the curves" if override else optional)


two_axes = several_axes_problem(proposal) if proposal is not None else None
_said = (two_axes or "").removeprefix("Not stored: ")
two_axes_said = _said[:1].upper() + _said[1:]  # a sentence of its own: "Tokens 5–6 carry two axes …"

if action == "accept":
    st.caption("Store the proposed resolution above as gold.")
    if two_axes:
        st.warning(plain(two_axes_said), icon=":material/rule:")
    note_key = _why("accept", "Optional: why")
    usable = proposal is not None and proposal.has_parameters and not two_axes
    if clicks.button(st, f"Accept the automatic resolution of {CASE}", type="primary", icon=":material/check:",
                     view=K_ASKED, key=f"{P}.do.accept", disabled=not usable,
                     help=None if usable else plain(two_axes) if two_axes else
                     "No complete proposal: edit it, send it back or discard it."):
        _decide("accept_auto", "accepted the automatic resolution", note_key)

elif action == "pooled":
    st.caption("Store the union of boundaries and axes with the pooled curve (teal on the chart) as gold.")
    if two_axes:
        st.warning(plain(two_axes_said), icon=":material/rule:")
    note_key = _why("pooled", "Optional: why")
    if clicks.button(st, f"Accept the pooled resolution of {CASE}", type="primary", icon=":material/join:",
                     view=K_ASKED, key=f"{P}.do.pooled", disabled=pooled is None or bool(two_axes),
                     help=plain(two_axes) if two_axes else None if pooled else
                     "No curve to pool: edit the resolution, send it back or discard it."):
        _decide("accept_pooled", "accepted the pooled resolution", note_key)

elif action == "take":
    st.caption("Store one annotator's segmentation, axes and curve as gold.")
    note_key = _why("take", "Optional: why this version")
    buttons = st.columns(max(len(versions), 1))
    for col, v in zip(buttons, versions):
        complete = can_be_taken(v.content)
        if clicks.button(col, f"Take {plain(v.annotator)}'s version of {CASE}", view=K_ASKED,
                         key=f"{P}.do.take.{v.annotation_id}", icon=":material/how_to_reg:", width="stretch",
                         disabled=not complete,
                         help=None if complete else "This annotation is unfinished."):
            _decide("take_version", f"took {v.annotator}'s version", note_key,
                    annotation_id=v.annotation_id)

elif action == "send_back":
    st.caption("Both annotations return to their annotators as drafts, with your note.")
    note_key = _note("send_back", "Required: what the annotators should look at again")
    if clicks.button(st, f"Send {CASE} back to the annotators", type="primary", icon=":material/undo:",
                     view=K_ASKED, key=f"{P}.do.send_back"):
        _decide("send_back", "sent back to the annotators", note_key)

elif action == "discard":
    st.caption("The sample leaves the dataset (no gold). The history keeps your reason.")
    note_key = _note("discard", "Required: why the sample is discarded")

    @st.dialog("Discard this sample?")
    def _confirm_discard() -> None:
        st.write(f"**{plain(case.external_id)}** will leave the dataset; nobody annotates it again.")
        st.caption(f"Reason: {plain(st.session_state.get(note_key, ''))}")
        if clicks.button(st, f"Discard {CASE}", type="primary", view=K_ASKED, key=f"{P}.do.discard_confirm"):
            _decide("discard", "discarded", note_key)

    if clicks.button(st, f"Discard {CASE}…", icon=":material/delete:", view=K_ASKED, key=f"{P}.do.discard"):
        if not st.session_state.get(note_key, "").strip():
            st.error("Say why in the note: the annotators and the history show it.")
        else:
            _confirm_discard()

else:  # edit
    EDIT = f"{P}.edit"
    if placed and not shared:
        st.caption(f"No boundary is shared ({len(shared)} of {len(placed)}): the automatic resolution would keep "
                   "every boundary either annotator placed, a segmentation nobody drew — so this case opens "
                   "on Edit." + ("" if two_axes else " Accept stays available."))
    if two_axes:
        st.caption(plain(f"{two_axes_said} So this case opens on Edit."))

    if EDIT not in st.session_state:
        st.session_state[EDIT] = LeadEdit.from_proposal(proposal, case.n_tokens)
    edit: LeadEdit = st.session_state[EDIT]

    def _on_reset(state_key: str = EDIT) -> None:
        st.session_state.pop(state_key, None)

    st.caption("Start from the proposal: click between two words to add or remove a boundary, "
               "choose each segment's axis (one: where the proposal shows two, pick one), tune ξ, ω, α.")
    segment_axes_editor(case.parent_text, case.n_tokens, EDIT, text_key=f"{P}.edit_text",
                              axes_key_prefix=f"{P}.axes", slot="review.edit.shown")
    params_col, preview_col = st.columns([1, 2])
    with params_col:
        parameter_inputs(EDIT, P, slot="review.edit.shown")
        st.caption(curve_description(edit.xi, edit.omega, edit.alpha))
        st.button("Back to the proposal", key=f"{P}.edit_reset", on_click=_on_reset,
                  icon=":material/restart_alt:")
    with preview_col:
        curve_canvas([], curve=curve_polyline(edit.xi, edit.omega, edit.alpha),
                     extra_curves=_annotator_curves(), ticks=tick_positions(), x_max=X_MAX,
                     key=f"{P}.edit_chart", height=260, disabled=True, curve_label="edited resolution")
    note_key = _why("edit", "Optional: why", edit)
    if clicks.button(st, f"Save the edited resolution of {CASE}", type="primary", icon=":material/save:",
                     view=K_ASKED, key=f"{P}.do.edit"):
        _decide("edit", "stored the edited resolution", note_key, edit=edit)


clicks.say_unanswered()  # a decision button of a case no longer open: it did nothing

# --- history --------------------------------------------------------------------------------

with st.expander(f"History of this sample ({len(case.history)})"):
    show_table(pd.DataFrame([{
        "when": h["at"],
        "who": h["who"] or "automatic",
        "what": DECISION_LABELS.get(h["what"], h["what"]),
        "why": h["why"] or "",
        "confidence": h.get("confidence"),
        "error type": ERROR_TYPES.get(h.get("error_type") or "", ""),
    } for h in case.history]), hide_index=True, width="stretch", key=f"{P}.history",
        column_config={"when": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm")})
