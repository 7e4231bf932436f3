// Refusals in words. Each explanation leads with what it means for the
// person at the page and then gives the service's own message (the error
// envelope's `message`) verbatim, with the fields a 400 names.
import { signedInAsPerson } from "./api.js";
import { conflictExplained } from "./conflict.js";
import { h } from "./dom.js";

// A person signed in with a password or a link hears of themself and their
// role; a pasted key (an automation's, or the demo key) of the key.
const PERSON_HEADLINES = {
  401: "You are signed out.",
  403: "You are not allowed to do that.",
};

const HEADLINES = {
  0: "The service could not be reached.",
  401: "The service does not accept this key.",
  403: "This key is not allowed to do that.",
  404: "Not found: it was deleted, or it belongs to another workspace.",
  409: "That cannot be done as things stand now.",
  410: "That is gone: it worked once, or for a time only.",
  412: "Changed elsewhere; reload.",
  413: "That is too large for the service.",
  503: "The service is busy; try again in a moment.",
  507: "The service's storage is full; nothing was saved.",
};

// Refusals whose code says more than their status.
const BY_CODE = {
  approval_required: "This workspace approves posts before they are scheduled: submit it for review first.",
  last_owner: "A workspace keeps at least one owner.",
};

function advice(error, person) {
  switch (error.status) {
    case 401:
      return person
        ? "Your session ended: you signed out here or on another device, or it expired. Sign in again."
        : "Sign in again with a current key; whoever runs the service can make one with .venv/bin/flask --app app keys create (run in the checkout).";
    case 403: {
      if (error.code === "forbidden" && error.details.role)
        return `Your role in this workspace (${error.details.role}) does not allow it. Ask an owner or an admin to do it, or to change your role (Members).`;
      if (person) return "Your role in this workspace does not allow it. Ask an owner or an admin to do it, or to change your role (Members).";
      const scope = error.details.required_scope;
      return scope
        ? `It needs the ${scope} scope, which this key lacks. Ask whoever runs the service for a key with ${scope}.`
        : "Ask whoever runs the service for a key with the scope it needs.";
    }
    case 412:
      return "Someone (or another tab) saved a newer version after you loaded this one. Reload to see it, then make your change again.";
    default:
      return null;
  }
}

/** The fields a validation error names: [["scheduled_at", "Must be ..."], ...];
 *  a list's items are named by position ("media_urls.0"). */
export function fieldErrors(error) {
  if (error.code !== "validation_error") return [];
  const flat = (name, messages) =>
    Array.isArray(messages)
      ? messages.map((message) => [name, String(message)])
      : Object.entries(messages).flatMap(([part, inner]) => flat(`${name}.${part}`, inner));
  return Object.entries(error.details).flatMap(([field, messages]) => flat(field, messages));
}

/** An alert box explaining `error`; `actions` (buttons) go at its end. */
export function explain(error, ...actions) {
  const person = signedInAsPerson();
  const conflict = error.code === "schedule_conflict";
  const headline = conflict
    ? "That time breaks the channel's spacing rules."
    : (BY_CODE[error.code] ?? (person ? PERSON_HEADLINES[error.status] : undefined) ?? HEADLINES[error.status] ?? (error.status === 400 ? "The service refused the request." : `The service answered ${error.status}.`));
  const fields = fieldErrors(error);
  return h(
    "div",
    { class: "alert alert-error", role: "alert", dataset: { status: error.status } },
    h("p", { class: "alert-title" }, headline),
    // A validation error's message names the fields, as the list below does;
    // a spacing rule's names a UTC time, said here in the channel's zone.
    // A person whose session ended needs no word of the API key the service
    // asks an unsigned request for.
    conflict ? conflictExplained(error) : (fields.length && error.code === "validation_error") || (person && error.status === 401) ? null : h("p", {}, error.message),
    fields.length ? h("ul", { class: "alert-fields" }, fields.map(([field, message]) => h("li", {}, h("code", {}, field), ": ", message))) : null,
    advice(error, person) ? h("p", {}, advice(error, person)) : null,
    actions.length ? h("p", { class: "alert-actions" }, actions) : null,
  );
}
