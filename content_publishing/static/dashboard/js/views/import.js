// Bulk import: a CSV file (or pasted CSV) sent as it is (text/csv) to
// /api-v2-posts-import. All or nothing: a refusal names every bad row and its
// fields, shown here as a table; success lists the posts made.
import { call, newIdempotencyKey } from "../api.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import * as time from "../time.js";
import { heading, notify, statusBadge } from "../widgets.js";

const COLUMNS = ["type", "brand_id", "content", "scheduled_at", "media_urls", "queue", "repeat", "document_title", "first_comment"];
// The placeholder and the template to download: a queued tip with its link in
// the first comment, a scheduled brand post, and a document post (a PDF of the
// media library, named by its id; its title is needed to schedule it). Kept
// the same as the template in docs/planning.md.
const EXAMPLE = [
  COLUMNS.join(","),
  "personal,,Monday tip: plan the week,,,true,,,The checklist we use: example.com/plan",
  'brand,acme-corp,"Launch day, at last",2030-01-07 09:00,,,,,',
  "brand,acme-corp,Our Q3 report in ten slides,,media:<id of a PDF in your media library>,,,Q3 in ten slides,Questions welcome below",
  "",
].join("\n");

export async function showImport(view) {
  let idempotencyKey = newIdempotencyKey();
  const file = h("input", { type: "file", id: "import-file", accept: ".csv,text/csv" });
  const text = h("textarea", { id: "import-csv", name: "csv", rows: 10, spellcheck: "false", class: "mono", placeholder: EXAMPLE });
  const result = h("div", { class: "import-result", tabindex: "-1" });
  const send = h("button", { type: "submit", class: "button button-primary" }, "Import");
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (chosen) text.value = await chosen.text();
    idempotencyKey = newIdempotencyKey();
  });
  text.addEventListener("input", () => {
    idempotencyKey = newIdempotencyKey(); // another body: another request
  });

  async function onsubmit(event) {
    event.preventDefault();
    result.replaceChildren();
    if (!text.value.trim()) {
      show(result, h("p", { class: "alert alert-error", role: "alert" }, "Choose a CSV file or paste its text first."));
      return;
    }
    send.disabled = true;
    try {
      const { data } = await call("POST", "/api-v2-posts-import", { raw: text.value, type: "text/csv", idempotencyKey });
      notify(`${data.count} post${data.count === 1 ? "" : "s"} imported.`);
      show(result, imported(data));
    } catch (error) {
      show(result, error.details?.rows ? rowErrors(error) : explain(error));
    } finally {
      send.disabled = false;
      result.focus();
    }
  }

  show(
    view,
    heading("Import posts from CSV"),
    h(
      "form",
      { class: "panel import-form", novalidate: true, onsubmit },
      h(
        "p",
        { class: "hint" },
        "A header row, then one post a row. Columns: ",
        COLUMNS.map((c, n) => [n ? ", " : "", h("code", {}, c)]),
        ". Separated by commas or semicolons. A row with scheduled_at is scheduled (a time like 2030-01-07 09:00 is in its channel's time zone; or give an offset, 2030-01-07T09:00:00+01:00), one with queue = true takes its channel's next free slot, any other is a draft. Where posts are approved first, a row is a draft that keeps its time or its place in the queue for the moment it is approved. media_urls are separated by spaces: links, or media:<id> for an item of your media library; a document (a PDF) needs its document_title to be scheduled. first_comment is posted right after the post. All or nothing: one bad row and nothing is stored, with every bad row named below. At most 1,000 rows. ",
        templateLink(),
      ),
      h("div", { class: "form-field" }, h("label", { for: "import-file" }, "CSV file"), file),
      h("div", { class: "form-field" }, h("label", { for: "import-csv" }, "Or paste the CSV"), text),
      h("div", { class: "actions" }, send, h("a", { class: "button", href: "#/queue/Draft" }, "Back to the queue")),
    ),
    result,
  );
}

/** The example as a file to fill in with a spreadsheet (one address for the
 * page's life), with a byte-order mark so that Excel reads it as UTF-8. */
let templateUrl = null;
function templateLink() {
  templateUrl ??= URL.createObjectURL(new Blob(["\ufeff" + EXAMPLE], { type: "text/csv" }));
  const url = templateUrl;
  return h("a", { href: url, download: "posts-template.csv", id: "import-template" }, "Download the template (CSV)");
}

function rowErrors(error) {
  const rows = Object.entries(error.details.rows).sort(([a], [b]) => Number(a) - Number(b));
  const lines = rows.flatMap(([row, fields]) => flatten(fields).map(([field, message]) => [row, field, message]));
  return h(
    "div",
    { class: "alert alert-error", role: "alert" },
    h("p", { class: "alert-title" }, `Nothing was imported: ${rows.length} row${rows.length === 1 ? " has" : "s have"} problems. Fix ${rows.length === 1 ? "it" : "them"} and import again.`),
    h(
      "table",
      { class: "list-table import-errors" },
      h("thead", {}, h("tr", {}, ["Row", "Column", "Problem"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, lines.map(([row, field, message]) => h("tr", { dataset: { row } }, h("td", { dataset: { label: "Row" } }, row), h("td", { dataset: { label: "Column" } }, h("code", {}, field)), h("td", { dataset: { label: "Problem" } }, message)))),
    ),
    h("p", { class: "hint" }, "Row 1 is the first row after the header."),
  );
}

function flatten(messages, prefix = "") {
  if (Array.isArray(messages)) return messages.flatMap((m) => (typeof m === "string" ? [[prefix || "row", m]] : flatten(m, prefix)));
  if (messages && typeof messages === "object") return Object.entries(messages).flatMap(([name, inner]) => flatten(inner, prefix ? `${prefix}.${name}` : name === "_schema" ? "row" : name));
  return [[prefix || "row", String(messages)]];
}

function imported(data) {
  return h(
    "div",
    { class: "panel" },
    h("h2", {}, `${data.count} post${data.count === 1 ? "" : "s"} imported`),
    h(
      "ol",
      { class: "plain import-posts" },
      data.data.map((post) => h("li", { dataset: { postId: post.id } }, statusBadge(post.status), " ", post.scheduled_at ? [time.timeElement(post.scheduled_at), " "] : null, h("a", { href: `#/posts/${post.id}` }, excerpt(post.content, 80)))),
    ),
  );
}
