// The calendar: one week or one month (in the browser's time zone) of the
// plan: the posts with a scheduled_at, by day and time, personal and brand
// apart; the repeats recurring series will make; on the week view the
// channels' free slots; and beside it the drafts waiting for a time. A day's
// "+" (or a click on its empty space) or a free slot opens the composer. A
// Scheduled post dragged to another day keeps its time of day; a draft
// dragged onto a day keeps its time (09:00 if it has none); either dropped
// on a free slot takes that slot's time. Each is one PATCH on the version
// shown (If-Match); a refusal (a channel's spacing rules, a 412) is shown
// and the card goes back. A new, empty workspace sees its first steps.
// ?channel=ID keeps to one channel (a person's profile, a brand page).
import { call } from "../api.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import { reconnectBanner } from "../linkedin.js";
import { channelChoice, channelIdOf } from "../profiles.js";
import * as time from "../time.js";
import { heading, loading, notify, typeBadge } from "../widgets.js";
import { dayCell, draggable } from "./calendar-cells.js";
import { channelList, drafts, freeSlots, postsBetween, progress, repeatsBetween } from "./calendar-data.js";
import { firstSteps } from "./first-run.js";

export const showCalendar = (view, route, session) => calendar(view, route, session, "week");
export const showMonth = (view, route, session) => calendar(view, route, session, "month");

const monthFormat = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric" });
const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short" });
// Dragging needs a mouse: on a touch screen the page offers no drag and says nothing of it.
const POINTER = window.matchMedia("(hover: hover) and (pointer: fine)");

function range(chosen, mode) {
  if (mode === "week") {
    const start = time.startOfWeek(chosen);
    const end = time.addDays(start, 7);
    return { start, end, title: `Week of ${time.dayRange(start, time.addDays(start, 6))}`, previous: time.addDays(start, -7), next: end, label: "week" };
  }
  const first = new Date(chosen.getFullYear(), chosen.getMonth(), 1);
  const last = new Date(chosen.getFullYear(), chosen.getMonth() + 1, 0);
  return {
    start: time.startOfWeek(first),
    end: time.addDays(time.startOfWeek(last), 7),
    title: monthFormat.format(first),
    previous: new Date(first.getFullYear(), first.getMonth() - 1, 1),
    next: new Date(first.getFullYear(), first.getMonth() + 1, 1),
    label: "month",
  };
}

async function calendar(view, route, session, mode) {
  const chosen = time.parseDayKey(route.params[0]) ?? new Date();
  const { start, end, title, previous, next, label } = range(chosen, mode);
  const days = [];
  for (let day = start; day < end; day = time.addDays(day, 1)) days.push(day);
  const base = mode === "week" ? "#/calendar" : "#/calendar/month";
  const only = route.query.get("channel") || undefined; // one channel's plan, or every channel's
  const kept = only ? `?channel=${encodeURIComponent(only)}` : "";
  const link = (date, text, aria, key) => h("a", { class: "button", href: `${base}/${time.dayKey(date)}${kept}`, "aria-label": aria, title: aria, dataset: { focusKey: key } }, text);
  const switchLink = (to, text) =>
    h("a", { class: "button", href: `${to === "week" ? "#/calendar" : "#/calendar/month"}/${time.dayKey(chosen)}${kept}`, "aria-current": to === mode ? "page" : null, dataset: { focusKey: `mode-${to}` } }, text);
  const picker = h("select", { id: "calendar-channel", "aria-label": "Channel", onchange: () => (location.hash = `${base}/${time.dayKey(chosen)}${picker.value ? `?channel=${encodeURIComponent(picker.value)}` : ""}`) });
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const banner = h("div", { class: "banner-slot" }); // a LinkedIn connection to renew
  const steps = h("div", { class: "steps-slot" });
  const body = h("div", { class: "calendar-body" }, loading());
  const side = h("div", { class: "calendar-side" });
  const canMove = session.can("posts:write") && session.can("posts:publish");
  const canWrite = session.can("posts:write");
  const drags = canMove && POINTER.matches;
  let legend; // hidden while the workspace is empty: nothing to tell apart yet
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
        h("label", { class: "channel-filter" }, h("span", { class: "visually-hidden" }, "Channel "), picker),
        canWrite ? h("a", { class: "button button-primary", href: "#/posts/new" }, "New post") : null,
      ),
    ),
    banner,
    steps,
    (legend = h(
      "p",
      { class: "hint calendar-legend" },
      `Times are in your time zone, ${time.ZONE}${POINTER.matches ? "; point at a time to see it in UTC" : ""}. `,
      h("span", { class: "legend" }, h("span", { class: "swatch type-personal" }), "Personal post"),
      h("span", { class: "legend" }, h("span", { class: "swatch type-brand" }), "Brand post"),
      h("span", { class: "legend" }, h("span", { class: "swatch swatch-repeat" }), "Planned repeat"),
      mode === "week" ? h("span", { class: "legend" }, h("span", { class: "swatch swatch-slot" }), "Free slot") : null,
      drags ? h("span", { class: "drag-hint" }, " Drag a scheduled post to another day, or a draft onto a day or a free slot.") : null,
    )),
    messages,
    h("div", { class: "calendar-layout" }, body, side),
  );

  let shown = null;
  let plan = { posts: [], repeats: [], slots: [], drafts: { posts: [], total: 0 }, progress: null, channels: [] };
  async function refresh() {
    let fresh;
    try {
      fresh = await read();
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const signature = JSON.stringify([fresh.posts, fresh.repeats, fresh.slots.map((s) => [s.at, s.channel.id]), fresh.drafts.posts.map((p) => [p.id, p.version]), fresh.progress, fresh.channels.map((c) => [c.id, c.version])]);
    if (signature === shown) return;
    shown = signature;
    plan = fresh;
    render();
  }

  async function read() {
    const channels = await channelList();
    const [posts, repeats, slots, waiting, status] = await Promise.all([
      postsBetween(start, end, only),
      repeatsBetween(start, end, only),
      mode === "week" && canWrite ? freeSlots(channels.filter((c) => !only || c.id === only), start, end) : [],
      drafts(only),
      canWrite ? progress(channels, session) : null,
    ]);
    // A slot a series' repeat will take is not free.
    const repeatAt = new Set(repeats.map((r) => `${channelIdOf(r)}|${Date.parse(r.scheduled_at)}`));
    return { posts, repeats, slots: slots.filter((s) => !repeatAt.has(`${s.channel.id}|${Date.parse(s.at)}`)), drafts: waiting, progress: status, channels };
  }

  function render() {
    showChannelChoices(picker, plan.channels ?? [], only, session);
    show(banner, reconnectBanner(plan.channels ?? [], session, messages));
    const status = plan.progress;
    const empty = status && !status.channels && !status.posts;
    show(steps, status && !empty && !(status.slotted && status.posts) ? firstSteps(status, session, false) : null);
    legend.hidden = Boolean(empty);
    if (empty) {
      show(body, firstSteps(status, session, true));
      side.replaceChildren();
      return;
    }
    const byDay = (items, at) => (day) => items.filter((item) => time.dayKey(new Date(at(item))) === time.dayKey(day));
    const postsOn = byDay(plan.posts, (p) => p.scheduled_at);
    const repeatsOn = byDay(plan.repeats, (r) => r.scheduled_at);
    const slotsOn = byDay(plan.slots, (s) => s.at);
    const column = (day) => dayCell(day, { posts: postsOn(day), repeats: repeatsOn(day), slots: slotsOn(day) }, { mode, month: chosen.getMonth(), canWrite, canDrag: drags, drop });
    if (mode === "week") show(body, h("div", { class: "week" }, days.map(column)));
    else show(body, h("div", { class: "month" }, days.slice(0, 7).map((day) => h("div", { class: "month-weekday", "aria-hidden": "true" }, weekdayFormat.format(day))), days.map(column)));
    show(side, plan.drafts.total ? draftsPanel(plan.drafts, drags) : null); // no drafts: the days take the room
  }

  /** Schedule `postId` (a Scheduled post, or a draft from the side list) on
   *  `target.day` at its time of day, or at `target.at` (a free slot): the
   *  card moves at once and comes back if the service refuses. */
  async function drop(postId, target) {
    const post = plan.posts.find((p) => p.id === postId) ?? plan.drafts.posts.find((p) => p.id === postId);
    if (!post || !["Scheduled", "Draft"].includes(post.status)) return;
    const to = target.at ? new Date(target.at) : onDay(target.day, post.scheduled_at);
    if (post.status === "Scheduled" && to.getTime() === Date.parse(post.scheduled_at)) return;
    messages.replaceChildren();
    const before = plan;
    const moved = { ...post, status: "Scheduled", scheduled_at: to.toISOString() };
    plan = {
      ...plan,
      posts: [...plan.posts.filter((p) => p.id !== postId), moved].sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at)),
      slots: plan.slots.filter((s) => Date.parse(s.at) !== to.getTime()),
      drafts: { posts: plan.drafts.posts.filter((p) => p.id !== postId), total: plan.drafts.total - (post.status === "Draft" ? 1 : 0) },
    };
    render();
    const body = post.status === "Draft" ? { status: "Scheduled", scheduled_at: moved.scheduled_at } : { scheduled_at: moved.scheduled_at };
    try {
      const { data } = await call("PATCH", `/api-v2-posts-item/${postId}`, { body, version: post.version });
      notify(`${post.status === "Draft" ? "Scheduled for" : "Moved to"} ${time.local(data.scheduled_at)}.`);
      shown = null;
      await refresh();
    } catch (error) {
      plan = before; // undone: the card goes back where it was
      render();
      show(messages, explain(error, h("button", { type: "button", class: "button", onclick: () => ((shown = null), messages.replaceChildren(), refresh()) }, "Reload")));
      messages.focus();
    }
  }

  await refresh();
  return { refresh };
}

/** `day` at the time of day of `iso` (a post keeps its time), or 09:00. */
function onDay(day, iso) {
  const from = iso ? new Date(iso) : null;
  return new Date(day.getFullYear(), day.getMonth(), day.getDate(), from ? from.getHours() : 9, from ? from.getMinutes() : 0);
}

/** The drafts waiting for a time, newest first: dragged onto the calendar
 *  to schedule them, or opened to schedule them from their page. */
function draftsPanel(list, drags) {
  const item = (post) => {
    const element = h(
      "a",
      { class: `draft-card type-${post.type}`, href: `#/posts/${post.id}`, draggable: "false", dataset: { postId: post.id, focusKey: `draft-${post.id}` } },
      typeBadge(post),
      h("span", { class: "card-text" }, excerpt(post.content, 90)),
    );
    if (drags) draggable(element, post);
    return h("li", {}, element);
  };
  return h(
    "aside",
    { class: "panel drafts-panel", "aria-labelledby": "drafts-title" },
    h("h2", { id: "drafts-title" }, "Drafts ", h("span", { class: "tab-count" }, String(list.total))),
    h("p", { class: "hint" }, drags ? "Drag one onto a day or a free slot to schedule it." : "Open one and choose Schedule… to give it a time."),
    h("ol", { class: "draft-list plain" }, list.posts.map(item)),
    list.total > list.posts.length ? h("p", {}, h("a", { href: "#/queue/Draft" }, `All ${list.total} drafts`)) : null,
  );
}

/** The calendar's channel filter: every channel, or one (by name). */
function showChannelChoices(picker, channels, only, session) {
  const me = session.me?.member?.id;
  const named = (c) => (c.type === "personal" && c.member?.id === me ? `${c.name} (mine)` : c.name); // the cards' names
  const choices = [h("option", { value: "" }, "Every channel"), ...channels.map((c) => h("option", { value: c.id, selected: c.id === only, title: channelChoice(c, me) }, named(c)))];
  if (only && !channels.some((c) => c.id === only)) choices.push(h("option", { value: only, selected: true }, only));
  picker.replaceChildren(...choices);
  picker.value = only ?? "";
}
