// Figures entered by hand for a published post whose channel nobody
// collects them for (not connected to LinkedIn here): what the person read
// on LinkedIn, sent as one stats snapshot, as a collector would send it.

import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";

const FIGURES = [
  ["impressions", "Impressions"],
  ["reactions", "Reactions"],
  ["comments", "Comments"],
  ["reshares", "Reshares"],
  ["clicks", "Clicks"],
];

/** A folded form that records the figures as of a time (now by default);
 *  `saved()` is called once they are kept. */
export function figuresForm(post, saved) {
  const at = h("input", { id: "figures-at", name: "taken_at", type: "datetime-local", required: true, value: time.toLocalInput(new Date()), max: time.toLocalInput(new Date()) });
  const inputs = FIGURES.map(([name]) => h("input", { id: `figures-${name}`, name, type: "number", min: "0", max: "500000000", step: "1", inputmode: "numeric" }));
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const send = h("button", { type: "submit", class: "button button-primary" }, "Save figures");

  async function onsubmit(event) {
    event.preventDefault();
    show(problem);
    const when = time.fromLocalInput(at.value);
    if (!when) return show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Give the time the figures were read."));
    const item = { post_id: post.id, taken_at: when.toISOString() };
    for (const [n, [name]] of FIGURES.entries()) if (inputs[n].value !== "") item[name] = Number(inputs[n].value);
    if (FIGURES.every(([name]) => !(name in item))) return show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Enter at least one figure."));
    send.disabled = true;
    try {
      const { data } = await call("POST", "/api-v2-posts-stats", { body: { data: [item] } });
      const [result] = data.data;
      if (result.result === "refused") show(problem, explain({ status: 400, ...result.error }));
      else saved();
    } catch (error) {
      show(problem, explain(error));
    } finally {
      send.disabled = false;
    }
  }

  return h(
    "details",
    { class: "figures-entry" },
    h("summary", {}, "Enter figures"),
    h(
      "form",
      { class: "figures-form", novalidate: true, onsubmit, "aria-label": "Figures read on LinkedIn" },
      h("p", { class: "hint" }, "This service does not read this channel's figures from LinkedIn. Enter what LinkedIn shows for the post; entering them again for the same time replaces them."),
      h("label", { for: "figures-at" }, "As of"),
      at,
      h("div", { class: "figures-fields" }, FIGURES.map(([name, label], n) => h("div", { class: "field" }, h("label", { for: `figures-${name}` }, label), inputs[n]))),
      problem,
      h("div", { class: "actions" }, send),
    ),
  );
}
