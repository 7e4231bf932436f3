// Signing in as a person (docs/accounts.md): email and password, or "email
// me a link", and the page a mailed link opens (#/link/TOKEN). The session
// is a cookie the browser keeps (HttpOnly: this page never sees it), so
// every tab of this browser is signed in, a mail's link included. The API
// key sign-in stays below, folded, for operators.
import { call } from "./api.js";
import { h, show } from "./dom.js";
import { explain } from "./explain.js";

const field = (id, label, attrs) => [h("label", { for: id }, label), h("input", { id, name: id, ...attrs })];

function alert(text, code) {
  return h("div", { class: "alert alert-error", role: "alert", dataset: { code: code ?? "" } }, h("p", {}, text));
}

/** The email-and-password form and the link form, in `container`; `done()`
 *  runs once the session's cookie is set. */
export function showPersonSignIn(container, done) {
  const problem = h("div", { id: "person-problem", tabindex: "-1" });
  const sent = h("div", { id: "link-sent", role: "status" });
  const code = h("div", { id: "code-field", hidden: true }, ...field("signin-code", "Code of your authenticator app (or a recovery code)", { autocomplete: "one-time-code", inputmode: "numeric" }));
  const button = h("button", { type: "submit", class: "button button-primary", id: "person-sign-in-button" }, "Sign in");
  const linkButton = h("button", { type: "button", class: "button", id: "email-link" }, "Email me a link");
  const form = h(
    "form",
    { class: "panel", id: "person-sign-in-form", novalidate: true },
    h("h1", { id: "person-sign-in-title", tabindex: "-1" }, "Sign in"),
    ...field("signin-email", "Email", { type: "email", autocomplete: "username", required: true }),
    ...field("signin-password", "Password", { type: "password", autocomplete: "current-password" }),
    code,
    problem,
    sent,
    h("div", { class: "actions" }, button, linkButton),
  );
  const email = () => form.querySelector("#signin-email").value.trim();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show(problem);
    if (!email()) return show(problem, alert("Give your email address."));
    button.disabled = true;
    const body = { email: email(), password: form.querySelector("#signin-password").value };
    const typed = form.querySelector("#signin-code").value.trim();
    if (typed) body.code = typed;
    try {
      const { data } = await call("POST", "/session", { body, as: null, quiet: true });
      form.querySelector("#signin-password").value = "";
      done(data);
    } catch (error) {
      if (error.code === "second_factor_required") code.hidden = false;
      show(problem, error.status === 401 || error.status === 429 ? alert(error.message, error.code) : explain(error));
    } finally {
      button.disabled = false;
    }
  });
  linkButton.addEventListener("click", async () => {
    show(problem);
    show(sent);
    if (!email()) return show(problem, alert("Give your email address: the link goes there."));
    linkButton.disabled = true;
    try {
      const { data } = await call("POST", "/session-link", { body: { email: email() }, as: null, quiet: true });
      show(sent, h("p", { class: data.mail ? "alert alert-success" : "alert alert-error" }, data.message));
    } catch (error) {
      show(problem, explain(error));
    } finally {
      linkButton.disabled = false;
    }
  });
  container.replaceChildren(form);
}

/** The page of a mailed link (#/link/TOKEN): it signs in at once, or asks
 *  for what the link needs first (a new password, the owner's email, a code). */
export function showLink(container, token, done) {
  const problem = h("div", { tabindex: "-1", id: "link-problem" });
  const extra = h("div", { id: "link-fields" });
  const button = h("button", { type: "submit", class: "button button-primary", id: "use-link" }, "Sign in");
  const form = h("form", { class: "panel", id: "link-form", novalidate: true }, h("h1", { tabindex: "-1" }, "Signing in"), extra, problem, button);
  const body = () => {
    const found = { token };
    for (const input of extra.querySelectorAll("input")) if (input.value.trim()) found[input.name] = input.value.trim();
    return found;
  };
  const ask = (name, label, attrs) => {
    if (!extra.querySelector(`[name=${name}]`)) extra.append(...field(`link-${name}`, label, { ...attrs, name }));
  };
  const use = async () => {
    button.disabled = true;
    show(problem);
    try {
      const { data } = await call("POST", "/session-link-use", { body: body(), as: null, quiet: true });
      history.replaceState(null, "", `${location.pathname}#/account`); // the link is spent
      done(data);
    } catch (error) {
      const fields = error.details ?? {};
      if ("password" in fields) ask("password", "Choose a password (at least 10 characters)", { type: "password", autocomplete: "new-password" });
      if ("email" in fields) ask("email", "Your email address", { type: "email", autocomplete: "username" });
      if (error.code === "second_factor_required") ask("code", "Code of your authenticator app", { autocomplete: "one-time-code" });
      show(problem, error.status === 410 || error.status === 404 || error.status === 401 ? alert(error.message, error.code) : explain(error));
    } finally {
      button.disabled = false;
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    use();
  });
  container.replaceChildren(form);
  use();
}
