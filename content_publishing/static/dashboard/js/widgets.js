// Small pieces shared by the views: badges, the pager, countdowns, the
// confirmation dialog and the notice line.
import { PAGE_SIZE } from "./api.js";
import { h } from "./dom.js";
import { duration } from "./time.js";

export const POST_STATUSES = ["Draft", "Scheduled", "Publishing", "Published", "Failed"];

export function statusBadge(status) {
  return h("span", { class: `badge status status-${status.toLowerCase()}` }, status);
}

/** Personal or brand, with the brand (the company page) named. */
export function typeBadge(post) {
  return post.type === "brand"
    ? h("span", { class: "badge type type-brand", title: `Brand post: published to the company page ${post.brand_id}` }, "Brand · ", h("strong", {}, post.brand_id))
    : h("span", { class: "badge type type-personal", title: "Personal post: published to the member's own feed" }, "Personal");
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
