// The date-time picker that schedules, moves or retries a post, with the
// channel's next free slot one button away: the keyboard's way to do what
// dragging does on the calendar.
//
// The service refuses a scheduled_at less than its lead time ahead
// (FLASK_SCHEDULE_MIN_LEAD_SECONDS, 60 by default) with a 400 naming
// scheduled_at. The page is served with that setting in a meta tag, so the
// picker refuses the same times before sending anything; the service's own
// message is still shown should it refuse.
import { h, show } from "../dom.js";
import * as time from "../time.js";

const LEAD_SECONDS = leadSeconds();
const SUGGEST_MINUTES = 15; // a fresh picker offers the next 5-minute mark this far ahead

const MODES = {
  schedule: { title: "Schedule this post", submit: "Schedule", done: "Scheduled", status: "Scheduled" },
  reschedule: { title: "Move to another time", submit: "Move", done: "Moved", status: undefined },
  retry: { title: "Retry: schedule it again", submit: "Schedule again", done: "Scheduled again", status: "Scheduled" },
};

/** The panel; `submit(body, done)` sends the change, `explain(error)` words a
 *  refusal; `slot`: {find() -> the next free slot {at, channel} or why there is
 *  none, take(at, done)} schedules it there. */
export function schedulePanel(post, modeName, { submit, explain, cancel, slot }) {
  const mode = MODES[modeName];
  const input = h("input", {
    id: "schedule-at",
    name: "scheduled_at",
    type: "datetime-local",
    required: true,
    min: time.toLocalInput(earliest()),
    value: time.toLocalInput(suggested(post.scheduled_at)),
    "aria-describedby": "schedule-hint",
  });
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  const send = h("button", { type: "submit", class: "button button-primary" }, mode.submit);

  const slotLine = h("div", { class: "next-slot", "aria-live": "polite" }, h("p", { class: "muted" }, "Looking for the next free slot…"));
  async function showSlot() {
    const found = await slot.find().catch((error) => ({ none: error.message }));
    if (found.none) {
      show(slotLine, h("p", { class: "hint" }, found.none));
      return;
    }
    const take = h("button", { type: "button", class: "button", "data-next-slot": found.at }, `Next free slot: ${time.short(found.at)}`);
    take.addEventListener("click", async () => {
      take.disabled = true;
      problem.replaceChildren();
      try {
        await slot.take(found.at, `${mode.done} for the next free slot, ${time.local(found.at)}`);
      } catch (error) {
        take.disabled = false;
        show(problem, explain(error));
        problem.focus();
      }
    });
    show(slotLine, h("p", {}, take, " ", h("span", { class: "hint" }, `of ${found.channel.name}, ${time.ZONE} time`)));
  }
  if (slot) showSlot();

  async function onsubmit(event) {
    event.preventDefault();
    const at = time.fromLocalInput(input.value);
    const refusal = !at ? "Pick a date and a time." : at < earliest() ? `That is too soon: pick a time at least ${seconds(LEAD_SECONDS)} from now. The service needs that much notice to hand the post to the automation.` : null;
    if (refusal) {
      input.setAttribute("aria-invalid", "true");
      show(problem, h("p", { class: "alert alert-error", role: "alert" }, refusal));
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    problem.replaceChildren();
    send.disabled = true;
    const body = { scheduled_at: at.toISOString() };
    if (mode.status) body.status = mode.status;
    try {
      await submit(body, `${mode.done} for ${time.local(body.scheduled_at)}`);
    } catch (error) {
      send.disabled = false;
      if (error.details?.scheduled_at) input.setAttribute("aria-invalid", "true");
      show(problem, explain(error));
      problem.focus();
    }
  }

  return h(
    "form",
    { class: "panel schedule-panel", id: "schedule-panel", novalidate: true, onsubmit, "aria-labelledby": "schedule-title" },
    h("h2", { id: "schedule-title" }, mode.title),
    h("label", { for: "schedule-at" }, "Publish at"),
    input,
    h("p", { class: "hint", id: "schedule-hint" }, `Your time zone: ${time.ZONE}. At least ${seconds(LEAD_SECONDS)} from now.`),
    slot ? slotLine : null,
    problem,
    h("div", { class: "actions" }, send, h("button", { type: "button", class: "button", onclick: cancel }, "Cancel")),
  );
}

/** The service's lead time, from the page's meta tag (60 s, its default, if absent). */
function leadSeconds() {
  const value = Number(document.querySelector('meta[name="schedule-min-lead-seconds"]')?.content);
  return Number.isFinite(value) ? Math.max(value, 0) : 60;
}

function seconds(n) {
  return n === 1 ? "1 second" : `${n.toLocaleString("en")} seconds`;
}

export function earliest() {
  return new Date(Date.now() + LEAD_SECONDS * 1000);
}

/** The stored time if it is still far enough ahead, else a round time soon. */
function suggested(stored) {
  if (stored && new Date(stored) > earliest()) return new Date(stored);
  const soon = new Date(Date.now() + SUGGEST_MINUTES * 60_000);
  soon.setMinutes(Math.ceil(soon.getMinutes() / 5) * 5, 0, 0);
  return soon;
}
