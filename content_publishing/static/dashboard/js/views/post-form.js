// The composer: write a post, pick its channel, add images or a document
// (composer-media.js) and a first comment, see it as LinkedIn will show it
// (linkedin-preview.js), and save it as a draft, schedule it or add it to the
// channel's queue, in one step. A create carries an Idempotency-Key made when
// the form opens, so a double submit or a retry after a lost answer makes one
// post, not two. An edit sends only the fields that changed, on the version
// the form was loaded from (If-Match).
import { call, newIdempotencyKey } from "../api.js";
import { h, show } from "../dom.js";
import { explain, fieldErrors } from "../explain.js";
import { COMMENT_LIMIT, LINKEDIN_LIMIT, formatNumber, graphemeCount, linkedinLength } from "../text.js";
import * as time from "../time.js";
import { channelById, channelChoice, loadChannels, myProfile, ownerOf } from "../profiles.js";
import { mentionBook } from "./mention-book.js";
import { suggestMentions } from "./mention-suggest.js";
import { channelOf, heading, loading, notify } from "../widgets.js";
import { hashtagSets } from "./composer-hashtags.js";
import { mediaEditor } from "./composer-media.js";
import { renderPreview, replaceMention } from "./linkedin-preview.js";
import { keepDraft } from "./composer-draft.js";

const NARROW = window.matchMedia("(max-width: 1000px)"); // one column: the preview goes under the text
const PREVIEW_DELAY_MS = 350;
const WEEKDAYS = [
  ["MO", "Mon"],
  ["TU", "Tue"],
  ["WE", "Wed"],
  ["TH", "Thu"],
  ["FR", "Fri"],
  ["SA", "Sat"],
  ["SU", "Sun"],
];
const OTHER_BRAND = "__other";

export async function showPostForm(view, route, session) {
  const id = route.params[0];
  show(view, loading());
  let post = null;
  if (id) {
    try {
      post = (await call("GET", `/api-v2-posts-item/${id}`)).data;
    } catch (error) {
      show(view, heading("Edit post"), explain(error));
      return;
    }
  }
  const channels = await loadChannels(); // none to pick from: the type and brand fields still work
  const start = {
    day: time.parseDayKey(route.query.get("date")),
    at: Date.parse(route.query.get("at") ?? "") || null, // a free slot's instant, from the calendar
    channel: post ? channelOf(post) : firstChannel(channels, route.query.get("channel"), session),
  };
  show(view, postForm(post, channels, start, session, () => showPostForm(view, route, session)));
}

// The channel a new post starts on: the one asked for (a free slot's), else
// the one last used in this browser, else the only one set up, else the
// personal profile.
const lastChannelItem = (session) => `cps.lastChannel.${session.me?.user ?? ""}`;

function firstChannel(channels, asked, session) {
  const known = (id) => id === "personal" || channels.some((c) => c.id === id);
  if (asked && known(asked)) return asked;
  const last = localStorage.getItem(lastChannelItem(session));
  if (last && known(last)) return last;
  if (channels.length === 1) return channels[0].id;
  return myProfile(channels, session)?.id ?? "personal";
}

function postForm(initial, channels, start, session, reload) {
  let post = initial;
  const idempotencyKey = newIdempotencyKey();
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const me = session.me?.member?.id;
  const startsOn = channelById(start.channel);
  const type = post?.type ?? (startsOn ? startsOn.type : start.channel === "personal" ? "personal" : "brand");
  const radio = (value, label) =>
    h("label", { class: "choice" }, h("input", { type: "radio", name: "type", value, checked: value === type }), label);
  const brand = h("input", { id: "brand_id", name: "brand_id", maxlength: 100, value: post?.brand_id ?? (type === "brand" ? start.channel : ""), autocomplete: "off", list: "brand-channels" });
  const brandField = h(
    "div",
    { class: "form-field", hidden: type !== "brand" },
    h("label", { for: "brand_id" }, "Brand (company page)"),
    brand,
    h("datalist", { id: "brand-channels" }, channels.filter((c) => c.type === "brand").map((c) => h("option", { value: c.id }, c.name))),
    h("p", { class: "hint" }, "The company page the automation posts to, for example acme-corp."),
  );

  // The channel picker, by name (people's profiles and brand pages), fills
  // in the type and the brand.
  const channelSelect = h(
    "select",
    { id: "channel", name: "channel", onchange: () => pickChannel(channelSelect.value) },
    channels.some((c) => c.id === "personal") ? null : h("option", { value: "personal" }, "Personal profile"),
    channels.filter((c) => c.type === "personal").map((c) => h("option", { value: c.id }, channelChoice(c, me))),
    channels.filter((c) => c.type === "brand").map((c) => h("option", { value: c.id }, `${c.name} (${c.id})`)),
    h("option", { value: OTHER_BRAND }, "Another brand page…"),
  );
  // Before anything is saved: whose yes a post for a colleague's profile waits for.
  const ownerNote = h("div", { class: "owner-note", role: "status" });

  // No maxlength: a browser would cut a pasted text at it without a word.
  // Over LinkedIn's limit, the counter turns red and the preview says so.
  const content = h("textarea", { id: "content", name: "content", rows: 9, required: true, "aria-describedby": "content-count" });
  content.value = post?.content ?? "";
  const counter = h("p", { class: "hint counter", id: "content-count", "aria-live": "polite" });
  // The one count the counter and the preview show: worked out here as the
  // text changes, then the service's own when its preview answers.
  let linkedinCount = 0;

  const media = mediaEditor(post, { changed: () => schedulePreview(true) });

  // The first comment: where a link keeps the post's reach. Counted as the
  // content is, against LinkedIn's 1,250.
  const comment = h("textarea", { id: "first_comment", name: "first_comment", rows: 3, "aria-describedby": "first-comment-count first-comment-hint" });
  comment.value = post?.first_comment ?? "";
  const commentCounter = h("p", { class: "hint counter", id: "first-comment-count", "aria-live": "polite" });
  let commentCount = 0;

  const when = h("input", { id: "scheduled_at", name: "scheduled_at", type: "datetime-local", "aria-describedby": "when-hint" });
  const startAt = post?.scheduled_at ? new Date(post.scheduled_at) : start.at ? new Date(start.at) : start.day ? dayAt(start.day) : null;
  when.value = startAt ? time.toLocalInput(startAt) : "";
  const repeat = repeatPicker(post?.repeat);

  const previewSpot = h("div", { class: "preview-spot" });
  const preview = h("aside", { class: "panel preview-panel", "aria-labelledby": "preview-title" }, h("h2", { id: "preview-title" }, "LinkedIn preview"), h("div", { class: "preview-body" }, h("p", { class: "muted" }, "Write something to see it as LinkedIn will show it.")));

  const editable = !post || ["Draft", "In review", "Approved", "Scheduled", "Failed"].includes(post.status);
  const canPublish = session.can("posts:publish");
  // Where posts need an approval, a draft is submitted for review rather
  // than scheduled (an approved post is scheduled from its page).
  // A post for a colleague's profile is submitted, for them to approve,
  // rather than scheduled (syncButtons, as the channel changes).
  const schedulable = canPublish && (!post || ["Draft", "Failed"].includes(post.status));
  const submittable = !post || post.status === "Draft";
  const save = h("button", { type: "submit", class: "button", value: "save" }, post ? "Save changes" : "Save draft");
  const schedule = schedulable ? h("button", { type: "submit", class: "button button-primary", value: "schedule" }, "Schedule") : null;
  const queue = schedulable ? h("button", { type: "submit", class: "button", value: "queue" }, "Add to queue") : null;
  const submit = submittable ? h("button", { type: "submit", class: "button button-primary", value: "submit" }, "Submit for review") : null;
  // submitted to be queued the moment it is approved (its intent)
  const submitQueue = submittable ? h("button", { type: "submit", class: "button", value: "submit_queue" }, "Submit, to be queued when approved") : null;
  const buttons = [save, submit, submitQueue, schedule, queue].filter(Boolean);

  const form = h(
    "form",
    { class: "panel post-form", novalidate: true, onsubmit },
    lockedNote(post, session),
    h("div", { class: "form-field" }, h("label", { for: "channel" }, "Channel"), channelSelect, h("p", { class: "hint" }, channels.length ? "People's profiles and brand pages, by name; set them up under Channels." : "No channels set up yet: pick the type below, or set channels up under Channels."), ownerNote),
    h(
      "fieldset",
      { class: "form-field" },
      h("legend", {}, "Post type"),
      h("div", { class: "choices", onchange: typeChanged }, radio("personal", "Personal"), radio("brand", "Brand")),
    ),
    brandField,
    h("div", { class: "form-field" }, h("label", { for: "content" }, "Content"), content, suggestMentions(content, () => mentionBook(channels)), counter),
    hashtagSets(content, () => content.dispatchEvent(new Event("input"))),
    media.element,
    h(
      "div",
      { class: "form-field" },
      h("label", { for: "first_comment" }, "First comment ", h("span", { class: "muted" }, "(optional)")),
      comment,
      commentCounter,
      h("p", { class: "hint", id: "first-comment-hint" }, "Posted by the automation right after the post. Put the link here: LinkedIn shows a post with a link in its text to fewer people."),
    ),
    previewSpot,
    h(
      "div",
      { class: "form-field" },
      h("label", { for: "scheduled_at" }, "Publish at"),
      when,
      h("p", { class: "hint", id: "when-hint" }, session.approvals ? `Your time zone: ${time.ZONE}. When it should go out: kept with the post for when it is approved and scheduled.` : `Your time zone: ${time.ZONE}. Needed to schedule; Add to queue takes the channel's next free slot instead.`),
    ),
    repeat.element,
    problem,
    h("div", { class: "actions" }, buttons, h("a", { class: "button", href: post ? `#/posts/${post.id}` : "#/queue/Draft" }, "Cancel")),
  );
  const chosenType = () => form.querySelector("input[name=type]:checked").value;

  function pickChannel(value) {
    const personal = value === "personal" || channelById(value)?.type === "personal";
    form.querySelector(`input[name=type][value=${personal ? "personal" : "brand"}]`).checked = true;
    if (!personal && value !== OTHER_BRAND) brand.value = value;
    if (value === OTHER_BRAND) {
      brand.value = "";
      brand.focus();
    }
    brandField.hidden = personal;
    syncOwner();
    schedulePreview();
  }

  /** The channel the form puts the post on: a personal channel picked, or
   *  the brand typed. */
  function pickedChannel() {
    if (chosenType() === "brand") return brand.value.trim();
    const picked = channelById(channelSelect.value);
    return picked?.type === "personal" ? picked.id : (myProfile(channels, session)?.id ?? channels.find((c) => c.type === "personal")?.id ?? "personal");
  }

  function syncChannel() {
    const current = pickedChannel();
    const known = [...channelSelect.options].some((o) => o.value === current && current !== OTHER_BRAND);
    channelSelect.value = known ? current : OTHER_BRAND;
    syncOwner();
  }

  /** Whose yes the post waits for, said before it is saved; the buttons that follow from it. */
  function syncOwner() {
    const owner = ownerOf({ channel_id: pickedChannel(), id: post?.id, author: post?.author }, me);
    const reviewed = session.approvals || Boolean(owner);
    for (const button of [schedule, queue]) if (button) button.hidden = reviewed;
    if (submit) submit.hidden = !reviewed;
    if (submitQueue) submitQueue.hidden = !reviewed;
    if (!owner) return show(ownerNote);
    const closed = owner.channel.others_may_post === false;
    show(
      ownerNote,
      h(
        "p",
        { class: `alert ${closed ? "alert-error" : "alert-warning"} owner-approval` },
        closed
          ? `${owner.name} keeps their LinkedIn profile to themselves: only they write posts for it.`
          : [h("strong", {}, `${owner.name} approves this post`), ` before it goes out on their LinkedIn profile. Save it and submit it for review: ${owner.name} sees it under Needs review, and may ask for changes.`],
      ),
    );
  }

  function typeChanged() {
    brandField.hidden = chosenType() !== "brand";
    syncChannel();
    schedulePreview();
  }
  brand.addEventListener("input", () => {
    syncChannel();
    schedulePreview();
  });

  function countCharacters(fromService) {
    linkedinCount = fromService ?? linkedinLength(content.value);
    const over = linkedinCount - LINKEDIN_LIMIT;
    counter.replaceChildren(
      `${formatNumber(graphemeCount(content.value))} characters · `,
      h("strong", { class: "linkedin-count" }, `${formatNumber(linkedinCount)} of ${formatNumber(LINKEDIN_LIMIT)}`),
      over > 0 ? ` as LinkedIn counts: ${formatNumber(over)} too many, shorten it` : " as LinkedIn counts",
    );
    counter.classList.toggle("counter-over", over > 0);
  }

  function countComment(fromService) {
    commentCount = fromService ?? linkedinLength(comment.value);
    const over = commentCount - COMMENT_LIMIT;
    commentCounter.replaceChildren(
      comment.value ? `${formatNumber(graphemeCount(comment.value))} characters · ` : "",
      h("strong", { class: "linkedin-count" }, `${formatNumber(commentCount)} of ${formatNumber(COMMENT_LIMIT)}`),
      over > 0 ? ` as LinkedIn counts: ${formatNumber(over)} too many, shorten it` : " as LinkedIn counts",
    );
    commentCounter.classList.toggle("counter-over", over > 0);
  }

  // The preview: asked of the service a moment after the last keystroke;
  // only the newest answer is shown.
  let previewTimer = null;
  let previewAsked = 0;
  /** `redraw`: draw what the page knows at once (the media changed). */
  function schedulePreview(redraw = false) {
    if (redraw) drawPreview();
    clearTimeout(previewTimer);
    previewTimer = setTimeout(refreshPreview, PREVIEW_DELAY_MS);
  }
  // What the preview's fixes do in the form.
  const previewActions = {
    drafts: new Map(), // the URNs typed for plain mentions, kept while the preview redraws
    focusAlt: (n) => media.focusAlt(n),
    focusTitle: () => media.focusTitle(),
    fixMention(field, text, replacement) {
      const box = field === "first_comment" ? comment : content;
      box.value = replaceMention(box.value, text, replacement);
      box.dispatchEvent(new Event("input"));
      box.focus();
      notify(replacement.startsWith("@[") ? `${text.slice(1)} is tagged.` : `${text} is plain text now.`);
    },
  };
  // What the service's last preview said (the author, its warnings), and
  // its problem if it gave none. The preview is drawn again at once as the
  // text changes, with the count the counter shows; the service's answer
  // follows a moment later.
  let served = { author: null, warnings: null, problem: null };
  /** `fresh`: drawn from the service's answer to the text as it is now. */
  function drawPreview(fresh = false) {
    preview.dataset.fresh = String(fresh);
    const body = preview.querySelector(".preview-body");
    const values = fields();
    if (!values.content.trim()) {
      show(body, h("p", { class: "muted" }, "Write something to see it as LinkedIn will show it."));
      return;
    }
    if (values.type === "brand" && !values.brand_id) {
      show(body, h("p", { class: "muted" }, "Name the brand page to see the preview."));
      return;
    }
    const channelId = channelOf(values);
    const channel = channels.find((c) => c.id === channelId) ?? { id: channelId, name: values.type === "brand" ? values.brand_id : "Your profile", missing: true };
    // Links as they go out: with the channel's UTM tags, as the service's preview said.
    const shown = { ...values, content: asSent(values.content, served.links, "content"), first_comment: values.first_comment && asSent(values.first_comment, served.links, "first_comment"), media: media.shown() };
    show(body, renderPreview(shown, served, channel, { content: linkedinCount, comment: commentCount }, previewActions), served.problem ? h("p", { class: "muted preview-problem" }, `The service could not check it: ${served.problem}`) : null);
  }
  async function refreshPreview() {
    const values = fields();
    if (!values.content.trim() || (values.type === "brand" && !values.brand_id)) return drawPreview();
    const asked = ++previewAsked;
    const request = { ...values };
    if (values.type !== "brand") delete request.brand_id;
    try {
      const { data } = await call("POST", "/api-v2-posts-preview", { body: request });
      if (asked !== previewAsked) return;
      served = { author: data.linkedin_request.body.author, warnings: data.warnings, links: data.links, problem: null };
      countCharacters(data.linkedin_request.body.commentary.length);
      const commented = data.linkedin_request.after?.find((step) => step.ref === "first_comment");
      countComment(commented ? commented.body.message.text.length : undefined);
    } catch (error) {
      if (asked !== previewAsked) return;
      served = { ...served, warnings: null, problem: error.message };
      countCharacters();
      countComment();
    }
    drawPreview(true);
  }
  content.addEventListener("input", () => {
    countCharacters();
    drawPreview();
    schedulePreview();
  });
  comment.addEventListener("input", () => {
    countComment();
    drawPreview();
    schedulePreview();
  });

  function fields() {
    const values = { type: chosenType(), content: content.value, ...media.values(), first_comment: comment.value.trim() ? comment.value : null };
    values.brand_id = values.type === "brand" ? brand.value.trim() : null;
    const picked = pickedChannel();
    if (channelById(picked)) values.channel_id = picked; // a channel not set up goes by type and brand_id
    return values;
  }

  function whenValue() {
    if (!when.value) return null;
    const at = time.fromLocalInput(when.value);
    return at ? at.toISOString() : undefined;
  }

  async function onsubmit(event) {
    event.preventDefault();
    const action = event.submitter?.value ?? "save";
    for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
    problem.replaceChildren();
    const values = fields();
    const at = whenValue();
    const rule = repeat.value();
    if (at === undefined || (action === "schedule" && !at)) {
      when.setAttribute("aria-invalid", "true");
      show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Pick the date and time to publish at."));
      when.focus();
      return;
    }
    if (rule === undefined) {
      show(problem, h("p", { class: "alert alert-error", role: "alert" }, "Pick at least one day of the week for a weekly repeat, and an end that is a number or a date."));
      return;
    }
    values.scheduled_at = at;
    values.repeat = rule;
    for (const button of buttons) button.disabled = true;
    let stage = "save";
    try {
      if (post) {
        const changed = Object.fromEntries(
          Object.entries(values).filter(([name, value]) => JSON.stringify(value ?? null) !== JSON.stringify(post[name] ?? null) && !(name === "scheduled_at" && sameMinute(value, post.scheduled_at))),
        );
        if (action === "schedule") {
          changed.status = "Scheduled";
          changed.scheduled_at = at;
        }
        if (Object.keys(changed).length) {
          post = (await call("PATCH", `/api-v2-posts-item/${post.id}`, { body: changed, version: post.version })).data;
        }
      } else {
        if (values.type === "personal") delete values.brand_id;
        for (const name of ["repeat", "document_title", "first_comment"]) if (!values[name]) delete values[name];
        post = (await call("POST", "/api-v2-posts", { body: values, idempotencyKey })).data;
        localStorage.setItem(lastChannelItem(session), channelOf(post)); // saved: the next post starts there
        if (action === "schedule") {
          stage = "schedule";
          post = (await call("PATCH", `/api-v2-posts-item/${post.id}`, { body: { status: "Scheduled", scheduled_at: at }, version: post.version })).data;
        }
      }
      if (action === "submit" || action === "submit_queue") {
        stage = "submit";
        // the time picked, or the queue, is kept for the moment it is approved
        const intent = action === "submit_queue" ? { queue: true } : at ? { scheduled_at: at } : {};
        post = (await call("POST", `/api-v2-posts-review/${post.id}`, { body: { action: "submit", ...intent }, version: post.version })).data.post;
        session.recount();
      }
      if (action === "queue") {
        stage = "queue";
        post = (await call("POST", "/api-v2-posts-queue", { body: { post_id: post.id }, version: post.version })).data;
      }
      const done = {
        save: initial ? "Saved." : "Draft saved. Schedule it when it is ready.",
        schedule: `Scheduled for ${time.local(post.scheduled_at)}.`,
        queue: `Added to the queue: ${time.local(post.scheduled_at)}.`,
        submit: ownerOf(post, me) ? `Submitted for review: ${ownerOf(post, me).name} approves it or asks for changes.` : "Submitted for review: an editor approves it or asks for changes.",
      };
      done.submit_queue = `${done.submit} It is added to the queue the moment it is approved.`;
      if (action === "submit" && post.intent?.scheduled_at) done.submit += ` Once approved it is scheduled for ${time.local(post.intent.scheduled_at)}.`;
      kept.forget();
      notify(done[action]);
      location.hash = `#/posts/${post.id}`;
    } catch (error) {
      for (const button of buttons) button.disabled = false;
      for (const [name] of fieldErrors(error)) {
        const field = form.querySelector(`[name="${CSS.escape(name.split(".")[0])}"]`);
        field?.setAttribute("aria-invalid", "true");
        const folded = field?.closest("details");
        if (folded) folded.open = true; // a refused link is shown
      }
      if (error.details?.scheduled_at || error.code === "schedule_conflict") when.setAttribute("aria-invalid", "true");
      // Reload shows the version saved elsewhere: the text typed here is let go.
      const again = error.status === 412 ? [h("button", { type: "button", class: "button", onclick: () => (kept.forget(), reload()) }, "Reload")] : [];
      if (stage !== "save") kept.saved(); // the text is the saved draft's; this step was refused
      const saved = stage !== "save" && !initial ? h("p", { class: "alert alert-warning" }, "The post was saved as a draft; this step was refused. ", h("a", { href: `#/posts/${post.id}` }, "Open the draft")) : null;
      if (saved) {
        // From now on this form edits the saved draft rather than making another.
        initial = post;
        save.textContent = "Save changes";
      }
      show(problem, saved, explain(error, ...again));
      problem.focus();
    }
  }

  const kept = keepDraft(form, { content, first_comment: comment, scheduled_at: when }, session.me?.user, post?.id);
  if (kept.notice) form.prepend(kept.notice);
  countCharacters();
  countComment();
  drawPreview();
  if (content.value) schedulePreview();
  if (!editable) for (const button of buttons) button.disabled = true;
  syncChannel();

  // Beside the form on a wide screen; at phone width under the text and
  // images, where it helps, rather than below the buttons that schedule.
  const composer = h("div", { class: "composer" }, form, preview);
  const place = () => (NARROW.matches ? previewSpot.append(preview) : composer.append(preview));
  place();
  NARROW.addEventListener("change", () => preview.isConnected && place());

  return [heading(post ? "Edit post" : "New post"), composer];
}

const sameMinute = (a, b) => (a && b ? Math.floor(Date.parse(a) / 60000) === Math.floor(Date.parse(b) / 60000) : a === b);

/** 09:00 on `day`, or a round time soon if that has passed. */
function dayAt(day) {
  const at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 9, 0);
  if (at > new Date(Date.now() + 5 * 60_000)) return at;
  const soon = new Date(Date.now() + 30 * 60_000);
  soon.setMinutes(Math.ceil(soon.getMinutes() / 15) * 15, 0, 0);
  return soon;
}

/** The repeat picker: how often, on which days, and when it ends. `value()` is
 *  the RRULE, null for none, undefined while incomplete. */
function repeatPicker(rule) {
  const parts = rule ? Object.fromEntries(rule.split(";").map((part) => part.split("="))) : {};
  const freq = h(
    "select",
    { id: "repeat-freq", name: "repeat" },
    [
      ["", "Does not repeat"],
      ["DAILY", "Every day"],
      ["WEEKLY", "Every week on…"],
      ["MONTHLY", "Every month"],
    ].map(([value, text]) => h("option", { value, selected: (parts.FREQ ?? "") === value }, text)),
  );
  const chosenDays = new Set((parts.BYDAY ?? "").split(",").filter(Boolean));
  const days = h(
    "fieldset",
    { class: "repeat-days" },
    h("legend", {}, "On"),
    h("div", { class: "choices" }, WEEKDAYS.map(([code, name]) => h("label", { class: "choice" }, h("input", { type: "checkbox", name: "repeat-day", value: code, checked: chosenDays.has(code) }), name))),
  );
  const end = h(
    "select",
    { id: "repeat-end" },
    h("option", { value: "" }, "Never"),
    h("option", { value: "count", selected: Boolean(parts.COUNT) }, "After a number of times"),
    h("option", { value: "until", selected: Boolean(parts.UNTIL) }, "On a date"),
  );
  const count = h("input", { id: "repeat-count", type: "number", min: 1, max: 10000, value: parts.COUNT ?? "5", inputmode: "numeric" });
  const until = h("input", { id: "repeat-until", type: "date", value: parts.UNTIL ? `${parts.UNTIL.slice(0, 4)}-${parts.UNTIL.slice(4, 6)}-${parts.UNTIL.slice(6, 8)}` : "" });
  const countField = h("div", { class: "form-field inline-field" }, h("label", { for: "repeat-count" }, "Times, the first included"), count);
  const untilField = h("div", { class: "form-field inline-field" }, h("label", { for: "repeat-until" }, "Last day"), until);
  const endField = h("div", { class: "form-field inline-field" }, h("label", { for: "repeat-end" }, "Ends"), end);
  const details = h("div", { class: "repeat-details" }, days, endField, countField, untilField);
  const sync = () => {
    details.hidden = !freq.value;
    days.hidden = freq.value !== "WEEKLY";
    countField.hidden = end.value !== "count";
    untilField.hidden = end.value !== "until";
  };
  freq.addEventListener("change", sync);
  end.addEventListener("change", sync);
  sync();
  const element = h("fieldset", { class: "form-field repeat-picker" }, h("legend", {}, "Repeat"), h("label", { for: "repeat-freq", class: "visually-hidden" }, "How often"), freq, details);
  // A rule's other parts (INTERVAL, BYMONTHDAY) are kept as they were.
  const kept = Object.entries(parts).filter(([name]) => ["INTERVAL", "BYMONTHDAY"].includes(name));
  function value() {
    if (!freq.value) return null;
    const rulePart = [`FREQ=${freq.value}`, ...kept.map(([n, v]) => `${n}=${v}`)];
    if (freq.value === "WEEKLY") {
      const picked = [...days.querySelectorAll("input:checked")].map((input) => input.value);
      if (!picked.length) return undefined;
      rulePart.push(`BYDAY=${picked.join(",")}`);
    }
    if (end.value === "count") {
      if (!/^\d+$/.test(count.value) || Number(count.value) < 1) return undefined;
      rulePart.push(`COUNT=${Number(count.value)}`);
    }
    if (end.value === "until") {
      if (!until.value) return undefined;
      rulePart.push(`UNTIL=${until.value.replaceAll("-", "")}`);
    }
    return rulePart.join(";");
  }
  return { element, value };
}

/** A warning when the service will refuse to save this form. */
function lockedNote(post, session) {
  if (!session.can("posts:write")) {
    return h("p", { class: "alert alert-warning" }, "This key cannot change posts: it lacks posts:write. The service will refuse to save.");
  }
  if (post && ["Publishing", "Published"].includes(post.status)) {
    return h("p", { class: "alert alert-warning" }, `A ${post.status} post cannot be edited.`);
  }
  return null;
}

/** `text` with each link of `field` that the service's preview named
 *  (`links`: [{field, url, sent}], in the order they appear) as it goes out.
 *  Each is looked for after the one before, so that a link that begins a
 *  longer one is not taken for it; one the text no longer holds is left. */
export function asSent(text, links, field) {
  let out = text;
  let from = 0;
  for (const link of links ?? []) {
    if (link.field !== field) continue;
    const at = out.indexOf(link.url, from);
    if (at < 0) continue;
    out = out.slice(0, at) + link.sent + out.slice(at + link.url.length);
    from = at + link.sent.length;
  }
  return out;
}
