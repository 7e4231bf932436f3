// One post: every field, its version, and the changes the key allows.
// Every change sends the version it was made on (If-Match), so a change
// made elsewhere in the meantime is a 412, explained, never overwritten.
import { call, newIdempotencyKey } from "../api.js";
import { h, outsideLink, show } from "../dom.js";
import { explain } from "../explain.js";
import { altTextOf, kindOf, libraryId, libraryRecords } from "../media.js";
import * as time from "../time.js";
import { dueState } from "../publisher-state.js";
import { channelOf, confirmAction, countdown, heading, loading, notify, repeatBadge, repeatLabel, statusBadge, typeBadge } from "../widgets.js";
import { chartFigure, count, figureTable, lineChart, percent } from "../charts.js";
import { timeline } from "./history.js";
import { figuresForm } from "./post-figures.js";
import { mediaLayout } from "./linkedin-preview.js";
import { channelById, loadChannels, needsReview, ownerOf } from "../profiles.js";
import { commentThread, mayApprove, mayReview, requestChangesPanel, review } from "./review.js";
import { earliest, schedulePanel } from "./schedule.js";

export async function showPost(view, route, session) {
  const id = route.params[0];
  const path = `/api-v2-posts-item/${id}`;
  const repeatAt = Date.parse(route.query.get("repeat") ?? "") ? route.query.get("repeat") : null; // opened from a planned repeat
  let post = null;
  let library = {}; // the library's records of the post's media: alt text, a document's pages
  // While a form or an error is open the page must not change under the
  // person reading it: the automatic refresh waits.
  let held = false;
  const page = h("div", { class: "post-page" }, loading());
  show(view, page);

  async function reload() {
    held = false;
    try {
      [post] = await Promise.all([call("GET", path).then((r) => r.data), loadChannels()]);
      library = await libraryRecords(post.media_urls);
      render();
    } catch (error) {
      held = true;
      show(page, heading("Post"), explain(error, h("a", { class: "button", href: "#/queue" }, "Back to the queue")));
    }
  }

  async function refresh(asked) {
    if (asked) return reload();
    if (held) return;
    try {
      const fresh = (await call("GET", path)).data;
      if (!held && fresh.version !== post?.version) {
        post = fresh;
        library = await libraryRecords(post.media_urls);
        render();
      }
    } catch {
      // Refresh or the next navigation shows what is wrong
    }
  }

  /** PATCH `body` on the version shown; `done` names the change for the notice.
   *  A refusal is thrown for the caller to explain where the person is looking. */
  async function change(body, done) {
    post = (await call("PATCH", path, { body, version: post.version })).data;
    held = false;
    render();
    page.querySelector("h1").focus(); // the button pressed is gone; start again from the top
    notify(`${done}.`);
  }

  const reloadButton = () => h("button", { type: "button", class: "button", onclick: reload }, "Reload");

  /** Show `error` in `where` and keep the page still until the person acts. */
  const failedIn = (where) => (error) => {
    held = true;
    show(where, explain(error, reloadButton()));
    where.focus();
  };

  async function remove(where) {
    if (!(await confirmAction("Delete this post? It cannot be undone.", "Delete post"))) return;
    try {
      await call("DELETE", path, { version: post.version });
      notify("The post was deleted.");
      location.hash = ["In review", "Approved"].includes(post.status) ? "#/review" : `#/queue/${post.status}`; // the queue has no tab of those
    } catch (error) {
      failedIn(where)(error);
    }
  }

  function render() {
    const messages = h("div", { class: "messages", tabindex: "-1" });
    const panel = h("div", { class: "panel-slot" });
    // Schedule…, Reschedule… and Retry… open the picker below the buttons and
    // show as pressed (aria-expanded) while it is open; pressed again, or
    // Cancel, closes it and gives focus back to the button.
    const closeSchedule = (opener) => {
      held = false;
      panel.replaceChildren();
      opener.setAttribute("aria-expanded", "false");
      opener.focus();
    };
    const openSchedule = (mode, opener) => {
      if (opener.getAttribute("aria-expanded") === "true") {
        closeSchedule(opener);
        return;
      }
      held = true;
      opener.setAttribute("aria-expanded", "true");
      show(
        panel,
        schedulePanel(post, mode, {
          submit: change,
          explain: (error) => explain(error, reloadButton()),
          cancel: () => closeSchedule(opener),
          slot: { find: () => nextFreeSlot(post), take: takeSlot },
        }),
      );
      panel.querySelector("input")?.focus();
    };
    show(
      page,
      heading("Post", h("div", { class: "badges" }, statusBadge(post.status), typeBadge(post), repeatBadge(post))),
      actionBar(post, session, {
        openSchedule,
        review: (action, done) => reviewed(action, done).catch(failedIn(messages)),
        openChanges: (opener) => {
          if (opener.getAttribute("aria-expanded") === "true") return closeSchedule(opener);
          held = true;
          opener.setAttribute("aria-expanded", "true");
          show(
            panel,
            requestChangesPanel(post, {
              done: (answer) => {
                post = answer.post;
                session.recount();
                held = false;
                render();
                page.querySelector("h1").focus();
                notify("Sent back to draft with your comment.");
              },
              cancel: () => closeSchedule(opener),
              failed: (error) => explain(error, reloadButton()),
            }),
          );
          panel.querySelector("textarea").focus();
        },
        change: (body, done) => change(body, done).catch(failedIn(messages)),
        remove: () => remove(messages),
        duplicate: () => duplicate(messages),
        recycle: () => askRecycle(messages),
      }),
      messages,
      repeatAt ? plannedRepeat(post, repeatAt, route.query.get("n")) : null,
      h(
        "div",
        { class: "record-layout" },
        h(
          "div",
          { class: "record-main" },
          panel,
          stateNote(post),
          h("div", { class: "content-block" }, h("h2", { class: "visually-hidden" }, "Content"), post.content),
          postMedia(post, library),
          firstComment(post),
          post.status === "Published" ? statsSlot : null,
          commentThread(post), // a team talks about any post, approvals or not
          historySlot,
        ),
        fieldList(post),
      ),
    );
    showHistory();
    if (post.status === "Published") showStats();
  }

  // What the post did on LinkedIn: its stats snapshots, as a small chart.
  const statsSlot = h("section", { class: "post-stats", "aria-labelledby": "post-stats-title" });
  async function showStats() {
    const title = h("h2", { id: "post-stats-title" }, "On LinkedIn");
    try {
      const { data } = await call("GET", `/api-v2-posts-stats/${id}`);
      // Nobody collects a channel's figures unless it is connected here: a person may enter them.
      const entry = !byService(post) && session.can("posts:publish") ? figuresForm(post, () => showStats().then(() => notify("Figures saved."))) : null;
      show(statsSlot, title, ...postStats(post, data), entry);
    } catch (error) {
      show(statsSlot, title, explain(error));
    }
  }

  // The post's history, read again whenever the post is shown.
  const historySlot = h("section", { class: "history", "aria-labelledby": "history-title" });
  async function showHistory() {
    try {
      const { data } = await call("GET", `/api-v2-posts-history/${id}`);
      show(historySlot, h("h2", { id: "history-title" }, "History"), timeline(data.data, session.me));
    } catch (error) {
      show(historySlot, h("h2", { id: "history-title" }, "History"), explain(error));
    }
  }

  /** The next free slot: a Draft or Failed post is queued (the service picks
   *  the first slot that keeps to the spacing rules); a Scheduled one moves there. */
  async function takeSlot(at, done) {
    post =
      post.status === "Scheduled"
        ? (await call("PATCH", path, { body: { scheduled_at: at }, version: post.version })).data
        : (await call("POST", "/api-v2-posts-queue", { body: { post_id: post.id }, version: post.version })).data;
    held = false;
    render();
    page.querySelector("h1").focus();
    // The queue may pick a later slot than the one shown, when that one breaks a spacing rule.
    const same = Date.parse(post.scheduled_at) === Date.parse(at);
    notify(same ? `${done}.` : `Added to the queue: ${time.local(post.scheduled_at)}.`);
  }

  // Recycling asks first: a copy into the channel's queue, or a copy saved
  // as a draft to change before it goes out again.
  function askRecycle(where) {
    const close = () => where.replaceChildren();
    show(
      where,
      h(
        "div",
        { class: "alert recycle-ask", role: "group", "aria-label": "Recycle this post" },
        h("p", { class: "alert-title" }, "Recycle this post?"),
        h("p", {}, "A copy of it goes out again: into its channel's queue at once, or as a draft you change first."),
        h(
          "p",
          { class: "form-actions" },
          h("button", { type: "button", class: "button button-primary", id: "recycle-queue", onclick: () => (close(), recycle(where)) }, "Queue a copy"),
          h("button", { type: "button", class: "button", id: "recycle-draft", onclick: () => (close(), duplicate(where)) }, "Save a copy as a draft"),
          h("button", { type: "button", class: "button", onclick: close }, "Cancel"),
        ),
      ),
    );
    where.querySelector("#recycle-queue").focus();
  }

  // A copy queued on the channel (POST /api-v2-posts-recycle/ID): the
  // channel's next free slot, or the service's word on when it may go out.
  async function recycle(where) {
    try {
      const { data } = await call("POST", `/api-v2-posts-recycle/${post.id}`, { idempotencyKey: newIdempotencyKey() });
      notify(`Recycled: a copy is queued for ${time.local(data.scheduled_at)}.`);
      location.hash = `#/posts/${data.id}`;
    } catch (error) {
      failedIn(where)(error);
    }
  }

  /** Submit for review or approve, on the version shown. */
  async function reviewed(action, done) {
    const answer = await review(post, action);
    post = answer.post;
    session.recount();
    held = false;
    render();
    page.querySelector("h1").focus();
    notify(`${done}.`);
  }

  async function duplicate(where) {
    const body = { type: post.type, content: post.content, media_urls: post.media_urls, media_alt: post.media_alt };
    for (const name of ["document_title", "first_comment"]) if (post[name]) body[name] = post[name];
    if (post.type === "brand") body.brand_id = post.brand_id;
    try {
      const { data } = await call("POST", "/api-v2-posts", { body, idempotencyKey: newIdempotencyKey() });
      notify("Duplicated: a new draft with the same content.");
      location.hash = `#/posts/${data.id}/edit`;
    } catch (error) {
      failedIn(where)(error);
    }
  }

  await reload();
  return { refresh };
}

/** The buttons this key may use on a post in this status; a line on what it lacks. */
function actionBar(post, session, act) {
  const write = session.mayChange(post); // a contributor: their own drafts only
  const publish = write && session.can("posts:publish");
  const button = (text, onclick, extra = "") => h("button", { type: "button", class: `button ${extra}`, onclick }, text);
  const opener = (text, mode, extra = "") =>
    h("button", { type: "button", class: `button ${extra}`, "aria-expanded": "false", "aria-controls": "schedule-panel", onclick: (event) => act.openSchedule(mode, event.currentTarget) }, text);
  const edit = h("a", { class: "button", href: `#/posts/${post.id}/edit` }, "Edit");
  const del = button("Delete", act.remove, "button-danger");
  const dup = session.can("posts:write") && button("Duplicate", act.duplicate);
  const byStatus = {
    Draft: [publish && opener("Schedule…", "schedule", "button-primary"), write && edit, dup, write && del],
    Scheduled: [
      publish && opener("Move to…", "reschedule"),
      publish && button("Unschedule", () => act.change({ status: "Draft" }, "Unscheduled: back to Draft")),
      write && edit,
      dup,
      write && del,
    ],
    Failed: [
      publish && opener("Retry…", "retry", "button-primary"),
      publish && button("Back to draft", () => act.change({ status: "Draft" }, "Back to Draft")),
      write && edit,
      dup,
      write && del,
    ],
    Publishing: [],
    Published: [write && button("Recycle", act.recycle, "button-primary"), dup],
  };
  if (needsReview(post, session)) {
    // Scheduling waits for an approval: a Draft is submitted, an editor
    // (never its author) approves it or sends it back with a comment; a
    // post for a colleague's profile, that colleague.
    const reviewer = mayReview(post, session);
    const changes = (primary) => h("button", { type: "button", class: `button ${primary ? "button-primary" : ""}`, "aria-expanded": "false", "aria-controls": "schedule-panel", onclick: (event) => act.openChanges(event.currentTarget) }, "Request changes…");
    byStatus.Draft = [write && button("Submit for review", () => act.review("submit", "Submitted for review"), "button-primary"), write && edit, dup, write && del];
    byStatus["In review"] = [mayApprove(post, session) && button("Approve", () => act.review("approve", "Approved"), "button-primary"), reviewer && changes(false), write && edit, dup, write && del];
    byStatus.Approved = [publish && opener("Schedule…", "schedule", "button-primary"), reviewer && changes(false), write && edit, dup, write && del];
    // Unscheduled, an approved post keeps its approval (back to Approved, not Draft).
    if (post.approved_by) byStatus.Scheduled[1] = publish && button("Unschedule", () => act.change({ status: "Approved" }, "Unscheduled: back to Approved"));
  }
  const actions = (byStatus[post.status] ?? [dup]).filter(Boolean); // a status this page does not know: Duplicate only
  const lacking = ["posts:write", "posts:publish"].filter((scope) => !session.can(scope));
  const changeable = !["Publishing", "Published"].includes(post.status);
  const theirs = session.can("posts:write") && !write && post.author?.id !== session.me.member?.id; // a contributor's view of another's post
  return h(
    "div",
    { class: "action-bar" },
    actions.length ? h("div", { class: "actions", role: "group", "aria-label": "Actions" }, actions) : null,
    changeable && theirs ? h("p", { class: "hint", dataset: { contributor: "" } }, "As a contributor you change only your own drafts; duplicate this one to make a draft of your own.") : null,
    changeable && !theirs && lacking.length
      ? h("p", { class: "hint" }, `This key lacks ${lacking.join(" and ")}, so ${lacking.includes("posts:write") ? "it can only look at posts" : "it cannot schedule, unschedule or retry"}.`)
      : null,
  );
}

/** What the post does once approved (its intent), as a sentence; or null. */
function intentNote(post) {
  if (post.intent?.queue) return [" ", h("strong", { class: "intent" }, "Once approved: added to the queue.")];
  if (post.intent?.scheduled_at) return [" ", h("strong", { class: "intent" }, "Once approved: scheduled for ", time.timeElement(post.intent.scheduled_at), ".")];
  return null;
}

/** What the status means right now, in a sentence. */
function stateNote(post) {
  switch (post.status) {
    case "Scheduled":
      return h("p", { class: "state-note" }, "Goes out ", time.timeElement(post.scheduled_at), ": ", dueState(post, "due in {}."));
    case "Publishing":
      return h(
        "p",
        { class: "state-note state-publishing" },
        "In the automation's hands: it must report back within its lease (",
        countdown(post.handoff_expires_at, "{} left", "the lease ran out; the post becomes Failed"),
        "). Nothing can change until then.",
      );
    case "Published":
      return h("p", { class: "state-note state-published" }, "Live: ", post.live_url ? outsideLink(post.live_url) : "no link given", ".");
    case "In review": {
      const owner = ownerOf(post, null);
      const who = owner ? `${owner.name} approves it (it goes out on their LinkedIn profile)` : "an editor or higher, not its author, approves it";
      return h("p", { class: "state-note" }, `Waiting for a review: ${who} or asks for changes. A change of its text, media, first comment or channel takes it back to Draft.`, intentNote(post));
    }
    case "Approved":
      return h("p", { class: "state-note" }, `Approved by ${post.approved_by?.name ?? "an editor"}`, post.approved_at ? [" ", time.timeElement(post.approved_at)] : null, ": it may be scheduled. A change of its text, media, first comment or channel takes it back to Draft.", intentNote(post));
    case "Failed":
      return h("div", { class: "state-note state-failed" }, h("p", { class: "alert-title" }, "Publishing failed"), h("p", { class: "error-text" }, post.last_error || "No error was given."));
    default:
      return null;
  }
}

function fieldList(post) {
  const when = (iso) => (iso ? [time.timeElement(iso), h("span", { class: "utc" }, time.utc(iso))] : none());
  const rows = [
    ["Status", post.status],
    ["Author", post.author ? h("span", { dataset: { field: "author" } }, post.author.name) : none()],
    ...(post.reviewer || post.approved_by
      ? [
          ["Approved by", post.approved_by ? h("span", { dataset: { field: "approved-by" } }, post.approved_by.name, post.approved_at ? [", ", time.timeElement(post.approved_at)] : null) : none()],
          ["Last reviewed by", post.reviewer ? h("span", { dataset: { field: "reviewer" } }, post.reviewer.name) : none()],
        ]
      : []),
    ["Type", post.type === "brand" ? "Brand" : "Personal"],
    ["Brand", post.brand_id ?? none()],
    [
      "Scheduled for",
      post.scheduled_at ? [when(post.scheduled_at), " ", h("a", { href: `#/calendar/${time.dayKey(new Date(post.scheduled_at))}` }, "Show in calendar")] : none(),
    ],
    ["Published at", when(post.published_at)],
    ["LinkedIn post", post.linkedin_post_id ? h("code", {}, post.linkedin_post_id) : none()],
    ["Live URL", post.live_url ? outsideLink(post.live_url) : none()],
    ...(post.recycled_from ? [["Recycled from", h("a", { href: `#/posts/${post.recycled_from}` }, "the published post")]] : []),
    ["Last error", post.last_error ? h("span", { class: "error-text" }, post.last_error) : none()],
    ["Media", post.media_urls.length ? h("ul", { class: "plain" }, post.media_urls.map((url) => h("li", {}, outsideLink(url)))) : none()],
    ["Document title", post.document_title ?? none()],
    ["First comment", post.first_comment ? commentOutcome(post) : none()],
    ["Repeat", post.repeat ? [repeatLabel(post.repeat), h("br"), h("code", { class: "mono" }, post.repeat)] : none()],
    ["Series", post.series_id ? [`occurrence ${post.occurrence} · `, h("a", { href: `#/queue/Scheduled?series_id=${post.series_id}` }, "the series")] : none()],
    ["Handoff", post.handoff_id ? h("code", {}, post.handoff_id) : none()],
    ["Lease ends", when(post.handoff_expires_at)],
    ["Handed off", `${post.handoff_count} time${post.handoff_count === 1 ? "" : "s"}`],
    ["Created", when(post.created_at)],
    ["Updated", when(post.updated_at)],
    ["Version", h("span", { dataset: { field: "version" } }, String(post.version))],
    ["ID", h("code", {}, post.id)],
  ];
  return h(
    "section",
    { class: "fields", "aria-labelledby": "fields-title" },
    h("h2", { id: "fields-title" }, "Details"),
    h("dl", {}, rows.map(([term, value]) => h("div", { class: "field" }, h("dt", {}, term), h("dd", {}, value)))),
  );
}

const none = () => h("span", { class: "muted" }, "—");

/** A published post's figures: the latest, and each snapshot on a small chart. */
function postStats(post, stats) {
  const latest = stats.latest;
  if (!latest) {
    return [h("p", { class: "hint" }, byService(post) ? "No figures yet: this service collects them from LinkedIn after publishing (impressions, reactions, comments, reshares, clicks)." : "No figures yet: an automation may send them after publishing, or they are entered by hand as LinkedIn shows them (impressions, reactions, comments, reshares, clicks).")];
  }
  const age = (snapshot) => `${time.duration(Date.parse(snapshot.taken_at) - Date.parse(post.published_at))} after`;
  const tile = (label, value) => h("div", { class: "tile" }, h("dt", {}, label), h("dd", {}, value));
  return [
    h(
      "dl",
      { class: "tiles" },
      tile("Impressions", count(latest.impressions)),
      tile("Engagement", percent(latest.engagement)),
      tile("Reactions", count(latest.reactions)),
      tile("Comments", count(latest.comments)),
      tile("Reshares", count(latest.reshares)),
      tile("Clicks", count(latest.clicks)),
    ),
    h("p", { class: "hint" }, "As of ", time.timeElement(latest.taken_at), ` (${age(latest)} publishing).`),
    stats.data.length > 1
      ? chartFigure({
          id: "post-snapshots",
          title: "Since it went out",
          note: h("span", { class: "legend" }, h("span", { class: "key key-impressions" }, "Impressions (left)"), h("span", { class: "key key-engagement" }, "Engagement (right)")),
          draw: (width) =>
            lineChart(width, {
              height: 200,
              labels: stats.data.map((snapshot) => time.duration(Date.parse(snapshot.taken_at) - Date.parse(post.published_at))),
              series: [
                { name: "impressions", values: stats.data.map((s) => s.impressions), side: "left", className: "impressions", format: count, axisFormat: count },
                { name: "engagement", values: stats.data.map((s) => s.engagement), side: "right", className: "engagement", format: percent, axisFormat: percent },
              ],
            }),
          table: figureTable(
            "Every snapshot of the post's figures, oldest first",
            ["Taken", "Impressions", "Engagement", "Reactions", "Comments", "Reshares", "Clicks"],
            stats.data.map((s) => [[time.timeElement(s.taken_at), ` (${age(s)})`], count(s.impressions), percent(s.engagement), count(s.reactions), count(s.comments), count(s.reshares), count(s.clicks)]),
          ),
        })
      : null,
  ];
}

/** The post's media as LinkedIn lays them out, and each image's alt text
 *  (the post's own, else the library's), or a nudge where there is none. */
function postMedia(post, library) {
  if (!post.media_urls.length) return null;
  const media = post.media_urls.map((url, n) => ({ url, kind: kindOf(url), alt: altTextOf(url, post.media_alt?.[n], library), pages: library[libraryId(url)]?.pages ?? null }));
  const images = media.map((medium, n) => [medium, n]).filter(([medium]) => medium.kind === "image");
  return h(
    "section",
    { class: "post-media", "aria-labelledby": "post-media-title" },
    h("h2", { id: "post-media-title", class: "visually-hidden" }, "Media"),
    mediaLayout(media, post.document_title),
    images.length
      ? h(
          "ol",
          { class: "plain alt-list", "aria-label": "Alt text of each image" },
          images.map(([medium, n]) => h("li", { class: medium.alt.trim() ? "" : "alt-missing" }, h("strong", {}, `Image ${n + 1}: `), medium.alt.trim() ? medium.alt : h("span", { class: "alt-nudge" }, "no alt text (Edit to describe it)"))),
        )
      : null,
  );
}

function firstComment(post) {
  if (!post.first_comment) return null;
  return h("section", { class: "first-comment", "aria-labelledby": "first-comment-title" }, h("h2", { id: "first-comment-title" }, "First comment"), h("div", { class: "content-block" }, post.first_comment), h("p", { class: "hint" }, commentOutcome(post)));
}

/** What became of the first comment, in a sentence. */
function commentOutcome(post) {
  if (post.first_comment_urn) return ["Posted as ", h("code", {}, post.first_comment_urn), "."];
  if (post.first_comment_error) return h("span", { class: "error-text" }, `Not posted: ${post.first_comment_error}`);
  if (post.status === "Published") return byService(post) ? "Not reported." : "Not reported by the automation.";
  return byService(post) ? "Published by this service right after the post." : "Posted by the automation right after the post.";
}

/** Whether the post's channel is published by this service itself (connected to LinkedIn). */
function byService(post) {
  return channelById(post.channel_id)?.publisher === "linkedin";
}

/** The first free slot of the post's channel, at least the lead time ahead:
 *  {at, channel}, or {none: why there is none}. */
async function nextFreeSlot(post) {
  const id = channelOf(post);
  const channel = await call("GET", `/channels-item/${encodeURIComponent(id)}`).then((r) => r.data, (error) => (error.status === 404 ? null : Promise.reject(error)));
  if (!channel) return { none: `No free slot: the channel ${id} is not set up, so it has no posting times. Set it up under Channels.` };
  if (!channel.slots.length) return { none: `No free slot: ${channel.name} has no posting times yet. Add them under Channels.` };
  const { data } = await call("GET", `/channels-slots/${encodeURIComponent(id)}?days=90`);
  const soonest = earliest().getTime();
  const free = data.data.find((slot) => !slot.post_id && Date.parse(slot.at) >= soonest && slot.at !== post.scheduled_at);
  return free ? { at: free.at, channel } : { none: `No free slot in the next 90 days of ${channel.name}.` };
}

/** On a planned repeat (from the calendar): it is not a post yet, what will
 *  make it, and what editing the series does. */
function plannedRepeat(post, at, n) {
  const first = post.occurrence === 1;
  return h(
    "section",
    { class: "panel planned-repeat", "aria-labelledby": "planned-repeat-title" },
    h("h2", { id: "planned-repeat-title" }, "↻ Planned repeat: ", time.timeElement(at, time.local(at))),
    h(
      "p",
      {},
      `Not a post yet: ${n ? `occurrence ${n} of ` : ""}a series that repeats ${(repeatLabel(post.repeat) ?? "").replace(/^Every/, "every")}. `,
      `A series holds one post at a time, this one (occurrence ${post.occurrence ?? 1}): when it goes out, the next is made as a copy of it, and so on up to this repeat.`,
    ),
    h("p", { class: "alert-title" }, "What editing does"),
    h(
      "ul",
      {},
      h("li", {}, h("strong", {}, "Edit"), " the text, images or channel of this post: every repeat after it copies the change. Posts of the series already published stay as they went out."),
      h("li", {}, h("strong", {}, "Repeat"), " (under Edit): a new rule changes the repeats; Does not repeat ends the series after this post."),
      h(
        "li",
        {},
        h("strong", {}, "Move to…"),
        first ? ": this is the series' first post, so its new time of day becomes every repeat's." : ": moves this post alone; the repeats keep to the rule.",
      ),
      h("li", {}, h("strong", {}, "Unschedule or Delete"), ": the series stops, and no repeat is made."),
    ),
    h("p", {}, h("a", { href: `#/queue/Scheduled?series_id=${post.series_id}` }, "The series' posts"), " · ", h("a", { href: `#/calendar/${time.dayKey(new Date(at))}` }, "Back to the calendar")),
  );
}
