// The header's workspace switcher. A person whose account is a member of
// several workspaces moves their session to another one (PATCH
// /functions/v1/session) and the page starts again there, as a fresh
// sign-in would: its role, views, counts and approvals are the other
// workspace's. A key belongs to one workspace, and shows its name only.
import { call } from "./api.js";
import { h } from "./dom.js";
import { explain } from "./explain.js";
import { notify } from "./widgets.js";

/** Show the switcher in the header when `me` (GET /me) is a session of an
 *  account in more than one workspace; otherwise the workspace's name. */
export function showWorkspaceSwitch(me) {
  document.getElementById("workspace-switch")?.remove();
  const spaces = me.key ? [] : me.workspaces ?? [];
  document.getElementById("workspace-name").hidden = spaces.length > 1;
  if (spaces.length < 2) return;
  const options = spaces.map((space) => h("option", { value: space.workspace_id, selected: space.workspace_id === me.workspace?.id, title: `${space.workspace_name}, as ${space.role}` }, space.workspace_name));
  const select = h("select", { id: "workspace-switch", class: "workspace-switch", "aria-label": "Workspace", title: "Switch to another of your workspaces" }, options);
  select.addEventListener("change", () => switchTo(select, me.workspace?.id));
  document.getElementById("workspace").append(select);
}

async function switchTo(select, was) {
  select.disabled = true;
  try {
    await call("PATCH", "/session", { body: { workspace_id: Number(select.value) } });
  } catch (error) {
    select.value = String(was);
    select.disabled = false;
    notify(explain(error).textContent);
    return;
  }
  // A list view is shown again in the new workspace; a record's page (of
  // the old one) gives way to the first view.
  const [path] = location.hash.split("?");
  history.replaceState(null, "", /^#\/[a-z]+$/.test(path) ? path : location.pathname);
  location.reload();
}
