// The queue: posts by status, a page at a time (the API's limit/offset),
// with every status's count from the API's `total`; searched by words (`q`)
// and filtered by channel; rows selected in bulk to add to the queue, move
// by a number of days, move to another channel, unschedule, retry, duplicate
// or delete, one request per post on the version shown (If-Match).
import { PAGE_SIZE, call, newIdempotencyKey, query } from "../api.js";
import { excerpt, h, outsideLink, show } from "../dom.js";
import { explain } from "../explain.js";
import { count, percent } from "../charts.js";
import * as time from "../time.js";
import { POST_STATUSES, confirmAction, countdown, empty, fitTabs, heading, loading, notify, pager, repeatBadge, typeBadge } from "../widgets.js";

const RETRY_AFTER_MS = 5 * 60_000; // a retried post goes out this long from now

// Bulk actions by status; those in PUBLISH also need posts:publish, and
// those in ASK ask for a value first (how many days, which channel).
const BULK = {
  Draft: ["queue", "channel", "duplicate", "delete"],
  Scheduled: ["shift", "channel", "unschedule", "duplicate", "delete"],
  Publishing: [],
  Published: ["duplicate"],
  Failed: ["retry", "queue", "channel", "duplicate", "delete"],
};
const BULK_LABEL = {
  queue: "Add to queue",
  shift: "Reschedule by days…",
  channel: "Change channel…",
  unschedule: "Unschedule",
  retry: "Retry in 5 min",
  duplicate: "Duplicate",
  delete: "Delete",
};
const PUBLISH = ["queue", "shift", "unschedule", "retry"];
const ASK = ["shift", "channel"];

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
  Draft: [["Updated", (post) => time.timeElement(post.updated_at)]],
  Scheduled: [["Due", (post) => countdown(post.scheduled_at, "in {}", "due now: waiting for the automation")]],
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

export async function showQueue(view, route, session) {
  const status = route.params[0] || "Scheduled";
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
  let channels = [];
  try {
    channels = (await call("GET", "/channels?limit=100")).data.data;
  } catch {
    // no channel names to offer; the filter still takes personal
  }
  show(filterSlot, filterForm(status, filters, channels));
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
    show(tabs, statusTabs(status, counts, filters));
    fitTabs(tabs);
    const filtered = Boolean(filters.q || filters.channel || filters.series_id);
    const actions = BULK[status].filter((action) => write && (!PUBLISH.includes(action) || session.can("posts:publish")));
    show(
      body,
      h("h2", { class: "visually-hidden" }, `${status} posts`),
      posts.length && actions.length ? bulkBar(actions) : null,
      posts.length ? table(status, posts, actions.length ? selected : null, updateBar) : empty(offset ? "No posts on this page." : filtered ? `No ${status.toLowerCase()} posts match.` : `No ${status.toLowerCase()} posts.`),
      pager(page.total, offset, (o) => `#/queue/${status}${query({ ...filters, offset: o || undefined })}`, `${status} posts`),
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
        : h(
            "select",
            { id: "bulk-channel" },
            h("option", { value: "personal" }, channels.find((c) => c.id === "personal")?.name ?? "Personal profile"),
            channels.filter((c) => c.type === "brand").map((c) => h("option", { value: c.id }, `${c.name} (${c.id})`)),
          );
    const label = action === "shift" ? "Move them by this many days (negative: earlier), at the same time of day" : "Move them to the channel";
    function onsubmit(event) {
      event.preventDefault();
      const value = action === "shift" ? Number.parseInt(input.value, 10) : input.value;
      if (action === "shift" && (!Number.isInteger(value) || value === 0)) {
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
        h("button", { type: "submit", class: "button button-primary" }, action === "shift" ? "Move" : "Change channel"),
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
    const chosen = posts.filter((post) => selected.has(post.id));
    if (!chosen.length) return;
    if (action === "delete" && !(await confirmAction(`Delete ${chosen.length} post${chosen.length === 1 ? "" : "s"}? It cannot be undone.`, "Delete"))) return;
    messages.replaceChildren();
    const refused = [];
    for (const post of chosen) {
      try {
        await bulkOne(action, post, value);
      } catch (error) {
        refused.push([post, error]);
      }
    }
    const done = chosen.length - refused.length;
    const verb = {
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
    if (refused.length) {
      show(
        messages,
        h("p", { class: "alert-title" }, `${refused.length} refused:`),
        refused.map(([post, error]) => h("div", { class: "bulk-refusal", dataset: { postId: post.id } }, h("p", {}, h("strong", {}, excerpt(post.content, 60))), explain(error))),
      );
      messages.focus();
    }
    shown = null;
    await refresh();
  }

  await refresh();
  return { refresh };
}

async function bulkOne(action, post, value) {
  const path = `/api-v2-posts-item/${post.id}`;
  if (action === "queue") return call("POST", "/api-v2-posts-queue", { body: { post_id: post.id }, version: post.version });
  if (action === "shift") {
    const at = new Date(post.scheduled_at); // the same wall time, `value` local days later
    at.setDate(at.getDate() + value);
    return call("PATCH", path, { body: { scheduled_at: at.toISOString() }, version: post.version });
  }
  if (action === "channel") {
    const body = value === "personal" ? { type: "personal", brand_id: null } : { type: "brand", brand_id: value };
    return call("PATCH", path, { body, version: post.version });
  }
  if (action === "unschedule") return call("PATCH", path, { body: { status: "Draft" }, version: post.version });
  if (action === "delete") return call("DELETE", path, { version: post.version });
  if (action === "retry") {
    const soon = new Date(Date.now() + RETRY_AFTER_MS);
    const at = post.scheduled_at && new Date(post.scheduled_at) > soon ? post.scheduled_at : soon.toISOString();
    return call("PATCH", path, { body: { status: "Scheduled", scheduled_at: at }, version: post.version });
  }
  const body = { type: post.type, content: post.content, media_urls: post.media_urls };
  if (post.type === "brand") body.brand_id = post.brand_id;
  return call("POST", "/api-v2-posts", { body, idempotencyKey: newIdempotencyKey() });
}

/** The API's filters for a channel: personal is type=personal; a brand is
 *  type=brand with its brand_id. */
function apiFilters(filters) {
  const params = { q: filters.q, series_id: filters.series_id };
  if (filters.channel === "personal") params.type = "personal";
  else if (filters.channel) Object.assign(params, { type: "brand", brand_id: filters.channel });
  return params;
}

/** One page: {data, total}. */
async function readPage(status, filters, offset) {
  const params = { ...apiFilters(filters), status, order: filters.sort ?? ORDER[status] };
  const { data } = await call("GET", `/api-v2-posts${query({ ...params, limit: PAGE_SIZE, offset })}`);
  return data;
}

/** {status: total} for every status but `current`, one limit=1 read each. */
async function countByStatus(current, filters) {
  const others = POST_STATUSES.filter((s) => s !== current);
  const answers = await Promise.all(others.map((s) => call("GET", `/api-v2-posts${query({ ...apiFilters(filters), status: s, limit: 1 })}`)));
  return Object.fromEntries(others.map((s, i) => [s, answers[i].data.total]));
}

function filterForm(status, filters, channels) {
  const channel = h(
    "select",
    { id: "queue-channel", name: "channel" },
    h("option", { value: "" }, "Every channel"),
    h("option", { value: "personal", selected: filters.channel === "personal" }, channels.find((c) => c.id === "personal")?.name ?? "Personal profile"),
    channels.filter((c) => c.type === "brand").map((c) => h("option", { value: c.id, selected: filters.channel === c.id }, `${c.name} (${c.id})`)),
  );
  if (filters.channel && ![...channel.options].some((o) => o.value === filters.channel)) channel.append(h("option", { value: filters.channel, selected: true }, filters.channel));
  function onsubmit(event) {
    event.preventDefault();
    const values = { q: event.target.elements.q.value.trim() || undefined, channel: channel.value || undefined, series_id: filters.series_id, sort: event.target.elements.sort?.value || undefined };
    location.hash = `#/queue/${status}${query(values)}`;
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
    h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button button-primary" }, "Search"), h("a", { class: "button", href: `#/queue/${status}` }, "Clear")),
    filters.series_id ? h("p", { class: "hint" }, "Showing one recurring series. ", h("a", { href: `#/queue/${status}` }, "Show all")) : null,
  );
}

function statusTabs(current, counts, filters) {
  return h(
    "ul",
    {},
    POST_STATUSES.map((s) =>
      h(
        "li",
        {},
        h(
          "a",
          { href: `#/queue/${s}${query(filters)}`, class: `tab status-${s.toLowerCase()}`, "aria-current": s === current ? "page" : null, dataset: { focusKey: `tab-${s}` } },
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
            for (const post of posts) (event.target.checked ? selected.add(post.id) : selected.delete(post.id));
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
