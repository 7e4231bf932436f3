// Settings (#/settings), for owners and admins (members:manage): the
// workspace's name, whether posts are approved before they are scheduled
// (for the workspace, and channel by channel), the team chat's webhook with
// the events it hears of and a test message, and the time zone the team
// plans in. Each part saves on its own, on the version shown (If-Match).
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { loadChannels } from "../profiles.js";
import { empty, heading, loading, notify } from "../widgets.js";

// What the team chat may hear of, in the service's order (notifications/rules.py).
const CHAT_WORDS = {
  "review.requested": "a post waits for review",
  "post.approved": "a post is approved",
  "post.changes_requested": "changes are asked for a post",
  "comment.mentioned": "someone is mentioned in a comment",
  "post.failed": "a post fails to go out",
  "channel.disconnected": "a channel is disconnected from LinkedIn",
};
const CHANNEL_RULES = [
  ["workspace", "As the workspace says"],
  ["required", "Always approved first"],
  ["off", "Never needs an approval"],
];

export async function showSettings(container, _route, session) {
  const body = h("div", { class: "settings" }, loading());
  show(container, heading("Settings"), body);
  if (!session.can("members:manage")) {
    show(body, empty("Only the workspace's owners and admins change its settings."));
    return;
  }
  let workspace, channels;
  try {
    [workspace, channels] = await Promise.all([call("GET", "/workspace").then((r) => r.data), loadChannels()]);
  } catch (error) {
    show(body, explain(error));
    return;
  }
  const problem = h("div", { tabindex: "-1", class: "messages" });

  async function save(changes, done) {
    show(problem);
    try {
      workspace = (await call("PATCH", "/workspace", { body: changes, version: workspace.version })).data;
      notify(done);
      if ("approvals" in changes) session.approvals = workspace.approvals === "required";
      if ("name" in changes) for (const name of document.querySelectorAll("#workspace-name")) name.textContent = workspace.name;
    } catch (error) {
      show(problem, explain(error));
      problem.focus();
    }
  }

  const name = h("input", { id: "settings-name", value: workspace.name, maxlength: 100, required: true, autocomplete: "off" });
  const zone = h(
    "select",
    { id: "settings-zone" },
    h("option", { value: "" }, "Each person's own (their browser's)"),
    zones().map((z) => h("option", { value: z, selected: z === workspace.timezone }, z.replaceAll("_", " "))),
  );
  const general = h(
    "form",
    {
      class: "settings-part",
      "aria-labelledby": "settings-general",
      onsubmit: (event) => {
        event.preventDefault();
        save({ name: name.value.trim(), timezone: zone.value || null }, "The workspace is saved.");
      },
    },
    h("h2", { id: "settings-general" }, "The workspace"),
    h("div", { class: "form-field" }, h("label", { for: "settings-name" }, "Name"), name, h("p", { class: "hint" }, "Shown in the header and at the start of every email's subject.")),
    h("div", { class: "form-field" }, h("label", { for: "settings-zone" }, "Time zone the team plans in"), zone, h("p", { class: "hint" }, "Times are shown in it unless a person chooses their own.")),
    h("button", { type: "submit", class: "button button-primary" }, "Save"),
  );

  const approvals = h(
    "select",
    { id: "settings-approvals" },
    h("option", { value: "off", selected: workspace.approvals === "off" }, "Posts are scheduled as they are"),
    h("option", { value: "required", selected: workspace.approvals === "required" }, "Every post is approved first"),
  );
  const review = h(
    "form",
    {
      class: "settings-part",
      "aria-labelledby": "settings-approvals-title",
      onsubmit: (event) => {
        event.preventDefault();
        save({ approvals: approvals.value }, approvals.value === "required" ? "Posts are now approved before they are scheduled." : "Posts no longer need an approval.");
      },
    },
    h("h2", { id: "settings-approvals-title" }, "Approvals"),
    h(
      "div",
      { class: "form-field" },
      h("label", { for: "settings-approvals" }, "Before a post is scheduled"),
      approvals,
      h("p", { class: "hint" }, "An editor, admin or owner approves a post; never the person who wrote it. Turning approvals off sends posts waiting for review back to drafts."),
    ),
    h("button", { type: "submit", class: "button button-primary" }, "Save approvals"),
    channels.length ? h("h3", {}, "Channel by channel") : null,
    channels.length ? h("ul", { class: "settings-channels" }, channels.map((channel) => channelRule(channel, problem))) : null,
  );

  const hook = h("input", { id: "settings-chat", type: "url", value: workspace.chat_webhook_url ?? "", placeholder: "hooks.slack.com/services/…", autocomplete: "off" });
  const heard = new Set(workspace.chat_events ?? Object.keys(CHAT_WORDS));
  const events = Object.entries(CHAT_WORDS).map(([event, words]) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "chat-event", value: event, checked: heard.has(event) }), ` ${words}`),
  );
  const chat = h(
    "form",
    {
      class: "settings-part",
      "aria-labelledby": "settings-chat-title",
      onsubmit: (event) => {
        event.preventDefault();
        const chosen = [...chat.querySelectorAll("input[name=chat-event]:checked")].map((box) => box.value);
        save({ chat_webhook_url: hook.value.trim() || null, chat_events: chosen.length === events.length ? null : chosen }, "The team chat is saved.");
      },
    },
    h("h2", { id: "settings-chat-title" }, "Team chat"),
    h("div", { class: "form-field" }, h("label", { for: "settings-chat" }, "Incoming webhook address (Slack, Mattermost, Rocket.Chat)"), hook),
    h("fieldset", { class: "form-field" }, h("legend", {}, "The chat hears when"), events),
    h(
      "p",
      { class: "form-actions" },
      h("button", { type: "submit", class: "button button-primary" }, "Save chat"),
      " ",
      h(
        "button",
        {
          type: "button",
          class: "button",
          id: "chat-test",
          onclick: async () => {
            show(problem);
            try {
              await call("POST", "/workspace-chat-test");
              notify("A test message is on its way to the chat.");
            } catch (error) {
              show(problem, explain(error));
              problem.focus();
            }
          },
        },
        "Send a test message",
      ),
    ),
  );
  show(body, problem, general, review, chat);
}

/** A channel's own approval rule, saved when it is changed. */
function channelRule(channel, problem) {
  const id = `channel-approvals-${channel.id}`;
  const select = h(
    "select",
    {
      id,
      dataset: { channelId: channel.id },
      onchange: async () => {
        show(problem);
        select.disabled = true;
        try {
          channel = (await call("PATCH", `/channels-item/${encodeURIComponent(channel.id)}`, { body: { approvals: select.value }, version: channel.version })).data;
          notify(`${channel.name}: saved.`);
        } catch (error) {
          select.value = channel.approvals;
          show(problem, explain(error));
          problem.focus();
        } finally {
          select.disabled = false;
        }
      },
    },
    CHANNEL_RULES.map(([value, words]) => h("option", { value, selected: (channel.approvals ?? "workspace") === value }, words)),
  );
  return h("li", {}, h("label", { for: id }, channel.name), select);
}

function zones() {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}
