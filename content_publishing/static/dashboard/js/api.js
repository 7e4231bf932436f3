// The one way the page talks to the service: same-origin fetch() of the
// public API under /functions/v1, with the pasted key in X-API-Key. Changes
// send the version they were made on in If-Match, creates send an
// Idempotency-Key; with Content-Type these are the only request headers it
// sets, all of them among those the service's CORS settings allow.
// Every refusal becomes an ApiError carrying the error envelope.

export const BASE = "/functions/v1";
export const PAGE_SIZE = 20;

export class ApiError extends Error {
  constructor(status, envelope, etag = null) {
    super(envelope.message);
    this.status = status; // 0: no answer
    this.code = envelope.code;
    this.details = envelope.details || {};
    this.etag = etag;
  }
}

let key = null;
let csrf = null; // a person's session (the cookie): its CSRF token, sent with every change
let whenRefused = () => {};

export function useKey(value) {
  key = value;
}

/** Signed in as a person: no key; the cookie goes along, and changes carry `token`. */
export function useSession(token) {
  key = null;
  csrf = token;
}

/** Whether the page is signed in as a person (the session cookie, no key). */
export function signedInAsPerson() {
  return key === null && csrf !== null;
}

/** `callback(error)` runs when the service refuses the key itself (401). */
export function onKeyRefused(callback) {
  whenRefused = callback;
}

/**
 * call("PATCH", "/api-v2-posts-item/ID", {body, version}) -> {data, etag}.
 * version: sent as If-Match; idempotencyKey: sent as Idempotency-Key;
 * raw and type: a body sent as it is (a Blob or a string) with that Content-Type;
 * quiet: a 401 is only thrown (signing in handles it itself);
 * cookies: keep the answer's cookie (starting a LinkedIn sign-in).
 */
export async function call(method, path, { body, raw, type, version, idempotencyKey, quiet = false, cookies = false, as = key } = {}) {
  const headers = as ? { "X-API-Key": as } : {}; // as: null, a call that needs no key (an invitation)
  if (!as && csrf && method !== "GET") headers["X-CSRF-Token"] = csrf; // a session's change
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (raw !== undefined) headers["Content-Type"] = type; // an image or a CSV file, sent as it is
  if (version !== undefined) headers["If-Match"] = `"${version}"`;
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  let response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers,
      body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
      // Answers carry Cache-Control: no-store, so nothing is kept; `cookies`:
      // the one answer whose cookie must be kept (a LinkedIn sign-in's binding).
      credentials: cookies || !as ? "same-origin" : "omit", // without a key: the session's cookie
    });
  } catch {
    throw new ApiError(0, {
      code: "unreachable",
      message: "The service did not answer. Check that it is running and reachable, then try again.",
    });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const envelope = data?.error ?? { code: "error", message: `The service answered ${response.status}.` };
    const error = new ApiError(response.status, envelope, response.headers.get("ETag"));
    if (error.status === 401 && !quiet) whenRefused(error);
    throw error;
  }
  return { data, etag: response.headers.get("ETag") };
}

/** A file the service makes (a CSV), as a Blob; refusals as call's. */
export async function download(path) {
  let response;
  try {
    response = await fetch(BASE + path, key ? { headers: { "X-API-Key": key }, credentials: "omit" } : { credentials: "same-origin" });
  } catch {
    throw new ApiError(0, { code: "unreachable", message: "The service did not answer. Check that it is running and reachable, then try again." });
  }
  if (!response.ok) {
    const data = await response.json().catch(() => null);
    const error = new ApiError(response.status, data?.error ?? { code: "error", message: `The service answered ${response.status}.` });
    if (error.status === 401) whenRefused(error);
    throw error;
  }
  return response.blob();
}

/** "?a=1&b=2" from an object, leaving out empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
