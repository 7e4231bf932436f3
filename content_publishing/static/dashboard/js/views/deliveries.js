// Webhook endpoints (add one, its signing secret shown once; send a test
// ping; disable, enable, delete) and the delivery log, filtered as the API
// allows, with every attempt and a redeliver button (a new delivery of the
// same event).
import { PAGE_SIZE, call, query } from "../api.js";
import { h, show } from "../dom.js";
import { explain, fieldErrors } from "../explain.js";
import * as time from "../time.js";
import { confirmAction, empty, heading, loading, notify, pager } from "../widgets.js";

const OUTCOMES = ["pending", "delivered", "failed", "cancelled"];
const SUBSCRIBABLE = ["post.due", "post.published", "post.failed", "article.published"];
const EVENTS = [...SUBSCRIBABLE, "ping"];
const FILTERS = ["outcome", "event_type", "endpoint_id", "post_id"];

export async function showDeliveries(view, route) {
  const chosen = Object.fromEntries(FILTERS.map((name) => [name, route.query.get(name) || undefined]));
  const offset = Math.max(0, Number.parseInt(route.query.get("offset"), 10) || 0);
  const filterSlot = h("div", {});
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const body = h("div", {}, loading());
  const endpointSlot = h("div", { class: "endpoints" });
  const endpointMessages = h("div", { class: "messages", tabindex: "-1" });
  const addSlot = h("div", { class: "panel-slot" });
  const addButton = h("button", { type: "button", class: "button button-primary", "aria-expanded": "false", onclick: () => toggleAdd() }, "Add endpoint");
  show(
    view,
    heading("Webhook deliveries"),
    h("section", { class: "endpoints-section", "aria-labelledby": "endpoints-title" }, h("div", { class: "view-head" }, h("h2", { id: "endpoints-title" }, "Endpoints"), addButton), addSlot, endpointMessages, endpointSlot),
    h("h2", {}, "Delivery log"),
    filterSlot,
    messages,
    body,
  );

  let endpoints;
  const endpointUrl = {};
  async function loadEndpoints() {
    endpoints = (await call("GET", "/webhooks?limit=100")).data.data;
    for (const id of Object.keys(endpointUrl)) delete endpointUrl[id];
    for (const endpoint of endpoints) endpointUrl[endpoint.id] = endpoint.url;
    show(endpointSlot, endpoints.length ? h("ul", { class: "endpoint-list plain" }, endpoints.map((e) => endpointCard(e, endpointActions))) : empty("No endpoints yet: add one to have events pushed to your automation."));
    show(filterSlot, filterForm(chosen, endpoints));
  }

  function toggleAdd(close = false) {
    if (close || addButton.getAttribute("aria-expanded") === "true") {
      addSlot.replaceChildren();
      addButton.setAttribute("aria-expanded", "false");
      return;
    }
    addButton.setAttribute("aria-expanded", "true");
    show(addSlot, endpointForm(created, () => toggleAdd(true)));
    addSlot.querySelector("input")?.focus();
  }

  async function created(endpoint) {
    toggleAdd(true);
    show(endpointMessages, secretOnce(endpoint, () => endpointMessages.replaceChildren()));
    await loadEndpoints();
    endpointMessages.focus();
  }

  async function endpointChange(endpoint, request, done) {
    endpointMessages.replaceChildren();
    try {
      await request();
      notify(done);
      await loadEndpoints();
      shown = null;
      await refresh();
    } catch (error) {
      show(endpointMessages, explain(error));
      endpointMessages.focus();
    }
  }

  const endpointActions = {
    ping: (endpoint) => endpointChange(endpoint, () => call("POST", "/webhooks-ping", { body: { webhook_id: endpoint.id } }), `Test ping queued for ${endpoint.url}: its delivery shows below.`),
    toggle: (endpoint) =>
      endpointChange(endpoint, () => call("PATCH", `/webhooks-item/${endpoint.id}`, { body: { enabled: !endpoint.enabled }, version: endpoint.version }), endpoint.enabled ? "Endpoint disabled." : "Endpoint enabled."),
    remove: async (endpoint) => {
      if (!(await confirmAction(`Delete the endpoint ${endpoint.url}? Its pending deliveries are cancelled; its log stays.`, "Delete endpoint"))) return;
      await endpointChange(endpoint, () => call("DELETE", `/webhooks-item/${endpoint.id}`, { version: endpoint.version }), "Endpoint deleted.");
    },
  };
  try {
    await loadEndpoints();
  } catch (error) {
    show(body, explain(error));
    return undefined;
  }

  async function redeliver(delivery) {
    try {
      const { data } = await call("POST", "/webhook-deliveries-redeliver", { body: { delivery_id: delivery.id } });
      notify(`Queued again: a new ${data.event_type} delivery, sent at once by the dispatcher.`);
      messages.replaceChildren();
      shown = null;
      await refresh();
    } catch (error) {
      show(messages, explain(error));
      messages.focus();
    }
  }

  let shown = null;
  async function refresh() {
    let page;
    try {
      page = (await call("GET", `/webhook-deliveries${query({ ...chosen, limit: PAGE_SIZE, offset })}`)).data;
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const signature = JSON.stringify([page.total, page.data.map((d) => [d.id, d.updated_at])]);
    if (signature === shown) return;
    shown = signature;
    const hrefFor = (from) => `#/deliveries${query({ ...chosen, offset: from || undefined })}`;
    show(
      body,
      page.data.length ? table(page.data, endpointUrl, redeliver) : empty(Object.values(chosen).some(Boolean) ? "No deliveries match these filters." : "No deliveries yet: events appear here once a webhook endpoint is subscribed to them."),
      pager(page.total, offset, hrefFor, "Deliveries"),
    );
  }
  await refresh();
  return { refresh };
}

function endpointCard(endpoint, act) {
  return h(
    "li",
    { class: "panel endpoint-card", dataset: { endpointId: endpoint.id } },
    h("p", { class: "endpoint-url" }, endpointCell(endpoint.url), " ", h("span", { class: `badge ${endpoint.enabled ? "outcome-delivered" : "outcome-cancelled"}` }, endpoint.enabled ? "enabled" : "disabled")),
    endpoint.description ? h("p", {}, endpoint.description) : null,
    h("p", { class: "hint" }, "Events: ", endpoint.events.map((e, n) => [n ? ", " : "", h("code", {}, e)]), endpoint.auth_header ? [" · token header ", h("code", {}, endpoint.auth_header.name)] : null),
    endpoint.disabled_reason ? h("p", { class: "error-text" }, endpoint.disabled_reason) : null,
    h(
      "div",
      { class: "actions", role: "group", "aria-label": `Endpoint ${endpoint.url}` },
      h("button", { type: "button", class: "button", disabled: !endpoint.enabled, onclick: () => act.ping(endpoint) }, "Send test ping"),
      h("button", { type: "button", class: "button", onclick: () => act.toggle(endpoint) }, endpoint.enabled ? "Disable" : "Enable"),
      h("button", { type: "button", class: "button button-danger", onclick: () => act.remove(endpoint) }, "Delete"),
    ),
  );
}

/** The form that adds an endpoint. */
function endpointForm(done, cancel) {
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const url = h("input", { id: "endpoint-url", name: "url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "an http or https URL" });
  const description = h("input", { id: "endpoint-description", name: "description", maxlength: 300, autocomplete: "off" });
  const header = h("input", { id: "endpoint-header", name: "auth_header", maxlength: 64, autocomplete: "off", spellcheck: "false", placeholder: "X-N8N-Token" });
  const events = h(
    "fieldset",
    { class: "form-field endpoint-events" },
    h("legend", {}, "Events"),
    h("div", { class: "choices" }, SUBSCRIBABLE.map((e) => h("label", { class: "choice" }, h("input", { type: "checkbox", name: "events", value: e, checked: e !== "post.due" }), h("code", {}, e)))),
  );
  async function onsubmit(event) {
    event.preventDefault();
    for (const el of event.target.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    problem.replaceChildren();
    const body = { url: url.value.trim(), events: [...events.querySelectorAll("input:checked")].map((i) => i.value) };
    if (description.value.trim()) body.description = description.value.trim();
    if (header.value.trim()) body.auth_header = { name: header.value.trim() };
    try {
      const { data } = await call("POST", "/webhooks", { body });
      await done(data);
    } catch (error) {
      for (const [field] of fieldErrors(error)) event.target.querySelector(`[name="${CSS.escape(field.split(".")[0])}"]`)?.setAttribute("aria-invalid", "true");
      show(problem, explain(error));
      problem.focus();
    }
  }
  return h(
    "form",
    { class: "panel endpoint-form", novalidate: true, onsubmit, "aria-label": "Add an endpoint" },
    h("div", { class: "form-field" }, h("label", { for: "endpoint-url" }, "URL"), url, h("p", { class: "hint" }, "Where the service sends events, signed with Standard Webhooks.")),
    events,
    h("div", { class: "form-field" }, h("label", { for: "endpoint-description" }, "Description (optional)"), description),
    h("div", { class: "form-field" }, h("label", { for: "endpoint-header" }, "Token header (optional)"), header, h("p", { class: "hint" }, "For platforms that cannot check a signature (n8n's Header Auth): every delivery also carries this header with a token shown once.")),
    problem,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button button-primary" }, "Create endpoint"), h("button", { type: "button", class: "button", onclick: cancel }, "Cancel")),
  );
}

/** The new endpoint's signing secret (and token), shown this once. */
function secretOnce(endpoint, dismiss) {
  return h(
    "div",
    { class: "alert alert-warning secret-box", role: "alert" },
    h("p", { class: "alert-title" }, "Endpoint added. Copy its signing secret now: it is shown only this once."),
    h("p", {}, "Signing secret: ", h("code", { class: "secret", dataset: { secret: "" } }, endpoint.secret)),
    endpoint.auth_header?.token ? h("p", {}, `Header ${endpoint.auth_header.name}: `, h("code", { class: "secret" }, endpoint.auth_header.token)) : null,
    h("p", { class: "alert-actions" }, h("button", { type: "button", class: "button", onclick: dismiss }, "I have copied it")),
  );
}

function filterForm(chosen, endpoints) {
  const select = (name, label, options) =>
    h(
      "div",
      { class: "form-field" },
      h("label", { for: `filter-${name}` }, label),
      h("select", { id: `filter-${name}`, name }, h("option", { value: "" }, "Any"), options.map(([value, text]) => h("option", { value, selected: value === chosen[name] }, text))),
    );
  function onsubmit(event) {
    event.preventDefault();
    const values = Object.fromEntries(FILTERS.map((name) => [name, event.target.elements[name].value.trim() || undefined]));
    location.hash = `#/deliveries${query(values)}`;
  }
  return h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter deliveries", onsubmit },
    select("outcome", "Outcome", OUTCOMES.map((o) => [o, o])),
    select("event_type", "Event", EVENTS.map((e) => [e, e])),
    select("endpoint_id", "Endpoint", endpoints.map((e) => [e.id, e.url])),
    h("div", { class: "form-field" }, h("label", { for: "filter-post_id" }, "Post ID"), h("input", { id: "filter-post_id", name: "post_id", value: chosen.post_id ?? "", autocomplete: "off", spellcheck: "false", placeholder: "a post's UUID" })),
    h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button button-primary" }, "Apply"), h("a", { class: "button", href: "#/deliveries" }, "Clear")),
  );
}

function table(deliveries, endpointUrl, redeliver) {
  const first = firstDeliveries(deliveries);
  const columns = [
    ["Created", (d) => time.timeElement(d.created_at)],
    ["Event", (d) => [h("code", {}, d.event_type), redeliveryNote(d, first)]],
    ["Endpoint", (d) => endpointCell(endpointUrl[d.endpoint_id])],
    ["Post", (d) => (d.post_id ? h("a", { href: `#/posts/${d.post_id}` }, "Open post") : h("span", { class: "muted" }, "—"))],
    ["Outcome", (d) => h("span", { class: `badge outcome outcome-${d.outcome}` }, d.outcome)],
    ["Attempts", attempts],
    ["Next / last error", nextOrError],
    ["", (d) => h("button", { type: "button", class: "button", onclick: () => redeliver(d), dataset: { focusKey: `redeliver-${d.id}` }, "aria-label": `Redeliver ${d.event_type} of ${time.local(d.created_at)}` }, "Redeliver")],
  ];
  return h(
    "table",
    { class: "list-table deliveries" },
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title || h("span", { class: "visually-hidden" }, "Actions"))))),
    h("tbody", {}, deliveries.map((d) => h("tr", { dataset: { deliveryId: d.id } }, columns.map(([title, cell]) => h("td", { dataset: { label: title } }, h("div", { class: "cell" }, cell(d))))))),
  );
}

/** The next attempt's time and the last error; "—" when there is neither
 *  (a delivered one). */
function nextOrError(delivery) {
  const parts = [
    delivery.next_attempt_at ? h("span", { class: "next-attempt" }, "Next ", time.timeElement(delivery.next_attempt_at)) : null,
    delivery.last_error ? h("span", { class: "error-text" }, delivery.last_error) : null,
  ].filter(Boolean);
  return parts.length ? parts : h("span", { class: "muted" }, "—");
}

// A redelivery is a new delivery of the same event (the same event_id, the
// webhook-id header) to the same endpoint; the API names no other link. So
// on a page holding both, the later ones say which delivery they send again:
// the first of the event to that endpoint.
const eventTo = (delivery) => `${delivery.event_id}|${delivery.endpoint_id}`;

/** {event|endpoint: its first delivery on this page} (the page runs newest first). */
function firstDeliveries(deliveries) {
  const first = {};
  for (const delivery of deliveries) {
    const key = eventTo(delivery);
    if (!first[key] || delivery.created_at <= first[key].created_at) first[key] = delivery;
  }
  return first;
}

function redeliveryNote(delivery, first) {
  const original = first[eventTo(delivery)];
  if (!original || original.id === delivery.id) return null;
  return h(
    "span",
    { class: "redelivery", title: `Same event (webhook-id ${delivery.event_id}) to the same endpoint`, dataset: { redeliveryOf: original.id } },
    `Re-sends the ${original.outcome} delivery of `,
    sameDay(original.created_at, delivery.created_at) ? time.timeElement(original.created_at, time.clock(original.created_at)) : time.timeElement(original.created_at),
  );
}

const sameDay = (a, b) => time.dayKey(new Date(a)) === time.dayKey(new Date(b));

/** An endpoint's URL, allowed to wrap between its origin and its path. */
function endpointCell(url) {
  if (!url) return h("span", { class: "muted" }, "(deleted endpoint)");
  const { origin, pathname, search } = new URL(url);
  return h("span", { class: "url", title: url }, origin, h("wbr"), pathname + search);
}

/** "2", and the attempts themselves behind a disclosure. */
function attempts(delivery) {
  if (!delivery.attempts.length) return "0";
  return h(
    "details",
    { class: "attempts" },
    h("summary", {}, `${delivery.attempt_count} attempt${delivery.attempt_count === 1 ? "" : "s"}`),
    h(
      "ol",
      {},
      delivery.attempts.map((a) => {
        const answer = a.status_code ? `HTTP ${a.status_code}` : "No answer";
        return h(
          "li",
          {},
          h("strong", {}, answer),
          ` in ${a.duration_ms} ms`,
          h("span", { class: "attempt-time" }, time.timeElement(a.attempted_at)),
          a.error && a.error !== answer ? h("span", { class: "error-text" }, a.error) : null,
          a.response ? h("pre", { class: "response" }, a.response) : null,
        );
      }),
    ),
  );
}
