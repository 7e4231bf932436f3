// The person's account (#/account): name, email, password, the second
// factor and the sessions of every browser signed in (docs/accounts.md).
// A key's member without an account sees why there is nothing here.
import { call } from "../api.js";
import { h, show } from "../dom.js";
import { explain } from "../explain.js";
import { confirmAction, copyField, heading, loading, notify } from "../widgets.js";

const when = (text) => (text ? new Date(text).toLocaleString() : "—");

export async function showAccount(container, _route, session) {
  show(container, heading("Your account"), loading());
  let account;
  try {
    account = (await call("GET", "/account")).data;
  } catch (error) {
    if (error.code === "not_found") {
      show(container, heading("Your account"), h("p", {}, "You are signed in with an API key whose member has no account. Sign in with your email to see your account."));
      return;
    }
    show(container, heading("Your account"), explain(error));
    return;
  }
  const sessionsBox = h("div", { id: "sessions" });
  show(
    container,
    heading("Your account"),
    h("dl", { class: "facts" }, h("dt", {}, "Email"), h("dd", { id: "account-email" }, account.email)),
    nameForm(account),
    passwordForm(account),
    secondFactor(account),
    h("section", { "aria-labelledby": "sessions-title" }, h("h2", { id: "sessions-title" }, "Where you are signed in"), sessionsBox),
  );
  await showSessions(sessionsBox, session);
  return { refresh: () => showSessions(sessionsBox, session) };
}

function nameForm(account) {
  const input = h("input", { id: "account-name", name: "name", value: account.name, maxlength: 100 });
  const problem = h("div");
  const form = h("form", { class: "panel", id: "name-form" }, h("h2", {}, "Name"), h("label", { for: "account-name" }, "Shown to your colleagues"), input, problem, h("button", { type: "submit", class: "button" }, "Save the name"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("PATCH", "/account", { body: { name: input.value.trim() } });
      show(problem);
      notify("Name saved.");
    } catch (error) {
      show(problem, explain(error));
    }
  });
  return form;
}

function passwordForm(account) {
  const current = h("input", { id: "current-password", type: "password", autocomplete: "current-password" });
  const next = h("input", { id: "new-password", type: "password", autocomplete: "new-password" });
  const problem = h("div");
  const form = h(
    "form",
    { class: "panel", id: "password-form" },
    h("h2", {}, account.has_password ? "Change the password" : "Set a password"),
    ...(account.has_password ? [h("label", { for: "current-password" }, "Current password"), current] : []),
    h("label", { for: "new-password" }, "New password (at least 10 characters)"),
    next,
    problem,
    h("button", { type: "submit", class: "button" }, "Save the password"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { password: next.value };
    if (current.value) body.current_password = current.value;
    try {
      await call("PATCH", "/account", { body });
      current.value = next.value = "";
      show(problem);
      notify("Password saved.");
    } catch (error) {
      show(problem, explain(error));
    }
  });
  return form;
}

function secondFactor(account) {
  const box = h("section", { class: "panel", id: "second-factor", "aria-labelledby": "factor-title" });
  const draw = (on) => {
    const problem = h("div");
    if (on) {
      const password = h("input", { id: "factor-password", type: "password", autocomplete: "current-password" });
      const off = h("button", { type: "button", class: "button button-danger" }, "Turn it off");
      off.addEventListener("click", async () => {
        try {
          await call("POST", "/account-second-factor", { body: { action: "off", current_password: password.value } });
          draw(false);
        } catch (error) {
          show(problem, explain(error));
        }
      });
      show(box, h("h2", { id: "factor-title" }, "Second factor: on"), h("p", {}, "Signing in with your password also asks for a code of your authenticator app."), h("label", { for: "factor-password" }, "Password, to turn it off"), password, problem, off);
      return;
    }
    const begin = h("button", { type: "button", class: "button", id: "factor-begin" }, "Set up an authenticator app");
    begin.addEventListener("click", async () => {
      try {
        const { data } = await call("POST", "/account-second-factor", { body: { action: "begin" } });
        const qr = h("div", { class: "qr", "aria-label": "QR code to scan" });
        // The service's own SVG of the otpauth URI, parsed as SVG (never as HTML).
        const svg = new DOMParser().parseFromString(data.qr_svg, "image/svg+xml").documentElement;
        if (svg.localName === "svg") qr.append(document.importNode(svg, true));
        const code = h("input", { id: "factor-code", autocomplete: "one-time-code", inputmode: "numeric" });
        const confirm = h("button", { type: "button", class: "button button-primary", id: "factor-confirm" }, "Turn it on");
        confirm.addEventListener("click", async () => {
          try {
            const { data: on } = await call("POST", "/account-second-factor", { body: { action: "confirm", code: code.value.trim() } });
            show(box, h("h2", { id: "factor-title" }, "Second factor: on"), h("p", {}, "Keep these recovery codes somewhere safe: each signs in once without the app. They are not shown again."), h("ul", { class: "mono", id: "recovery-codes" }, ...on.recovery_codes.map((c) => h("li", {}, c))));
          } catch (error) {
            show(problem, explain(error));
          }
        });
        show(box, h("h2", { id: "factor-title" }, "Set up the second factor"), h("p", {}, "Scan this with your authenticator app, or type the secret, then give the code it shows."), qr, copyField(data.secret, "Secret", "factor-secret"), h("label", { for: "factor-code" }, "Code"), code, problem, confirm);
      } catch (error) {
        show(problem, explain(error));
      }
    });
    show(box, h("h2", { id: "factor-title" }, "Second factor: off"), h("p", {}, "Add a code of an authenticator app to your password."), problem, begin);
  };
  draw(account.second_factor);
  return box;
}

async function showSessions(box, session) {
  let found;
  try {
    found = (await call("GET", "/sessions")).data.data;
  } catch (error) {
    show(box, explain(error));
    return;
  }
  const everywhere = h("button", { type: "button", class: "button button-danger", id: "sign-out-everywhere" }, "Sign out everywhere");
  everywhere.addEventListener("click", async () => {
    if (!(await confirmAction("End every session of your account, this one too?", "Sign out everywhere"))) return;
    await call("DELETE", "/sessions");
    session.signedOut();
  });
  show(
    box,
    h(
      "div",
      { class: "table-scroll" },
      h(
      "table",
      { class: "table", id: "sessions-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Device"), h("th", {}, "Address"), h("th", {}, "Workspace"), h("th", {}, "Last seen"), h("th", {}, ""))),
      h(
        "tbody",
        {},
        ...found.map((s) => {
          const end = h("button", { type: "button", class: "button" }, s.current ? "This browser" : "End");
          end.disabled = s.current;
          end.addEventListener("click", async () => {
            await call("DELETE", `/sessions-item/${s.id}`);
            showSessions(box, session);
          });
          return h("tr", { dataset: { session: String(s.id) } }, h("td", {}, s.device ?? "—"), h("td", {}, s.address ?? "—"), h("td", {}, s.workspace_name ?? ""), h("td", {}, when(s.last_seen_at)), h("td", {}, end));
        }),
      ),
      ),
    ),
    everywhere,
  );
}
