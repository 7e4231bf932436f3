// The names a post may mention, for @ in the composer: the workspace's
// pages and profiles known by their URN (its channels' authors), and the
// people and pages its posts already mention, each with the URN it was
// written with, so that a URN is pasted once and picked after that.
import { call } from "../api.js";

const MENTIONS = /@\[([^\]\n]+)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/g;
const SEARCH = "/api-v2-posts?q=urn%20li&limit=100"; // the latest posts that hold a URN (search: whole words)

/** [{name, text, hint}] for suggestMentions: the channels' first, then the
 *  posts' (the newest name for a URN), one entry a URN. */
export async function mentionBook(channels) {
  const book = new Map();
  const add = (name, urn) => {
    if (name && urn && !book.has(urn)) book.set(urn, { name, text: `@[${name}](${urn})`, hint: urn.startsWith("urn:li:organization:") ? "page" : "person" });
  };
  for (const channel of channels) add(channel.name, channel.author_urn);
  try {
    const { data } = await call("GET", SEARCH);
    for (const post of data.data) for (const [, name, urn] of post.content.matchAll(MENTIONS)) add(name.trim(), urn);
  } catch {
    // The channels' names are still offered; a post's mentions are a convenience.
  }
  return [...book.values()];
}
