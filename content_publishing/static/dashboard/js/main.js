// Start-up of the publishing dashboard (/functions/v1/dashboard): sign-in,
// the views' addresses (#/calendar, #/queue/Failed, #/posts/ID, ...), and
// the refresh that keeps an open list current.
import { call, onKeyRefused, useKey, useSession } from "./api.js";
import { h, show } from "./dom.js";
import { explain } from "./explain.js";
import { ROLES, SCOPES, atLeast, forgetKey, keepKey, scopesIn, storedKey, whoIs, whoIsSignedIn } from "./session.js";
import { showLink, showPersonSignIn } from "./signin.js";
import { showWorkspaceSwitch } from "./workspaces.js";
import { showAccount } from "./views/account.js";
import { showKeys } from "./views/keys.js";
import { showAnalytics } from "./views/analytics.js";
import { showArticleForm } from "./views/article-form.js";
import { showArticle, showArticles } from "./views/articles.js";
import { showCalendar, showMonth } from "./views/calendar.js";
import { showChannels } from "./views/channels.js";
import { showImport } from "./views/import.js";
import { showInvite } from "./views/invite.js";
import { showMembers } from "./views/members.js";
import { showDeliveries } from "./views/deliveries.js";
import { showPost } from "./views/post.js";
import { showPostForm } from "./views/post-form.js";
import { showReview, waiting } from "./views/review.js";
import { showQueue } from "./views/queue.js";
import { leaving } from "./views/composer-draft.js";
import { showSettings } from "./views/settings.js";
import { showNotifications } from "./views/notifications.js";
import { heading, tickCountdowns } from "./widgets.js";

const REFRESH_MS = 10_000; // an open view asks again this often, while the tab is visible
const ID = "([0-9a-fA-F-]{36})";

// [address pattern, view, the navigation section it belongs to]
const ROUTES = [
  [/^\/calendar(?:\/(\d{4}-\d{2}-\d{2}))?$/, showCalendar, "calendar"],
  [/^\/calendar\/month(?:\/(\d{4}-\d{2}-\d{2}))?$/, showMonth, "calendar"],
  [/^\/analytics$/, showAnalytics, "analytics"],
  [/^\/channels$/, showChannels, "channels"],
  [/^\/import$/, showImport, "queue"],
  [/^\/queue(?:\/(Draft|In%20review|Approved|Scheduled|Publishing|Published|Failed))?$/, showQueue, "queue"],
  [/^\/posts\/new$/, showPostForm, "queue"],
  [new RegExp(`^/posts/${ID}$`), showPost, "queue"],
  [new RegExp(`^/posts/${ID}/edit$`), showPostForm, "queue"],
  [/^\/articles$/, showArticles, "articles"],
  [/^\/articles\/new$/, showArticleForm, "articles"],
  [new RegExp(`^/articles/${ID}$`), showArticle, "articles"],
  [new RegExp(`^/articles/${ID}/edit$`), showArticleForm, "articles"],
  [/^\/deliveries$/, showDeliveries, "deliveries"],
  [/^\/members$/, showMembers, "members"],
  [/^\/review$/, showReview, "review"],
  [/^\/account$/, showAccount, "account"],
  [/^\/keys$/, showKeys, "keys"],
  [/^\/settings$/, showSettings, "members"], // reached from Members
  [/^\/notifications$/, showNotifications, "members"],
];
// A mailed sign-in link's page (#/link/TOKEN): its token is the capability.
const LINK = /^#\/link\/([A-Za-z0-9_-]{1,200})$/;
// An invitation's page needs no key: its token is the capability.
const INVITE = /^#\/invite\/([A-Za-z0-9_-]{1,200})$/;

const $ = (id) => document.getElementById(id);
const session = {
  signedIn: false,
  person: false, // signed in by the session cookie (a person), not a pasted key
  me: null, // GET /me: the key's workspace, member (with role), prefix and scopes
  scopes: new Set(),
  approvals: false, // the workspace requires posts to be approved before they are scheduled
  can(scope) {
    return this.scopes.has(scope);
  },
  /** Has the member's role the powers of `least` (managing channels, importing: editor)? */
  atLeast(least) {
    return atLeast(this.me?.member?.role ?? "owner", least);
  },
  /** May this member change `post`? A contributor, only their own drafts. */
  mayChange(post) {
    if (!this.can("posts:write")) return false;
    if (this.me?.member?.role !== "contributor") return true;
    return post.status === "Draft" && post.author?.id === this.me.member.id;
  },
  /** Read the count of posts In review again (a review changed it). */
  recount() {
    countReviews();
  },
  /** The navigation's count of posts In review (shown, approvals off, while
   *  posts for colleagues' profiles wait for their yes). */
  showReviewCount(count) {
    if (this.can("posts:read")) $("review-nav").hidden = !(this.approvals || count > 0);
    $("review-count").textContent = count ? String(count) : "";
    $("review-count").title = `${count} post${count === 1 ? "" : "s"} in review`;
    // At phone width the views are behind the menu button: it carries the count too.
    $("menu-toggle").dataset.count = count ? String(count) : "";
    $("menu-toggle").querySelector(".visually-hidden").textContent = count ? `Menu (${$("review-count").title})` : "Menu";
  },
  /** Every session ended (sign out everywhere): back to signing in. */
  signedOut() {
    this.person = false;
    showSignIn();
  },
  /** Read GET /me again (the member's own role changed) and show it. */
  async reloadMe() {
    this.me = await whoIs(this.person ? null : storedKey());
    this.scopes = scopesIn(this.me);
    showKey(this.me);
  },
};
let current = null; // the open view's {refresh}, if it has one
let navigations = 0;

/** Check `key`, keep it and open the view; `typed`: the person just pasted it
 *  (rather than a reload), so focus follows to the view's heading. */
async function signIn(key, typed) {
  const button = $("sign-in-button");
  if ($("sign-in").hidden) show($("view"), h("p", { class: "loading", role: "status" }, "Checking the key…"));
  button.disabled = true;
  button.textContent = "Checking the key…";
  try {
    session.me = await whoIs(key);
    session.scopes = scopesIn(session.me);
    session.approvals = await approvalsRequired(key);
  } catch (error) {
    if (error.status === 401) forgetKey(); // not when the service is only unreachable
    showSignIn(explain(error), true);
    return;
  } finally {
    button.disabled = false;
    button.textContent = "Sign in";
  }
  keepKey(key);
  useKey(key);
  session.signedIn = true;
  $("sign-in").hidden = true;
  $("key-input").value = "";
  showKey(session.me);
  $("sign-in-problem").replaceChildren();
  await route(typed);
}

/** Signed in by the session cookie (a person): every tab of the browser is. */
async function signInAsPerson(typed) {
  let me;
  try {
    me = await whoIsSignedIn();
  } catch (error) {
    showSignIn(explain(error));
    return;
  }
  if (!me || me.key) {
    showSignIn();
    return;
  }
  useSession(me.session.csrf_token);
  session.person = true;
  session.me = me;
  session.scopes = scopesIn(me);
  session.approvals = await approvalsRequired(null);
  session.signedIn = true;
  $("sign-in").hidden = true;
  showKey(me);
  await route(typed);
}

/** The sign-in page; `problem` shown by the key's form (unfolded) when
 *  `ofKey`, else by the person's. */
function showSignIn(problem, ofKey = false) {
  useKey(null);
  useSession(null);
  session.person = false;
  session.signedIn = false;
  session.scopes = new Set();
  current = null;
  for (const id of ["views-nav", "session-actions", "keybar", "menu-toggle", "workspace"]) $(id).hidden = true;
  showMenu(false);
  $("view").replaceChildren();
  $("sign-in").hidden = false;
  document.title = "Sign in · Publishing dashboard";
  showPersonSignIn($("person-sign-in"), () => signInAsPerson(true));
  if (ofKey) $("key-sign-in").open = true;
  show($("sign-in-problem"), ofKey ? (problem ?? null) : null);
  show($("person-problem"), ofKey ? null : (problem ?? null));
  if (problem) $(ofKey ? "sign-in-problem" : "person-problem").focus();
  else $(ofKey ? "key-input" : "signin-email").focus();
}

/** The page of a mailed link: it signs this browser in, then the account. */
function openLink(token) {
  showSignIn();
  $("sign-in").hidden = true;
  const container = h("div", { class: "view" });
  $("view").replaceChildren(container);
  showLink(container, token, () => signInAsPerson(true));
  document.title = "Signing in · Publishing dashboard";
}

/** Does the workspace require approvals (GET /workspace)? A service
 *  without the setting, or a key that may not read it, is "no". */
async function approvalsRequired(key) {
  try {
    return (await call("GET", "/workspace", { as: key, quiet: true })).data.approvals === "required";
  } catch (error) {
    if (error.status === 401) throw error;
    return false;
  }
}

/** The count of posts In review beside Needs review, read again with each
 *  refresh: with approvals off, posts written for a colleague's profile. */
async function countReviews() {
  if (!session.can("posts:read")) return;
  try {
    session.showReviewCount(await waiting());
  } catch {
    // the view itself says what is wrong
  }
}

/** The workspace, whose key it is (the member and their role), the key by
 *  its prefix (as `keys list` shows it), and its scopes. */
function showKey(me) {
  const workspace = me.workspace?.name ?? me.user;
  $("workspace-name").textContent = workspace;
  $("workspace").title = `Workspace: ${workspace}`;
  $("workspace").hidden = false;
  showWorkspaceSwitch(me);
  const member = me.member?.name ?? me.user;
  $("member-name").textContent = member;
  $("member-role").textContent = me.member?.role ?? "";
  $("member-role").hidden = !me.member;
  if (me.member) $("member-role").title = `Role ${me.member.role}: may ${ROLES[me.member.role]?.may ?? "what the service allows"}`;
  $("key-name").textContent = me.key ? `${me.key.prefix}…` : me.account?.email ?? "";
  $("key-name").title = me.key ? `The key ${me.key.prefix}… of ${member}, in the workspace ${workspace}` : `Signed in as ${me.account?.email}, in the workspace ${workspace}`;
  show(
    $("scope-list"),
    Object.entries(SCOPES).map(([scope, grants]) => {
      const has = session.can(scope);
      return h(
        "li",
        { class: has ? "scope scope-granted" : "scope scope-missing", title: grants, dataset: { scope } },
        scope,
        h("span", { class: "visually-hidden" }, has ? ` (granted: ${grants})` : " (not granted)"),
      );
    }),
  );
  // At phone width the chips fold behind this button (the stylesheet shows
  // them whatever its state on a wide screen, where the button is hidden).
  const granted = Object.keys(SCOPES).filter((scope) => session.can(scope)).length;
  const total = Object.keys(SCOPES).length;
  $("scopes-toggle").textContent = granted === total ? `${total} scopes` : `${granted} of ${total} scopes`;
  $("scopes-toggle").setAttribute("aria-expanded", "false");
  // Scopes are a key's words: a person signed in by session sees their role
  // only (a key's scopes are on the Keys page, where keys are made).
  $("scope-list").hidden = !me.key;
  $("scopes-toggle").hidden = !me.key;
  for (const link of document.querySelectorAll("#views-nav a")) link.parentElement.hidden = !session.can(link.dataset.scope) || ("approvals" in link.dataset && !session.approvals) || ("person" in link.dataset && !session.person);
  countReviews();
  for (const id of ["views-nav", "session-actions", "keybar", "menu-toggle"]) $(id).hidden = false;
}

/** At phone width the views are a menu behind a button (the stylesheet
 *  shows them as a row on a wider screen, whatever its state). */
function showMenu(open) {
  $("menu-toggle").setAttribute("aria-expanded", String(open));
  document.querySelector(".topbar").classList.toggle("menu-open", open);
}

/** The first view this key may see. */
function home() {
  const link = [...document.querySelectorAll("#views-nav a")].find((a) => session.can(a.dataset.scope));
  return link ? link.getAttribute("href") : null;
}

/** The token of a sign-in link's address (#/link/TOKEN), or null. */
const signInLink = () => LINK.exec(location.hash)?.[1] ?? null;

/** The token of an invitation's address (#/invite/TOKEN), or null. */
const invitation = () => INVITE.exec(location.hash)?.[1] ?? null;

/** An invitation's page, signed in or not: it needs no key, and taking it
 *  up signs this tab in as the new member (whoever was signed in before).
 *  A person signed in by the cookie sends its CSRF token with the accept,
 *  so the new workspace joins their account (the header then switches). */
async function openInvitation(token) {
  showSignIn();
  $("sign-in").hidden = true;
  const container = h("div", { class: "view" });
  $("view").replaceChildren(container);
  showInvite(container, token, { signIn: (key) => signIn(key, true), signInAsPerson: () => signInAsPerson(true) });
  document.title = "Invitation · Publishing dashboard";
  const me = await whoIsSignedIn().catch(() => null);
  if (me && !me.key) useSession(me.session.csrf_token);
}

/** Show the view the address names; `moveFocus` to its heading, as after a
 *  click (not on a fresh load, where the browser starts from the top). */
async function route(moveFocus = true) {
  if (!session.signedIn) return;
  const view = $("view");
  if (!location.hash.startsWith("#/")) {
    if (!home()) {
      show(view, heading("Nothing to show"), h("p", {}, "This key has none of the scopes the dashboard shows (posts:read, articles:read, webhooks:manage)."));
      return;
    }
    history.replaceState(null, "", home()); // no hashchange: this call goes on to show it
  }
  const [path, search = ""] = location.hash.slice(1).split("?");
  const found = ROUTES.map(([pattern, viewFn, section]) => [pattern.exec(path), viewFn, section]).find(([match]) => match);
  current = null;
  const mine = ++navigations;
  const container = h("div", { class: "view" });
  view.replaceChildren(container);
  if (!found) {
    markSection(null);
    show(container, heading("No such page"), h("p", {}, "The dashboard has no page at this address. ", h("a", { href: home() ?? "#/calendar" }, "Go to the start")));
  } else {
    const [match, viewFn, section] = found;
    markSection(section);
    const handle = await viewFn(container, { params: match.slice(1), query: new URLSearchParams(search) }, session);
    if (mine !== navigations) return; // the person has gone elsewhere meanwhile
    current = handle ?? null;
  }
  $("refresh").hidden = !current; // forms have nothing to refresh
  const title = container.querySelector("h1")?.textContent;
  document.title = title ? `${title} · Publishing dashboard` : "Publishing dashboard";
  if (moveFocus) container.querySelector("h1")?.focus();
}

function markSection(section) {
  showMenu(false); // a view was chosen: the menu closes
  for (const link of document.querySelectorAll("#views-nav a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** Ask the open view to read its data again. `asked`: the person pressed
 *  Refresh, so a record page reloads even while it holds a message or a form;
 *  the timer's refresh leaves such a page alone. */
let refreshing = false;
async function refresh(asked) {
  if (refreshing || !current?.refresh) return;
  refreshing = true;
  try {
    countReviews();
    await current.refresh(asked);
  } finally {
    refreshing = false;
  }
}

onKeyRefused((error) => {
  const ofKey = !session.person; // a key refused, or the session ended
  forgetKey();
  showSignIn(explain(error), ofKey);
});

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key-input").value.trim();
  if (!key) {
    show($("sign-in-problem"), h("p", { class: "alert alert-error", role: "alert" }, "Paste a key first."));
    $("key-sign-in").open = true;
    $("key-input").focus();
    return;
  }
  signIn(key, true);
});
$("sign-out").addEventListener("click", async () => {
  if (session.person) await call("DELETE", "/session", { quiet: true }).catch(() => {}); // the cookie goes
  forgetKey();
  showSignIn();
});
$("refresh").addEventListener("click", () => refresh(true));
$("menu-toggle").addEventListener("click", () => showMenu($("menu-toggle").getAttribute("aria-expanded") !== "true"));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && $("menu-toggle").getAttribute("aria-expanded") === "true") {
    showMenu(false);
    $("menu-toggle").focus();
  }
});
$("scopes-toggle").addEventListener("click", (event) => {
  const button = event.currentTarget;
  button.setAttribute("aria-expanded", String(button.getAttribute("aria-expanded") !== "true"));
});
$("skip-link").addEventListener("click", (event) => {
  event.preventDefault(); // the address is the view's; move focus only
  ($("view").querySelector("h1") ?? $("main")).focus();
});
let shownHash = location.hash; // where to go back to when leaving is called off
window.addEventListener("hashchange", async () => {
  if (leaving.guard && !(await leaving.guard())) return history.replaceState(null, "", shownHash);
  leaving.guard = null;
  shownHash = location.hash;
  if (signInLink()) openLink(signInLink());
  else if (invitation()) openInvitation(invitation());
  else if (session.signedIn) route();
  else if (storedKey() && $("sign-in").hidden) signIn(storedKey(), true); // left an invitation unaccepted
  else if ($("sign-in").hidden) showSignIn();
});
setInterval(() => document.hidden || refresh(false), REFRESH_MS);
setInterval(tickCountdowns, 1000);

const remembered = storedKey();
if (signInLink()) openLink(signInLink());
else if (invitation()) openInvitation(invitation());
else if (remembered) signIn(remembered, false);
else signInAsPerson(false); // the browser's session, if it has one
