// The pasted key and what it may do.
//
// The key lives in sessionStorage under the docs page's item, so a key
// pasted in one page works in the other, and it is gone when the tab closes.
//
// What the key may do comes from GET /functions/v1/me, which any valid key
// may read: its user, prefix, scopes and expiry, in one request that is
// never refused for a missing scope. A 401 means the key itself is refused.
// It names the workspace and the key's member with their role too.
import { call } from "./api.js";

const KEY_ITEM = "cps.apiKey";

export const SCOPES = {
  "posts:read": "See posts: calendar, queue, details",
  "posts:write": "Create, edit and delete posts",
  "posts:publish": "Schedule, unschedule and retry posts",
  "articles:read": "See articles",
  "articles:write": "Create, edit and publish articles",
  "webhooks:manage": "See webhook deliveries and redeliver them",
  "members:manage": "Invite members, change their roles, remove them",
};

// What each role lets a key do at all (the service's roles.py): a key's
// permissions are its scopes intersected with its member's role.
const EVERY = Object.keys(SCOPES);
export const ROLES = {
  owner: { scopes: EVERY, may: "do everything, including inviting members and changing the workspace's settings" },
  admin: { scopes: EVERY, may: "do everything but change owners: invite members, change the workspace's settings, approve posts" },
  editor: { scopes: EVERY.filter((s) => s !== "members:manage"), may: "write, schedule, queue, import and publish posts, approve colleagues' posts or ask for changes, and set up channels, media and webhooks" },
  contributor: { scopes: ["posts:read", "posts:write", "articles:read"], may: "write drafts, change and submit them for review (an editor approves them), upload media and comment" },
  viewer: { scopes: ["posts:read", "articles:read"], may: "read posts and comment on them" },
};
export const ROLE_NAMES = Object.keys(ROLES); // most powers first

/** Has `role` the powers of `least` at least (an owner those of an editor)? */
export const atLeast = (role, least) => ROLE_NAMES.indexOf(role) <= ROLE_NAMES.indexOf(least);

export const storedKey = () => sessionStorage.getItem(KEY_ITEM);
export const keepKey = (key) => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_ITEM);

/** What GET /me says of `key`: {user, key: {prefix, scopes, ...}}; throws the
 * ApiError of a refused key (401). */
export const whoIs = async (key) => (await call("GET", "/me", { as: key, quiet: true })).data;

/** GET /me by the session cookie alone: the answer, or null when not signed in. */
export async function whoIsSignedIn() {
  try {
    return await whoIs(null);
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

/** What a GET /me answer's key may do, as a Set of the scopes the dashboard
 *  knows: the key's scopes that its member's role allows. */
export function scopesIn(me) {
  const allowed = ROLES[me.member?.role]?.scopes ?? EVERY;
  const held = me.key ? me.key.scopes : allowed; // a person's session: every scope of the role
  return new Set(held.filter((scope) => scope in SCOPES && allowed.includes(scope)));
}
