// Your API keys (#/keys): keys a member makes for their automations, with
// scopes at most what their role allows, each shown once; and revoked here.
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { ROLES, SCOPES } from "../session.js";
import { confirmAction, copyField, empty, heading, loading } from "../widgets.js";

export async function showKeys(container, _route, session) {
  const list = h("div", { id: "keys-list" });
  const made = h("div", { id: "key-made" });
  show(container, heading("Your API keys"), h("p", {}, "Keys are for automations (n8n, Make, scripts): each acts as you, with the scopes you give it, at most what your role allows."), createForm(session, made, () => draw(list)), made, list);
  await draw(list);
  return { refresh: () => draw(list) };
}

function createForm(session, made, changed) {
  const allowed = ROLES[session.me?.member?.role]?.scopes ?? Object.keys(SCOPES);
  const boxes = Object.entries(SCOPES).map(([scope, grants]) => {
    const id = `scope-${scope.replace(":", "-")}`;
    const box = h("input", { type: "checkbox", id, value: scope, disabled: !allowed.includes(scope) });
    return h("li", {}, box, " ", h("label", { for: id, title: grants }, scope), allowed.includes(scope) ? "" : h("span", { class: "muted" }, " (not for your role)"));
  });
  const problem = h("div");
  const form = h("form", { class: "panel", id: "key-form" }, h("h2", {}, "Make a key"), h("ul", { class: "scope-choices" }, ...boxes), problem, h("button", { type: "submit", class: "button button-primary", id: "make-key" }, "Make the key"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const scopes = [...form.querySelectorAll("input:checked")].map((box) => box.value);
    if (!scopes.length) return show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Choose at least one scope."));
    try {
      const { data } = await call("POST", "/keys", { body: { scopes } });
      show(problem);
      show(made, h("div", { class: "alert alert-success" }, h("p", {}, "Your new key. Copy it now: it is not shown again."), copyField(data.key, "The new key", "new-key")));
      changed();
    } catch (error) {
      show(problem, explain(error));
    }
  });
  return form;
}

async function draw(list) {
  show(list, loading());
  let keys;
  try {
    keys = (await call("GET", "/keys")).data.data;
  } catch (error) {
    show(list, explain(error));
    return;
  }
  if (!keys.length) return show(list, empty("You have no keys yet."));
  show(
    list,
    h(
      "div",
      { class: "table-scroll" },
      h(
      "table",
      { class: "table", id: "keys-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Key"), h("th", {}, "Scopes"), h("th", {}, "Last used"), h("th", {}, ""))),
      h(
        "tbody",
        {},
        ...keys.map((key) => {
          const revoke = h("button", { type: "button", class: "button button-danger" }, key.revoked_at ? "Revoked" : "Revoke");
          revoke.disabled = Boolean(key.revoked_at);
          revoke.addEventListener("click", async () => {
            if (!(await confirmAction(`Revoke ${key.prefix}…? Automations using it stop at once.`, "Revoke"))) return;
            await call("DELETE", `/keys-item/${key.id}`);
            draw(list);
          });
          return h("tr", { dataset: { key: String(key.id) } }, h("td", { class: "mono" }, `${key.prefix}…`), h("td", {}, key.scopes.join(" ")), h("td", {}, key.last_used_at ? new Date(key.last_used_at).toLocaleString() : "never"), h("td", {}, revoke));
        }),
      ),
      ),
    ),
  );
}
