// Creating an article (a Draft, with an Idempotency-Key) and editing one
// (only the changed fields, on the version loaded: If-Match).
import { call, newIdempotencyKey } from "../api.js";
import { h, show } from "../dom.js";
import { explain, fieldErrors } from "../explain.js";
import { heading, loading, notify } from "../widgets.js";

export async function showArticleForm(view, route, session) {
  const id = route.params[0];
  show(view, loading());
  let article = null;
  if (id) {
    try {
      article = (await call("GET", `/articles-api-item/${id}`)).data;
    } catch (error) {
      show(view, heading("Edit article"), explain(error));
      return;
    }
  }
  show(view, articleForm(article, session, () => showArticleForm(view, route, session)));
}

function field(name, label, control, hint) {
  control.id = name;
  control.name = name;
  if (hint) control.setAttribute("aria-describedby", `${name}-hint`);
  return h("div", { class: "form-field" }, h("label", { for: name }, label), control, hint ? h("p", { class: "hint", id: `${name}-hint` }, hint) : null);
}

function textarea(value, rows, extra = {}) {
  const element = h("textarea", { rows, ...extra });
  element.value = value ?? "";
  return element;
}

function articleForm(article, session, reload) {
  const idempotencyKey = newIdempotencyKey();
  const controls = {
    title: h("input", { maxlength: 300, required: true, value: article?.title ?? "", autocomplete: "off" }),
    excerpt: textarea(article?.excerpt, 2, { maxlength: 300 }),
    body: textarea(article?.body, 14),
    tags: h("input", { value: (article?.tags ?? []).join(", "), autocomplete: "off" }),
    cover_image_url: h("input", { type: "url", value: article?.cover_image_url ?? "", spellcheck: "false" }),
  };
  if (article) controls.live_url = h("input", { type: "url", value: article.live_url ?? "", spellcheck: "false" });
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const save = h("button", { type: "submit", class: "button button-primary" }, article ? "Save changes" : "Create draft");

  function values() {
    const text = (name) => controls[name].value.trim() || null;
    const result = {
      title: controls.title.value,
      excerpt: text("excerpt"),
      body: controls.body.value,
      tags: controls.tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
      cover_image_url: text("cover_image_url"),
    };
    if (article) result.live_url = text("live_url");
    return result;
  }

  async function onsubmit(event) {
    event.preventDefault();
    for (const control of Object.values(controls)) control.removeAttribute("aria-invalid");
    problem.replaceChildren();
    save.disabled = true;
    try {
      if (article) {
        const changed = Object.fromEntries(Object.entries(values()).filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(article[name])));
        if (Object.keys(changed).length) {
          const saved = (await call("PATCH", `/articles-api-item/${article.id}`, { body: changed, version: article.version })).data;
          notify("Saved.");
        } else notify("Nothing changed.");
        location.hash = `#/articles/${article.id}`;
      } else {
        const created = (await call("POST", "/articles-api", { body: values(), idempotencyKey })).data;
        notify("Article draft created.");
        location.hash = `#/articles/${created.id}`;
      }
    } catch (error) {
      save.disabled = false;
      for (const [name] of fieldErrors(error)) controls[name.split(".")[0]]?.setAttribute("aria-invalid", "true");
      const again = error.status === 412 ? [h("button", { type: "button", class: "button", onclick: reload }, "Reload")] : [];
      show(problem, explain(error, ...again));
      problem.focus();
    }
  }

  return [
    heading(article ? "Edit article" : "New article"),
    h(
      "form",
      { class: "panel article-form", novalidate: true, onsubmit },
      session.can("articles:write") ? null : h("p", { class: "alert alert-warning" }, "This key cannot change articles: it lacks articles:write. The service will refuse to save."),
      field("title", "Title", controls.title),
      field("excerpt", "Excerpt", controls.excerpt, "Optional; at most 300 characters."),
      field("body", "Body", controls.body, "Markdown or plain text."),
      field("tags", "Tags", controls.tags, "Separated by commas, at most 20."),
      field("cover_image_url", "Cover image URL", controls.cover_image_url, "Optional http or https link."),
      article ? field("live_url", "Live URL", controls.live_url, "Where the article is public, once it is.") : null,
      problem,
      h("div", { class: "actions" }, save, h("a", { class: "button", href: article ? `#/articles/${article.id}` : "#/articles" }, "Cancel")),
    ),
  ];
}
