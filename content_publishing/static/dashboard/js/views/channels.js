// Channels: where posts go (each person's LinkedIn profile, or a brand
// page), each with its name, LinkedIn author, time zone, weekly posting
// slots (wall times in that zone, which "Add to queue" fills) and guards
// (min_gap_minutes, daily_cap); and its LinkedIn connection: Connect
// LinkedIn (the author is then filled in from the sign-in; a profile is
// connected by its own member only), the page it posts for when the member
// has several, who publishes it (this service or the automation), Reconnect
// and Disconnect. A member without a profile is offered "Connect my
// LinkedIn profile"; on their own profile they say whether colleagues may
// write posts for it. Changes send the version shown (If-Match).
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain, fieldErrors } from "../explain.js";
import { connectionLine, postsAs, reconnectBanner, startConnect } from "../linkedin.js";
import { avatar, myProfile, personOf, rememberChannels } from "../profiles.js";
import * as time from "../time.js";
import { confirmAction, empty, heading, loading, notify } from "../widgets.js";

const DAYS = [
  ["mon", "Mon"],
  ["tue", "Tue"],
  ["wed", "Wed"],
  ["thu", "Thu"],
  ["fri", "Fri"],
  ["sat", "Sat"],
  ["sun", "Sun"],
];
const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

export async function showChannels(view, route, session) {
  const write = session.can("posts:write") && session.atLeast("editor"); // channels are an editor's
  const editor = h("div", { class: "panel-slot" });
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const body = h("div", {}, loading());
  const add = write ? h("button", { type: "button", class: "button button-primary", onclick: () => openEditor(null) }, "New channel") : null;
  show(
    view,
    heading("Channels", add ? h("div", { class: "toolbar" }, add) : null),
    h("p", { class: "hint" }, "A channel is where posts go: a person's LinkedIn profile (one each; a post written for a colleague waits for their yes), or a brand page named by the brand_id its posts carry. Its posting slots are wall times in its own time zone; Add to queue takes the next free one. Posts with no channel set up have no slots and no guards."),
    editor,
    messages,
    body,
  );
  let channels = [];
  let held = false; // while the editor is open the list does not change under it

  /** The form for `channel`, or a new one (`proposed`: the id asked for, from a composer's link). */
  async function openEditor(channel, proposed) {
    held = true;
    // A new profile may be another member's: the members who have none yet.
    const members = channel ? [] : await call("GET", "/members").then((r) => r.data.data, () => []);
    show(editor, channelForm(channel, channels, { saved, cancel: closeEditor, proposed, members, me: session.me?.member?.id }));
    editor.querySelector("input:not([disabled]), select:not([disabled])")?.focus();
  }

  function closeEditor() {
    held = false;
    editor.replaceChildren();
  }

  async function saved(channel, created, added) {
    closeEditor();
    const also = added.length ? ` The time${added.length === 1 ? "" : "s"} you typed but had not added (${added.join(", ")}) ${added.length === 1 ? "is" : "are"} among its slots.` : "";
    notify(`${created ? `Channel ${channel.name} created.` : `Channel ${channel.name} saved.`}${also}`);
    shown = null;
    await refresh();
  }

  async function remove(channel) {
    if (!(await confirmAction(`Delete the channel ${channel.name}? Its posts stay, without slots or guards.`, "Delete channel"))) return;
    try {
      await call("DELETE", `/channels-item/${encodeURIComponent(channel.id)}`, { version: channel.version });
      notify(`Channel ${channel.name} deleted.`);
      messages.replaceChildren();
      shown = null;
      await refresh();
    } catch (error) {
      show(messages, explain(error));
      messages.focus();
    }
  }

  /** A change of the channel's LinkedIn side (publisher, page): PATCH, then the list again. */
  async function change(channel, fields, done) {
    try {
      const { data } = await call("PATCH", `/channels-item/${encodeURIComponent(channel.id)}`, { body: fields, version: channel.version });
      notify(done(data));
      messages.replaceChildren();
    } catch (error) {
      show(messages, explain(error));
      messages.focus();
    }
    shown = null;
    await refresh();
  }

  async function disconnect(channel) {
    if (!(await confirmAction(`Disconnect ${channel.name} from LinkedIn? The service forgets its sign-in and your automation publishes it again.`, "Disconnect"))) return;
    try {
      await call("DELETE", `/channels-connect/${encodeURIComponent(channel.id)}`, { version: channel.version });
      notify(`${channel.name} is disconnected from LinkedIn.`);
      messages.replaceChildren();
    } catch (error) {
      show(messages, explain(error));
      messages.focus();
    }
    shown = null;
    await refresh();
  }

  const actions = {
    connect: (channel) => startConnect(channel, messages),
    disconnect,
    others: (channel, allowed) => change(channel, { others_may_post: allowed }, (c) => (c.others_may_post ? "Colleagues may write posts for your profile: you approve each one." : "Only you write posts for your profile now.")),
    publisher: (channel, publisher) => change(channel, { publisher }, (c) => (c.publisher === "linkedin" ? `${c.name} is published by this service.` : `${c.name} is published by your automation.`)),
    page: (channel, urn) => change(channel, { author_urn: urn }, (c) => `${c.name} posts as ${postsAs(c) ?? urn}.`),
  };

  let shown = null;
  async function refresh() {
    if (held) return;
    try {
      channels = rememberChannels((await call("GET", "/channels?limit=100")).data.data);
    } catch (error) {
      shown = null;
      show(body, explain(error));
      return;
    }
    const signature = JSON.stringify(channels.map((c) => [c.id, c.version, c.connection?.status]));
    if (signature === shown) return;
    shown = signature;
    const card = (channel) => channelCard(channel, session, { ...actions, edit: () => openEditor(channel), remove: () => remove(channel) });
    const people = channels.filter((c) => c.type === "personal");
    const pages = channels.filter((c) => c.type === "brand");
    show(
      body,
      reconnectBanner(channels, session, messages),
      myProfile(channels, session) ? null : connectMine(session, messages, () => ((shown = null), refresh())),
      channels.length ? null : empty("No channels yet. Set up your personal profile or a brand page to give it posting times."),
      people.length ? h("section", { "aria-labelledby": "people-title" }, h("h2", { id: "people-title", class: "channel-group" }, `People's profiles (${people.length})`), h("ul", { class: "channel-list plain" }, people.map(card))) : null,
      pages.length ? h("section", { "aria-labelledby": "pages-title" }, h("h2", { id: "pages-title", class: "channel-group" }, `Brand pages (${pages.length})`), h("ul", { class: "channel-list plain" }, pages.map(card))) : null,
    );
  }
  await refresh();
  cameBack(route.query, channels, messages);
  // #/channels?edit=ID and ?new=ID: from the composer's and the refusals' links.
  const editing = channels.find((c) => c.id === route.query.get("edit"));
  if (write && editing) openEditor(editing);
  else if (write && route.query.get("new")) openEditor(null, route.query.get("new"));
  return { refresh };
}

/** Back from LinkedIn (the service's callback sent the browser here): say how it went. */
function cameBack(query, channels, messages) {
  const channel = channels.find((c) => c.id === query.get("channel"));
  if (query.get("connected") && channel) {
    const who = postsAs(channel);
    notify(`${channel.name} is connected to LinkedIn${who ? ` as ${who}` : ""}.`);
    const card = document.querySelector(`[data-channel-id="${CSS.escape(channel.id)}"]`);
    card?.classList.add("just-connected");
    if (channel.type === "brand" && !channel.author_urn && channel.connection.organizations.length > 1)
      show(messages, h("p", { class: "alert alert-warning", role: "status" }, `You administer several LinkedIn pages: pick the one ${channel.name} posts for.`));
  } else if (query.get("error")) {
    show(
      messages,
      h(
        "div",
        { class: "alert alert-error", role: "alert", dataset: { code: query.get("error") } },
        h("p", { class: "alert-title" }, `${channel ? channel.name : "The channel"} was not connected to LinkedIn`),
        h("p", {}, query.get("message") ?? query.get("error")),
      ),
    );
    messages.focus();
  }
  if (query.get("connected") || query.get("error")) history.replaceState(null, "", "#/channels"); // said once
}

/** The channel's LinkedIn side: the connection, the page picker, who publishes. */
function linkedinPanel(channel, session, act) {
  const status = channel.connection?.status ?? "none";
  const theirs = channel.member && channel.member.id !== session.me?.member?.id; // only they connect it
  const publish = session.can("posts:publish") && !theirs;
  const write = session.can("posts:write") && session.atLeast("editor");
  const live = status === "connected" || status === "expiring";
  const connectLabel = status === "none" || status === "revoked" ? "Connect LinkedIn" : "Reconnect";
  const pages = channel.connection?.organizations ?? [];
  const picker =
    channel.type === "brand" && live && pages.length > 1
      ? h(
          "label",
          { class: "page-picker" },
          "Posts for ",
          h(
            "select",
            { name: "page", disabled: !write, onchange: (event) => event.target.value && act.page(channel, event.target.value) },
            channel.author_urn ? null : h("option", { value: "" }, "Pick the page…"),
            pages.map((page) => h("option", { value: page.urn, selected: page.urn === channel.author_urn }, page.name ?? page.urn)),
          ),
        )
      : null;
  const choice = (value, label) =>
    h(
      "label",
      { class: "publisher-choice" },
      h("input", {
        type: "radio",
        name: `publisher-${channel.id}`,
        value,
        checked: channel.publisher === value,
        disabled: !write || (value === "linkedin" && !live),
        onchange: () => act.publisher(channel, value),
      }),
      ` ${label}`,
    );
  return h(
    "div",
    { class: `linkedin-panel connection-${status}`, dataset: { connection: status } },
    h("p", { class: "connection-line" }, h("span", { class: `badge connection connection-${status}` }, "LinkedIn"), " ", connectionLine(channel)),
    picker,
    h("fieldset", { class: "publisher" }, h("legend", {}, "Published by"), choice("linkedin", "this service"), choice("automation", "my automation")),
    theirs && status !== "connected" ? h("p", { class: "hint" }, `Only ${channel.member.name} connects this profile, signing in to LinkedIn as themselves.`) : null,
    publish
      ? h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: ["none", "revoked", "expired", "broken"].includes(status) ? "button button-primary" : "button", onclick: () => act.connect(channel) }, connectLabel),
          live || status === "expired" || status === "broken" ? h("button", { type: "button", class: "button", onclick: () => act.disconnect(channel) }, "Disconnect") : null,
        )
      : null,
  );
}

function channelCard(channel, session, act) {
  const own = channel.member && channel.member.id === session.me?.member?.id;
  const editor = session.can("posts:write") && session.atLeast("editor");
  const write = editor || (own && session.can("posts:write")); // a member changes their own profile
  const slots = DAYS.map(([day, name]) => [name, channel.slots.filter((s) => s.day === day).map((s) => s.time).sort()]).filter(([, times]) => times.length);
  const upcoming = h("div", { class: "upcoming" });
  const details = h("details", { class: "upcoming-slots" }, h("summary", {}, "Next 7 days of slots"), upcoming);
  details.addEventListener("toggle", async () => {
    if (!details.open) return;
    show(upcoming, loading());
    try {
      const { data } = await call("GET", `/channels-slots/${encodeURIComponent(channel.id)}?days=7`);
      show(
        upcoming,
        data.data.length
          ? h("ol", { class: "plain" }, data.data.map((slot) => h("li", {}, time.timeElement(slot.at), ` (${slot.local.slice(11, 16)} ${channel.timezone}) `, slot.post_id ? h("a", { href: `#/posts/${slot.post_id}` }, "taken") : h("span", { class: "muted" }, "free"))))
          : empty("No slots in the next 7 days."),
      );
    } catch (error) {
      show(upcoming, explain(error));
    }
  });
  return h(
    "li",
    { class: "panel channel-card", dataset: { channelId: channel.id } },
    h(
      "h2",
      {},
      channel.type === "personal" ? [avatar(channel), " "] : null,
      channel.name,
      " ",
      h("span", { class: `badge type type-${channel.type}` }, channel.type === "brand" ? `Brand · ${channel.id}` : own ? "My profile" : `Profile of ${channel.member?.name ?? personOf(channel)}`),
      channel.member?.removed_at ? h("span", { class: "badge member-left" }, "left the workspace") : null,
    ),
    h(
      "dl",
      { class: "channel-fields" },
      h("div", { class: "field" }, h("dt", {}, "Author"), h("dd", {}, postsAs(channel) ? [postsAs(channel), " ", h("code", { class: "muted" }, channel.author_urn)] : channel.author_urn ? h("code", {}, channel.author_urn) : h("span", { class: "muted" }, "not set: connect LinkedIn to fill it in"))),
      h("div", { class: "field" }, h("dt", {}, "Time zone"), h("dd", {}, channel.timezone)),
      h("div", { class: "field" }, h("dt", {}, "Slots"), h("dd", {}, slots.length ? h("ul", { class: "plain" }, slots.map(([name, times]) => h("li", {}, h("strong", {}, name), " ", times.join(", ")))) : h("span", { class: "muted" }, "none"))),
      h("div", { class: "field" }, h("dt", {}, "Guards"), h("dd", {}, `at least ${channel.min_gap_minutes} min apart; ${channel.daily_cap ? `at most ${channel.daily_cap} a day` : "no daily cap"}`)),
      channel.recycle_after_days ? h("div", { class: "field" }, h("dt", {}, "Recycling"), h("dd", {}, `a copy at least ${channel.recycle_after_days} days after the original`)) : null,
      channel.utm ? h("div", { class: "field" }, h("dt", {}, "UTM tags"), h("dd", {}, h("code", { class: "channel-utm" }, channel.utm))) : null,
    ),
    linkedinPanel(channel, session, act),
    own && session.can("posts:write") ? othersChoice(channel, act) : null,
    details,
    write ? h("div", { class: "actions" }, h("button", { type: "button", class: "button", onclick: act.edit }, "Edit"), editor ? h("button", { type: "button", class: "button button-danger", onclick: act.remove }, "Delete") : null) : null,
  );
}

/** On the member's own profile: may colleagues write posts for it (each one waiting for their yes)? */
function othersChoice(channel, act) {
  const box = h("input", { type: "checkbox", id: `others-${channel.id}`, checked: channel.others_may_post !== false, onchange: () => act.others(channel, box.checked) });
  return h(
    "div",
    { class: "form-field others-may-post" },
    h("label", { class: "choice", for: box.id }, box, " Colleagues may write posts for my profile"),
    h("p", { class: "hint" }, "Each one waits for your approval under Needs review before it goes out in your name."),
  );
}

/** For a member without a profile: set it up and sign in to LinkedIn in one go. */
function connectMine(session, messages, done) {
  const me = session.me?.member;
  if (!me) return null;
  const may = session.can("posts:write") && session.can("posts:publish") && session.atLeast("editor");
  async function start(event) {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const { data } = await call("POST", "/channels", { body: { type: "personal", name: me.name } });
      notify(`Your profile is set up as ${data.name}: signing in to LinkedIn…`);
      await startConnect(data, messages);
    } catch (error) {
      show(messages, explain(error));
      messages.focus();
    } finally {
      button.disabled = false;
      done();
    }
  }
  return h(
    "div",
    { class: "panel connect-mine" },
    h("p", {}, h("strong", {}, "Your own LinkedIn profile is not here yet."), " Connect it, and colleagues can write posts for it that go out in your name once you approve them."),
    may ? h("button", { type: "button", class: "button button-primary", onclick: start }, "Connect my LinkedIn profile") : h("p", { class: "hint" }, "Ask an editor to set up your profile: connecting it needs an editor's role and the posts:publish scope."),
  );
}

/** The create or edit form, with the weekly slot editor. */
function channelForm(channel, channels, { saved, cancel, proposed, members = [], me = null }) {
  const problem = h("div", { class: "form-problem", tabindex: "-1" });
  let slots = (channel?.slots ?? []).map((s) => ({ ...s }));
  const field = (name, label, input, hint) => h("div", { class: "form-field" }, h("label", { for: `ch-${name}` }, label), input, hint ? h("p", { class: "hint" }, hint) : null);
  const hasPersonal = channels.some((c) => c.type === "personal" && (me === null || c.member?.id === me)); // my own profile
  const without = members.filter((m) => !m.removed_at && !channels.some((c) => c.member?.id === m.id));
  const whose = h(
    "select",
    { id: "ch-member_id", name: "member_id" },
    without.map((m) => h("option", { value: String(m.id), selected: m.id === me }, m.id === me ? `${m.name} (me)` : m.name)),
  );
  const whoseField = field("member_id", "Whose profile", whose, "A profile is one member's; they connect it to LinkedIn themselves, and approve the posts others write for it.");
  const newType = proposed ? (proposed === "personal" ? "personal" : "brand") : hasPersonal ? "brand" : "personal";
  const type = h(
    "select",
    { id: "ch-type", name: "type", disabled: Boolean(channel) },
    h("option", { value: "brand", selected: channel ? channel.type === "brand" : newType === "brand" }, "Brand page"),
    h("option", { value: "personal", selected: channel ? channel.type === "personal" : newType === "personal" }, "Personal profile"),
  );
  const brandValue = channel?.type === "brand" ? channel.id : proposed && proposed !== "personal" ? proposed : "";
  const brand = h("input", { id: "ch-brand_id", name: "brand_id", maxlength: 100, autocomplete: "off", spellcheck: "false", value: brandValue, disabled: Boolean(channel), "aria-describedby": "ch-brand-hint" });
  const brandField = h(
    "div",
    { class: "form-field" },
    h("label", { for: "ch-brand_id" }, "Brand id"),
    brand,
    h("p", { class: "hint", id: "ch-brand-hint" }, "The brand_id its posts carry; made from the name as you type it, and yours to change. It cannot change once the channel is made."),
  );
  const name = h("input", { id: "ch-name", name: "name", maxlength: 100, value: channel?.name ?? "", autocomplete: "off" });
  // A new brand's id follows its name (a slug) until the person edits the id.
  let brandEdited = Boolean(brandValue);
  brand.addEventListener("input", () => (brandEdited = brand.value.trim() !== ""));
  name.addEventListener("input", () => {
    if (!channel && !brandEdited) brand.value = slug(name.value);
  });
  const author = h("input", { id: "ch-author_urn", name: "author_urn", maxlength: 140, value: channel?.author_urn ?? "", autocomplete: "off", spellcheck: "false", placeholder: "urn:li:organization:123", "aria-describedby": "ch-author-hint" });
  const authorHint = h("p", { class: "hint", id: "ch-author-hint" });
  const zone = h("input", { id: "ch-timezone", name: "timezone", value: channel?.timezone ?? time.ZONE, list: "ch-zones", autocomplete: "off", spellcheck: "false" });
  const gap = h("input", { id: "ch-min_gap_minutes", name: "min_gap_minutes", type: "number", min: 0, max: 1440, value: String(channel?.min_gap_minutes ?? 0), inputmode: "numeric" });
  const cap = h("input", { id: "ch-daily_cap", name: "daily_cap", type: "number", min: 1, max: 100, value: channel?.daily_cap ?? "", inputmode: "numeric", placeholder: "no cap" });
  const recycleAfter = h("input", { id: "ch-recycle_after_days", name: "recycle_after_days", type: "number", min: 1, max: 365, value: channel?.recycle_after_days ?? "", inputmode: "numeric", placeholder: "no wait" });
  const utm = h("input", { id: "ch-utm", name: "utm", maxlength: 500, value: channel?.utm ?? "", autocomplete: "off", spellcheck: "false", placeholder: "utm_source=linkedin&utm_medium=social&utm_campaign={channel}" });
  const slotEditor = h("div", { class: "slot-editor" });
  const syncType = () => {
    const isBrand = type.value === "brand";
    brandField.hidden = !isBrand;
    whoseField.hidden = isBrand || Boolean(channel) || !without.length;
    author.placeholder = isBrand ? "urn:li:organization:12345678" : "urn:li:person:abc123";
    authorHint.replaceChildren(
      ...(isBrand
        ? [
            "urn:li:organization: and the page's number. The number is in the page's admin address: open the page on LinkedIn as an admin, and the address reads ",
            h("code", {}, "linkedin.com/company/12345678/admin"),
            ". Pasting the number or that address is fine too. Empty if not known yet.",
          ]
        : ["urn:li:person: and your member id (the sub your automation's LinkedIn sign-in reads from /v2/userinfo). Empty if not known yet."]),
    );
  };
  type.addEventListener("change", syncType);
  syncType();

  function renderSlots() {
    show(
      slotEditor,
      DAYS.map(([day, dayName]) => {
        const input = h("input", { type: "time", id: `slot-${day}`, class: "slot-new", dataset: { day, dayName }, "aria-label": `New posting time on ${dayName}` });
        const addSlot = () => {
          if (!input.value) return;
          if (!slots.some((s) => s.day === day && s.time === input.value)) slots.push({ day, time: input.value });
          renderSlots();
          slotEditor.querySelector(`#slot-${day}`)?.focus();
        };
        input.addEventListener("keydown", (event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            addSlot();
          }
        });
        const times = slots.filter((s) => s.day === day).sort((a, b) => a.time.localeCompare(b.time));
        return h(
          "div",
          { class: "slot-day", dataset: { day } },
          h("strong", {}, dayName),
          times.map((slot) =>
            h(
              "span",
              { class: "slot-time", dataset: { time: slot.time } },
              slot.time,
              h("button", { type: "button", "aria-label": `Remove ${dayName} ${slot.time}`, onclick: () => {
                slots = slots.filter((s) => s !== slot);
                renderSlots();
              } }, "×"),
            ),
          ),
          input,
          h("button", { type: "button", class: "button", onclick: addSlot, "aria-label": `Add the time to ${dayName}` }, "Add"),
        );
      }),
    );
  }
  renderSlots();

  /** Times typed in the slot editor but not added: added now, so that
   *  saving does not lose them; ["Mon 10:00", ...] for the notice. */
  function addTyped() {
    const added = [];
    for (const input of slotEditor.querySelectorAll("input.slot-new")) {
      const { day, dayName } = input.dataset;
      if (input.value && !slots.some((s) => s.day === day && s.time === input.value)) {
        slots.push({ day, time: input.value });
        added.push(`${dayName} ${input.value}`);
      }
    }
    if (added.length) renderSlots();
    return added;
  }

  async function onsubmit(event) {
    event.preventDefault();
    for (const el of event.target.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    problem.replaceChildren();
    const added = addTyped();
    author.value = authorUrn(author.value, type.value);
    const values = {
      name: name.value.trim(),
      author_urn: connectedAuthor(channel) ? channel.author_urn : author.value.trim() || null,
      timezone: zone.value.trim(),
      slots,
      min_gap_minutes: Number(gap.value || 0),
      daily_cap: cap.value === "" ? null : Number(cap.value),
      recycle_after_days: recycleAfter.value === "" ? null : Number(recycleAfter.value),
      utm: utm.value.trim() || null,
    };
    try {
      let result;
      if (channel) {
        const changed = Object.fromEntries(Object.entries(values).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(channel[key])));
        result = Object.keys(changed).length ? (await call("PATCH", `/channels-item/${encodeURIComponent(channel.id)}`, { body: changed, version: channel.version })).data : channel;
      } else {
        const body = { type: type.value, ...values };
        if (type.value === "brand") body.brand_id = brand.value.trim();
        if (type.value === "personal" && whose.value) body.member_id = Number(whose.value);
        result = (await call("POST", "/channels", { body })).data;
      }
      await saved(result, !channel, added);
    } catch (error) {
      for (const [field] of fieldErrors(error)) event.target.querySelector(`[name="${CSS.escape(field.split(".")[0])}"]`)?.setAttribute("aria-invalid", "true");
      show(problem, explain(error));
      problem.focus();
    }
  }

  return h(
    "form",
    { class: "panel channel-form", novalidate: true, onsubmit, "aria-labelledby": "channel-form-title" },
    h("h2", { id: "channel-form-title" }, channel ? `Edit ${channel.name}` : "New channel"),
    h(
      "div",
      { class: "form-grid" },
      field("type", "Channel", type),
      brandField,
      whoseField,
      field("name", "Name", name),
      connectedAuthor(channel) ?? h("div", { class: "form-field" }, h("label", { for: "ch-author_urn" }, "LinkedIn author"), author, authorHint),
      field("timezone", "Time zone", zone, "An IANA name such as Europe/Berlin; slots are wall times there."),
      h("datalist", { id: "ch-zones" }, ZONES.map((z) => h("option", { value: z }))),
      field("min_gap_minutes", "Minimum gap (minutes)", gap, "No two planned posts of the channel closer than this; 0: no gap."),
      field("daily_cap", "Daily cap", cap, "At most this many planned posts in one local day; empty: no cap."),
      field("recycle_after_days", "Recycle after (days)", recycleAfter, "A recycled copy of a published post goes out this many days after it at the soonest; empty: no wait."),
      field("utm", "UTM tags", utm, "Added to each link of the channel's posts when they go out, never to the text you write. {channel} is the channel's id, {post_id} the post's; empty: none."),
    ),
    h("fieldset", { class: "form-field" }, h("legend", {}, "Weekly posting slots"), slotEditor),
    problem,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button button-primary" }, channel ? "Save channel" : "Create channel"), h("button", { type: "button", class: "button", onclick: cancel }, "Cancel")),
  );
}

/** A connected channel's author is its sign-in's, shown, not typed (the
 *  page picker on the card changes a brand's); null for any other channel. */
function connectedAuthor(channel) {
  const status = channel?.connection?.status;
  if (!["connected", "expiring", "expired", "broken"].includes(status)) return null;
  return h(
    "div",
    { class: "form-field" },
    h("span", { class: "label" }, "LinkedIn author"),
    h("p", {}, postsAs(channel) ?? "No page picked yet", channel.author_urn ? [" ", h("code", { class: "muted" }, channel.author_urn)] : null),
    h("p", { class: "hint" }, "From the channel's LinkedIn sign-in; a brand's page is picked on its card."),
  );
}

/** "Acme Corp — Nordics" -> "acme-corp-nordics": a brand id proposed from a name. */
function slug(text) {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
}

/** What the author field means: a page's number, or its admin address,
 *  becomes urn:li:organization:<number>; anything else is sent as typed. */
function authorUrn(value, type) {
  const text = value.trim();
  if (type !== "brand") return text;
  const number = /^\d+$/.exec(text)?.[0] ?? /linkedin\.com\/company\/(\d+)/i.exec(text)?.[1];
  return number ? `urn:li:organization:${number}` : text;
}
