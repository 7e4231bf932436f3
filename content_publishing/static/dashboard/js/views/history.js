// A post's history (GET /api-v2-posts-history/ID) for people: each entry a
// sentence that names the member, "Scheduled for Tue 1 Dec, 09:00 by Dana", its
// times in the reader's zone with UTC on hover. Each entry names the member
// whose key made it (`member`); an entry without one (a service from before
// members) is the workspace's, named as the signed-in workspace.
import { h } from "../dom.js";
import * as time from "../time.js";

const FIELDS = {
  content: "the text",
  media_urls: "the images",
  scheduled_at: "the time",
  type: "the channel",
  brand_id: "the channel",
  repeat: "the repeat",
  last_error: "the error",
  status: "the status",
};

const STAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/;

/** The history as an ordered list, oldest first. */
export function timeline(entries, me) {
  if (!entries.length) return h("p", { class: "muted" }, "Nothing recorded yet.");
  return h(
    "ol",
    { class: "timeline" },
    entries.map((entry) =>
      h(
        "li",
        { class: `timeline-entry action-${entry.action}`, dataset: { action: entry.action } },
        h("span", { class: "timeline-when" }, time.timeElement(entry.at)),
        h("span", { class: "timeline-sentence" }, sentence(entry), " ", who(entry, me), "."),
        entry.status_from && entry.status_to && entry.status_from !== entry.status_to ? h("span", { class: "timeline-status muted" }, `${entry.status_from} → ${entry.status_to}`) : null,
      ),
    ),
  );
}

/** "by Dana (svc_live_AbCd…)", or "by this service" (its own publisher, the dispatcher, a lease running out). */
function who(entry, me) {
  if (!entry.key_prefix && !entry.member?.name) return h("span", { class: "timeline-who" }, "by this service");
  const key = entry.key_prefix ? [" (", h("code", {}, `${entry.key_prefix}…`), ")"] : [];
  return h("span", { class: "timeline-who" }, "by ", entry.member?.name ?? me?.user ?? "an automation", key);
}

/** The time an entry's detail names ("for 2026-12-01T08:00:00.000000Z"), as a <time>. */
function named(entry) {
  const iso = STAMP.exec(entry.detail ?? "")?.[0];
  return iso ? time.timeElement(iso, time.short(iso)) : null;
}

function changed(entry) {
  const words = [...new Set((entry.fields ?? []).map((f) => FIELDS[f] ?? f.replaceAll("_", " ")))];
  if (!words.length) return "";
  return ` ${words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`}`;
}

function sentence(entry) {
  const at = named(entry);
  switch (entry.action) {
    case "created":
      return entry.status_to === "Scheduled" ? ["Created and scheduled", at ? [" for ", at] : ""] : "Created as a draft";
    case "occurrence_created": {
      const [, n, after] = /occurrence (\d+) of the series, after post ([0-9a-f-]{36})/.exec(entry.detail ?? "") ?? [];
      return n ? [`Made as occurrence ${n} of its series, when `, h("a", { href: `#/posts/${after}` }, "the one before"), " finished"] : "Made as the next occurrence of its series";
    }
    case "recycled": {
      const [, original] = /recycled from post ([0-9a-f-]{36})/.exec(entry.detail ?? "") ?? [];
      const from = original ? h("a", { href: `#/posts/${original}` }, "a published post") : "a published post";
      return ["Recycled from ", from, ", queued for ", at ?? "its channel's next free slot"];
    }
    case "updated":
      return `Edited${changed(entry)}`;
    case "scheduled":
      if (entry.status_from === "Scheduled") return ["Moved to ", at ?? "another time"];
      if (entry.status_from === "Failed") return ["Retried: scheduled again for ", at ?? "a new time"];
      return ["Scheduled for ", at ?? "a time"];
    case "queued":
      return ["Added to the queue: its channel's slot of ", at ?? "the next free time"];
    case "unscheduled":
      return entry.status_from === "Failed" ? "Put back to draft after failing" : "Unscheduled, back to draft";
    case "submitted":
      return "Submitted for review";
    case "approved":
      return "Approved";
    case "changes_requested":
      return "Sent back to draft: changes asked for (see the comments)";
    case "returned_to_draft":
      return "Back to draft: what was reviewed changed, or approvals were turned off";
    case "claimed":
      if (entry.key_prefix) return "Claimed by the automation to publish";
      return (entry.detail ?? "").startsWith("by the service's own publisher") ? "Taken to publish on LinkedIn" : "Pushed to the automation's webhook to publish";
    case "pushed":
      return "The automation confirmed it received the post";
    case "given_back":
      if (!entry.key_prefix) return ["Not sent yet (", (entry.detail ?? "").replace(/^for \S+; /, ""), "); it goes out again"];
      return ["Given back untried by the automation, scheduled again for ", at ?? "its time"];
    case "publish_failed":
      return ["Failed to publish on LinkedIn", entry.detail ? ` (${entry.detail})` : ""];
    case "reported_failed":
      return entry.status_from === "Publishing" ? "Reported failed by the automation" : "Marked failed";
    case "refused": {
      const count = /^(\d+) characters/.exec(entry.detail ?? "")?.[1];
      return `Not handed to the automation: too long for LinkedIn${count ? ` (${Number(count).toLocaleString("en")} of 3,000 once escaped)` : ""}, so it failed`;
    }
    case "lease_expired":
      return ["Failed: the automation did not report back in time (its lease ran out", at ? [" at ", at] : "", ")"];
    case "commented":
      return "Its first comment was posted on LinkedIn, under the post,";
    case "comment_failed":
      return ["Its first comment could not be posted", entry.detail ? ` (${entry.detail})` : "", "; the post itself is live,"];
    case "published": {
      const confirmed = (entry.detail ?? "").startsWith("confirmed after an unknown outcome: ");
      const urn = confirmed ? entry.detail.slice("confirmed after an unknown outcome: ".length) : entry.detail;
      return ["Published on LinkedIn", urn ? [" as ", h("code", {}, urn)] : "", confirmed ? ", found there after LinkedIn's answer was lost" : ""];
    }
    default:
      return entry.action.replaceAll("_", " ");
  }
}
