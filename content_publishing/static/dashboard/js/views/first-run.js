// The first steps of a new workspace, shown by the calendar until there is
// a channel with posting times and a post: where an empty calendar would
// give no hint of what to do first.
import { h } from "../dom.js";

/** The steps panel; `full`: the workspace is empty, and it stands in for
 *  the calendar rather than above it. */
export function firstSteps(progress, session, full) {
  const channelDone = progress.slotted;
  const postDone = progress.posts > 0;
  const connectDone = Boolean(progress.endpoints) || progress.authored;
  const done = [channelDone, postDone, connectDone].filter(Boolean).length;
  const write = session.can("posts:write");
  const step = (n, isDone, title, text, ...actions) =>
    h(
      "li",
      { class: `first-step${isDone ? " first-step-done" : ""}`, dataset: { step: n } },
      h("span", { class: "first-step-mark", "aria-hidden": "true" }, isDone ? "✓" : String(n)),
      h(
        "div",
        { class: "first-step-body" },
        h("h3", {}, title, isDone ? h("span", { class: "visually-hidden" }, " (done)") : null),
        // A step done says no more above the calendar: the title and its tick.
        isDone && !full ? null : [h("p", {}, text), actions.filter(Boolean).length ? h("p", { class: "actions" }, actions) : null],
      ),
    );
  return h(
    "section",
    { class: `panel first-run${full ? " first-run-full" : ""}`, "aria-labelledby": "first-run-title" },
    h("h2", { id: "first-run-title" }, full ? "Welcome: three steps to your first post" : "Getting started", h("span", { class: "first-run-count" }, ` ${done} of 3 done`)),
    full ? h("p", {}, "Your calendar is empty. Plan the way your posts go out, write one, and let your automation publish it on LinkedIn.") : null,
    h(
      "ol",
      { class: "first-steps plain" },
      step(
        1,
        channelDone,
        "Set up a channel with posting times",
        !session.atLeast("editor") && !channelDone
          ? "An editor or higher sets the workspace's channels up; until then posts go to the personal profile."
          : progress.channels && !channelDone
          ? "You have a channel; give it the weekly times you like to post at, and Add to queue fills them."
          : "Your personal profile or a company page, its time zone, and the weekly times you like to post at. Add to queue fills them for you.",
        write && session.atLeast("editor") ? h("a", { class: `button${channelDone ? "" : " button-primary"}`, href: progress.channels ? "#/channels" : "#/channels?new=personal" }, progress.channels ? "Open Channels" : "Set up a channel") : null,
      ),
      step(2, postDone, "Write a post", "Write it once, see it as LinkedIn will show it, then schedule it, add it to the queue, or keep it as a draft.", write ? h("a", { class: `button${!postDone && channelDone ? " button-primary" : ""}`, href: "#/posts/new" }, "Write a post") : null),
      step(
        3,
        connectDone,
        "Connect your automation and LinkedIn",
        "n8n, Make or Zapier takes each post when it is due and publishes it on LinkedIn: give it a key of this service, or add its webhook under Deliveries. Give each channel its LinkedIn author, so that posts go out under the right name.",
        session.can("webhooks:manage") ? h("a", { class: "button", href: "#/deliveries" }, "Add a webhook") : null,
        h("a", { class: "button", href: "/functions/v1/docs" }, "API reference"),
      ),
    ),
  );
}
