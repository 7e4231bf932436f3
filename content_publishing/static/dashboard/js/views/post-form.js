// Creating a post (always a Draft) and editing one. A create carries an
// Idempotency-Key made when the form opens, so a double submit or a retry
// after a lost answer makes one post, not two. An edit sends only the fields
// that changed, on the version the form was loaded from (If-Match).
import { call, newIdempotencyKey } from "../api.js";
import { h, show } from "../dom.js";
import { explain, fieldErrors } from "../explain.js";
import { heading, loading, notify } from "../widgets.js";

const MAX_CONTENT = 3000;
const MAX_MEDIA = 9;

export async function showPostForm(view, route, session) {
  const id = route.params[0];
  show(view, loading());
  let post = null;
  if (id) {
    try {
      post = (await call("GET", `/api-v2-posts-item/${id}`)).data;
    } catch (error) {
      show(view, heading("Edit post"), explain(error));
      return;
    }
  }
  show(view, postForm(post, session, () => showPostForm(view, route, session)));
}

function postForm(post, session, reload) {
  const idempotencyKey = newIdempotencyKey();
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const type = post?.type ?? "personal";
  const radio = (value, label) =>
    h("label", { class: "choice" }, h("input", { type: "radio", name: "type", value, checked: value === type }), label);
  const brand = h("input", { id: "brand_id", name: "brand_id", maxlength: 100, value: post?.brand_id ?? "", autocomplete: "off" });
  const brandField = h(
    "div",
    { class: "form-field", hidden: type !== "brand" },
    h("label", { for: "brand_id" }, "Brand (company page)"),
    brand,
    h("p", { class: "hint" }, "The company page the automation posts to, for example acme-corp."),
  );
  const content = h("textarea", { id: "content", name: "content", rows: 8, maxlength: MAX_CONTENT, required: true, "aria-describedby": "content-count" });
  content.value = post?.content ?? "";
  const count = h("p", { class: "hint", id: "content-count" });
  const media = h("textarea", { id: "media_urls", name: "media_urls", rows: 3, "aria-describedby": "media-hint", spellcheck: "false" });
  media.value = (post?.media_urls ?? []).join("\n");
  const save = h("button", { type: "submit", class: "button button-primary" }, post ? "Save changes" : "Create draft");
  const countCharacters = () => {
    count.textContent = `${content.value.length} of ${MAX_CONTENT} characters`;
  };
  countCharacters();
  content.addEventListener("input", countCharacters);

  const form = h(
    "form",
    { class: "panel post-form", novalidate: true, onsubmit },
    lockedNote(post, session),
    h(
      "fieldset",
      { class: "form-field" },
      h("legend", {}, "Post type"),
      h("div", { class: "choices", onchange: () => (brandField.hidden = chosenType() !== "brand") }, radio("personal", "Personal"), radio("brand", "Brand")),
    ),
    brandField,
    h("div", { class: "form-field" }, h("label", { for: "content" }, "Content"), content, count),
    h(
      "div",
      { class: "form-field" },
      h("label", { for: "media_urls" }, "Media URLs"),
      media,
      h("p", { class: "hint", id: "media-hint" }, `Up to ${MAX_MEDIA} http or https links, one per line.`),
    ),
    problem,
    h("div", { class: "actions" }, save, h("a", { class: "button", href: post ? `#/posts/${post.id}` : "#/queue/Draft" }, "Cancel")),
  );
  const chosenType = () => form.querySelector("input[name=type]:checked").value;

  function fields() {
    const values = {
      type: chosenType(),
      content: content.value,
      media_urls: media.value.split("\n").map((line) => line.trim()).filter(Boolean),
    };
    values.brand_id = values.type === "brand" ? brand.value.trim() : null;
    return values;
  }

  async function onsubmit(event) {
    event.preventDefault();
    for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
    problem.replaceChildren();
    const values = fields();
    save.disabled = true;
    try {
      if (post) {
        const changed = Object.fromEntries(Object.entries(values).filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(post[name])));
        if (Object.keys(changed).length) {
          const saved = (await call("PATCH", `/api-v2-posts-item/${post.id}`, { body: changed, version: post.version })).data;
          notify(`Saved (version ${saved.version}).`);
        } else notify("Nothing changed.");
        location.hash = `#/posts/${post.id}`;
      } else {
        if (values.type === "personal") delete values.brand_id;
        const created = (await call("POST", "/api-v2-posts", { body: values, idempotencyKey })).data;
        notify("Draft created. Schedule it when it is ready.");
        location.hash = `#/posts/${created.id}`;
      }
    } catch (error) {
      save.disabled = false;
      for (const [name] of fieldErrors(error)) form.querySelector(`[name="${CSS.escape(name.split(".")[0])}"]`)?.setAttribute("aria-invalid", "true");
      const again = error.status === 412 ? [h("button", { type: "button", class: "button", onclick: reload }, "Reload")] : [];
      show(problem, explain(error, ...again));
      problem.focus();
    }
  }

  return [heading(post ? "Edit post" : "New post"), form];
}

/** A warning when the service will refuse to save this form. */
function lockedNote(post, session) {
  if (!session.can("posts:write")) {
    return h("p", { class: "alert alert-warning" }, "This key cannot change posts: it lacks posts:write. The service will refuse to save.");
  }
  if (post && ["Publishing", "Published"].includes(post.status)) {
    return h("p", { class: "alert alert-warning" }, `A ${post.status} post cannot be edited.`);
  }
  return null;
}
