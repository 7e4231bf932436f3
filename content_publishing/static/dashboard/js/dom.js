// Building the page from data without innerHTML: every text from the API
// (post content, errors, URLs) goes in as textContent, so none of it can
// become markup or script.
import { cutAt } from "./text.js";

/** h("a", {href: "#/x", class: "link"}, "text", child, ...): an element. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replace what `container` shows, keeping keyboard focus on the element
 *  with the same data-focus-key (a refresh must not throw the user's place away). */
export function show(container, ...children) {
  const focused = document.activeElement;
  const key = container.contains(focused) ? focused.dataset.focusKey : undefined;
  container.replaceChildren();
  append(container, children);
  if (key) container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`)?.focus();
}

/** A link that opens outside the page, telling no one where it came from. */
export function outsideLink(url, text = url) {
  if (!/^https?:\/\//i.test(url)) return h("span", { class: "mono" }, url);
  return h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, text, h("span", { class: "visually-hidden" }, " (opens in a new tab)"));
}

/** A text on one line, cut at `max` characters (whole ones: an emoji is never split). */
export function excerpt(text, max = 140) {
  const line = (text || "").replace(/\s+/g, " ").trim();
  return cutAt(line, max).cut ? `${cutAt(line, max - 1).text.trimEnd()}…` : line;
}
