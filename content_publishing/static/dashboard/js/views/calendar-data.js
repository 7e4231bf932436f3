// What the calendar reads for the range on screen: the posts, the repeats
// recurring series will make (not posts yet), the channels' free slots, the
// drafts waiting for a time, and how far a new workspace has got.
import { call, query } from "../api.js";
import { channelIdOf, rememberChannels } from "../profiles.js";

const MOST = 500; // posts one view shows; a small team's month holds far fewer
const PAGE = 100; // the API's largest page
const DRAFTS = 20; // the side list: the newest drafts
const SLOT_DAYS = 90; // the furthest ahead GET /channels-slots looks

/** `channel`: one channel's posts (its id), or every channel's. */
export async function postsBetween(start, end, channel) {
  const posts = [];
  const filter = { scheduled_after: start.toISOString(), scheduled_before: end.toISOString(), channel_id: channel, order: "scheduled_at", limit: PAGE };
  while (posts.length < MOST) {
    const { data } = await call("GET", `/api-v2-posts${query({ ...filter, offset: posts.length })}`);
    posts.push(...data.data);
    if (!data.data.length || posts.length >= data.total) break;
  }
  return posts;
}

/** The repeats of recurring series from start to end (GET /api-v2-posts-occurrences). */
export async function repeatsBetween(start, end, channel) {
  const { data } = await call("GET", `/api-v2-posts-occurrences${query({ from: start.toISOString(), to: end.toISOString() })}`);
  return data.data.filter((repeat) => !channel || channelIdOf(repeat) === channel);
}

/** Every channel's free slots from start to end: [{at, channel}], soonest
 *  first. Slots are listed from now on, at most 90 days ahead. */
export async function freeSlots(channels, start, end) {
  const now = Date.now();
  if (end.getTime() <= now) return [];
  const days = Math.min(SLOT_DAYS, Math.max(1, Math.ceil((end.getTime() - now) / 86_400_000)));
  const withSlots = channels.filter((channel) => channel.slots.length);
  const answers = await Promise.all(withSlots.map((channel) => call("GET", `/channels-slots/${encodeURIComponent(channel.id)}?days=${days}`)));
  return withSlots
    .flatMap((channel, n) => answers[n].data.data.filter((slot) => !slot.post_id).map((slot) => ({ at: slot.at, channel })))
    .filter((slot) => Date.parse(slot.at) >= start.getTime() && Date.parse(slot.at) < end.getTime())
    .sort((a, b) => a.at.localeCompare(b.at));
}

/** The newest drafts, and how many there are. */
export async function drafts(channel) {
  const { data } = await call("GET", `/api-v2-posts${query({ status: "Draft", channel_id: channel, limit: DRAFTS })}`);
  return { posts: data.data, total: data.total };
}

export async function channelList() {
  return rememberChannels((await call("GET", "/channels?limit=100")).data.data);
}

/** How far the workspace has got: {channels, slotted, posts, endpoints}
 *  (endpoints: null when the key may not read them). */
export async function progress(channels, session) {
  const [posts, endpoints] = await Promise.all([
    call("GET", "/api-v2-posts?limit=1").then((r) => r.data.total),
    session.can("webhooks:manage") ? call("GET", "/webhooks?limit=1").then((r) => r.data.total) : null,
  ]);
  return { channels: channels.length, slotted: channels.some((c) => c.slots.length), authored: channels.some((c) => c.author_urn), posts, endpoints };
}
