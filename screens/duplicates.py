"""Lead: find near-duplicate texts before annotation and confirm or release each pair; and the
**Consistency** view: similar texts whose gold curves or axes disagree."""

from __future__ import annotations

import difflib
from datetime import datetime, timezone

import streamlit as st

from annotation.corpus.embeddings import load_sbert
from annotation.services.quality import consistency
from annotation.services.corpus import duplicates
from annotation.wording import counted
from ui import clicks
from ui.display import axis_label, plain
from ui.session import lead_page, service_errors, toast_next_run

K_FLASH = "duplicates.flash"
K_STATUS = "duplicates.status"
K_PAGE = "duplicates.page"
PAGE_SIZE = 20
STATUS_LABELS = {"pending": "To review", "confirmed": "Confirmed", "released": "Released"}
FIRED = {"sbert": "meaning (SBERT)", "tfidf": "wording (TF-IDF)", "both": "meaning and wording"}
K_VIEW = "duplicates.view"
VIEWS = {"duplicates": "Near-duplicates", "consistency": "Consistency"}
K_ORDER = "duplicates.consistency.order"
K_CPAGE = "duplicates.consistency.page"
K_REPORT = "duplicates.consistency.report"  # (project id, the last report, when it was made)
ORDER_LABELS = {"similarity": "Most similar first", "w1": "Furthest-apart curves first"}
REVIEW_PAGE = "screens/review.py"
#: the Review page opens this review item on its next run (its ``K_NEXT``)
REVIEW_NEXT_PICK = "review.next_pick"


@st.cache_resource(show_spinner="Loading the sentence-embedding model…")
def sbert_model():  # type: ignore[no-untyped-def]
    """The bundled all-MiniLM-L6-v2 model, loaded once per server process."""
    return load_sbert("cpu")


def highlighted(words: list[str], other: list[str]) -> str:
    """``words`` as escaped markdown with the words not shared with ``other`` highlighted, so
    the lead sees at a glance what differs between the two texts."""
    matcher = difflib.SequenceMatcher(a=[w.lower() for w in words], b=[w.lower() for w in other],
                                      autojunk=False)
    shared = set()
    for block in matcher.get_matching_blocks():
        shared.update(range(block.a, block.a + block.size))
    return " ".join(plain(w) if i in shared else f":orange-background[{plain(w)}]"
                    for i, w in enumerate(words))


def consistency_view() -> None:
    """Similar texts whose golds disagree, with both texts (literal), the similarity, the curve
    distance in words and each gold's axes; a button opens a sample's open review item."""
    s = project.settings
    st.caption(
        f"Pairs of texts at least **{s.consistency_similarity_min:.2f}** similar in meaning (SBERT "
        f"cosine) whose gold curves are more than **{s.flag_w1_max:.1f}** log-time units apart "
        "(W1, the curve-distance flag's threshold) or whose gold uses different axes. Active "
        "production samples with gold are compared; warm-up samples are left out. Both "
        "thresholds are project settings.")
    sort_col, again_col = st.columns([3, 1], vertical_alignment="bottom")
    order = sort_col.segmented_control("Sort by", list(ORDER_LABELS), format_func=ORDER_LABELS.__getitem__,
                                       default="similarity", key=K_ORDER) or "similarity"
    again = again_col.button("Check again", icon=":material/refresh:", key="duplicates.consistency.again",
                             help="Compare again with the current gold, vectors and thresholds.")
    # the search compares every text with every other: run it when the view opens or on
    # request, not on every click (sorting and paging reuse it)
    held = st.session_state.get(K_REPORT)
    if again or held is None or held[0] != project.id:
        with st.spinner("Comparing similar texts…"), service_errors():
            held = (project.id, consistency.consistency_pairs(db, actor, project.id), datetime.now(timezone.utc))
        st.session_state[K_REPORT] = held
    report, checked_at = held[1], held[2]
    if report.n_without_vector:
        st.warning(f"{counted(report.n_without_vector, 'sample')} with gold "
                   f"{'has' if report.n_without_vector == 1 else 'have'} no stored text vector and "
                   "{'was' if report.n_without_vector == 1 else 'were'} not compared. Run **Find "
                   "near-duplicates** under **Near-duplicates**: it embeds every text it has not "
                   "seen.", icon=":material/warning:")
    if not report.pairs:
        st.info(f"No similar texts with disagreeing gold among the {report.n_compared} compared "
                f"(at {checked_at:%H:%M:%S} UTC).",
                icon=":material/task_alt:")
        return
    n_pages = max(1, (len(report.pairs) + PAGE_SIZE - 1) // PAGE_SIZE)
    page_no = min(max(1, int(st.session_state.get(K_CPAGE) or 1)), n_pages)
    st.session_state[K_CPAGE] = page_no
    st.caption(f"{len(report.pairs)} pair{'s' if len(report.pairs) != 1 else ''} among "
               f"{counted(report.n_compared, 'text')} compared at {checked_at:%H:%M:%S} UTC · page {page_no} of {n_pages}"
               + (f" · only the {report.limit} most similar are listed" if report.truncated else ""))
    for pair in consistency.sorted_pairs(report.pairs, order)[(page_no - 1) * PAGE_SIZE: page_no * PAGE_SIZE]:
        with st.container(border=True):
            left, right, side = st.columns([4, 4, 2])
            for col, one in ((left, pair.first), (right, pair.second)):
                col.caption(f"**{plain(one.external_id)}** · axes: "
                            + (", ".join(axis_label(a) for a in one.axes) or "none")
                            + f" · ξ {one.xi:.1f}, ω {one.omega:.1f}, α {one.alpha:.2f}")
                col.markdown(plain(one.text))
                if one.review_item_id is not None and col.button(
                        "Open in Review",
                        key=f"duplicates.consistency.review.{pair.first.sample_id}.{pair.second.sample_id}."
                            f"{one.sample_id}",
                        icon=":material/rate_review:", help="This sample has an open review item."):
                    st.session_state[REVIEW_NEXT_PICK] = one.review_item_id
                    st.switch_page(REVIEW_PAGE)
            side.markdown(f"**{pair.similarity:.3f}** similar")
            if pair.w1 is None:
                side.caption("W1 — a gold curve is undefined")
            else:
                side.caption(f"W1 {pair.w1:.1f} log-time units: {plain(pair.distance_text)}")
            side.caption(f"differ: {pair.why}")
    if n_pages > 1:
        st.number_input("Page", min_value=1, max_value=n_pages, step=1, key=K_CPAGE)


def nothing_to_review(counts: duplicates.DuplicateCounts) -> str:
    """What an empty "To review" list means: the search has not run yet, or its last run found
    nothing above its threshold, or everything it found is decided."""
    with service_errors():
        last = duplicates.last_run(db, actor, project.id)
    if last is None:
        return "The search has not run in this project yet: **Find near-duplicates** compares every text."
    ran = (f"last run {last.at:%Y-%m-%d %H:%M} UTC over {counted(last.n_texts, 'text')}, "
           f"threshold {last.threshold:.2f}")
    if not counts.total:
        return (f"The search found no near-duplicates: no text is more than {last.threshold:.2f} similar "
                f"to an earlier kept one ({ran}).")
    return f"Nothing left to review: every pair the search found is decided ({ran})."


actor, db, project = lead_page(
    "De-duplication", flash_key=K_FLASH,
    no_project="There is no project yet. Create one and import texts under **Projects & texts**.")
if (st.segmented_control("View", list(VIEWS), format_func=VIEWS.__getitem__, default="duplicates",
                         key=K_VIEW) or "duplicates") == "consistency":
    consistency_view()
    clicks.say_unanswered()
    st.stop()
st.caption(
    "Every text is compared with the texts imported before it, by meaning (SBERT "
    "all-MiniLM-L6-v2 embeddings) and by wording (TF-IDF). A text whose cosine similarity to an "
    "earlier kept text exceeds the threshold under either is marked. Marked texts stay in the "
    "annotation pool until you **confirm** them; **release** keeps a text for good. Every "
    "decision can be undone.")

with service_errors():
    counts = duplicates.duplicate_counts(db, actor, project.id)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Texts in the project", project.n_samples)
m2.metric("To review", counts.pending)
m3.metric("Confirmed duplicates", counts.confirmed, help="Out of the annotation pool.")
m4.metric("Released", counts.released, help="Kept: later runs treat them as distinct texts.")

with st.form("duplicates.run", border=True):
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    threshold = c1.number_input(
        "Similarity threshold", min_value=0.05, max_value=1.0, step=0.05, format="%.2f",
        value=float(project.settings.dedup_threshold), key="duplicates.threshold",
        help="A pair is marked when the cosine similarity is strictly greater than this.")
    run = c2.form_submit_button(f"Find near-duplicates in {plain(project.name)}", type="primary",
                                icon=":material/search:", key=f"duplicates.run.{project.id}")
if run:
    bar = st.progress(0.0, text="Starting…")
    with service_errors():
        summary = duplicates.run_dedup(
            db, actor, project.id, threshold=threshold, model=sbert_model(),
            progress=lambda fraction, message: bar.progress(min(max(fraction, 0.0), 1.0), text=message))
    toast_next_run(K_FLASH, f"Compared {counted(summary.n_texts, 'text')} in {summary.seconds:.1f} s "
                            f"({summary.n_embedded} embedded, {summary.n_cached} from the cache): "
                            f"{summary.n_new_marks} new marks, {summary.n_pending} to review.")
    st.rerun()

status = st.segmented_control(
    "Show", list(STATUS_LABELS), format_func=STATUS_LABELS.__getitem__, default="pending",
    key=K_STATUS) or "pending"
with service_errors():
    listing = duplicates.pair_page(db, actor, project.id, status=status,
                                   page=int(st.session_state.get(K_PAGE) or 1), page_size=PAGE_SIZE)
if not listing.total:
    st.info(nothing_to_review(counts) if status == "pending" else
            {"confirmed": "No confirmed duplicates.", "released": "No released texts."}[status])
    clicks.say_unanswered()
    st.stop()

n_pages, page_no, shown = listing.n_pages, listing.page, listing.pairs
st.session_state[K_PAGE] = page_no  # before the widget exists: clamped after marks were decided
bulk_decision = {"pending": "confirm", "confirmed": "undo", "released": "undo"}[status]
bulk_label = {"confirm": f"Confirm all {len(shown)} on this page", "undo": f"Undo all {len(shown)} on this page"}
head_l, head_r = st.columns([2, 1], vertical_alignment="bottom")
head_l.caption(f"{counted(listing.total, 'pair')}, most similar first · page {page_no} of {n_pages}")
if clicks.button(head_r, bulk_label[bulk_decision], key=f"duplicates.bulk.{status}.{page_no}"):
    with service_errors():
        n = duplicates.decide(db, actor, project.id, [p.id for p in shown], bulk_decision)
    toast_next_run(K_FLASH, f"{n} marks {'confirmed' if bulk_decision == 'confirm' else 'back to review'}.")
    st.rerun()

for n, pair in enumerate(shown):
    # near-copies of warm-up texts come first (list_pairs), under their own heading
    if n == 0 and pair.of_warmup:
        st.markdown("**Near-copies of warm-up texts** — a production text this close to a gold-check "
                    "text lets an annotator who meets both tell the check apart: confirm to take it out.")
    elif pair.of_warmup is False and (n == 0 and page_no > 1 or n > 0 and shown[n - 1].of_warmup):
        st.markdown("**Near-duplicates among production texts**")
    with st.container(border=True):
        left, right, side = st.columns([4, 4, 2])
        words_a, words_b = pair.of_text.split(), pair.text.split()
        left.caption(f"Warm-up text (gold checks use it) · **{plain(pair.duplicate_of)}**" if pair.of_warmup
                     else f"Kept · **{plain(pair.duplicate_of)}** (earlier)")
        left.markdown(highlighted(words_a, words_b))
        right.caption(f"Near-duplicate · **{plain(pair.sample_id)}**")
        right.markdown(highlighted(words_b, words_a))
        if pair.sample_in_work:
            right.caption(":material/info: already handed to an annotator")
        side.markdown(f"**{pair.score:.2f}** by {FIRED[pair.representation]}")
        side.caption(f"SBERT {pair.sbert_score:.2f} · TF-IDF {pair.tfidf_score:.2f}")
        choice = None
        if pair.status == "pending":
            if clicks.button(side, "Confirm", key=f"duplicates.confirm.{pair.id}", type="primary",
                             icon=":material/content_copy:", help="Take the later text out of the pool"):
                choice = "confirm"
            if clicks.button(side, "Release", key=f"duplicates.release.{pair.id}", icon=":material/call_split:",
                             help="They are different texts: keep both"):
                choice = "release"
        else:
            side.caption(f"{STATUS_LABELS[pair.status]} by {plain(pair.decided_by or '—')}")
            if clicks.button(side, "Undo", key=f"duplicates.undo.{pair.id}", icon=":material/undo:"):
                choice = "undo"
        if choice:
            with service_errors():
                duplicates.decide(db, actor, project.id, [pair.id], choice)
            toast_next_run(K_FLASH, f"{pair.sample_id}: " + {
                "confirm": "confirmed as a duplicate — out of the pool",
                "release": "released — stays in the pool",
                "undo": "back to review"}[choice])
            st.rerun()
clicks.say_unanswered()  # a card's button clicked after the page changed (its card gone or moved)

if n_pages > 1:
    st.number_input("Page", min_value=1, max_value=n_pages, step=1, key=K_PAGE)
