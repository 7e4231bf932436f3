// A refusal by a channel's spacing rules (409 schedule_conflict), in words:
// the rule, the time asked for in the channel's own time zone, and the posts
// it clashes with, each named and linked. The service's details name the
// channel, the rule and the posts; the page reads those to say it.
import { call } from "./api.js";
import { excerpt, h, show } from "./dom.js";
import { utc } from "./time.js";

const MOST = 5; // clashing posts named; a daily cap rarely passes this

/** Where the channel's time zone is shown: "Tue 1 Dec, 09:00". */
function zoned(iso, zone) {
  return new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZone: zone }).format(new Date(iso));
}

/** The element that explains `error`, filled in once the channel and posts are read. */
export function conflictExplained(error) {
  const slot = h("div", { class: "conflict", dataset: { rule: error.details.rule ?? "" } }, h("p", { class: "muted" }, "Reading the posts it clashes with…"));
  fill(slot, error);
  return slot;
}

async function fill(slot, error) {
  const { channel: id, rule, conflicting_post_ids: ids = [] } = error.details;
  const channel = await call("GET", `/channels-item/${encodeURIComponent(id)}`).then((r) => r.data, () => null);
  const posts = (await Promise.all(ids.slice(0, MOST).map((postId) => call("GET", `/api-v2-posts-item/${postId}`).then((r) => r.data, () => null)))).filter(Boolean);
  const zone = channel?.timezone ?? "UTC";
  const name = channel?.name ?? id;
  // The time asked for is in the service's message as UTC text; said here in the channel's zone.
  const asked = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/.exec(error.message)?.[0];
  const day = /on (\d{4}-\d{2}-\d{2}) \(/.exec(error.message)?.[1];
  const listed = posts.length > 0;
  const sentence =
    rule === "min_gap_minutes"
      ? [`${name} keeps its posts at least ${channel?.min_gap_minutes ?? "some"} minutes apart, and `, asked ? when(asked, zone) : "this time", listed ? " is closer than that to:" : " is closer than that to another post."]
      : [`${name} takes at most ${channel?.daily_cap ?? "a few"} posts a day (${zone}), and `, day ? dayIn(day) : "that day", listed ? " has that many already:" : " has that many already."];
  show(
    slot,
    h("p", {}, sentence),
    listed
      ? h(
          "ul",
          { class: "conflict-posts" },
          posts.map((post) => h("li", { dataset: { postId: post.id } }, h("a", { href: `#/posts/${post.id}` }, `“${excerpt(post.content, 60)}”`), " at ", when(post.scheduled_at, zone))),
        )
      : null,
    h(
      "p",
      { class: "hint" },
      "Pick another time, move that post first, or change the spacing rules of ",
      channel ? h("a", { href: `#/channels?edit=${encodeURIComponent(channel.id)}` }, name) : name,
      ".",
    ),
  );
}

/** <time>: in the channel's zone, UTC on hover. */
const when = (iso, zone) => h("time", { datetime: iso, title: utc(iso) }, `${zoned(iso, zone)} (${zone})`);

const dayIn = (key) => new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" }).format(new Date(`${key}T12:00:00Z`));
