// @ suggestions in a text box: typing @ and the start of a name lists the
// matching names (the workspace's members, for a comment; its pages and the
// people its posts mention, for a post), and picking one (a click, or Enter /
// Tab on the highlighted one; arrows move) writes "@Name " in its place, or
// what the entry says to write (a post's mention, "@[Name](urn:li:...)"). The list is a listbox tied to the box
// (aria-controls, aria-activedescendant), so a screen reader follows it.
import { h } from "../dom.js";

const TYPED = /(^|\s)@([^\s@]{0,40})$/; // "@" and what follows it, up to the caret

/** Suggest names from `load()` (a promise of [{name, text?, hint?}]: `text`
 *  what is written, "@name" if absent; `hint` shown beside the name) in
 *  `textarea`; returns the list element, to place under the box. */
export function suggestMentions(textarea, load) {
  const list = h("ul", { class: "mention-list", role: "listbox", id: `${textarea.id}-mentions`, hidden: true });
  textarea.setAttribute("aria-controls", list.id);
  textarea.setAttribute("aria-autocomplete", "list");
  let entries = null;
  let shown = [];
  let active = 0;

  const close = () => {
    list.hidden = true;
    shown = [];
    textarea.removeAttribute("aria-activedescendant");
  };
  function pick(entry) {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const after = textarea.value.slice(textarea.selectionStart);
    const start = before.search(/@[^\s@]*$/);
    const text = entry.text ?? `@${entry.name}`;
    textarea.value = `${before.slice(0, start)}${text} ${after}`;
    const caret = start + text.length + 1;
    textarea.setSelectionRange(caret, caret);
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
    close();
    textarea.focus();
  }
  function draw() {
    list.replaceChildren(
      ...shown.map((entry, i) =>
        h("li", { role: "option", id: `${list.id}-${i}`, class: "mention-option", "aria-selected": String(i === active), onmousedown: (event) => (event.preventDefault(), pick(entry)) }, `@${entry.name}`, entry.hint ? h("span", { class: "mention-hint" }, ` ${entry.hint}`) : null),
      ),
    );
    list.hidden = !shown.length;
    if (shown.length) textarea.setAttribute("aria-activedescendant", `${list.id}-${active}`);
  }
  textarea.addEventListener("input", async () => {
    const typed = TYPED.exec(textarea.value.slice(0, textarea.selectionStart));
    if (!typed) return close();
    entries ??= await load();
    const start = typed[2].toLowerCase();
    const words = (name) => name.toLowerCase().split(/\s+/); // "@doe" finds "Jane Doe" too
    shown = entries.filter((entry) => words(entry.name).some((word) => word.startsWith(start)) || entry.name.toLowerCase().startsWith(start)).slice(0, 8);
    active = 0;
    draw();
  });
  textarea.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
      draw();
    } else if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      pick(shown[active]);
    } else if (event.key === "Escape") {
      close();
    }
  });
  textarea.addEventListener("blur", () => setTimeout(close, 150));
  return list;
}
