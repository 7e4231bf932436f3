// Channels by name, and people's profiles: the workspace's channels as the
// views last read them (GET /channels), so that a post's badge shows its
// channel's name and, for a person's profile, their initials (the page's
// policy loads no picture from LinkedIn); and whose yes a post waits for:
// a post on a colleague's personal channel is approved by that colleague
// (the service's rule, posts/approvals.py), approvals on or off.
import { call } from "./api.js";
import { h } from "./dom.js";

const known = new Map(); // channel id -> channel record

/** Keep the channels just read, for the badges and the review's rules. */
export function rememberChannels(channels) {
  known.clear();
  for (const channel of channels) known.set(channel.id, channel);
  return channels;
}

/** GET /channels, remembered; [] when the key may not read them. */
export async function loadChannels() {
  try {
    return rememberChannels((await call("GET", "/channels?limit=100")).data.data);
  } catch (error) {
    if (error.status === 401) throw error;
    return [...known.values()];
  }
}

export const channelById = (id) => known.get(id) ?? null;

/** The channel a post goes to: its channel_id (a post of an older service: type and brand_id). */
export const channelIdOf = (post) => post.channel_id ?? (post.type === "brand" ? post.brand_id : "personal");

/** Whose profile a personal channel is, by name: who connected it, else its member. */
export function personOf(channel) {
  if (!channel || channel.type !== "personal") return null;
  const signedIn = ["connected", "expiring", "expired"].includes(channel.connection?.status) ? channel.connection.member_name : null;
  return signedIn || channel.member?.name || channel.name;
}

/** "Ada Lovelace" -> "AL"; one word: its first two letters. */
export function initials(name) {
  const words = (name ?? "").trim().split(/\s+/).filter(Boolean);
  if (!words.length) return "?";
  const letters = words.length === 1 ? [...words[0]].slice(0, 2) : [[...words[0]][0], [...words[words.length - 1]][0]];
  return letters.join("").toUpperCase();
}

/** A person's round mark: their initials. */
export function avatar(channel) {
  const who = personOf(channel) ?? channel?.name ?? "";
  return h("span", { class: "avatar", "aria-hidden": "true", title: who }, initials(who));
}

/** A channel as a choice in a list: "Cleo (CEO) · Cleo's profile", "Acme (acme)". */
export function channelChoice(channel, me) {
  if (channel.type === "brand") return `${channel.name} (brand page ${channel.id})`;
  const mine = channel.member?.id === me;
  return `${channel.name} · ${mine ? "my profile" : `${channel.member?.name ?? "a member"}'s profile`}`;
}

/** The member whose yes `post` waits for before it is scheduled: the
 *  member of its personal channel when someone else wrote it (for a new
 *  post, when that is not `me`); else null. */
export function ownerOf(post, me) {
  const channel = channelById(channelIdOf(post));
  const member = channel?.type === "personal" ? channel.member : null;
  if (!member) return null;
  const author = post.author?.id ?? (post.id ? null : me);
  return member.id === author ? null : { ...member, channel };
}

/** Is `post` reviewed before it is scheduled: the workspace requires it, or its profile's member must say yes. */
export const needsReview = (post, session) => session.approvals || Boolean(ownerOf(post, session.me?.member?.id));

/** The member's own personal channel, or null. */
export function myProfile(channels, session) {
  const me = session.me?.member?.id;
  return channels.find((c) => c.type === "personal" && c.member?.id === me) ?? null;
}
