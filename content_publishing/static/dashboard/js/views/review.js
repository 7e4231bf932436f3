// Approvals, where a workspace requires them (GET /workspace: approvals
// "required"), and of posts written for a colleague's profile, which that
// colleague approves, approvals on or off (profiles.js: ownerOf): the
// "Needs review" view (#/review: the posts In review, then the Approved
// ones waiting to be scheduled), a post's review actions (Submit for
// review; Approve; Request changes, with a comment) and its comment
// thread. A review sends the version shown (If-Match), so an approve never
// approves a text the reviewer did not read.
import { call } from "../api.js";
import { suggestMentions } from "./mention-suggest.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import { loadChannels, ownerOf } from "../profiles.js";
import * as time from "../time.js";
import { empty, heading, loading, notify, statusBadge, typeBadge } from "../widgets.js";

const LIST = 100; // the most posts the view lists of each status

/** POST /api-v2-posts-review/{id} on the version shown: {post, comment}. */
export async function review(post, action, comment = null) {
  const body = { action };
  if (comment !== null) body.comment = comment;
  return (await call("POST", `/api-v2-posts-review/${post.id}`, { body, version: post.version })).data;
}

/** How many posts wait for a review (for the navigation's count). */
export async function waiting() {
  const { data } = await call("GET", `/api-v2-posts?status=${encodeURIComponent("In review")}&limit=1`);
  return data.total ?? data.data.length;
}

/** May this member approve or send back `post`: an editor or higher, and
 *  approve never their own post; a post for a colleague's profile, that
 *  colleague (whatever their role) approves, and they or an editor send back. */
export function mayReview(post, session) {
  if (!session.can("posts:write")) return false;
  const owner = ownerOf(post, session.me?.member?.id);
  return session.atLeast("editor") || owner?.id === session.me?.member?.id;
}
export function mayApprove(post, session) {
  const owner = ownerOf(post, session.me?.member?.id);
  if (owner) return session.can("posts:write") && owner.id === session.me?.member?.id;
  return mayReview(post, session) && post.author?.id !== session.me.member?.id;
}

/** Who reviewed a post, in words, or null. */
export function reviewedBy(post) {
  if (post.approved_by) return `approved by ${post.approved_by.name}`;
  if (post.reviewer && post.status === "Draft") return `changes asked by ${post.reviewer.name}`;
  return null;
}

export async function showReview(view, _route, session) {
  const body = h("div", {}, loading());
  async function load() {
    try {
      const [inReview, approved] = await Promise.all([
        ...["In review", "Approved"].map(async (status) => (await call("GET", `/api-v2-posts?status=${encodeURIComponent(status)}&limit=${LIST}`)).data.data),
        loadChannels(), // whose profile each post is for
      ]);
      session.showReviewCount?.(inReview.length);
      const row = (post) => {
        const mine = post.author?.id === session.me.member?.id;
        const owner = ownerOf(post, session.me.member?.id);
        const forMe = owner?.id === session.me.member?.id;
        const note =
          post.status === "In review"
            ? forMe
              ? "Waiting for your approval: it goes out on your profile"
              : owner
                ? `Waiting for ${owner.name}'s approval: it goes out on their profile`
                : mayApprove(post, session)
                  ? "Waiting for your review"
                  : mine
                    ? "Yours: another editor approves it"
                    : "Waiting for an editor's review"
            : session.can("posts:publish")
              ? "Approved: schedule it"
              : "Approved: an editor schedules it";
        return h(
          "li",
          { class: `review-item${forMe ? " review-for-me" : ""}`, dataset: { postId: post.id } },
          h(
            "a",
            { class: "review-link", href: `#/posts/${post.id}`, dataset: { focusKey: post.id } },
            h("span", { class: "card-top" }, statusBadge(post.status), typeBadge(post)),
            h("span", { class: "card-text" }, excerpt(post.content, 160)),
            h("span", { class: "card-author" }, `by ${post.author?.name ?? "?"}`, post.approved_by ? ` · approved by ${post.approved_by.name}` : "", " · ", time.timeElement(post.updated_at, `updated ${time.short(post.updated_at)}`)),
            h("span", { class: "review-note" }, note),
          ),
        );
      };
      show(
        body,
        h("section", { "aria-labelledby": "in-review-title" }, h("h2", { id: "in-review-title" }, `In review (${inReview.length})`), inReview.length ? h("ul", { class: "review-list plain" }, inReview.map(row)) : empty("Nothing waits for a review.")),
        h("section", { "aria-labelledby": "approved-title" }, h("h2", { id: "approved-title" }, `Approved, not yet scheduled (${approved.length})`), approved.length ? h("ul", { class: "review-list plain" }, approved.map(row)) : empty("No approved post waits to be scheduled.")),
      );
    } catch (error) {
      show(body, explain(error));
    }
  }
  show(
    view,
    heading("Needs review"),
    h(
      "p",
      { class: "lead" },
      session.approvals
        ? "This workspace approves posts before they are scheduled: a post is submitted for review, an editor or higher (never its author) approves it or asks for changes, and an approved post may be scheduled. "
        : "",
      "A post written for a colleague's profile waits here for that colleague's yes before it goes out in their name. Any change of its text, media, first comment or channel takes it back to Draft.",
    ),
    body,
  );
  await load();
  return { refresh: load };
}

/** A post's comments, oldest first, and a box to add one (every member may
 *  comment, viewers included). `@name` mentions a member. */
export function commentThread(post) {
  const list = h("div", {}, loading());
  const section = h("section", { class: "comments", "aria-labelledby": "comments-title" });
  const text = h("textarea", { id: "comment-body", name: "body", rows: 3, maxlength: 5000, "aria-describedby": "comment-hint" });
  const problem = h("div", { tabindex: "-1" });
  const send = h("button", { type: "submit", class: "button" }, "Comment");
  const form = h(
    "form",
    { class: "comment-form", novalidate: true },
    h("label", { for: "comment-body" }, "Add a comment"),
    text,
    suggestMentions(text, async () => (await call("GET", "/members")).data.data.filter((m) => !m.removed_at)),
    h("p", { class: "hint", id: "comment-hint" }, "Type @ and the start of a name to tell a member of this workspace."),
    problem,
    send,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show(problem);
    if (!text.value.trim()) {
      show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Write the comment first."));
      text.focus();
      return;
    }
    send.disabled = true;
    try {
      await call("POST", `/api-v2-posts-comments/${post.id}`, { body: { body: text.value } });
      text.value = "";
      notify("Comment added.");
      await load();
    } catch (error) {
      show(problem, explain(error));
      problem.focus();
    } finally {
      send.disabled = false;
    }
  });
  async function load() {
    try {
      const { data } = await call("GET", `/api-v2-posts-comments/${post.id}`);
      show(
        list,
        data.data.length
          ? h(
              "ol",
              { class: "comment-list plain" },
              data.data.map((c) =>
                h("li", { class: "comment", dataset: { commentId: c.id } }, h("p", { class: "comment-meta" }, h("strong", {}, c.member?.name ?? "?"), " · ", time.timeElement(c.created_at)), h("p", { class: "comment-body" }, c.body)),
              ),
            )
          : empty("No comments yet."),
      );
      section.querySelector("h2").textContent = `Comments (${data.data.length})`;
    } catch (error) {
      show(list, explain(error));
    }
  }
  show(section, h("h2", { id: "comments-title" }, "Comments"), list, form);
  load();
  return section;
}

/** The panel for Request changes: the comment is required. `done(answer)`. */
export function requestChangesPanel(post, { done, cancel, failed }) {
  const text = h("textarea", { id: "changes-comment", rows: 3, maxlength: 5000, required: true });
  const problem = h("div", { tabindex: "-1" });
  const form = h(
    "form",
    { class: "panel review-panel", novalidate: true },
    h("label", { for: "changes-comment" }, "What should change?"),
    text,
    h("p", { class: "hint" }, "The post goes back to Draft; the comment goes to its thread, and its author is told."),
    problem,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button button-primary" }, "Send back to draft"), h("button", { type: "button", class: "button", onclick: cancel }, "Cancel")),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!text.value.trim()) {
      show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Say what should change: the author reads it."));
      text.focus();
      return;
    }
    try {
      done(await review(post, "request_changes", text.value));
    } catch (error) {
      show(problem, failed(error));
      problem.focus();
    }
  });
  return form;
}
