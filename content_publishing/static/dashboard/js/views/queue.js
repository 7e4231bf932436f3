// The queue: posts by status, a page at a time (the API's limit/offset),
// with every status's count from the API's `total`; searched by words (`q`)
// and filtered by channel; rows selected in bulk to add to the queue, move
// by a number of days, move to another channel, unschedule, retry, duplicate
// or delete, one request per post on the version shown (If-Match). Where
// posts are approved first, the In review and Approved tabs, and the bulk
// review (submit, approve, approve and add to queue, request changes) in one
// request that answers each post's outcome. Bulk actions go in the order the
// posts were picked; "select all" picks them oldest first, an import's rows
// in the order of its CSV.
import { PAGE_SIZE, call, newIdempotencyKey, query } from "../api.js";
import { excerpt, h, outsideLink, show } from "../dom.js";
import { explain } from "../explain.js";
import { count, percent } from "../charts.js";
import { channelById, channelChoice, loadChannels } from "../profiles.js";
import * as time from "../time.js";
import { dueState } from "../publisher-state.js";
import { confirmAction, countdown, empty, fitTabs, heading, loading, notify, pager, repeatBadge, typeBadge } from "../widgets.js";

const RETRY_AFTER_MS = 5 * 60_000; // a retried post goes out this long from now
const STATUSES = ["Draft", "In review", "Approved", "Scheduled", "Publishing", "Published", "Failed"];
const REVIEWED = ["In review", "Approved"]; // shown where posts are approved first, or any wait

// Bulk actions by status; those in PUBLISH also need posts:publish, and
// those in ASK ask for a value first (how many days, which channel).
const BULK = {
  Draft: ["queue", "channel", "duplicate", "delete"],
  "In review": ["approve", "approve_queue", "request_changes"],
  Approved: ["queue", "request_changes"],
  Scheduled: ["shift", "channel", "unschedule", "duplicate", "delete"],
  Publishing: [],
  Published: ["duplicate"],
  Failed: ["retry", "queue", "channel", "duplicate", "delete"],
};
// Where posts are approved first, a Draft is submitted rather than queued.
const BULK_REVIEWED_DRAFT = ["submit", "submit_queue", "channel", "duplicate", "delete"];
// The review's moves: [action, queue once approved (or at once)].
const REVIEW = {
  submit: ["submit", false],
  submit_queue: ["submit", true],
  approve: ["approve", false],
  approve_queue: ["approve", true],
  request_changes: ["request_changes", false],
};
const BULK_LABEL = {
  submit: "Submit for review",
  submit_queue: "Submit, to be queued when approved",
  approve: "Approve",
  approve_queue: "Approve and add to queue",
  request_changes: "Request changes…",
  queue: "Add to queue",
  shift: "Reschedule by days…",
  channel: "Change channel…",
  unschedule: "Unschedule",
  retry: "Retry in 5 min",
  duplicate: "Duplicate",
  delete: "Delete",
};
const PUBLISH = ["queue", "shift", "unschedule", "retry", "approve_queue"];
const ASK = ["shift", "channel", "request_changes"];

// Posts waiting for a time come soonest first; the others newest first.
const ORDER = { Scheduled: "scheduled_at", Publishing: "scheduled_at" };
// Published posts may also go by their latest figures, highest first.
const SORTS = [
  ["", "Newest first"],
  ["-impressions", "Most impressions"],
  ["-engagement", "Highest engagement"],
];

// What each status adds to the common columns (post, type, scheduled time).
const COLUMNS = {
  Draft: [
    ["Updated", (post) => time.timeElement(post.updated_at)],
    ["When approved", intentText],
  ],
  "In review": [
    ["Author", (post) => post.author?.name ?? "—"],
    ["When approved", intentText],
  ],
  Approved: [
    ["Approved by", (post) => post.approved_by?.name ?? "—"],
    ["When approved", intentText],
  ],
  Scheduled: [["Due", (post) => dueState(post)]],
  Publishing: [
    ["Lease", (post) => countdown(post.handoff_expires_at, "{} left", "ran out: it becomes Failed")],
    ["Handoffs", (post) => String(post.handoff_count)],
  ],
  Published: [
    ["Published", (post) => (post.published_at ? time.timeElement(post.published_at) : "—")],
    ["Impressions", (post) => count(post.stats?.impressions)],
    ["Engagement", (post) => percent(post.stats?.engagement)],
    ["Live post", (post) => (post.live_url ? outsideLink(post.live_url, "View live post") : "—")],
  ],
  Failed: [["Error", (post) => h("span", { class: "error-text" }, post.last_error || "—")]],
};

/** What the post does once approved, in words: its intent. */
export function intentText(post) {
  if (post.intent?.queue) return h("span", { class: "intent" }, "Added to the queue");
  if (post.intent?.scheduled_at) return h("span", { class: "intent" }, "Scheduled for ", time.timeElement(post.intent.scheduled_at));
  return h("span", { class: "muted" }, "—");
}

export async function showQueue(view, route, session) {
  const status = decodeURIComponent(route.params[0] || "Scheduled");
  const offset = Math.max(0, Number.parseInt(route.query.get("offset"), 10) || 0);
  const sort = SORTS.some(([value]) => value && value === route.query.get("sort")) ? route.query.get("sort") : undefined;
  const filters = { q: route.query.get("q") || undefined, channel: route.query.get("channel") || undefined, series_id: route.query.get("series_id") || undefined, sort: status === "Published" ? sort : undefined };
  const tabs = h("nav", { class: "tabs", "aria-label": "Statuses" });
  const filterSlot = h("div", {});
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const body = h("div", { class: "queue-body" }, loading());
  const write = session.can("posts:write");
  show(
    view,
    heading(
      "Queue",
      write ? h("div", { class: "toolbar" }, session.atLeast("editor") ? h("a", { class: "button", href: "#/import" }, "Import CSV") : null, h("a", { class: "button button-primary", href: "#/posts/new" }, "New post")) : null,
    ),
    tabs,
    filterSlot,
    messages,
    body,
  );
  const channels = await loadChannels(); // none: the filter still takes personal
  show(filterSlot, filterForm(status, filters, channels, session));
  const selected = new Set();
  let posts = [];

  let shown = null;
  async function refresh() {
    let page, counts;
    try {
      [page, counts] = await Promise.all([readPage(status, filters, offset), countByStatus(status, filters)]);
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    counts[status] = page.total;
    const signature = JSON.stringify([counts, page.data.map((post) => [post.id, post.version])]);
    if (signature === shown) return;
    shown = signature;
    posts = page.data;
    for (const id of [...selected]) if (!posts.some((post) => post.id === id)) selected.delete(id);
    const shownStatuses = STATUSES.filter((s) => !REVIEWED.includes(s) || session.approvals || counts[s] > 0 || s === status);
    show(tabs, statusTabs(status, counts, filters, shownStatuses));
    fitTabs(tabs);
    const filtered = Boolean(filters.q || filters.channel || filters.series_id);
    const bulkHere = status === "Draft" && session.approvals ? BULK_REVIEWED_DRAFT : BULK[status];
    const actions = bulkHere.filter((action) => write && (!PUBLISH.includes(action) || session.can("posts:publish")));
    show(
      body,
      h("h2", { class: "visually-hidden" }, `${status} posts`),
      posts.length && actions.length ? bulkBar(actions) : null,
      posts.length ? table(status, posts, actions.length ? selected : null, updateBar) : empty(offset ? "No posts on this page." : filtered ? `No ${status.toLowerCase()} posts match.` : `No ${status.toLowerCase()} posts.`),
      pager(page.total, offset, (o) => `#/queue/${encodeURIComponent(status)}${query({ ...filters, offset: o || undefined })}`, `${status} posts`),
    );
    updateBar();
  }

  function bulkBar(actions) {
    const asking = h("div", { class: "bulk-ask" });
    return h(
      "div",
      { class: "bulk" },
      h(
        "div",
        { class: "bulk-bar", role: "group", "aria-label": "With the selected posts" },
        h("span", { class: "bulk-count", "aria-live": "polite" }),
        actions.map((action) =>
          h(
            "button",
            {
              type: "button",
              class: `button${action === "delete" ? " button-danger" : ""}`,
              dataset: { bulk: action },
              "aria-expanded": ASK.includes(action) ? "false" : null,
              onclick: (event) => (ASK.includes(action) ? ask(action, event.currentTarget, asking) : runBulk(action)),
            },
            BULK_LABEL[action],
          ),
        ),
      ),
      asking,
    );
  }

  /** The small form that asks how many days, or which channel, then runs the action. */
  function ask(action, opener, slot) {
    const open = opener.getAttribute("aria-expanded") === "true";
    for (const button of body.querySelectorAll(".bulk-bar [aria-expanded]")) button.setAttribute("aria-expanded", "false");
    if (open) {
      slot.replaceChildren();
      return;
    }
    opener.setAttribute("aria-expanded", "true");
    const close = () => {
      slot.replaceChildren();
      opener.setAttribute("aria-expanded", "false");
      opener.focus();
    };
    const input =
      action === "shift"
        ? h("input", { id: "bulk-days", type: "number", min: -365, max: 365, step: 1, value: "1", inputmode: "numeric" })
        : action === "request_changes"
          ? h("textarea", { id: "bulk-comment", rows: 3, maxlength: 5000, required: true })
          : h("select", { id: "bulk-channel" }, channelOptions(channels, session));
    const label = { shift: "Move them by this many days (negative: earlier), at the same time of day", channel: "Move them to the channel", request_changes: "What should change? Each author reads this." }[action];
    function onsubmit(event) {
      event.preventDefault();
      const value = action === "shift" ? Number.parseInt(input.value, 10) : input.value.trim();
      if ((action === "shift" && (!Number.isInteger(value) || value === 0)) || (action === "request_changes" && !value)) {
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      close();
      runBulk(action, value);
    }
    show(
      slot,
      h(
        "form",
        { class: "bulk-form", onsubmit, "aria-label": BULK_LABEL[action].replace("…", "") },
        h("label", { for: input.id }, label),
        input,
        h("button", { type: "submit", class: "button button-primary" }, { shift: "Move", channel: "Change channel", request_changes: "Send back for changes" }[action]),
        h("button", { type: "button", class: "button", onclick: close }, "Cancel"),
      ),
    );
    input.focus();
  }

  function updateBar() {
    const bar = body.querySelector(".bulk-bar");
    if (!bar) return;
    bar.querySelector(".bulk-count").textContent = `${selected.size} selected`;
    for (const button of bar.querySelectorAll("button")) button.disabled = !selected.size;
    const all = body.querySelector("#select-all");
    if (all) {
      all.checked = selected.size > 0 && selected.size === posts.length;
      all.indeterminate = selected.size > 0 && selected.size < posts.length;
    }
  }

  async function runBulk(action, value) {
    // in the order they were picked (select all: oldest first, as an import's CSV)
    const chosen = [...selected].map((id) => posts.find((post) => post.id === id)).filter(Boolean);
    if (!chosen.length) return;
    if (action === "delete" && !(await confirmAction(`Delete ${chosen.length} post${chosen.length === 1 ? "" : "s"}? It cannot be undone.`, "Delete"))) return;
    messages.replaceChildren();
    const refused = [];
    const late = []; // approved, but not scheduled as they were submitted
    if (action in REVIEW) {
      try {
        for (const outcome of await bulkReview(action, chosen, value)) {
          const post = chosen.find((p) => p.id === outcome.id);
          if (outcome.error) refused.push([post, outcome.error]);
          else if (outcome.not_planned) late.push([post, outcome.not_planned]);
        }
      } catch (error) {
        for (const post of chosen) refused.push([post, error]);
      }
    } else {
      for (const post of chosen) {
        try {
          await bulkOne(action, post, value);
        } catch (error) {
          refused.push([post, error]);
        }
      }
    }
    const done = chosen.length - refused.length;
    const verb = {
      submit: "submitted for review",
      submit_queue: "submitted for review, each to be queued once approved",
      approve: "approved",
      approve_queue: "approved and added to the queue",
      request_changes: "sent back for changes",
      queue: "added to the queue",
      shift: `moved by ${value} day${Math.abs(value) === 1 ? "" : "s"}`,
      channel: `moved to ${channels.find((c) => c.id === value)?.name ?? value}`,
      unschedule: "unscheduled",
      retry: "scheduled again",
      duplicate: "duplicated as drafts",
      delete: "deleted",
    }[action];
    notify(`${done} of ${chosen.length} ${verb}.`);
    selected.clear();
    if (refused.length || late.length) {
      show(
        messages,
        refused.length ? h("p", { class: "alert-title" }, `${refused.length} refused:`) : null,
        refused.map(([post, error]) =>
          h("div", { class: "bulk-refusal", dataset: { postId: post.id } }, h("p", {}, h("strong", {}, excerpt(post.content, 60))), error instanceof Error ? explain(error) : h("div", { class: "alert alert-error", role: "alert" }, h("p", {}, error.message))),
        ),
        late.map(([post, why]) => h("div", { class: "bulk-refusal", dataset: { postId: post.id } }, h("p", {}, h("strong", {}, excerpt(post.content, 60))), h("p", { class: "alert" }, why))),
      );
      messages.focus();
    }
    shown = null;
    await refresh();
  }

  await refresh();
  return { refresh };
}

/** The bulk review of `chosen`, in that order: each post's {id, post, error, not_planned}. */
async function bulkReview(action, chosen, comment) {
  const [move, queue] = REVIEW[action];
  const body = { action: move, queue, posts: chosen.map((post) => ({ id: post.id, version: post.version })) };
  if (move === "request_changes") body.comment = comment;
  return (await call("POST", "/api-v2-posts-review-bulk", { body })).data.data;
}

async function bulkOne(action, post, value) {
  const path = `/api-v2-posts-item/${post.id}`;
  if (action === "queue") return call("POST", "/api-v2-posts-queue", { body: { post_id: post.id }, version: post.version });
  if (action === "shift") {
    const at = new Date(post.scheduled_at); // the same wall time, `value` local days later
    at.setDate(at.getDate() + value);
    return call("PATCH", path, { body: { scheduled_at: at.toISOString() }, version: post.version });
  }
  if (action === "channel") return call("PATCH", path, { body: placedOn(value), version: post.version });
  if (action === "unschedule") return call("PATCH", path, { body: { status: "Draft" }, version: post.version });
  if (action === "delete") return call("DELETE", path, { version: post.version });
  if (action === "retry") {
    const soon = new Date(Date.now() + RETRY_AFTER_MS);
    const at = post.scheduled_at && new Date(post.scheduled_at) > soon ? post.scheduled_at : soon.toISOString();
    return call("PATCH", path, { body: { status: "Scheduled", scheduled_at: at }, version: post.version });
  }
  const body = { ...placedOn(post.channel_id ?? (post.type === "brand" ? post.brand_id : "personal")), content: post.content, media_urls: post.media_urls };
  return call("POST", "/api-v2-posts", { body, idempotencyKey: newIdempotencyKey() });
}

/** The fields that put a post on the channel `id`: its channel_id when it
 *  is set up; else personal, or the brand of that brand_id. */
function placedOn(id) {
  if (channelById(id)) return { channel_id: id };
  return id === "personal" ? { type: "personal", brand_id: null } : { type: "brand", brand_id: id };
}

/** Every channel by name, people's profiles and brand pages; `personal` too while none is set up. */
function channelOptions(channels, session, selected) {
  const me = session.me?.member?.id;
  const options = channels.map((c) => h("option", { value: c.id, selected: selected === c.id }, channelChoice(c, me)));
  if (!channels.some((c) => c.id === "personal")) options.unshift(h("option", { value: "personal", selected: selected === "personal" }, "Personal profile"));
  return options;
}

/** The API's filter for a channel: its channel_id (every post carries one). */
function apiFilters(filters) {
  return { q: filters.q, series_id: filters.series_id, channel_id: filters.channel };
}

/** One page: {data, total}. */
async function readPage(status, filters, offset) {
  const params = { ...apiFilters(filters), status, order: filters.sort ?? ORDER[status] };
  const { data } = await call("GET", `/api-v2-posts${query({ ...params, limit: PAGE_SIZE, offset })}`);
  return data;
}

/** {status: total} for every status but `current`, one limit=1 read each. */
async function countByStatus(current, filters) {
  const others = STATUSES.filter((s) => s !== current);
  const answers = await Promise.all(others.map((s) => call("GET", `/api-v2-posts${query({ ...apiFilters(filters), status: s, limit: 1 })}`)));
  return Object.fromEntries(others.map((s, i) => [s, answers[i].data.total]));
}

function filterForm(status, filters, channels, session) {
  const channel = h("select", { id: "queue-channel", name: "channel" }, h("option", { value: "" }, "Every channel"), channelOptions(channels, session, filters.channel));
  if (filters.channel && ![...channel.options].some((o) => o.value === filters.channel)) channel.append(h("option", { value: filters.channel, selected: true }, filters.channel));
  function onsubmit(event) {
    event.preventDefault();
    const values = { q: event.target.elements.q.value.trim() || undefined, channel: channel.value || undefined, series_id: filters.series_id, sort: event.target.elements.sort?.value || undefined };
    location.hash = `#/queue/${encodeURIComponent(status)}${query(values)}`;
  }
  return h(
    "form",
    { class: "filters queue-filters", role: "search", "aria-label": "Search posts", onsubmit },
    h("div", { class: "form-field" }, h("label", { for: "queue-q" }, "Search"), h("input", { id: "queue-q", name: "q", type: "search", value: filters.q ?? "", placeholder: "words in the post", autocomplete: "off" })),
    h("div", { class: "form-field" }, h("label", { for: "queue-channel" }, "Channel"), channel),
    status === "Published"
      ? h(
          "div",
          { class: "form-field" },
          h("label", { for: "queue-sort" }, "Sort"),
          h("select", { id: "queue-sort", name: "sort" }, SORTS.map(([value, label]) => h("option", { value, selected: (filters.sort ?? "") === value }, label))),
        )
      : null,
    h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button button-primary" }, "Search"), h("a", { class: "button", href: `#/queue/${encodeURIComponent(status)}` }, "Clear")),
    filters.series_id ? h("p", { class: "hint" }, "Showing one recurring series. ", h("a", { href: `#/queue/${encodeURIComponent(status)}` }, "Show all")) : null,
  );
}

function statusTabs(current, counts, filters, statuses) {
  return h(
    "ul",
    {},
    statuses.map((s) =>
      h(
        "li",
        {},
        h(
          "a",
          { href: `#/queue/${encodeURIComponent(s)}${query(filters)}`, class: `tab status-${s.toLowerCase().replace(" ", "-")}`, "aria-current": s === current ? "page" : null, dataset: { focusKey: `tab-${s}` } },
          s,
          h("span", { class: "tab-count" }, String(counts[s] ?? 0)),
        ),
      ),
    ),
  );
}

function table(status, posts, selected, changed) {
  const select = selected
    ? [
        [
          h("label", { class: "select-cell" }, h("input", { type: "checkbox", id: "select-all", "aria-label": "Select every post on this page", onchange: (event) => {
            const oldestFirst = [...posts].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
            for (const post of oldestFirst) (event.target.checked ? selected.add(post.id) : selected.delete(post.id));
            for (const box of event.target.closest("table").querySelectorAll("tbody input[type=checkbox]")) box.checked = event.target.checked;
            changed();
          } })),
          (post) =>
            h("input", { type: "checkbox", class: "select-post", "aria-label": `Select: ${excerpt(post.content, 60)}`, checked: selected.has(post.id), dataset: { focusKey: `select-${post.id}` }, onchange: (event) => {
              if (event.target.checked) selected.add(post.id);
              else selected.delete(post.id);
              changed();
            } }),
        ],
      ]
    : [];
  const columns = [
    ...select,
    ["Post", (post) => [h("a", { href: `#/posts/${post.id}`, dataset: { focusKey: post.id } }, excerpt(post.content, 90)), " ", repeatBadge(post)]],
    ["Type", typeBadge],
    ["Scheduled for", (post) => (post.scheduled_at ? time.timeElement(post.scheduled_at) : h("span", { class: "muted" }, "not set"))],
    ...COLUMNS[status],
  ];
  return h(
    "table",
    { class: "list-table", dataset: { status } },
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col", class: typeof title === "string" ? null : "select-cell" }, title)))),
    h(
      "tbody",
      {},
      posts.map((post) =>
        h(
          "tr",
          { dataset: { postId: post.id } },
          columns.map(([title, cell]) => h("td", { dataset: { label: typeof title === "string" ? title : "Select" }, class: typeof title === "string" ? null : "select-cell" }, h("div", { class: "cell" }, cell(post)))),
        ),
      ),
    ),
  );
}
