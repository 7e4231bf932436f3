// Saved hashtag sets in the composer (GET/POST /hashtag-sets): one click
// adds a set's hashtags to the text, those it does not hold yet, where the
// cursor is; the hashtags the text holds can be saved as a new set.
import { call } from "../api.js";
import { h } from "../dom.js";

// A hashtag as LinkedIn reads one (linkedin.py): "#", a letter or digit, then letters, digits and "_".
const HASHTAG = /(^|\s)(#[\p{L}\p{N}][\p{L}\p{N}_]*)/gu;
const MOST = 30; // hashtags in one set

/** The sets' row for the content box `content`; `changed()` after an insert. */
export function hashtagSets(content, changed) {
  const list = h("div", { class: "hashtag-sets", role: "group", "aria-label": "Hashtag sets" });
  const name = h("input", { id: "hashtag-set-name", maxlength: 50, autocomplete: "off", placeholder: "Name of a new set" });
  const note = h("p", { class: "hint", "aria-live": "polite" });
  const save = h("button", { type: "button", class: "button", id: "hashtag-set-save" }, "Save the text's hashtags as a set");

  async function load() {
    try {
      const { data } = await call("GET", "/hashtag-sets?limit=100", { quiet: true });
      list.replaceChildren(
        ...data.data.map((set) => h("button", { type: "button", class: "button hashtag-set", title: set.hashtags.join(" "), dataset: { setId: set.id }, onclick: () => insert(set) }, `+ ${set.name}`)),
      );
      if (!data.data.length) list.append(h("span", { class: "muted" }, "No saved sets yet."));
    } catch (error) {
      list.replaceChildren(h("span", { class: "muted" }, `Hashtag sets could not be read: ${error.message}`));
    }
  }

  function insert(set) {
    const held = new Set(tagsIn(content.value).map((tag) => tag.toLowerCase()));
    const missing = set.hashtags.filter((tag) => !held.has(tag.toLowerCase()));
    if (!missing.length) {
      note.textContent = `The text holds every hashtag of ${set.name} already.`;
      return;
    }
    const { value } = content;
    const start = content.selectionStart ?? value.length;
    const end = content.selectionEnd ?? start;
    const before = start > 0 && !/\s/.test(value[start - 1]) ? " " : "";
    const after = end < value.length && !/\s/.test(value[end]) ? " " : "";
    content.setRangeText(before + missing.join(" ") + after, start, end, "end");
    content.focus();
    note.textContent = `Added ${missing.join(" ")}.`;
    changed();
  }

  save.addEventListener("click", async () => {
    const seen = new Set();
    const tags = tagsIn(content.value).filter((tag) => !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()));
    if (!tags.length) {
      note.textContent = "Write the hashtags in the text first (#B2B #SaaS), then save them as a set.";
      return;
    }
    if (!name.value.trim()) {
      note.textContent = "Give the set a name.";
      name.focus();
      return;
    }
    save.disabled = true;
    try {
      const { data } = await call("POST", "/hashtag-sets", { body: { name: name.value.trim(), hashtags: tags.slice(0, MOST) } });
      note.textContent = `Saved ${data.name}: ${data.hashtags.join(" ")}.`;
      name.value = "";
      await load();
    } catch (error) {
      note.textContent = error.message;
    } finally {
      save.disabled = false;
    }
  });

  load();
  return h(
    "div",
    { class: "form-field hashtag-field" },
    h("span", { class: "field-label" }, "Hashtag sets"),
    list,
    h("div", { class: "hashtag-save" }, h("label", { class: "visually-hidden", for: "hashtag-set-name" }, "Name of a new hashtag set"), name, save),
    note,
  );
}

/** The hashtags of `text`, in order. */
export function tagsIn(text) {
  return [...text.matchAll(HASHTAG)].map((found) => found[2]);
}
