// The calendar: every post with a scheduled_at in one week or one month (in
// the browser's time zone), by day and time, personal and brand posts told
// apart, recurring ones marked. A day's "+" (or a click on its empty space)
// opens the composer for that day; a Scheduled post dragged to another day
// keeps its time of day and is moved with a PATCH on the version shown
// (If-Match). A refusal (a 409 from a channel's guards, a 412) is shown and
// the card goes back where it was.
import { call, query } from "../api.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";
import { countdown, heading, loading, mediaThumbs, notify, ownMedia, repeatBadge, statusBadge, typeBadge } from "../widgets.js";

const MOST = 500; // posts one view shows; a small team's month holds far fewer
const PAGE = 100; // the API's largest page

export const showCalendar = (view, route, session) => calendar(view, route, session, "week");
export const showMonth = (view, route, session) => calendar(view, route, session, "month");

const monthFormat = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric" });
const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short" });

async function calendar(view, route, session, mode) {
  const chosen = time.parseDayKey(route.params[0]) ?? new Date();
  let start, end, title, previous, next, label;
  if (mode === "week") {
    start = time.startOfWeek(chosen);
    end = time.addDays(start, 7);
    title = `Week of ${time.dayRange(start, time.addDays(start, 6))}`;
    previous = time.addDays(start, -7);
    next = end;
    label = "week";
  } else {
    const first = new Date(chosen.getFullYear(), chosen.getMonth(), 1);
    const last = new Date(chosen.getFullYear(), chosen.getMonth() + 1, 0);
    start = time.startOfWeek(first);
    end = time.addDays(time.startOfWeek(last), 7);
    title = monthFormat.format(first);
    previous = new Date(first.getFullYear(), first.getMonth() - 1, 1);
    next = new Date(first.getFullYear(), first.getMonth() + 1, 1);
    label = "month";
  }
  const days = [];
  for (let day = start; day < end; day = time.addDays(day, 1)) days.push(day);
  const base = mode === "week" ? "#/calendar" : "#/calendar/month";
  const link = (date, text, aria, key) => h("a", { class: "button", href: `${base}/${time.dayKey(date)}`, "aria-label": aria, title: aria, dataset: { focusKey: key } }, text);
  const switchLink = (to, text) =>
    h("a", { class: "button", href: `${to === "week" ? "#/calendar" : "#/calendar/month"}/${time.dayKey(chosen)}`, "aria-current": to === mode ? "page" : null, dataset: { focusKey: `mode-${to}` } }, text);
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const body = h("div", { class: "calendar-body" }, loading());
  const canMove = session.can("posts:write") && session.can("posts:publish");
  const canWrite = session.can("posts:write");
  show(
    view,
    heading(
      title,
      h(
        "div",
        { class: "toolbar" },
        h("div", { class: "button-group view-switch", role: "group", "aria-label": "Calendar view" }, switchLink("week", "Week"), switchLink("month", "Month")),
        h(
          "div",
          { class: "button-group", role: "group", "aria-label": `${label[0].toUpperCase()}${label.slice(1)}s` },
          link(previous, "‹", `Previous ${label}`, `${label}-prev`),
          link(new Date(), `This ${label}`, `This ${label}`, `${label}-this`),
          link(next, "›", `Next ${label}`, `${label}-next`),
        ),
        canWrite ? h("a", { class: "button button-primary", href: "#/posts/new" }, "New post") : null,
      ),
    ),
    h(
      "p",
      { class: "hint" },
      `Times are in your time zone, ${time.ZONE}; hover a time to see it in UTC. `,
      h("span", { class: "legend" }, h("span", { class: "swatch type-personal" }), "Personal post"),
      " ",
      h("span", { class: "legend" }, h("span", { class: "swatch type-brand" }), "Brand post"),
      " ",
      h("span", { class: "legend" }, "↻ recurring"),
      canMove ? " Drag a scheduled post to another day to move it there." : null,
    ),
    messages,
    body,
  );

  let shown = null;
  let posts = [];
  async function refresh() {
    let fresh;
    try {
      fresh = await postsBetween(start, end);
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const signature = JSON.stringify(fresh.map((post) => [post.id, post.version]));
    if (signature === shown) return;
    shown = signature;
    posts = fresh;
    render();
  }

  function render() {
    const column = (day) => dayCell(day, posts, { mode, month: chosen.getMonth(), canWrite, canMove, move });
    if (mode === "week") show(body, h("div", { class: "week" }, days.map(column)));
    else show(body, h("div", { class: "month" }, days.slice(0, 7).map((day) => h("div", { class: "month-weekday", "aria-hidden": "true" }, weekdayFormat.format(day))), days.map(column)));
  }

  /** Move `post` to `day` at the same local time: the card moves at once and
   *  comes back if the service refuses. */
  async function move(postId, day) {
    const post = posts.find((p) => p.id === postId);
    if (!post || post.status !== "Scheduled") return;
    const from = new Date(post.scheduled_at);
    const to = new Date(day.getFullYear(), day.getMonth(), day.getDate(), from.getHours(), from.getMinutes(), from.getSeconds());
    if (time.dayKey(from) === time.dayKey(to)) return;
    messages.replaceChildren();
    const before = posts;
    posts = posts.map((p) => (p.id === postId ? { ...p, scheduled_at: to.toISOString() } : p)).sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
    render();
    try {
      const { data } = await call("PATCH", `/api-v2-posts-item/${postId}`, { body: { scheduled_at: to.toISOString() }, version: post.version });
      notify(`Moved to ${time.local(data.scheduled_at)} (version ${data.version}).`);
      shown = null;
      await refresh();
    } catch (error) {
      posts = before; // undone: the card goes back to its day
      render();
      show(messages, explain(error, h("button", { type: "button", class: "button", onclick: () => ((shown = null), messages.replaceChildren(), refresh()) }, "Reload")));
      messages.focus();
    }
  }

  await refresh();
  return { refresh };
}

async function postsBetween(start, end) {
  const posts = [];
  const filter = { scheduled_after: start.toISOString(), scheduled_before: end.toISOString(), order: "scheduled_at", limit: PAGE };
  while (posts.length < MOST) {
    const { data } = await call("GET", `/api-v2-posts${query({ ...filter, offset: posts.length })}`);
    posts.push(...data.data);
    if (!data.data.length || posts.length >= data.total) break;
  }
  return posts;
}

function dayCell(day, posts, { mode, month, canWrite, canMove, move }) {
  const key = time.dayKey(day);
  const mine = posts.filter((post) => time.dayKey(new Date(post.scheduled_at)) === key);
  const today = key === time.dayKey(new Date());
  const classes = [mode === "week" ? "day" : "month-day", today ? "today" : "", mode === "month" && day.getMonth() !== month ? "other-month" : ""].filter(Boolean).join(" ");
  const compose = `#/posts/new?date=${key}`;
  const add = canWrite ? h("a", { class: "day-add", href: compose, "aria-label": `Compose for ${time.dayLabel(day)}`, title: `Compose for ${time.dayLabel(day)}` }, "+") : null;
  const cell = h(
    "section",
    { class: classes, dataset: { date: key }, "aria-labelledby": `day-${key}` },
    h("h2", { class: "day-head", id: `day-${key}` }, mode === "week" ? time.dayLabel(day) : h("span", { class: "visually-hidden" }, time.dayLabel(day)), mode === "month" ? h("span", { "aria-hidden": "true" }, String(day.getDate())) : null, today ? h("span", { class: "today-mark" }, "Today") : null, add),
    mine.length ? h("ol", { class: "day-posts" }, mine.map((post) => card(post, mode, canMove))) : h("p", { class: "day-empty" }, mode === "week" ? "Nothing scheduled" : ""),
  );
  // A click on the day's own space (not on a card) composes for that day.
  if (canWrite) {
    cell.addEventListener("click", (event) => {
      if (event.target.closest(".post-card, a, button")) return;
      location.hash = compose;
    });
  }
  if (canMove) {
    cell.addEventListener("dragover", (event) => {
      if (!event.dataTransfer.types.includes("application/x-post-id")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      cell.classList.add("drop-target");
    });
    cell.addEventListener("dragleave", (event) => {
      if (!cell.contains(event.relatedTarget)) cell.classList.remove("drop-target");
    });
    cell.addEventListener("drop", (event) => {
      event.preventDefault();
      cell.classList.remove("drop-target");
      const id = event.dataTransfer.getData("application/x-post-id");
      if (id) move(id, day);
    });
  }
  return cell;
}

function card(post, mode, canMove) {
  const draggable = canMove && post.status === "Scheduled";
  const images = post.media_urls.filter(ownMedia).slice(0, mode === "week" ? 3 : 1);
  const element = h(
    "a",
    { class: `post-card type-${post.type}`, href: `#/posts/${post.id}`, draggable: draggable ? "true" : "false", dataset: { focusKey: post.id, postId: post.id } },
    h("span", { class: "card-top" }, time.timeElement(post.scheduled_at, time.clock(post.scheduled_at)), statusBadge(post.status), repeatBadge(post)),
    typeBadge(post),
    h("span", { class: "card-text" }, excerpt(post.content, mode === "week" ? 120 : 60)),
    mediaThumbs(images),
    mode === "week" && post.status === "Scheduled" ? countdown(post.scheduled_at, "in {}", "due now") : null,
    mode === "week" && post.status === "Publishing" ? countdown(post.handoff_expires_at, "lease: {} left", "lease ran out") : null,
  );
  if (draggable) {
    element.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData("application/x-post-id", post.id);
      event.dataTransfer.effectAllowed = "move";
    });
  }
  return h("li", {}, element);
}
