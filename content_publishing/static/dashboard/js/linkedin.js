// A channel's LinkedIn connection as the dashboard shows it: the sign-in
// ("Connect LinkedIn", "Reconnect"), who the channel posts as, until when,
// and the banner that asks for a reconnection wherever the channels are read.
//
// Connecting: POST /channels-connect/{id} answers LinkedIn's authorize URL
// and a cookie that ties the sign-in to this browser; the page goes there,
// the person consents at LinkedIn, and the service sends the browser back to
// #/channels?channel=ID&connected=ID (or &error=..&message=..).
import { call } from "./api.js";
import { h } from "./dom.js";
import { explain } from "./explain.js";
import * as time from "./time.js";

export const NEEDS_RECONNECT = ["expired", "broken", "expiring"];

/** Off to LinkedIn's consent page for `channel`; a refusal is shown in `messages`. */
export async function startConnect(channel, messages) {
  try {
    // The answer's cookie binds the sign-in to this browser: it must be kept.
    const { data } = await call("POST", `/channels-connect/${encodeURIComponent(channel.id)}`, { cookies: true });
    location.assign(data.authorize_url);
  } catch (error) {
    messages?.replaceChildren(explain(error));
    messages?.focus();
  }
}

/** The page (brand) or member (personal) the channel posts as, by name. */
export function postsAs(channel) {
  const connection = channel.connection;
  if (!connection || connection.status === "none" || connection.status === "revoked") return null;
  if (channel.type === "personal") return connection.member_name;
  return connection.organizations.find((page) => page.urn === channel.author_urn)?.name ?? null;
}

/** One line on the connection: "Connected as Ada Lovelace until 12 Mar 2027". */
export function connectionLine(channel) {
  const connection = channel.connection ?? { status: "none" };
  const who = postsAs(channel);
  const until = connection.expires_at ? [" until ", time.timeElement(connection.expires_at)] : [];
  switch (connection.status) {
    case "connected":
      return ["Connected", who ? [" as ", h("strong", {}, who)] : "", ...until, !who && channel.type === "brand" ? "; pick the page it posts for" : ""];
    case "expiring":
      return [h("strong", {}, "Ends soon"), who ? ` (${who})` : "", ...until, ": reconnect to keep publishing"];
    case "expired":
      return [h("strong", {}, "Expired"), who ? ` (${who})` : "", ": reconnect it, or its posts cannot be published"];
    case "broken":
      return [h("strong", {}, "Needs reconnecting"), who ? ` (${who})` : "", ": its tokens cannot be read with the service's secrets key; reconnect it, or its posts cannot be published"];
    case "revoked":
      return "Disconnected";
    default:
      return "Not connected";
  }
}

/** The banner for channels whose connection needs the person: one line each,
 *  with Reconnect (for a key that may), or null when none does. */
export function reconnectBanner(channels, session, messages) {
  const needing = channels.filter((c) => NEEDS_RECONNECT.includes(c.connection?.status));
  if (!needing.length) return null;
  return h(
    "div",
    { class: "alert alert-warning reconnect-banner", role: "status" },
    h("p", { class: "alert-title" }, needing.some((c) => c.connection.status === "broken") ? "A LinkedIn connection must be reconnected" : needing.some((c) => c.connection.status === "expired") ? "A LinkedIn connection has expired" : "A LinkedIn connection ends soon"),
    h(
      "ul",
      { class: "plain" },
      needing.map((channel) =>
        h(
          "li",
          { dataset: { channelId: channel.id } },
          h("strong", {}, channel.name),
          ": ",
          connectionLine(channel),
          session.can("posts:publish") ? [" ", h("button", { type: "button", class: "button", onclick: () => startConnect(channel, messages) }, "Reconnect")] : null,
        ),
      ),
    ),
  );
}
