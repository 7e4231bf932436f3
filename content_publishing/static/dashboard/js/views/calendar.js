// The week calendar: every post with a scheduled_at in one week (in the
// browser's time zone), by day and time, personal and brand posts told apart.
import { call, query } from "../api.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";
import { countdown, heading, loading, statusBadge, typeBadge } from "../widgets.js";

const MOST = 500; // posts one week shows; a small team's week holds far fewer
const PAGE = 100; // the API's largest page

export async function showCalendar(view, route, session) {
  const start = time.startOfWeek(time.parseDayKey(route.params[0]) ?? new Date());
  const days = Array.from({ length: 7 }, (_, i) => time.addDays(start, i));
  const end = time.addDays(start, 7);
  const weekLink = (date, text, label, key) =>
    h("a", { class: "button", href: `#/calendar/${time.dayKey(date)}`, "aria-label": label, title: label, dataset: { focusKey: key } }, text);
  const body = h("div", { class: "calendar-body" }, loading());
  show(
    view,
    heading(
      `Week of ${time.dayRange(days[0], days[6])}`,
      h(
        "div",
        { class: "toolbar" },
        h(
          "div",
          { class: "button-group", role: "group", "aria-label": "Weeks" },
          weekLink(time.addDays(start, -7), "‹", "Previous week", "week-prev"),
          weekLink(new Date(), "This week", "This week", "week-this"),
          weekLink(end, "›", "Next week", "week-next"),
        ),
        session.can("posts:write") ? h("a", { class: "button button-primary", href: "#/posts/new" }, "New post") : null,
      ),
    ),
    h(
      "p",
      { class: "hint" },
      `Times are in your time zone, ${time.ZONE}; hover a time to see it in UTC. `,
      h("span", { class: "legend" }, h("span", { class: "swatch type-personal" }), "Personal post"),
      " ",
      h("span", { class: "legend" }, h("span", { class: "swatch type-brand" }), "Brand post"),
    ),
    body,
  );

  let shown = null;
  async function refresh() {
    let posts;
    try {
      posts = await weekPosts(start, end);
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const signature = JSON.stringify(posts.map((post) => [post.id, post.version]));
    if (signature === shown) return;
    shown = signature;
    show(body, h("div", { class: "week" }, days.map((day) => dayColumn(day, posts))));
  }
  await refresh();
  return { refresh };
}

async function weekPosts(start, end) {
  const posts = [];
  const filter = { scheduled_after: start.toISOString(), scheduled_before: end.toISOString(), order: "scheduled_at", limit: PAGE };
  while (posts.length < MOST) {
    const { data } = await call("GET", `/api-v2-posts${query({ ...filter, offset: posts.length })}`);
    posts.push(...data.data);
    if (!data.data.length || posts.length >= data.total) break;
  }
  return posts;
}

function dayColumn(day, posts) {
  const key = time.dayKey(day);
  const mine = posts.filter((post) => time.dayKey(new Date(post.scheduled_at)) === key);
  const today = key === time.dayKey(new Date());
  return h(
    "section",
    { class: today ? "day today" : "day", dataset: { date: key }, "aria-labelledby": `day-${key}` },
    h("h2", { class: "day-head", id: `day-${key}` }, time.dayLabel(day), today ? h("span", { class: "today-mark" }, "Today") : null),
    mine.length ? h("ol", { class: "day-posts" }, mine.map(card)) : h("p", { class: "day-empty" }, "Nothing scheduled"),
  );
}

function card(post) {
  return h(
    "li",
    {},
    h(
      "a",
      { class: `post-card type-${post.type}`, href: `#/posts/${post.id}`, dataset: { focusKey: post.id, postId: post.id } },
      h("span", { class: "card-top" }, time.timeElement(post.scheduled_at, time.clock(post.scheduled_at)), statusBadge(post.status)),
      typeBadge(post),
      h("span", { class: "card-text" }, excerpt(post.content, 120)),
      post.status === "Scheduled" ? countdown(post.scheduled_at, "in {}", "due now") : null,
      post.status === "Publishing" ? countdown(post.handoff_expires_at, "lease: {} left", "lease ran out") : null,
    ),
  );
}
