// The composer's media: up to 20 images or one PDF document, uploaded to the
// media library (dropped or picked) or given by URL. Images are put in order
// by dragging them, or with their Move earlier / Move later buttons from the
// keyboard, and each has its alt text: the library item's (kept for every
// post, PATCH /media-item/{id}) or this post's own (media_alt), with a nudge
// while it has none. A document has its title (document_title).
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { ALT_TEXT_MAX, DOCUMENT_TITLE_MAX, DOCUMENT_TYPES, IMAGE_TYPES, MAX_IMAGES, altTextOf, kindOf, libraryId, libraryRecords, titleFromFileName } from "../media.js";
import { notify, ownMedia } from "../widgets.js";

const ROW_DRAG = "application/x-cps-media-row"; // a row dragged within the list, not a file
// Dragging needs a mouse, as on the calendar: on a touch screen the pictures
// are not draggable and the page speaks only of ↑ and ↓.
const POINTER = window.matchMedia("(hover: hover) and (pointer: fine)");

/** The media part of the form for `post` (null: a new one). `changed()` is
 *  called after every change. */
export function mediaEditor(post, { changed }) {
  // [{url, kind, alt}]: alt is the post's own (null: the library item's).
  let items = (post?.media_urls ?? []).map((url, n) => ({ url, kind: kindOf(url), alt: post.media_alt?.[n] ?? null }));
  const library = {}; // {id: the media record, or null once deleted}
  // The post's own alt text of every medium it has had while the form is open,
  // so that one taken out of the list and put back keeps what was written for it.
  const written = Object.fromEntries(items.filter((item) => item.alt !== null).map((item) => [item.url, item.alt]));
  const names = {}; // {url: the file name it was uploaded from}
  const files = h("input", { type: "file", id: "media-files", accept: [...IMAGE_TYPES, ...DOCUMENT_TYPES].join(","), multiple: true, class: "visually-hidden", onchange: () => upload([...files.files]) });
  const dropzone = h(
    "div",
    { class: "dropzone", dataset: { dropzone: "" } },
    h("p", {}, `Drop up to ${MAX_IMAGES} images, or one PDF document, here, or `),
    h("label", { for: "media-files", class: "button" }, "Choose files…"),
    files,
  );
  const status = h("p", { class: "hint upload-status", role: "status" });
  // A refusal of what was just dropped or picked, under the drop zone; gone at the next change.
  const refusal = h("div", { class: "media-problem" });
  const problem = (node) => show(refusal, node);
  const order = h("p", { class: "hint media-order-hint" }, POINTER.matches ? "Drag a picture onto another to change the order, or use ↑ and ↓." : "Use ↑ and ↓ to change the order.");
  const list = h("ol", { class: "composer-thumbs media-list", "aria-label": "The post's media, in order" });
  const title = h("input", { id: "document_title", name: "document_title", maxlength: DOCUMENT_TITLE_MAX, autocomplete: "off", value: post?.document_title ?? "", "aria-describedby": "document-title-hint" });
  const urls = h("textarea", { id: "media_urls", name: "media_urls", rows: 2, "aria-describedby": "media-hint", spellcheck: "false" });
  urls.value = items.map((item) => item.url).join("\n");
  // The links themselves, folded away unless the post has one of another site's.
  const links = h(
    "details",
    { class: "media-links", open: items.some((item) => !libraryId(item.url)) },
    h("summary", {}, "Media URLs: add images or a document by link"),
    h("label", { for: "media_urls" }, "Media URLs"),
    urls,
    h("p", { class: "hint", id: "media-hint" }, `One http or https link per line, in order; uploaded files are added here too. Up to ${MAX_IMAGES} images, or one document (.pdf, .pptx, .docx).`),
  );

  dropzone.addEventListener("dragover", (event) => {
    if (event.dataTransfer.types.includes(ROW_DRAG)) return;
    event.preventDefault();
    dropzone.classList.add("dropzone-over");
  });
  dropzone.addEventListener("dragleave", () => dropzone.classList.remove("dropzone-over"));
  dropzone.addEventListener("drop", (event) => {
    if (event.dataTransfer.types.includes(ROW_DRAG)) return;
    event.preventDefault();
    dropzone.classList.remove("dropzone-over");
    upload([...event.dataTransfer.files]);
  });
  title.addEventListener("input", () => {
    refreshTitleHint();
    changed();
  });
  urls.addEventListener("input", () => {
    const kept = Object.fromEntries(items.map((item) => [item.url, item]));
    items = lines().map((url) => kept[url] ?? { url, kind: kindOf(url), alt: written[url] ?? null });
    render();
    lookUp();
    changed();
  });

  const lines = () =>
    urls.value
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
  const images = () => items.filter((item) => item.kind === "image");
  const documentItem = () => items.find((item) => item.kind === "document") ?? null;

  function setItems(next, announce) {
    items = next;
    refusal.replaceChildren();
    urls.value = items.map((item) => item.url).join("\n");
    render();
    if (announce) status.textContent = announce;
    changed();
  }

  function move(from, to, focusName) {
    if (to < 0 || to >= items.length || from === to) return;
    const next = [...items];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item);
    setItems(next, `${label(item, from)} moved to place ${to + 1} of ${items.length}.`);
    if (focusName === "none") return; // dragged: the pointer is where it was
    // The button pressed, on the row's new place, so it can be pressed again.
    const row = list.children[to];
    (row?.querySelector(`[data-focus="${focusName}"]:not(:disabled)`) ?? row?.querySelector(".move-button:not(:disabled)"))?.focus();
  }

  function remove(n) {
    const [gone] = items.slice(n, n + 1);
    setItems(
      items.filter((_, i) => i !== n),
      `${label(gone, n)} removed.`,
    );
    (list.querySelector(".thumb-remove") ?? files).focus();
  }

  const label = (item, n) => (item.kind === "document" ? "The document" : `Image ${n + 1}`);

  /** The rows, drawn again after a change of the list (not of a text typed
   *  in one: its field keeps focus). */
  function render() {
    const count = items.length;
    show(
      list,
      items.map((item, n) => (item.kind === "document" ? documentRow(item, n) : imageRow(item, n, count))),
    );
    order.hidden = images().length < 2;
    refreshTitleHint();
  }

  function imageRow(item, n, count) {
    const alt = h("textarea", { id: `alt-${n}`, class: "alt-input", rows: 2, maxlength: ALT_TEXT_MAX, placeholder: "What the image shows, for people who cannot see it", "aria-describedby": `alt-${n}-hint` });
    alt.value = altTextOf(item.url, item.alt, library);
    const hint = h("p", { class: "hint alt-hint", id: `alt-${n}-hint` });
    const row = h(
      "li",
      { class: "media-row", dataset: { url: item.url, kind: "image" } },
      grip(item, n),
      h(
        "div",
        { class: "media-row-body" },
        h(
          "div",
          { class: "media-row-head" },
          h("strong", {}, `Image ${n + 1}`, h("span", { class: "muted" }, ` of ${count}`)),
          moveButtons(n, count, `image ${n + 1}`),
        ),
        h("label", { for: `alt-${n}`, class: "alt-label" }, "Alt text"),
        alt,
        hint,
      ),
    );
    alt.addEventListener("input", () => {
      const shared = library[libraryId(item.url)]?.alt_text ?? "";
      item.alt = alt.value === shared ? null : alt.value; // the library's text again: no override
      written[item.url] = item.alt;
      altHint(row, item, hint, alt);
      changed();
    });
    altHint(row, item, hint, alt);
    return row;
  }

  /** Where the image's alt text comes from, a way to keep it in the library,
   *  or the nudge while it has none. */
  function altHint(row, item, hint, alt) {
    const id = libraryId(item.url);
    const record = library[id];
    const text = altTextOf(item.url, item.alt, library);
    row.classList.toggle("alt-missing", !text.trim());
    if (id && record === null) {
      show(hint, h("span", { class: "alt-nudge" }, "No longer in your media library: remove it, or the post cannot be scheduled."));
    } else if (!text.trim()) {
      show(hint, h("span", { class: "alt-nudge" }, "No alt text yet. "), "Describe what the image shows: screen readers read it out, and LinkedIn shows it when the image does not load.");
    } else if (item.alt === null) {
      show(hint, "From your media library: every post with this image gets it.");
    } else if (record) {
      const keep = h("button", { type: "button", class: "link-button", onclick: () => keepInLibrary(item, record, alt) }, "Keep it in the media library");
      show(hint, "For this post only. ", keep, " for every post with this image.");
    } else {
      show(hint, id ? "For this post only." : "For this post only (an image given by its URL).");
    }
  }

  async function keepInLibrary(item, record, alt) {
    const text = alt.value.trim() ? alt.value : null;
    try {
      const { data } = await call("PATCH", `/media-item/${record.id}`, { body: { alt_text: text }, version: record.version });
      library[record.id] = data;
      item.alt = null;
      written[item.url] = null;
      for (const other of items) if (libraryId(other.url) === record.id && other.alt === (text ?? "")) other.alt = null;
      render();
      notify("Alt text kept in the media library.");
      list.querySelector(`[data-url="${CSS.escape(item.url)}"] .alt-input`)?.focus();
      changed();
    } catch (error) {
      problem(explain(error));
      if (error.status === 412) lookUp(true); // changed elsewhere: show the library's current text
    }
  }

  function documentRow(item, n) {
    const record = library[libraryId(item.url)];
    const facts = [record?.pages ? `${record.pages} page${record.pages === 1 ? "" : "s"}` : null, names[item.url] ?? null].filter(Boolean);
    return h(
      "li",
      { class: "media-row media-row-document", dataset: { url: item.url, kind: "document" } },
      h("div", { class: "thumb thumb-document", "aria-hidden": "true" }, h("span", { class: "document-mark" }, "PDF"), removeButton(n, "the document")),
      h(
        "div",
        { class: "media-row-body" },
        h("p", { class: "media-row-head" }, h("span", {}, h("strong", {}, "Document"), facts.length ? h("span", { class: "muted" }, ` · ${facts.join(" · ")}`) : null)),
        record === null ? h("p", { class: "hint alt-nudge" }, "No longer in your media library: remove it, or the post cannot be scheduled.") : null,
        h("label", { for: "document_title" }, "Document title"),
        title,
        h("p", { class: "hint", id: "document-title-hint" }),
      ),
    );
  }

  function refreshTitleHint() {
    const hint = list.querySelector("#document-title-hint");
    if (!hint) return;
    const missing = !title.value.trim();
    title.closest(".media-row")?.classList.toggle("alt-missing", missing);
    show(hint, missing ? [h("span", { class: "alt-nudge" }, "Needed to schedule. "), "LinkedIn shows it above the pages."] : `LinkedIn shows it above the pages (up to ${DOCUMENT_TITLE_MAX} characters).`);
  }

  /** The picture, draggable onto another row to take its place, with its remove button. */
  function grip(item, n) {
    const thumb = h(
      "div",
      { class: "thumb thumb-medium media-grip", draggable: POINTER.matches ? "true" : null, title: POINTER.matches ? "Drag onto another image to move it there" : null },
      ownMedia(item.url) ? h("img", { src: item.url, alt: "", draggable: "false", width: 84, height: 84 }) : h("span", { class: "thumb-link mono", title: item.url }, item.url.replace(/^https?:\/\//, "").slice(0, 40)),
      POINTER.matches ? h("span", { class: "drag-handle", "aria-hidden": "true" }, "⠿") : null,
      removeButton(n, `image ${n + 1}`),
    );
    thumb.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData(ROW_DRAG, String(n));
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setDragImage(thumb.closest(".media-row"), 20, 20);
      thumb.closest(".media-row").classList.add("media-row-dragged");
    });
    thumb.addEventListener("dragend", () => thumb.closest(".media-row")?.classList.remove("media-row-dragged"));
    return thumb;
  }

  // A row is a place a dragged row may be dropped on: it takes that place.
  list.addEventListener("dragover", (event) => {
    const row = event.target.closest?.(".media-row");
    if (!row || !event.dataTransfer.types.includes(ROW_DRAG)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    for (const other of list.querySelectorAll(".media-row-target")) if (other !== row) other.classList.remove("media-row-target");
    row.classList.add("media-row-target");
  });
  list.addEventListener("dragleave", (event) => {
    if (!list.contains(event.relatedTarget)) for (const row of list.querySelectorAll(".media-row-target")) row.classList.remove("media-row-target");
  });
  list.addEventListener("drop", (event) => {
    const row = event.target.closest?.(".media-row");
    const from = Number(event.dataTransfer.getData(ROW_DRAG));
    if (!row || !event.dataTransfer.types.includes(ROW_DRAG)) return;
    event.preventDefault();
    move(from, [...list.children].indexOf(row), "none");
  });

  function moveButtons(n, count, name) {
    const button = (text, to, focusName, aria) =>
      h("button", { type: "button", class: "button button-small move-button", disabled: to < 0 || to >= count, "aria-label": aria, title: aria, dataset: { focus: focusName }, onclick: () => move(n, to, focusName) }, text);
    return h("span", { class: "move-buttons", role: "group", "aria-label": `Order of ${name}` }, button("↑", n - 1, "earlier", `Move ${name} earlier`), button("↓", n + 1, "later", `Move ${name} later`));
  }

  function removeButton(n, name) {
    return h("button", { type: "button", class: "thumb-remove", "aria-label": `Remove ${name}`, onclick: () => remove(n) }, "×");
  }

  /** Upload `chosen` files to the media library and add them: images up to
   *  20, or one PDF, never both in one post. */
  async function upload(chosen) {
    refusal.replaceChildren();
    const refused = [];
    const taken = [];
    let imageCount = images().length;
    let hasDocument = Boolean(documentItem());
    for (const file of chosen) {
      const document = DOCUMENT_TYPES.includes(file.type);
      if (!document && !IMAGE_TYPES.includes(file.type)) refused.push(`${file.name}: only JPEG, PNG, GIF and WebP images, and PDF documents, can be added.`);
      else if (hasDocument) refused.push(`${file.name}: the post has a document, and a post carries one document or images, never both. Remove the document first.`);
      else if (document && imageCount) refused.push(`${file.name}: the post has images, and a post carries one document or images, never both. Remove the images first.`);
      else if (!document && imageCount >= MAX_IMAGES) refused.push(`${file.name}: a post carries at most ${MAX_IMAGES} images.`);
      else {
        taken.push(file);
        if (document) hasDocument = true;
        else imageCount += 1;
      }
    }
    if (refused.length) problem(h("div", { class: "alert alert-error", role: "alert" }, h("p", { class: "alert-title" }, "Not added:"), h("ul", {}, refused.map((line) => h("li", {}, line)))));
    let added = 0;
    for (const [n, file] of taken.entries()) {
      status.textContent = `Uploading ${file.name} (${n + 1} of ${taken.length})…`;
      try {
        const { data } = await call("POST", "/media", { raw: file, type: file.type });
        library[data.id] = data;
        names[data.url] = file.name;
        if (!items.some((item) => item.url === data.url)) {
          const kind = DOCUMENT_TYPES.includes(file.type) ? "document" : "image";
          if (kind === "document" && !title.value.trim()) title.value = titleFromFileName(file.name);
          setItems([...items, { url: data.url, kind, alt: null }]);
          added += 1;
        }
      } catch (error) {
        error.message = `${file.name}: ${error.message}`; // which of the files chosen it was
        problem(explain(error));
      }
    }
    const what = taken.some((file) => DOCUMENT_TYPES.includes(file.type)) ? "document" : "image";
    status.textContent = taken.length ? `${added} ${what}${added === 1 ? "" : "s"} added.` : "";
    files.value = "";
    refreshTitleHint();
    changed();
  }

  /** Read the library items the post names (their alt text, a document's
   *  pages), then draw the rows again. `again`: read even those known. */
  async function lookUp(again = false) {
    const unknown = items.map((item) => item.url).filter((url) => libraryId(url) && (again || !(libraryId(url) in library)));
    if (!unknown.length) return;
    Object.assign(library, await libraryRecords(unknown));
    const focused = list.contains(document.activeElement) ? document.activeElement.id : null;
    render();
    if (focused) list.querySelector(`#${CSS.escape(focused)}`)?.focus();
    refreshTitleHint();
    changed();
  }

  render();
  lookUp();

  const element = h(
    "div",
    { class: "form-field media-field" },
    h("span", { class: "field-label" }, "Images or a document"),
    dropzone,
    refusal,
    status,
    order,
    list,
    links,
  );

  return {
    element,
    urls,
    /** The fields the post is saved with. */
    values() {
      return {
        media_urls: items.map((item) => item.url),
        media_alt: items.map((item) => (item.kind === "document" ? null : item.alt)),
        // Kept while the post has no document, as the service keeps it, so
        // that switching to images and back does not lose it.
        document_title: title.value.trim() || null,
      };
    },
    /** What the preview shows: each medium with its alt text, a document's pages. */
    shown() {
      return items.map((item) => ({ ...item, alt: altTextOf(item.url, item.alt, library), pages: library[libraryId(item.url)]?.pages ?? null, name: names[item.url] }));
    },
    focusAlt(n) {
      list.querySelector(`#alt-${n}`)?.focus();
    },
    focusTitle() {
      title.focus();
    },
  };
}
