// The pasted key and what it may do.
//
// The key lives in sessionStorage under the docs page's item, so a key
// pasted in one page works in the other, and it is gone when the tab closes.
//
// What the key may do comes from GET /functions/v1/me, which any valid key
// may read: its user, prefix, scopes and expiry, in one request that is
// never refused for a missing scope. A 401 means the key itself is refused.
import { call } from "./api.js";

const KEY_ITEM = "cps.apiKey";

export const SCOPES = {
  "posts:read": "See posts: calendar, queue, details",
  "posts:write": "Create, edit and delete posts",
  "posts:publish": "Schedule, unschedule and retry posts",
  "articles:read": "See articles",
  "articles:write": "Create, edit and publish articles",
  "webhooks:manage": "See webhook deliveries and redeliver them",
};

export const storedKey = () => sessionStorage.getItem(KEY_ITEM);
export const keepKey = (key) => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_ITEM);

/** What GET /me says of `key`: {user, key: {prefix, scopes, ...}}; throws the
 * ApiError of a refused key (401). */
export const whoIs = async (key) => (await call("GET", "/me", { as: key, quiet: true })).data;

/** The scopes of a GET /me answer that the dashboard knows, as a Set. */
export const scopesIn = (me) => new Set(me.key.scopes.filter((scope) => scope in SCOPES));
