// Articles: the list (by status, a page at a time) and one article with
// publish and back-to-draft, each sent on the version shown (If-Match).
import { PAGE_SIZE, call, query } from "../api.js";
import { excerpt, h, outsideLink, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";
import { empty, fitTabs, heading, loading, notify, pager, statusBadge } from "../widgets.js";

const FILTERS = [
  ["All", undefined],
  ["Draft", "Draft"],
  ["Published", "Published"],
];

export async function showArticles(view, route, session) {
  const status = route.query.get("status") || undefined;
  const offset = Math.max(0, Number.parseInt(route.query.get("offset"), 10) || 0);
  const tabs = h("nav", { class: "tabs", "aria-label": "Article statuses" });
  const body = h("div", {}, loading());
  show(
    view,
    heading("Articles", session.can("articles:write") ? h("div", { class: "toolbar" }, h("a", { class: "button button-primary", href: "#/articles/new" }, "New article")) : null),
    tabs,
    body,
  );
  const href = (filter, from = 0) => `#/articles${query({ status: filter, offset: from || undefined })}`;

  let shown = null;
  async function refresh() {
    let answers;
    try {
      answers = await Promise.all(FILTERS.map(([, filter]) => call("GET", `/articles-api${query({ status: filter, limit: filter === status ? PAGE_SIZE : 1, offset: filter === status ? offset : undefined })}`)));
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const page = answers[FILTERS.findIndex(([, filter]) => filter === status)].data;
    const signature = JSON.stringify([answers.map((a) => a.data.total), page.data.map((a) => [a.id, a.version])]);
    if (signature === shown) return;
    shown = signature;
    show(
      tabs,
      h(
        "ul",
        {},
        FILTERS.map(([label, filter], i) =>
          h("li", {}, h("a", { class: "tab", href: href(filter), "aria-current": filter === status ? "page" : null, dataset: { focusKey: `tab-${label}` } }, label, h("span", { class: "tab-count" }, String(answers[i].data.total)))),
        ),
      ),
    );
    fitTabs(tabs);
    show(body, page.data.length ? table(page.data) : empty("No articles here yet."), pager(page.total, offset, (from) => href(status, from), "Articles"));
  }
  await refresh();
  return { refresh };
}

function table(articles) {
  const columns = [
    ["Title", (a) => h("a", { href: `#/articles/${a.id}`, dataset: { focusKey: a.id } }, excerpt(a.title, 90))],
    ["Status", (a) => statusBadge(a.status)],
    ["Tags", (a) => (a.tags.length ? a.tags.map((tag) => h("span", { class: "tag" }, tag)) : h("span", { class: "muted" }, "—"))],
    ["Updated", (a) => time.timeElement(a.updated_at)],
    ["Published", (a) => (a.published_at ? time.timeElement(a.published_at) : h("span", { class: "muted" }, "—"))],
  ];
  return h(
    "table",
    { class: "list-table" },
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, articles.map((a) => h("tr", { dataset: { articleId: a.id } }, columns.map(([title, cell]) => h("td", { dataset: { label: title } }, h("div", { class: "cell" }, cell(a))))))),
  );
}

export async function showArticle(view, route, session) {
  const path = `/articles-api-item/${route.params[0]}`;
  let article;
  let messages;

  async function reload() {
    try {
      article = (await call("GET", path)).data;
      render();
    } catch (error) {
      show(view, heading("Article"), explain(error, h("a", { class: "button", href: "#/articles" }, "Back to articles")));
    }
  }

  /** The timer's refresh shows a newer version unless a message is open. */
  async function refresh(asked) {
    if (asked || !article) return reload();
    if (messages.childElementCount) return;
    try {
      const fresh = (await call("GET", path)).data;
      if (fresh.version !== article.version) {
        article = fresh;
        render();
      }
    } catch {
      // Refresh or the next navigation shows what is wrong
    }
  }

  async function change(body, done) {
    try {
      article = (await call("PATCH", path, { body, version: article.version })).data;
      render();
      view.querySelector("h1").focus(); // the button pressed is gone; start again from the top
      notify(`${done}.`);
    } catch (error) {
      show(messages, explain(error, h("button", { type: "button", class: "button", onclick: reload }, "Reload")));
      messages.focus();
    }
  }

  function render() {
    messages = h("div", { class: "messages", tabindex: "-1" });
    const write = session.can("articles:write");
    const actions = [
      write && h("a", { class: "button", href: `#/articles/${article.id}/edit` }, "Edit"),
      write && article.status === "Draft" && h("button", { type: "button", class: "button button-primary", onclick: () => change({ status: "Published" }, "Published") }, "Publish"),
      write && article.status === "Published" && h("button", { type: "button", class: "button", onclick: () => change({ status: "Draft" }, "Back to Draft") }, "Back to draft"),
    ].filter(Boolean);
    const when = (iso) => (iso ? [time.timeElement(iso), h("span", { class: "utc" }, time.utc(iso))] : h("span", { class: "muted" }, "—"));
    const link = (url) => (url ? outsideLink(url) : h("span", { class: "muted" }, "—"));
    const rows = [
      ["Status", article.status],
      ["Excerpt", article.excerpt ?? h("span", { class: "muted" }, "—")],
      ["Tags", article.tags.length ? article.tags.map((tag) => h("span", { class: "tag" }, tag)) : h("span", { class: "muted" }, "—")],
      ["Cover image", link(article.cover_image_url)],
      ["Live URL", link(article.live_url)],
      ["Published at", when(article.published_at)],
      ["Created", when(article.created_at)],
      ["Updated", when(article.updated_at)],
      ["Version", String(article.version)],
      ["ID", h("code", {}, article.id)],
    ];
    show(
      view,
      heading(article.title, h("div", { class: "badges" }, statusBadge(article.status))),
      h(
        "div",
        { class: "action-bar" },
        actions.length ? h("div", { class: "actions", role: "group", "aria-label": "Actions" }, actions) : null,
        write ? null : h("p", { class: "hint" }, "This key lacks articles:write, so it can only look at articles."),
      ),
      messages,
      h(
        "div",
        { class: "record-layout" },
        h(
          "section",
          { class: "record-main source-block", "aria-labelledby": "body-title" },
          h("div", { class: "source-head" }, h("h2", { id: "body-title" }, "Body"), h("span", { class: "hint" }, "As written: Markdown is shown as source")),
          article.body ? h("pre", { class: "source-text" }, article.body) : h("p", { class: "source-text muted" }, "No body yet."),
        ),
        h("section", { class: "fields", "aria-labelledby": "fields-title" }, h("h2", { id: "fields-title" }, "Details"), h("dl", {}, rows.map(([term, value]) => h("div", { class: "field" }, h("dt", {}, term), h("dd", {}, value))))),
      ),
    );
  }

  show(view, loading());
  await reload();
  return { refresh };
}
