// My notifications (#/notifications): each member's email address and the
// events they hear of by email, event by event; and, as the workspace's
// admins set it, which of them the team chat hears of too. A member changes
// their own (PATCH /members-item/{their id}, whatever their role).
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { empty, heading, loading, notify } from "../widgets.js";

// The events, in words, in the service's order (notifications/rules.py).
export const EVENT_WORDS = {
  "review.requested": "a post waits for review (editors, admins and owners)",
  "post.approved": "my post is approved",
  "post.changes_requested": "changes are asked for my post",
  "comment.mentioned": "someone mentions me in a comment",
  "post.failed": "a post fails to go out",
  "channel.disconnected": "a channel is disconnected from LinkedIn (admins and owners)",
};

export async function showNotifications(container, _route, session) {
  const body = h("div", { class: "settings" }, loading());
  show(container, heading("My notifications"), body);
  const me = session.me?.member;
  if (!me) {
    show(body, empty("This key belongs to no member, so it hears of nothing."));
    return;
  }
  let member, workspace;
  try {
    const [members, space] = await Promise.all([call("GET", "/members"), call("GET", "/workspace")]);
    member = members.data.data.find((m) => m.id === me.id);
    workspace = space.data;
  } catch (error) {
    show(body, explain(error));
    return;
  }
  const problem = h("div", { tabindex: "-1", class: "messages" });
  const email = h("input", { id: "my-email", type: "email", value: member?.email ?? "", autocomplete: "email" });
  const wanted = new Set(member?.notify ?? Object.keys(EVENT_WORDS));
  const chatHears = new Set(workspace.chat_events ?? Object.keys(EVENT_WORDS));
  const rows = Object.entries(EVENT_WORDS).map(([event, words]) =>
    h(
      "tr",
      { dataset: { event } },
      h("th", { scope: "row" }, `When ${words}`),
      h("td", {}, h("label", { class: "check" }, h("input", { type: "checkbox", name: "mail", value: event, checked: wanted.has(event), "aria-label": `Email me when ${words}` }), " Email")),
      h("td", {}, workspace.chat_webhook_url ? (chatHears.has(event) ? "The team chat hears of it" : "Not in the team chat") : "—"),
    ),
  );
  const form = h(
    "form",
    {
      class: "settings-part",
      onsubmit: async (event) => {
        event.preventDefault();
        show(problem);
        const notifyChosen = [...form.querySelectorAll("input[name=mail]:checked")].map((box) => box.value);
        try {
          await call("PATCH", `/members-item/${me.id}`, { body: { email: email.value.trim() || null, notify: notifyChosen } });
          notify("Your notifications are saved.");
        } catch (error) {
          show(problem, explain(error));
          problem.focus();
        }
      },
    },
    h("div", { class: "form-field" }, h("label", { for: "my-email" }, "My email address"), email, h("p", { class: "hint" }, "Leave it empty to get no email at all.")),
    h(
      "table",
      { class: "list-table notify-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Event"), h("th", { scope: "col" }, "Email"), h("th", { scope: "col" }, "Team chat"))),
      h("tbody", {}, rows),
    ),
    h("p", { class: "hint" }, "One email per event: a request for changes that mentions you is one message, not two. The team chat is set by the workspace's admins under Settings."),
    h("button", { type: "submit", class: "button button-primary" }, "Save"),
  );
  show(body, problem, form);
}
