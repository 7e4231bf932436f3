// The queue: posts by status, a page at a time (the API's limit/offset),
// with every status's count from the API's `total`.
import { PAGE_SIZE, call, query } from "../api.js";
import { excerpt, h, outsideLink, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";
import { POST_STATUSES, countdown, empty, fitTabs, heading, loading, pager, typeBadge } from "../widgets.js";

// Posts waiting for a time come soonest first; the others newest first.
const ORDER = { Scheduled: "scheduled_at", Publishing: "scheduled_at" };

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
    ["Live post", (post) => (post.live_url ? outsideLink(post.live_url, "View live post") : "—")],
  ],
  Failed: [["Error", (post) => h("span", { class: "error-text" }, post.last_error || "—")]],
};

export async function showQueue(view, route, session) {
  const status = route.params[0] || "Scheduled";
  const offset = Math.max(0, Number.parseInt(route.query.get("offset"), 10) || 0);
  const tabs = h("nav", { class: "tabs", "aria-label": "Statuses" });
  const body = h("div", { class: "queue-body" }, loading());
  show(
    view,
    heading("Queue", session.can("posts:write") ? h("div", { class: "toolbar" }, h("a", { class: "button button-primary", href: "#/posts/new" }, "New post")) : null),
    tabs,
    body,
  );

  let shown = null;
  async function refresh() {
    let page, counts;
    try {
      [page, counts] = await Promise.all([
        call("GET", `/api-v2-posts${query({ status, order: ORDER[status], limit: PAGE_SIZE, offset })}`),
        countByStatus(status),
      ]);
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    counts[status] = page.data.total;
    const signature = JSON.stringify([counts, page.data.data.map((post) => [post.id, post.version])]);
    if (signature === shown) return;
    shown = signature;
    show(tabs, statusTabs(status, counts));
    fitTabs(tabs);
    show(
      body,
      h("h2", { class: "visually-hidden" }, `${status} posts`),
      page.data.data.length
        ? table(status, page.data.data)
        : empty(offset ? "No posts on this page." : `No ${status.toLowerCase()} posts.`),
      pager(page.data.total, offset, (o) => `#/queue/${status}?offset=${o}`, `${status} posts`),
    );
  }
  await refresh();
  return { refresh };
}

/** {status: total} for every status but `current`, one limit=1 read each. */
async function countByStatus(current) {
  const others = POST_STATUSES.filter((s) => s !== current);
  const answers = await Promise.all(others.map((s) => call("GET", `/api-v2-posts${query({ status: s, limit: 1 })}`)));
  return Object.fromEntries(others.map((s, i) => [s, answers[i].data.total]));
}

function statusTabs(current, counts) {
  return h(
    "ul",
    {},
    POST_STATUSES.map((s) =>
      h(
        "li",
        {},
        h(
          "a",
          { href: `#/queue/${s}`, class: `tab status-${s.toLowerCase()}`, "aria-current": s === current ? "page" : null, dataset: { focusKey: `tab-${s}` } },
          s,
          h("span", { class: "tab-count" }, String(counts[s] ?? 0)),
        ),
      ),
    ),
  );
}

function table(status, posts) {
  const columns = [
    ["Post", (post) => h("a", { href: `#/posts/${post.id}`, dataset: { focusKey: post.id } }, excerpt(post.content, 90))],
    ["Type", typeBadge],
    ["Scheduled for", (post) => (post.scheduled_at ? time.timeElement(post.scheduled_at) : h("span", { class: "muted" }, "not set"))],
    ...COLUMNS[status],
  ];
  return h(
    "table",
    { class: "list-table", dataset: { status } },
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title)))),
    h(
      "tbody",
      {},
      posts.map((post) =>
        h(
          "tr",
          { dataset: { postId: post.id } },
          columns.map(([title, cell]) => h("td", { dataset: { label: title } }, h("div", { class: "cell" }, cell(post)))),
        ),
      ),
    ),
  );
}
