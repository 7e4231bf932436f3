// The pasted key and what it may do.
//
// The key lives in sessionStorage under the docs page's item, so a key
// pasted in one page works in the other, and it is gone when the tab closes.
//
// The API has no endpoint that lists a key's scopes, so the page asks the
// API itself, at each sign-in and page load, with six small requests that
// cannot change anything. The reads (posts:read, articles:read,
// webhooks:manage) fetch at most one record. The writes send a JSON list as
// the body: the service checks the scope before it reads a body, so a key
// without the scope gets 403 insufficient_scope naming it in
// details.required_scope, and a key with it gets 400, since a list is never
// a valid record. Nothing is created. A 401 means the key itself is refused.
// Asking the API (rather than guessing from the key) means the page shows
// exactly what the service would allow. The browser's console and the
// access log list these 400s and 403s at each sign-in; they are the probes,
// not faults.
import { ApiError, call } from "./api.js";

const KEY_ITEM = "cps.apiKey";

export const SCOPES = {
  "posts:read": "See posts: calendar, queue, details",
  "posts:write": "Create, edit and delete posts",
  "posts:publish": "Schedule, unschedule and retry posts",
  "articles:read": "See articles",
  "articles:write": "Create, edit and publish articles",
  "webhooks:manage": "See webhook deliveries and redeliver them",
};

const PROBES = {
  "posts:read": ["GET", "/api-v2-posts?limit=1"],
  "posts:write": ["POST", "/api-v2-posts"],
  "posts:publish": ["POST", "/make-post-callback"],
  "articles:read": ["GET", "/articles-api?limit=1"],
  "articles:write": ["POST", "/articles-api"],
  "webhooks:manage": ["GET", "/webhook-deliveries?limit=1"],
};

export const storedKey = () => sessionStorage.getItem(KEY_ITEM);
export const keepKey = (key) => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_ITEM);

/** The set of scopes `key` has; throws the ApiError of a refused key (401). */
export async function scopesOf(key) {
  const answers = await Promise.all(
    Object.entries(PROBES).map(([scope, [method, path]]) =>
      call(method, path, { as: key, quiet: true, body: method === "POST" ? [] : undefined }).then(
        () => [scope, true],
        (error) => [scope, error],
      ),
    ),
  );
  const granted = new Set();
  for (const [scope, answer] of answers) {
    if (answer === true) granted.add(scope);
    else if (answer.status === 401 || answer.status === 0) throw answer;
    else if (answer.status === 400) granted.add(scope);
    else if (answer.status === 403 && answer.details.required_scope === scope) continue;
    else throw new ApiError(answer.status, { code: answer.code, message: `Could not check the key's ${scope} scope: ${answer.message}` });
  }
  return granted;
}
