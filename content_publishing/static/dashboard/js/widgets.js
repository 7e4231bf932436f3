// Small pieces shared by the views: badges, the pager, countdowns, the
// confirmation dialog and the notice line.
import { PAGE_SIZE } from "./api.js";
import { h } from "./dom.js";
import { avatar, channelById, channelIdOf, personOf } from "./profiles.js";
import { duration } from "./time.js";

export const POST_STATUSES = ["Draft", "Scheduled", "Publishing", "Published", "Failed"];

/** A status as a class name: "In review" -> "in-review". */
export const statusClass = (status) => status.toLowerCase().replace(/\s+/g, "-");

export function statusBadge(status) {
  return h("span", { class: `badge status status-${statusClass(status)}` }, status);
}

/** The post's channel by name: a brand page, or a person's profile with
 *  their initials; a channel not set up by its brand_id, or "Personal". */
export function typeBadge(post) {
  const channel = channelById(channelIdOf(post));
  if (post.type === "brand") {
    const name = channel?.name ?? post.brand_id;
    const title = channel ? `Brand post: published to the company page ${channel.name} (${post.brand_id})` : `Brand post: published to the company page ${post.brand_id}`;
    return h("span", { class: "badge type type-brand", title, dataset: { channel: channelIdOf(post) } }, "Brand · ", h("strong", {}, name));
  }
  if (!channel) return h("span", { class: "badge type type-personal", title: "Personal post: published to the member's own feed" }, "Personal");
  return h(
    "span",
    { class: "badge type type-personal type-profile", title: `Personal post: published on ${personOf(channel)}'s LinkedIn profile (${channel.name})`, dataset: { channel: channel.id } },
    avatar(channel),
    h("strong", {}, channel.name),
  );
}

/** A row of tabs (a <nav class="tabs"> holding a <ul>), once shown: where
 *  it is wider than the screen (phone width) it scrolls sideways, so the
 *  current tab (or the focused one) is brought to the middle, and the list is marked at the ends
 *  that have more to see (the stylesheet fades them). Tab and Shift+Tab move
 *  through every tab in order; the browser scrolls the focused one into view. */
export function fitTabs(nav) {
  const list = nav.querySelector("ul");
  if (!list) return;
  // The tab with focus, if the person is moving through them; else the current one.
  const current = list.contains(document.activeElement) ? document.activeElement : list.querySelector('[aria-current="page"]');
  if (current && list.scrollWidth > list.clientWidth) {
    const tab = current.getBoundingClientRect();
    const strip = list.getBoundingClientRect();
    list.scrollLeft += tab.left - strip.left - (strip.width - tab.width) / 2;
  }
  markEnds(list);
  if (!list.dataset.watched) {
    list.dataset.watched = "1";
    list.addEventListener("scroll", () => markEnds(list), { passive: true });
  }
}

function markEnds(list) {
  const hidden = list.scrollWidth - list.clientWidth;
  list.classList.toggle("more-before", hidden > 1 && list.scrollLeft > 1);
  list.classList.toggle("more-after", hidden > 1 && list.scrollLeft < hidden - 1);
}

window.addEventListener("resize", () => {
  for (const nav of document.querySelectorAll("nav.tabs")) fitTabs(nav);
});

/** The view's heading; the router moves focus to it after a navigation. */
export function heading(text, ...extra) {
  return h("div", { class: "view-head" }, h("h1", { tabindex: "-1", class: "view-title" }, text), ...extra);
}

/** "21–40 of 57" and, when there is more than one page, links to the pages
 *  before and after. */
export function pager(total, offset, hrefFor, label) {
  if (!total) return null;
  const last = Math.min(offset + PAGE_SIZE, total);
  if (offset === 0 && last === total) return h("p", { class: "pager pager-count" }, `${total} in all`);
  const previous = offset > 0 ? hrefFor(Math.max(0, offset - PAGE_SIZE)) : null;
  const next = last < total ? hrefFor(offset + PAGE_SIZE) : null;
  const link = (href, text, rel) =>
    href ? h("a", { class: "button", href, rel, dataset: { focusKey: `pager-${rel}` } }, text) : h("span", { class: "button", "aria-disabled": "true" }, text);
  return h(
    "nav",
    { class: "pager", "aria-label": `${label} pages` },
    link(previous, "‹ Previous", "prev"),
    h("span", { class: "pager-count" }, `${offset + 1}–${last} of ${total}`),
    link(next, "Next ›", "next"),
  );
}

// Countdowns: "due in 12 s", then "due now". tickCountdowns() rewrites every
// one on the page each second from its data-until (a time), data-before
// (the words while it is ahead, {} for how long) and data-after.
export function countdown(until, before, after) {
  const element = h("span", { class: "countdown", dataset: { until, before, after } });
  renderCountdown(element, Date.now());
  return element;
}

function renderCountdown(element, now) {
  const left = new Date(element.dataset.until).getTime() - now;
  element.textContent = left > 0 ? element.dataset.before.replace("{}", duration(left)) : element.dataset.after;
  element.classList.toggle("countdown-over", left <= 0);
}

export function tickCountdowns() {
  const now = Date.now();
  for (const element of document.querySelectorAll(".countdown")) renderCountdown(element, now);
}

/** A yes/no question in the page's <dialog>; resolves true when confirmed. */
export function confirmAction(question, confirmLabel) {
  const dialog = document.getElementById("confirm");
  dialog.querySelector("#confirm-text").textContent = question;
  dialog.querySelector("#confirm-yes").textContent = confirmLabel;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
  });
}

/** A passing message ("Draft created") in the page's live region. */
export function notify(text) {
  const notice = document.getElementById("notice");
  notice.textContent = text; // a live region: read out when its text changes
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => {
    notice.textContent = "";
  }, 6000);
}

/** A muted line saying a list is empty. */
export function empty(text) {
  return h("p", { class: "empty" }, text);
}

export function loading() {
  return h("p", { class: "loading", role: "status" }, "Loading…");
}

/** Is `url` one of this service's own media (/media/<id>.<ext>)? Only those
 *  show as pictures: the page's policy loads images from this service alone. */
export function ownMedia(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.origin === location.origin && /^\/media\/[0-9a-f]{32}\.(jpg|png|gif|webp)$/.test(parsed.pathname);
  } catch {
    return false;
  }
}

/** Thumbnails of a post's media: pictures for the media library's images,
 *  a link for any other URL. `remove(url)`, if given, adds a remove button. */
export function mediaThumbs(urls, { remove, size = "small" } = {}) {
  if (!urls.length) return null;
  return h(
    "ul",
    { class: `thumbs thumbs-${size}` },
    urls.map((url, n) =>
      h(
        "li",
        { class: "thumb", dataset: { url } },
        ownMedia(url)
          ? h("img", { src: url, alt: `Image ${n + 1}`, loading: "lazy", width: 96, height: 96 })
          : h("span", { class: "thumb-link mono", title: url }, url.replace(/^https?:\/\//, "").slice(0, 40)),
        remove ? h("button", { type: "button", class: "thumb-remove", "aria-label": `Remove image ${n + 1}`, onclick: () => remove(url) }, "×") : null,
      ),
    ),
  );
}

const DAY_NAMES = { MO: "Mon", TU: "Tue", WE: "Wed", TH: "Thu", FR: "Fri", SA: "Sat", SU: "Sun" };

/** "Every week on Mon, Thu, 4 times" from an RRULE as the service stores it. */
export function repeatLabel(rule) {
  if (!rule) return null;
  const parts = Object.fromEntries(rule.split(";").map((part) => part.split("=")));
  const every = Number(parts.INTERVAL || 1);
  const unit = { DAILY: "day", WEEKLY: "week", MONTHLY: "month" }[parts.FREQ] ?? parts.FREQ;
  let text = every === 1 ? `Every ${unit}` : `Every ${every} ${unit}s`;
  if (parts.BYDAY) text += ` on ${parts.BYDAY.split(",").map((d) => DAY_NAMES[d.slice(-2)] ? d.slice(0, -2) + DAY_NAMES[d.slice(-2)] : d).join(", ")}`;
  if (parts.BYMONTHDAY) text += ` on day ${parts.BYMONTHDAY}`;
  if (parts.COUNT) text += `, ${parts.COUNT} times`;
  if (parts.UNTIL) text += `, until ${parts.UNTIL.slice(0, 4)}-${parts.UNTIL.slice(4, 6)}-${parts.UNTIL.slice(6, 8)}`;
  return text;
}

/** The mark of a recurring post. */
export function repeatBadge(post) {
  if (!post.repeat && !post.series_id) return null;
  const label = post.repeat ? repeatLabel(post.repeat) : "Part of a series that has ended";
  const occurrence = post.occurrence ? ` (occurrence ${post.occurrence})` : "";
  return h("span", { class: "badge repeat-badge", title: `${label}${occurrence}` }, "↻ ", h("span", { class: "visually-hidden" }, "Recurring: "), post.repeat ? "Repeats" : "Series");
}

/** The channel a post goes to: its channel_id (before there were ids: "personal", or its brand_id). */
export const channelOf = channelIdOf;

/** A secret shown once (an invite link, a key): the text in a read-only box,
 *  and Copy, which puts it on the clipboard (or, where the page may not
 *  write there, selects it for Ctrl+C) and says which it did. */
export function copyField(text, label, id) {
  const box = h("input", { id, class: "mono copy-box", readonly: true, value: text, spellcheck: "false", "aria-label": label });
  box.addEventListener("focus", () => box.select());
  const said = h("span", { class: "copy-said", role: "status" });
  const copy = async () => {
    box.focus();
    box.select();
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = "Copied.";
    } catch {
      said.textContent = document.execCommand?.("copy") ? "Copied." : "Selected: press Ctrl+C (⌘C) to copy.";
    }
  };
  return h("div", { class: "copy-field" }, box, h("button", { type: "button", class: "button", onclick: copy }, "Copy"), said);
}
