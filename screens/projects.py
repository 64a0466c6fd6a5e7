"""Lead: projects (each of a protocol: single texts or context pairs), importing texts or pairs
into the annotation pool, and the project's settings."""

import pandas as pd
import streamlit as st

from annotation.wording import counted
from annotation.services.model import model_loop
from annotation.services.projects import projects
from annotation.services.policy import Policy
from annotation.services.corpus import text_imports
from annotation.services.corpus import pair_imports
from annotation.services.corpus import demo_projects
from annotation.corpus.pair_import import TVCP_COLUMNS, PairRecord, parse_pairs
from annotation.corpus.text_import import MAX_IMPORT_BYTES, MAX_IMPORT_LINES, ImportFileError, parse_texts
from annotation.pairs.change import MAX_CHANGE_FACTOR, MIN_CHANGE_FACTOR, factor_text
from annotation.pairs.duration_classes import CLASS_LABELS
from annotation.protocols import protocol_of
from annotation.publishable import NEEDS
from annotation.settings import GOLD_POOLINGS, HAND_OUT_ORDERS, PROTOCOL_NAMES, ProjectSettings
from annotation.training.calibration import TRACKS_ERROR
from ui.display import plain
from ui.session import (
    PROJECT_KEY, current_project, get_database, require_actor, service_errors, show_pending_toast,
    toast_next_run,
)
from ui.tables import show_table

actor = require_actor(Policy.PROJECT_MANAGE)
db = get_database()
st.title("Projects & texts")
#: a confirmation left for the run after st.rerun (a toast drawn just before it is lost)
K_FLASH = "projects.flash"
show_pending_toast(K_FLASH)

with service_errors():
    all_projects = projects.list_projects(db, actor)

if all_projects:
    show_table(pd.DataFrame([{"project": p.name, "protocol": PROTOCOL_NAMES[p.settings.protocol],
                              "texts": p.n_samples, "k": p.settings.annotators_per_sample,
                              "daily quota": p.settings.daily_quota,
                              "created": p.created_at} for p in all_projects]),
               hide_index=True, width="stretch")

left, right = st.columns(2)
with left, st.form("projects.create", clear_on_submit=True):
    st.markdown("**New project**")
    name = st.text_input("Name", key="projects.new_name")
    description = st.text_area("Description", key="projects.new_description", height=80)
    protocol_key = st.radio("Protocol", list(PROTOCOL_NAMES), format_func=lambda key: PROTOCOL_NAMES.get(key, key), horizontal=True,
                            key="projects.new_protocol",
                            help="Single texts: one curve per text (Chronocept). Context pairs: a target "
                                 "statement's curve alone, then given a follow-up statement, and the change "
                                 "between them (TVCP). Fixed once the project has samples.")
    if st.form_submit_button("Create project"):
        with service_errors():
            created = projects.create_project(db, actor, name, description,
                                              ProjectSettings(protocol=protocol_key))
        st.session_state[PROJECT_KEY] = created.id
        toast_next_run(K_FLASH, f"Created the project {created.name}")
        st.rerun()
with right:
    st.markdown("**Demo project**")
    st.caption("50 short texts written for trying the workbench (benchmark 1 and 2).")
    if st.button("Load the demo project", key="projects.demo"):
        with service_errors():
            demo = demo_projects.load_demo_project(db, actor)
        st.session_state[PROJECT_KEY] = demo.id
        toast_next_run(K_FLASH, f"{demo.name}: {counted(demo.n_samples, 'text')}")
        st.rerun()
    st.caption("10 everyday statements with three follow-ups each, for trying context pairs.")
    if st.button("Load the demo pairs project", key="projects.demo_pairs"):
        with service_errors():
            demo = demo_projects.load_demo_pairs_project(db, actor)
        st.session_state[PROJECT_KEY] = demo.id
        toast_next_run(K_FLASH, f"{demo.name}: {counted(demo.n_samples, 'pair')}")
        st.rerun()

project = current_project(actor)
if project is None:
    st.stop()



def import_texts_section() -> None:
    st.subheader(f"Import texts into “{plain(project.name)}”")
    st.caption("JSON Lines (`text`, optional `id`, `benchmark`), CSV with a `text` column (optional `id`, "
               f"`benchmark`), or plain text with one text per line. Up to {MAX_IMPORT_BYTES // 2**20} MB "
               f"and {MAX_IMPORT_LINES:,} lines. "
               "A text without an id gets the project's next `B<benchmark>-<number>` id, as wide as "
               "the project's ids (`B1-0051` after `B1-0050`; a new project's are `B1-00001`, "
               "as in the Chronocept release). "
               "A file with any bad line imports nothing; importing the same file again adds nothing.")
    upload = st.file_uploader("File", type=["jsonl", "json", "ndjson", "csv", "txt"], key="projects.upload")
    bench_choice = st.radio("Benchmark of texts that do not say", ["infer", "1", "2"], horizontal=True,
                            key="projects.default_benchmark",
                            help="'infer' makes single sentences benchmark 1 and passages benchmark 2.")
    default_benchmark = None if bench_choice == "infer" else int(bench_choice)
    if upload is None:
        return
    try:
        records = parse_texts(upload.getvalue(), upload.name, default_benchmark=default_benchmark)
    except ImportFileError as exc:
        st.error(plain(f"{upload.name}: {exc}. Nothing will be imported."))
        return
    st.markdown(f"**Preview** — {counted(len(records), 'text')}")
    show_table(pd.DataFrame([{"line": r.line, "id": r.external_id or "(new)",
                              "benchmark": r.benchmark, "text": r.text} for r in records[:200]]),
               hide_index=True, width="stretch", height=240)
    # named and keyed by project: a click on a button drawn for another project (the picker
    # changed meanwhile) matches no button of this run and imports nothing
    if st.button(f"Import {counted(len(records), 'text')} into {plain(project.name)}", type="primary",
                 key=f"projects.import.{project.id}"):
        with service_errors():
            summary = text_imports.import_texts(db, actor, project.id, records, source=upload.name)
        st.success(f"Imported {counted(summary.added, 'text')} into {plain(project.name)} "
                   f"({summary.benchmark_counts[1]} benchmark 1, "
                   f"{summary.benchmark_counts[2]} benchmark 2); "
                   f"{summary.already_present} were already in the project.")


def _class(index: int | None) -> str:
    return "" if index is None else f"{index} ({CLASS_LABELS[index]})"


def _pair_row(r: PairRecord) -> dict[str, object]:
    """A pair in the preview; its reference labels are for leads (annotators never see them)."""
    return {"line": r.line, "id": r.external_id or "(new)", "target id": r.target_id or "(by text)",
            "target": r.target, "follow-up": r.follow_up, "reference alone": _class(r.reference_alone),
            "reference given": _class(r.reference_given), "reference change": r.reference_change}


def import_pairs_section() -> None:
    st.subheader(f"Import pairs into “{plain(project.name)}”")
    st.caption("JSON Lines or CSV with `target` and `follow_up` (optional `id`, and `target_id` to group "
               "several follow-ups under one target; without it, identical targets are grouped), or the "
               f"TVCP release's CSV (`{','.join(TVCP_COLUMNS)}`), whose class indices and change "
               "labels are kept as reference values — shown to leads, never to annotators. "
               f"Up to {MAX_IMPORT_BYTES // 2**20} MB and {MAX_IMPORT_LINES:,} lines. A file with any bad "
               "line imports nothing; importing the same file again adds nothing.")
    upload = st.file_uploader("File", type=["jsonl", "json", "ndjson", "csv"], key="projects.pair_upload")
    if upload is None:
        return
    try:
        records = parse_pairs(upload.getvalue(), upload.name)
    except ImportFileError as exc:
        st.error(plain(f"{upload.name}: {exc}. Nothing will be imported."))
        return
    st.markdown(f"**Preview** — {counted(len(records), 'pair')}")
    show_table(pd.DataFrame([_pair_row(r) for r in records[:200]]), hide_index=True, width="stretch", height=240)
    if st.button(f"Import {counted(len(records), 'pair')} into {plain(project.name)}", type="primary",
                 key=f"pair_imports.import_pairs.{project.id}"):
        with service_errors():
            summary = pair_imports.import_pairs(db, actor, project.id, records, source=upload.name)
        st.success(f"Imported {counted(summary.added, 'pair')} of {counted(summary.targets, 'target')} into "
                   f"{plain(project.name)}; {summary.already_present} were already in the project.")


#: what a project's samples are imported as, by its protocol's sample
IMPORT_SECTIONS = {"text": import_texts_section, "pair": import_pairs_section}

protocol = protocol_of(project.settings)
st.divider()
IMPORT_SECTIONS[protocol.sample_noun]()



def change_factor_input(column, sk: str, s: ProjectSettings) -> float:  # type: ignore[no-untyped-def]
    return float(column.number_input(
        "Change threshold (time factor ×)", MIN_CHANGE_FACTOR, MAX_CHANGE_FACTOR, float(s.change_factor),
        step=0.05, format="%.2f", key=f"{sk}.change_factor",
        help=f"Now {factor_text(s.change_factor)}: a follow-up that makes the target valid at least "
             f"{factor_text(s.change_factor)} longer is 'increased', at least {factor_text(s.change_factor)} "
             "shorter 'decreased', anything between 'neutral'."))


def segment_targets_input(column, sk: str, s: ProjectSettings) -> bool:  # type: ignore[no-untyped-def]
    return bool(column.checkbox("Segment the target and label its axes before its curve", s.segment_targets,
                                key=f"{sk}.segment_targets",
                                help="Off (the default): a pair goes straight to the target's curve."))


#: what "most uncertain first" orders by, when it is in effect, and what it was measured to do
POOLING_HELP = ("How the automatic gold combines the annotators' curves; changing it re-pools the automatic gold. "
                "Equally: the mean of ξ, ω, α. By the annotator model: each curve corrected for its annotator's "
                "bias and width, weighted by their noise (cross-fitted) — in bench/weighted_gold.py it brought the "
                "gold 18 % nearer the truth when annotators differ widely, 9 % when moderately, and was within 1 % "
                "of equal when they do not. By calibration (Cooke): weighted by calibration × information on the seeds — on the same "
                "simulations it was worse than equal weights (its weights put nearly all on one annotator). "
                "A sample the rule cannot weigh is pooled equally, and its gold says so.")
UNCERTAIN_HELP = ("Most uncertain first: the largest calibrated uncertainty (expected miss) of the latest model "
                  "applied on the Training page (ties in import order) — only when that model beats the trivial "
                  f"reference under cross-validation and its expected miss tracks its error there (Spearman ρ ≥ "
                  f"{TRACKS_ERROR:g}); otherwise import order. What it was measured to do: on generated pools "
                  "(bench/active_order.py, 3 seeds, 1,500 annotations) it did not teach the model faster than "
                  "random order (the final model's mean W1 8.16 against 8.03 for random order) — the texts it "
                  "hands out first are those a model misses most, which gets them double-annotated and reviewed "
                  "early, not a better model sooner. Blindness, k, quotas, warm-up and gold checks are the same in every order.")

#: the inputs of the settings a protocol has of its own (ProjectProtocol.own_settings)
OWN_SETTING_INPUTS = {"change_factor": change_factor_input, "segment_targets": segment_targets_input}

st.divider()
st.subheader("Settings")
s = project.settings
with st.form("projects.settings"):
    # keyed by project: a widget keeps its value across reruns, so a shared key would show (and
    # save) the previously chosen project's settings after switching projects
    sk = f"settings.{project.id}"
    c1, c2, c3 = st.columns(3)
    k = c1.number_input("Annotators per text (k)", 1, 10, s.annotators_per_sample, key=f"{sk}.k")
    quota = c2.number_input("Daily quota per annotator", 1, 10_000, s.daily_quota, key=f"{sk}.quota")
    tz = c3.text_input("Time zone of the quota's day", s.quota_timezone, key=f"{sk}.tz",
                       help="An IANA name such as UTC, Europe/Berlin or America/New_York.")
    c4, c5, c6 = st.columns(3)
    base = c4.number_input("Log base for display and export", 1.01, 10.0, float(s.log_base), step=0.01,
                           format="%.2f", key=f"{sk}.base",
                           help="Stored parameters are always in base 1.1.")
    version = c5.text_input("Guidelines version", s.guidelines_version, key=f"{sk}.guidelines")
    review_rate = c6.number_input("Daily review sample (share of submissions)", 0.0, 1.0,
                                  float(s.review_rate), step=0.01, format="%.2f", key=f"{sk}.review")
    st.markdown("**Automatic flags** — changing them re-checks every settled sample at once.")
    f1, f2, f3 = st.columns(3)
    flag_pk = f1.number_input("Flag when Pk between annotators is above", 0.0, 1.0,
                              float(s.flag_pk_max), step=0.01, format="%.2f", key=f"{sk}.flag_pk")
    flag_sigma = f2.number_input("Flag when a parameter differs by more than … SD", 0.1, 10.0,
                                 float(s.flag_sigma), step=0.1, format="%.1f", key=f"{sk}.flag_sigma")
    flag_w1 = f3.number_input("Flag when the curves are further apart than (W1, log-time units)",
                              0.5, 200.0, float(s.flag_w1_max), step=0.5, format="%.1f",
                              key=f"{sk}.flag_w1",
                              help="Wasserstein-1 distance between the two annotators' normalised "
                                   "curves; 12 units is one curve sitting about ×3.1 later in time.")
    thin = (f"Used instead of the SD rule while σ rests on fewer than {NEEDS['sigma'].min_n} submitted "
            "annotations or does not vary; the flag says which rule fired.")
    x1, x2, x3 = st.columns(3)
    flag_xi = x1.number_input("While σ is thin, flag when ξ differs by more than (log-time units)", 0.1, 400.0,
                              float(s.flag_xi_max), step=0.5, format="%.1f", key=f"{sk}.flag_xi",
                              help=thin + " 12 units is about ×3.1 in time.")
    flag_omega = x2.number_input("… when ω differs by more than (log-time units)", 0.1, 200.0,
                                 float(s.flag_omega_max), step=0.5, format="%.1f", key=f"{sk}.flag_omega",
                                 help=thin + " For curves in the same place, 15 units of ω is W1 ≈ 12.")
    flag_alpha = x3.number_input("… when α differs by more than", 0.1, 40.0, float(s.flag_alpha_max), step=0.5,
                                 format="%.1f", key=f"{sk}.flag_alpha",
                                 help=thin + " Skew saturates: curves with α = 3 and α = 8 look alike.")
    t1, t2 = st.columns(2)
    third = t1.checkbox("Ask a third annotator before a lead", s.third_annotator, key=f"{sk}.third",
                        help="A sample the automatic flags catch (or whose gold the annotator model leaves too "
                             "wide) goes to one more annotator, once; it settles when two of the three agree, "
                             "and only what the three still disagree on reaches Review. An annotator's own "
                             "flag still goes to the lead at once.")
    third_sd = t2.number_input("… or when the gold's half-gone time is less certain than (SD, log-time units)",
                               0.5, 200.0, float(s.third_annotator_sd_max), step=0.5, format="%.1f",
                               key=f"{sk}.third_sd",
                               help="The annotator model's posterior SD of the gold's half-gone position; "
                                    "10 units is about ×2.6 in time.")
    st.markdown("**Qualification against the warm-up gold**")
    q1, q2, q3, q4 = st.columns(4)
    icc_min = q1.number_input("ICC above", 0.0, 1.0, float(s.qualify_icc_min), step=0.01,
                              format="%.2f", key=f"{sk}.icc")
    jaccard_min = q2.number_input("Jaccard above", 0.0, 1.0, float(s.qualify_jaccard_min), step=0.01,
                                  format="%.2f", key=f"{sk}.jaccard")
    pk_max = q3.number_input("Pk below", 0.0, 1.0, float(s.qualify_pk_max), step=0.01,
                             format="%.2f", key=f"{sk}.pk")
    warmup = q4.number_input("Warm-up samples", 0, 10_000, s.warmup_size, key=f"{sk}.warmup")
    st.markdown("**Ongoing gold checks and consistency**")
    g1, g2, g3, g4 = st.columns(4)
    gold_share = g1.number_input("Share of production samples that are gold checks", 0.0, 0.5,
                                 float(s.gold_check_share), step=0.01, format="%.2f",
                                 key=f"{sk}.gold_share", help="0 turns gold checks off.")
    gold_window = g2.number_input("Judge the last … checks", 1, 1000, s.gold_check_window,
                                  key=f"{sk}.gold_window")
    gold_pass = g3.number_input("Pause below this share of passed checks", 0.0, 1.0,
                                float(s.gold_check_min_pass), step=0.05, format="%.2f",
                                key=f"{sk}.gold_pass")
    similar = g4.number_input("Consistency: texts at least this similar (SBERT)", 0.5, 1.0,
                              float(s.consistency_similarity_min), step=0.01, format="%.2f",
                              key=f"{sk}.similar")
    st.markdown("**Protocol**")
    p1, p2, p3 = st.columns(3)
    protocol_choice = p1.selectbox(
        "Protocol", list(PROTOCOL_NAMES), index=list(PROTOCOL_NAMES).index(s.protocol),
        format_func=lambda key: PROTOCOL_NAMES.get(key, key), key=f"{sk}.protocol", disabled=project.n_samples > 0,
        help="Fixed once the project has samples." if project.n_samples else
             "Single texts or context pairs; fixed once the project has samples.")
    columns = iter((p2, p3))
    own_settings = {name: OWN_SETTING_INPUTS[name](next(columns), sk, s) for name in protocol.own_settings}
    st.markdown("**Workbench**")
    confirm = st.checkbox("Ask “Submit this annotation?” before each submit", s.confirm_submit,
                          key=f"{sk}.confirm_submit",
                          help="Off (the default): one key submits and the next sample appears. "
                               "On: submitting opens a confirmation that Enter accepts.")
    st.markdown("**Gold**")
    pooling = st.selectbox("Pool the gold curves", list(GOLD_POOLINGS), index=list(GOLD_POOLINGS).index(s.gold_pooling),
                           format_func=GOLD_POOLINGS.get, key=f"{sk}.gold_pooling", help=POOLING_HELP)
    st.markdown("**The model in the loop**")
    o1, o2 = st.columns(2)
    hand_out = o1.selectbox("Hand out the next sample", list(HAND_OUT_ORDERS),
                            index=list(HAND_OUT_ORDERS).index(s.hand_out_order), format_func=HAND_OUT_ORDERS.get,
                            key=f"{sk}.hand_out_order",
                            help=UNCERTAIN_HELP)
    if s.hand_out_order == "uncertain":
        why_not = model_loop.uncertain_order_withheld(db, actor, project.id)
        if why_not:
            o1.caption(plain(f"Most uncertain first is not in effect, samples go out in import order: {why_not}."))
    show_model = o2.checkbox("Leads may show the model's curve on a review case", s.show_model_curve,
                             key=f"{sk}.show_model_curve",
                             help="Off by default. Annotators never see a model's prediction, uncertainty or audit.")
    if st.form_submit_button(f"Save settings of {plain(project.name)}", key=f"{sk}.save"):
        with service_errors():
            projects.update_settings(
                db, actor, project.id, annotators_per_sample=int(k), daily_quota=int(quota),
                quota_timezone=tz.strip(), log_base=float(base), guidelines_version=version.strip(),
                review_rate=float(review_rate), flag_pk_max=float(flag_pk),
                flag_sigma=float(flag_sigma), flag_xi_max=float(flag_xi), flag_omega_max=float(flag_omega),
                flag_alpha_max=float(flag_alpha), flag_w1_max=float(flag_w1), qualify_icc_min=float(icc_min),
                qualify_jaccard_min=float(jaccard_min), qualify_pk_max=float(pk_max),
                warmup_size=int(warmup), confirm_submit=bool(confirm),
                gold_check_share=float(gold_share), gold_check_window=int(gold_window),
                gold_check_min_pass=float(gold_pass), consistency_similarity_min=float(similar),
                hand_out_order=hand_out, show_model_curve=bool(show_model), protocol=protocol_choice,
                gold_pooling=pooling,
                third_annotator=bool(third), third_annotator_sd_max=float(third_sd),
                **own_settings)
        toast_next_run(K_FLASH, f"Settings of {project.name} saved")
        st.rerun()
