// The calendar's days and what they hold: posts (a Scheduled one can be
// dragged), the repeats a series will make (not posts yet: drawn dashed,
// opened on the post they copy), and on the week view the channels' free
// slots, drawn faintly: a click composes for that time and channel, and a
// post or a draft dropped on one is scheduled there.
import { excerpt, h } from "../dom.js";
import { compact, count, percent } from "../charts.js";
import * as time from "../time.js";
import { countdown, mediaThumbs, ownMedia, repeatBadge, repeatLabel, statusBadge, typeBadge } from "../widgets.js";

export const DRAG_TYPE = "application/x-post-id";

/** One day: `items` holds its posts, repeats and free slots; `drop(postId,
 *  {day} or {at})` schedules what is dropped on the day or on a slot;
 *  `canDrag`: the key may move posts and the screen has a mouse. */
export function dayCell(day, items, { mode, month, canWrite, canDrag, drop }) {
  const key = time.dayKey(day);
  const today = key === time.dayKey(new Date());
  const classes = [mode === "week" ? "day" : "month-day", today ? "today" : "", mode === "month" && day.getMonth() !== month ? "other-month" : ""].filter(Boolean).join(" ");
  const compose = `#/posts/new?date=${key}`;
  const add = canWrite ? h("a", { class: "day-add", href: compose, "aria-label": `Compose for ${time.dayLabel(day)}`, title: `Compose for ${time.dayLabel(day)}` }, "+") : null;
  const entries = [
    ...items.posts.map((post) => [post.scheduled_at, 0, () => card(post, mode, canDrag)]),
    ...items.repeats.map((repeat) => [repeat.scheduled_at, 1, () => repeatCard(repeat, mode)]),
    ...items.slots.map((slot) => [slot.at, 2, () => slotCard(slot, canWrite, canDrag, drop)]),
  ].sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
  const cell = h(
    "section",
    { class: classes, dataset: { date: key }, "aria-labelledby": `day-${key}` },
    h("h2", { class: "day-head", id: `day-${key}` }, mode === "week" ? time.dayLabel(day) : h("span", { class: "visually-hidden" }, time.dayLabel(day)), mode === "month" ? h("span", { "aria-hidden": "true" }, String(day.getDate())) : null, today ? h("span", { class: "today-mark" }, "Today") : null, add),
    entries.length ? h("ol", { class: "day-posts" }, entries.map(([, , make]) => make())) : h("p", { class: "day-empty" }, mode === "week" ? "Nothing scheduled" : ""),
  );
  // A click on the day's own space (not on a card) composes for that day.
  if (canWrite) {
    cell.addEventListener("click", (event) => {
      if (event.target.closest(".post-card, .slot-card, a, button")) return;
      location.hash = compose;
    });
  }
  if (canDrag) dropTarget(cell, (id) => drop(id, { day }));
  return cell;
}

/** Let posts be dropped on `element`; `onDrop(postId)`. */
function dropTarget(element, onDrop) {
  element.addEventListener("dragover", (event) => {
    if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    element.classList.add("drop-target");
  });
  element.addEventListener("dragleave", (event) => {
    if (!element.contains(event.relatedTarget)) element.classList.remove("drop-target");
  });
  element.addEventListener("drop", (event) => {
    event.preventDefault();
    event.stopPropagation(); // a slot's drop is not also its day's
    element.classList.remove("drop-target");
    const id = event.dataTransfer.getData(DRAG_TYPE);
    if (id) onDrop(id);
  });
}

/** Make `element` carry `post` when dragged. */
export function draggable(element, post) {
  element.setAttribute("draggable", "true");
  element.addEventListener("dragstart", (event) => {
    event.dataTransfer.setData(DRAG_TYPE, post.id);
    event.dataTransfer.effectAllowed = "move";
  });
}

function card(post, mode, canDrag) {
  const images = post.media_urls.filter(ownMedia).slice(0, mode === "week" ? 3 : 1);
  const element = h(
    "a",
    { class: `post-card type-${post.type}`, href: `#/posts/${post.id}`, draggable: "false", dataset: { focusKey: post.id, postId: post.id } },
    h("span", { class: "card-top" }, time.timeElement(post.scheduled_at, time.clock(post.scheduled_at)), statusBadge(post.status), repeatBadge(post)),
    typeBadge(post),
    h("span", { class: "card-text" }, excerpt(post.content, mode === "week" ? 120 : 60)),
    post.author ? h("span", { class: "card-author", title: `Written by ${post.author.name}${post.approved_by ? `, approved by ${post.approved_by.name}` : ""}` }, "by ", post.author.name, post.approved_by ? ` · approved by ${post.approved_by.name}` : "") : null,
    mediaThumbs(images),
    post.stats?.impressions != null
      ? h(
          "span",
          { class: "card-stats", title: `${count(post.stats.impressions)} impressions, ${percent(post.stats.engagement)} engagement, as of ${time.local(post.stats.taken_at)}` },
          `${compact(post.stats.impressions)} impressions`,
          post.stats.engagement !== null ? ` · ${percent(post.stats.engagement)}` : "",
        )
      : null,
    mode === "week" && post.status === "Scheduled" ? countdown(post.scheduled_at, "in {}", "due now") : null,
    mode === "week" && post.status === "Publishing" ? countdown(post.handoff_expires_at, "lease: {} left", "lease ran out") : null,
  );
  if (canDrag && post.status === "Scheduled") draggable(element, post);
  return h("li", {}, element);
}

/** A repeat a series will make: opened on the post it copies, which says
 *  what editing the series does. */
function repeatCard(repeat, mode) {
  const href = `#/posts/${repeat.post_id}?repeat=${encodeURIComponent(repeat.scheduled_at)}&n=${repeat.occurrence}`;
  return h(
    "li",
    {},
    h(
      "a",
      {
        class: `post-card repeat-card type-${repeat.type}`,
        href,
        title: `Planned repeat: ${repeatLabel(repeat.repeat)} (occurrence ${repeat.occurrence}). Not a post yet.`,
        dataset: { focusKey: `repeat-${repeat.series_id}-${repeat.occurrence}`, seriesId: repeat.series_id, repeatAt: repeat.scheduled_at },
      },
      h("span", { class: "card-top" }, time.timeElement(repeat.scheduled_at, time.clock(repeat.scheduled_at)), h("span", { class: "badge repeat-badge" }, "↻ Planned")),
      typeBadge(repeat),
      h("span", { class: "card-text" }, excerpt(repeat.content, mode === "week" ? 80 : 40)),
      repeat.stops ? h("span", { class: "repeat-stops" }, "The series stops here: a spacing rule") : null,
    ),
  );
}

/** A free slot of a channel: faint; a click composes for it, a drop schedules there. */
function slotCard(slot, canWrite, canDrag, drop) {
  const when = time.local(slot.at);
  const label = `Free slot of ${slot.channel.name}, ${when}`;
  const element = h(
    canWrite ? "a" : "span",
    {
      class: "slot-card",
      href: canWrite ? `#/posts/new?at=${encodeURIComponent(slot.at)}&channel=${encodeURIComponent(slot.channel.id)}` : null,
      "aria-label": canWrite ? `${label}: write a post for it` : label,
      title: canWrite ? `${label}. Click to write a post for it${canDrag ? ", or drop a draft here" : ""}.` : label,
      dataset: { slotAt: slot.at, channel: slot.channel.id, focusKey: `slot-${slot.channel.id}-${slot.at}` },
    },
    time.timeElement(slot.at, time.clock(slot.at)),
    h("span", { class: "slot-name" }, "Free slot · ", slot.channel.name),
  );
  if (canDrag) dropTarget(element, (id) => drop(id, { at: slot.at }));
  return h("li", {}, element);
}
