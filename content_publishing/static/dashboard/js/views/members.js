// Members (#/members): who is in the workspace and with which role. Owners
// and admins (members:manage) invite someone (name, email, role: the answer's
// invite URL is shown this once, with a copy button), change a role and
// remove a member (confirmed first). The service holds the rules (only an
// owner makes, changes or removes an owner; a workspace keeps one owner);
// the page hides what the reader's role may not do, and explains a refusal.
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { ROLES, ROLE_NAMES } from "../session.js";
import * as time from "../time.js";
import { confirmAction, copyField, empty, heading, loading, notify } from "../widgets.js";

export async function showMembers(container, _route, session) {
  const me = session.me.member;
  const manage = session.can("members:manage");
  const isOwner = me?.role === "owner";
  const invitation = h("div", { class: "invitation-made" }); // the invite URL, shown once
  const problem = h("div", { tabindex: "-1" });
  const list = h("div", {}, loading());

  /** May the reader change or remove `member` (an owner's row: only an owner)? */
  const mayChange = (member) => manage && !member.removed_at && (isOwner || member.role !== "owner");
  const roleChoices = () => ROLE_NAMES.filter((role) => isOwner || role !== "owner");

  async function load() {
    try {
      const { data } = await call("GET", "/members");
      show(list, table(data.data));
    } catch (error) {
      show(list, explain(error));
    }
  }

  function refused(error, what) {
    const lastOwner = error.code === "last_owner";
    show(
      problem,
      lastOwner
        ? h(
            "div",
            { class: "alert alert-error", role: "alert", dataset: { code: error.code } },
            h("p", { class: "alert-title" }, `Not ${what}: a workspace keeps at least one owner.`),
            h("p", {}, error.message),
          )
        : explain(error),
    );
    problem.focus();
  }

  async function changeRole(member, select) {
    const role = select.value;
    show(problem);
    select.disabled = true;
    try {
      await call("PATCH", `/members-item/${member.id}`, { body: { role } });
      notify(`${member.name} is now ${role}.`);
      if (member.id === me?.id) await session.reloadMe(); // my own powers changed
    } catch (error) {
      refused(error, `made ${role}`);
    }
    await load();
  }

  async function remove(member) {
    const self = member.id === me?.id;
    const question = self
      ? `Remove yourself (${member.name}) from ${session.me.workspace.name}? Every key of yours stops working at once, this one included.`
      : `Remove ${member.name} from ${session.me.workspace.name}? Every key of theirs stops working at once; their posts keep their name.`;
    if (!(await confirmAction(question, "Remove"))) return;
    show(problem);
    try {
      await call("DELETE", `/members-item/${member.id}`);
      notify(`${member.name} was removed; their keys no longer work.`);
    } catch (error) {
      refused(error, "removed");
    }
    await load();
  }

  function roleCell(member) {
    if (!mayChange(member)) return h("span", { class: `badge role-badge role-${member.role}` }, member.role);
    const select = h(
      "select",
      { id: `role-${member.id}`, "aria-label": `Role of ${member.name}`, dataset: { focusKey: `role-${member.id}` } },
      roleChoices().map((role) => h("option", { value: role, selected: role === member.role }, role)),
    );
    select.addEventListener("change", () => changeRole(member, select));
    return select;
  }

  function table(members) {
    const current = members.filter((m) => !m.removed_at);
    const removed = members.filter((m) => m.removed_at);
    const columns = [
      ["Name", (m) => [h("strong", {}, m.name), m.id === me?.id ? [" ", h("span", { class: "badge you-badge" }, "you")] : null]],
      ["Email", (m) => m.email ?? h("span", { class: "muted" }, "—")],
      ["Role", (m) => (m.removed_at ? h("span", { class: "muted" }, m.role) : roleCell(m))],
      ["Since", (m) => (m.removed_at ? ["Removed ", time.timeElement(m.removed_at)] : time.timeElement(m.created_at, time.dayLabel(new Date(m.created_at))))],
    ];
    if (manage)
      columns.push([
        "",
        (m) =>
          mayChange(m)
            ? h("button", { type: "button", class: "button button-danger", "aria-label": `Remove ${m.name}`, dataset: { focusKey: `remove-${m.id}` }, onclick: () => remove(m) }, "Remove")
            : null,
      ]);
    const rows = (list) =>
      h(
        "table",
        { class: "list-table members-table" },
        h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title || h("span", { class: "visually-hidden" }, "Actions"))))),
        h("tbody", {}, list.map((m) => h("tr", { dataset: { memberId: m.id, member: m.name } }, columns.map(([title, cell]) => h("td", { dataset: { label: title } }, h("div", { class: "cell" }, cell(m))))))),
      );
    return [
      rows(current),
      removed.length ? h("details", { class: "removed-members" }, h("summary", {}, `Removed members (${removed.length})`), rows(removed)) : null,
    ];
  }

  function inviteForm() {
    const name = h("input", { id: "invite-name", name: "name", required: true, maxlength: 100, autocomplete: "off" });
    const email = h("input", { id: "invite-email", name: "email", type: "email", maxlength: 254, autocomplete: "off", "aria-describedby": "invite-email-hint" });
    const role = h(
      "select",
      { id: "invite-role", name: "role", "aria-describedby": "invite-role-hint" },
      roleChoices().map((r) => h("option", { value: r, selected: r === "editor" }, r)),
    );
    const roleHint = h("p", { class: "hint", id: "invite-role-hint" });
    const describe = () => {
      roleHint.textContent = `${role.value} may ${ROLES[role.value].may}.`;
    };
    role.addEventListener("change", describe);
    describe();
    const button = h("button", { type: "submit", class: "button button-primary" }, "Invite");
    const formProblem = h("div", { tabindex: "-1" });
    const form = h(
      "form",
      { class: "panel invite-form", novalidate: true, "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title" }, "Invite someone"),
      h(
        "div",
        { class: "form-row" },
        h("div", { class: "form-field" }, h("label", { for: "invite-name" }, "Name"), name),
        h("div", { class: "form-field" }, h("label", { for: "invite-email" }, "Email (optional)"), email, h("p", { class: "hint", id: "invite-email-hint" }, "Where their notifications go.")),
        h("div", { class: "form-field" }, h("label", { for: "invite-role" }, "Role"), role, roleHint),
      ),
      formProblem,
      h("div", { class: "actions" }, button),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      show(formProblem);
      if (!name.value.trim()) {
        show(formProblem, h("p", { class: "alert alert-error", role: "alert" }, "Give their name: it is shown on their posts and in history."));
        name.focus();
        return;
      }
      button.disabled = true;
      try {
        const body = { name: name.value.trim(), email: email.value.trim() || null, role: role.value };
        const { data } = await call("POST", "/members", { body });
        form.reset();
        describe();
        showInvitation(data);
        await load();
      } catch (error) {
        show(formProblem, explain(error));
        formProblem.focus();
      } finally {
        button.disabled = false;
      }
    });
    return form;
  }

  /** The invite URL of a new member: shown this once (the service keeps only its hash). */
  function showInvitation(member) {
    const dismiss = () => show(invitation);
    show(
      invitation,
      h(
        "div",
        { class: "alert alert-success secret-once", role: "status", tabindex: "-1" },
        h("p", { class: "alert-title" }, `${member.name} is invited as ${member.role}. Send them this link now: it is shown only this once.`),
        copyField(member.invite_url, "Invite link", "invite-url"),
        h("p", { class: "hint" }, "It works once, until ", time.timeElement(member.invite_expires_at), ", and makes their first key. Lost it? Remove them and invite them again."),
        h("p", { class: "alert-actions" }, h("button", { type: "button", class: "button", onclick: dismiss }, "Done")),
      ),
    );
    invitation.firstChild.focus();
  }

  const workspace = session.me.workspace?.name ?? session.me.user;
  show(
    container,
    heading(
      "Members",
      h(
        "div",
        { class: "toolbar" },
        h("a", { class: "button", href: "#/notifications", id: "my-notifications-link" }, "My notifications"),
        manage ? h("a", { class: "button", href: "#/settings", id: "settings-link" }, "Workspace settings") : null,
      ),
    ),
    h("p", { class: "lead" }, `Everyone in ${workspace}: they share its posts, channels and calendar, each as far as their role allows.`),
    manage
      ? null
      : h("p", { class: "hint", dataset: { readOnly: "" } }, `Only owners and admins invite members, change roles or remove members; your role is ${me?.role ?? "unknown"}.`),
    manage ? inviteForm() : null,
    invitation,
    problem,
    list,
    h(
      "details",
      { class: "roles-help" },
      h("summary", {}, "What each role may do"),
      h("dl", {}, ROLE_NAMES.map((role) => h("div", { class: "field" }, h("dt", {}, role), h("dd", {}, ROLES[role].may)))),
    ),
  );
  await load();
  // The timer's refresh leaves the list alone while a role picker in it has focus.
  return { refresh: (asked) => (asked || !list.contains(document.activeElement) ? load() : null) };
}
