// An invitation (#/invite/TOKEN, the invite URL an owner or admin sent):
// no key is needed, the token is the capability. Accept takes it up
// (POST /invites-accept): the answer names the workspace and the role and
// carries the member's first key, which this page shows once (to copy for
// an automation or the API reference) and signs the dashboard in with.
// The token works once, so the address loses it as soon as it is used.
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { ROLES, keepKey } from "../session.js";
import { copyField, heading } from "../widgets.js";

const GONE = {
  invite_used: "This invitation was used already, or withdrawn (the member, or whoever invited them, was removed). Ask for a new one.",
  invite_expired: "This invitation has expired: they last 7 days. Ask whoever invited you for a new one.",
  not_found: "No such invitation: check that the whole link was copied, or ask for a new one.",
};

/** `signIn(key)`: open the dashboard with the member's new key. */
export function showInvite(container, token, { signIn, signInAsPerson }) {
  const problem = h("div", { tabindex: "-1" });
  const about = h("p", { class: "invite-about", id: "invite-about" });
  const password = h("input", { id: "invite-password", type: "password", autocomplete: "new-password" });
  // What the invitation is, read without taking it up (GET /invites/TOKEN).
  call("GET", `/invites/${token}`, { as: null, quiet: true })
    .then(({ data }) => {
      const by = data.invited_by ? ` ${data.invited_by} invites you` : " You are invited";
      about.textContent = `${by} to ${data.workspace.name} as ${data.member.name}, ${data.member.role}.`;
    })
    .catch(() => {}); // Accept says what is wrong
  const accept = h("button", { type: "button", class: "button button-primary", id: "accept-invite" }, "Accept the invitation");
  accept.addEventListener("click", async () => {
    accept.disabled = true;
    accept.textContent = "Joining…";
    show(problem);
    try {
      const body = password.value ? { token, password: password.value } : { token };
      const { data } = await call("POST", "/invites-accept", { body, as: null, quiet: true });
      // The token is spent: a reload must not try it again.
      history.replaceState(null, "", `${location.pathname}#/calendar`);
      if (data.csrf_token && signInAsPerson) {
        signInAsPerson(); // signed in as a person: every tab of this browser is
        return;
      }
      keepKey(data.key); // this tab's key from now on, a reload included
      welcome(data);
    } catch (error) {
      accept.disabled = false;
      accept.textContent = "Accept the invitation";
      show(
        problem,
        GONE[error.code] && error.status !== 0
          ? h("div", { class: "alert alert-error", role: "alert", dataset: { code: error.code } }, h("p", { class: "alert-title" }, GONE[error.code]), h("p", {}, error.message))
          : explain(error),
      );
      problem.focus();
    }
  });

  function welcome(joined) {
    const role = joined.member.role;
    show(
      container,
      heading(`Welcome to ${joined.workspace.name}`),
      h(
        "div",
        { class: "panel invite-panel" },
        h("p", { class: "invite-who" }, "You are ", h("strong", {}, joined.member.name), ", ", h("span", { class: `badge role-badge role-${role}` }, role), ` in ${joined.workspace.name}: you may ${ROLES[role]?.may ?? "what your role allows"}.`),
        h(
          "div",
          { class: "alert alert-success secret-once", role: "status" },
          h("p", { class: "alert-title" }, "Your key, shown only this once"),
          h("p", {}, "This tab keeps it to sign you in. Keep a copy somewhere safe to sign in again, from another browser, or from an automation (it is sent as X-API-Key)."),
          copyField(joined.key, "Your API key", "new-key"),
        ),
        h("p", { class: "actions" }, h("button", { type: "button", class: "button button-primary", id: "open-dashboard", onclick: () => signIn(joined.key) }, "I have kept it: open the calendar")),
      ),
    );
    container.querySelector("h1").focus();
  }

  show(
    container,
    heading("You are invited"),
    h(
      "div",
      { class: "panel invite-panel" },
      h("p", {}, "Someone has invited you to their workspace on this Content Publishing Service, to plan and publish posts with them."),
      about,
      h("label", { for: "invite-password" }, "Choose a password to sign in with your email (at least 10 characters), or leave it empty to get an API key only"),
      password,
      h("p", {}, "Accepting makes your first API key: the page shows it once, names the workspace and your role, and signs you in with it. The invitation works once, for 7 days from when it was made."),
      problem,
      h("p", { class: "actions" }, accept),
    ),
  );
  container.querySelector("h1").focus();
}
