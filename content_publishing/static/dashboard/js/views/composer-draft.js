// The composer's unsaved text, kept in this browser (localStorage) for each
// post (and one for a new post) as it is typed, and put back when the form
// opens again, after a navigation or a reload; saving forgets it. Leaving
// the form with changes not saved asks first: a link or Back in the
// dashboard (main.js asks `leaving.guard`), and a reload or a closed tab
// (the browser's own question).
import { h } from "../dom.js";
import * as time from "../time.js";
import { confirmAction } from "../widgets.js";

export const leaving = { guard: null }; // main.js asks it before showing another view

/** Keep what `inputs` ({name: element}) hold for the post `postId` (null: a
 *  new one) of `user`; returns {notice: an element saying what came back
 *  (or null), saved(): what it holds is saved, forget(): done with the form}. */
export function keepDraft(form, inputs, user, postId) {
  const key = `cps.unsaved.${user ?? ""}.${postId ?? "new"}`;
  const current = () => Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
  let original = current();
  let notice = null;
  let stored = null;
  try {
    stored = JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    stored = null;
  }
  if (stored?.values && Object.keys(inputs).some((name) => (stored.values[name] ?? "") !== original[name])) {
    for (const [name, input] of Object.entries(inputs)) {
      if (typeof stored.values[name] !== "string") continue;
      input.value = stored.values[name];
      input.dispatchEvent(new Event("input", { bubbles: true })); // counters and the preview follow
    }
    notice = h(
      "div",
      { class: "alert alert-warning restored-draft", role: "status" },
      h("p", {}, `Your unsaved changes from ${time.local(new Date(stored.at).toISOString())} are back. Save them, or `),
      h(
        "button",
        {
          type: "button",
          class: "button",
          onclick: (event) => {
            for (const [name, input] of Object.entries(inputs)) {
              input.value = original[name];
              input.dispatchEvent(new Event("input", { bubbles: true }));
            }
            localStorage.removeItem(key);
            event.currentTarget.closest(".restored-draft").remove();
          },
        },
        "Discard them",
      ),
    );
  }
  const dirty = () => Object.entries(current()).some(([name, value]) => value !== original[name]);
  form.addEventListener("input", () => {
    if (dirty()) localStorage.setItem(key, JSON.stringify({ at: Date.now(), values: current() }));
    else localStorage.removeItem(key);
  });
  const onBeforeUnload = (event) => {
    if (!form.isConnected || !dirty()) return;
    event.preventDefault();
    event.returnValue = "";
  };
  window.addEventListener("beforeunload", onBeforeUnload);
  leaving.guard = async () => {
    if (!form.isConnected || !dirty()) return true;
    return confirmAction("Leave this post with changes not saved? They stay in this browser and come back when you open it again.", "Leave");
  };
  return {
    notice,
    /** What the form holds was saved (the step after it may still be refused). */
    saved() {
      original = current();
      localStorage.removeItem(key);
    },
    forget() {
      localStorage.removeItem(key);
      window.removeEventListener("beforeunload", onBeforeUnload);
      leaving.guard = null;
    },
  };
}
