// Analytics (#/analytics?channel=acme&days=90): what the published posts
// did, from GET /analytics. The totals, a weekly line chart of impressions
// and engagement, the best times to post (the service's suggested slots,
// which can be added to the channel's posting slots), the weekday x hour
// heatmap in the channel's own zone, and the top posts; for all channels,
// the channels side by side (posts, impressions, engagement rate: each
// person's profile and each page). Every chart has its figures in a table
// (charts.js). The CSV of the same rows is one click away.
import { call, download, query } from "../api.js";
import { excerpt, h, show } from "../dom.js";
import { explain } from "../explain.js";
import { avatar, rememberChannels } from "../profiles.js";
import * as time from "../time.js";
import { barChart, chartFigure, compact, count, dayName, figureTable, heatLegend, heatmap, hourLabel, lineChart, percent } from "../charts.js";
import { confirmAction, empty, heading, loading, notify } from "../widgets.js";

const PERIODS = [
  [30, "Last 30 days"],
  [90, "Last 90 days"],
  [365, "Last 12 months"],
];
const weekFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", timeZone: "UTC" });
const rangeFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });

export async function showAnalytics(view, route, session) {
  const days = PERIODS.some(([n]) => n === Number(route.query.get("days"))) ? Number(route.query.get("days")) : 90;
  const controls = h("div", { class: "analytics-controls" });
  const body = h("div", { class: "analytics-body" }, loading());
  const csvButton = h("button", { type: "button", class: "button" }, "Download CSV");
  show(view, heading("Analytics", h("div", { class: "toolbar" }, csvButton)), controls, body);

  let channels = [];
  try {
    channels = rememberChannels((await call("GET", "/channels?limit=100")).data.data);
  } catch {
    // no names to offer: every channel together still works
  }
  // Without a choice in the address, the first channel: its best times can be shown.
  const channelId = route.query.has("channel") ? route.query.get("channel") : (channels[0]?.id ?? "");
  show(controls, filters(channels, channelId, days));
  const from = time.dayKey(time.addDays(new Date(), -days));
  const request = `/analytics${query({ from, channel: channelId })}`;

  csvButton.addEventListener("click", async () => {
    try {
      const blob = await download(request.replace("/analytics", "/analytics.csv"));
      const link = h("a", { href: URL.createObjectURL(blob), download: `analytics-${channelId || "all"}-${from}.csv` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      show(body, explain(error));
    }
  });

  async function load() {
    try {
      const { data } = await call("GET", request);
      const channel = channels.find((c) => c.id === data.channel) ?? null;
      show(body, ...report(data, channel, session, load, channels));
    } catch (error) {
      show(body, explain(error));
    }
  }
  await load();
  // The figures change when a collector sends stats, not every few seconds:
  // only Refresh asks again.
  return { refresh: (asked) => (asked ? load() : undefined) };
}

function filters(channels, channelId, days) {
  const channel = h(
    "select",
    { id: "analytics-channel", name: "channel" },
    h("option", { value: "" }, "All channels"),
    channels.map((c) => h("option", { value: c.id, selected: c.id === channelId }, c.type === "brand" ? `${c.name} (${c.id})` : `${c.name} (${c.member?.name ?? "a member"}'s profile)`)),
  );
  if (channelId && !channels.some((c) => c.id === channelId)) channel.append(h("option", { value: channelId, selected: true }, channelId));
  const period = h(
    "select",
    { id: "analytics-days", name: "days" },
    PERIODS.map(([n, label]) => h("option", { value: String(n), selected: n === days }, label)),
  );
  // An empty channel in the address is "all channels", not "the first one".
  const go = () => {
    location.hash = `#/analytics?channel=${encodeURIComponent(channel.value)}&days=${period.value}`;
  };
  channel.addEventListener("change", go);
  period.addEventListener("change", go);
  return h(
    "form",
    { class: "filters analytics-filters", "aria-label": "What to show", onsubmit: (event) => event.preventDefault() },
    h("div", { class: "form-field" }, h("label", { for: "analytics-channel" }, "Channel"), channel),
    h("div", { class: "form-field" }, h("label", { for: "analytics-days" }, "Period"), period),
  );
}

/** The page's sections for one answer of GET /analytics. */
function report(data, channel, session, reload, channels = []) {
  const totals = data.totals;
  const span = h(
    "p",
    { class: "hint analytics-span" },
    `${rangeFormat.formatRange(new Date(data.from), new Date(Date.parse(data.to) - 1))} · weeks, days and hours in ${data.timezone}`,
    data.channel ? ` (${channel ? `${channel.name}'s zone` : "the channel is not set up: UTC"})` : data.timezone === "UTC" ? "" : " (the zone of every channel)",
  );
  if (!totals.posts) {
    return [span, empty("Nothing was published in this period. Posts count here once the automation reports them published.")];
  }
  const sections = [span, tiles(totals)];
  if (!totals.measured) {
    sections.push(
      h(
        "p",
        { class: "alert alert-warning" },
        `${count(totals.posts)} posts went out, but none has figures yet. The automation sends them (POST /api-v2-posts-stats) after publishing; the n8n kit's "collect stats" workflow does it every hour.`,
      ),
    );
  }
  if (!data.channel && data.channels?.length) sections.push(sideBySide(data.channels, channels));
  sections.push(weeklyChart(data.weeks));
  sections.push(h("div", { class: "analytics-pair" }, bestTimes(data, channel, session, reload), heatFigure(data)));
  if (data.top.length) sections.push(topChart(data.top));
  return sections;
}

function tiles(totals) {
  const tile = (label, value, note) => h("div", { class: "tile" }, h("dt", {}, label), h("dd", {}, value, note ? h("span", { class: "tile-note" }, note) : null));
  return h(
    "dl",
    { class: "tiles" },
    tile("Posts published", count(totals.posts), totals.measured < totals.posts ? `${count(totals.measured)} with figures` : null),
    tile("Impressions", count(totals.impressions)),
    tile("Engagement rate", percent(totals.engagement), totals.mean_engagement !== null ? `per post, on average: ${percent(totals.mean_engagement)}` : null),
    tile("Members reached", count(totals.members_reached)),
    tile("Reactions", count(totals.reactions)),
    tile("Comments", count(totals.comments)),
    tile("Reshares", count(totals.reshares)),
    tile("Clicks", count(totals.clicks)),
  );
}

/** Each channel's posts, impressions and engagement rate over the period, side by side. */
function sideBySide(totals, channels) {
  const byId = new Map(channels.map((c) => [c.id, c]));
  const rows = [...totals].sort((a, b) => (b.impressions ?? 0) - (a.impressions ?? 0));
  const named = (row) => byId.get(row.channel)?.name ?? row.channel;
  const label = (row) => {
    const channel = byId.get(row.channel);
    return h("a", { href: `#/analytics?channel=${encodeURIComponent(row.channel)}`, class: "channel-link" }, channel?.type === "personal" ? [avatar(channel), " "] : null, named(row));
  };
  return chartFigure({
    id: "channels",
    title: "Channels side by side",
    note: "Each person's profile and each page over the period: its posts, their impressions and its engagement rate (interactions per impression). Click a bar to see the channel alone.",
    draw: (width) =>
      barChart(
        width,
        rows.map((row) => ({
          label: named(row),
          value: row.engagement ?? 0,
          text: `${percent(row.engagement)} · ${compact(row.impressions ?? 0)} impr. · ${count(row.posts)} post${row.posts === 1 ? "" : "s"}`,
          onclick: () => {
            location.hash = `#/analytics?channel=${encodeURIComponent(row.channel)}`;
          },
        })),
      ),
    table: figureTable(
      "Each channel over the period",
      ["Channel", "Posts", "Impressions", "Engagement rate", "Reactions", "Comments"],
      rows.map((row) => [label(row), count(row.posts), count(row.impressions), percent(row.engagement), count(row.reactions), count(row.comments)]),
    ),
  });
}

function weeklyChart(weeks) {
  const labels = weeks.map((w) => weekFormat.format(new Date(`${w.week}T00:00:00Z`)));
  return chartFigure({
    id: "weekly",
    title: "Week by week",
    note: [
      h("span", { class: "legend" }, h("span", { class: "key key-impressions" }, "Impressions (left)"), h("span", { class: "key key-engagement" }, "Engagement rate (right)")),
      " Of the posts published that week, as their latest figures stand; a gap: nothing went out.",
    ],
    draw: (width) =>
      lineChart(width, {
        labels,
        series: [
          { name: "impressions", values: weeks.map((w) => (w.posts ? w.impressions : null)), side: "left", className: "impressions", format: count, axisFormat: compact },
          { name: "engagement rate", values: weeks.map((w) => w.engagement), side: "right", className: "engagement", format: percent, axisFormat: (v) => percent(v).replace(/\.0(?=\D*$)/, "") },
        ],
      }),
    table: figureTable(
      "Each week (starting Monday)",
      ["Week of", "Posts", "Impressions", "Engagement rate", "Reactions", "Comments", "Reshares", "Clicks"],
      weeks.map((w) => [w.week, count(w.posts), count(w.impressions), percent(w.engagement), count(w.reactions), count(w.comments), count(w.reshares), count(w.clicks)]),
    ),
  });
}

function heatFigure(data) {
  const marked = new Set(data.suggested_slots.map((slot) => `${slot.day}-${Number(slot.time.slice(0, 2))}`));
  const top = Math.max(0, ...data.grid.map((c) => c.engagement ?? 0));
  const busy = data.grid.filter((c) => c.posts);
  return chartFigure({
    id: "heatmap",
    title: "Engagement by day and hour",
    note: [`Mean engagement of the posts published at each hour, in ${data.timezone}. `, heatLegend(top)],
    draw: (width) => heatmap(width, data.grid, { marked }),
    table: figureTable(
      `Hours with posts, in ${data.timezone} (the others had none)`,
      ["Day and hour", "Mean engagement", "Posts with figures", "Posts published"],
      busy.map((c) => [`${dayName(c.day)} ${hourLabel(c.hour)}`, percent(c.engagement), count(c.measured), count(c.posts)]),
    ),
  });
}

function topChart(top) {
  const label = (post) => excerpt(post.content, 90);
  return chartFigure({
    id: "top-posts",
    title: "Top posts by engagement",
    note: "Engagement: reactions, comments, reshares and clicks per impression. Click a bar to open the post.",
    draw: (width) =>
      barChart(
        width,
        top.map((post) => ({
          label: label(post),
          value: post.engagement,
          text: `${percent(post.engagement)} · ${compact(post.impressions)} impr.`,
          onclick: () => {
            location.hash = `#/posts/${post.post_id}`;
          },
        })),
      ),
    table: figureTable(
      "The ten posts with the highest engagement",
      ["Post", "Published", "Engagement", "Impressions", "Reactions", "Comments", "Reshares", "Clicks"],
      top.map((post) => [
        h("a", { href: `#/posts/${post.post_id}` }, label(post)),
        time.timeElement(post.published_at),
        percent(post.engagement),
        count(post.impressions),
        count(post.reactions),
        count(post.comments),
        count(post.reshares),
        count(post.clicks),
      ]),
    ),
  });
}

/** The suggested slots in words, and the button that adds them to the channel. */
function bestTimes(data, channel, session, reload) {
  const box = h("section", { class: "panel best-times", "aria-labelledby": "best-times-title" });
  const title = h("h2", { id: "best-times-title" }, "Best times to post");
  const messages = h("div", { class: "messages", tabindex: "-1" });
  const how = h(
    "p",
    { class: "hint" },
    "A time is suggested when at least 5 of its posts have figures, their mean engagement is at least 10% above the channel's mean, and that lead is clear at 95% confidence after allowing for the number of hours compared: not the luck of one or two posts.",
  );
  if (!data.channel) {
    box.append(title, h("p", {}, "Choose a channel: its best times come from its own posts, in its own time zone."), how);
    return box;
  }
  const slots = data.suggested_slots;
  if (!slots.length) {
    box.append(title, h("p", {}, "No time stands out yet for this channel."), how);
    return box;
  }
  const mean = data.totals.mean_engagement;
  box.append(
    title,
    h("p", { class: "hint" }, `In ${data.timezone}, against the channel's mean engagement of ${percent(mean)}:`),
    h(
      "ol",
      { class: "suggested-slots" },
      slots.map((slot) =>
        h(
          "li",
          { class: "suggested-slot", dataset: { day: slot.day, time: slot.time } },
          h("strong", { class: "slot-when" }, `★ ${dayName(slot.day)} ${slot.time}`),
          h("span", { class: "slot-why" }, `${percent(slot.engagement)} engagement, ${wholePercent(slot.lift)} above the mean, from ${slot.posts} posts`),
          slot.in_slots ? h("span", { class: "badge slot-kept" }, "Already a slot") : null,
        ),
      ),
    ),
  );
  const missing = slots.filter((slot) => !slot.in_slots);
  if (!channel) {
    box.append(h("p", { class: "hint" }, `The channel ${data.channel} is not set up, so it has no posting slots to add these to. `, h("a", { href: `#/channels?new=${encodeURIComponent(data.channel)}` }, "Set it up")));
  } else if (!missing.length) {
    box.append(h("p", { class: "hint" }, `${channel.name} posts at these times already.`));
  } else if (session.can("posts:write")) {
    const words = missing.map((slot) => `${dayName(slot.day)} ${slot.time}`);
    const add = h("button", { type: "button", class: "button button-primary", id: "add-slots" }, "Add these slots to the channel");
    add.addEventListener("click", async () => {
      const question = `Add ${list(words)} to ${channel.name}'s posting slots (${data.timezone})? Add to queue will use them from then on.`;
      if (!(await confirmAction(question, missing.length === 1 ? "Add the slot" : "Add the slots"))) return;
      add.disabled = true;
      try {
        const fresh = (await call("GET", `/channels-item/${encodeURIComponent(channel.id)}`)).data;
        const have = new Set(fresh.slots.map((s) => `${s.day} ${s.time}`));
        const added = missing.filter((slot) => !have.has(`${slot.day} ${slot.time}`));
        const changed = [...fresh.slots, ...added.map(({ day, time: at }) => ({ day, time: at }))];
        if (added.length) await call("PATCH", `/channels-item/${encodeURIComponent(channel.id)}`, { body: { slots: changed }, version: fresh.version });
        notify(added.length ? `Added to ${channel.name}'s slots: ${list(added.map((slot) => `${dayName(slot.day)} ${slot.time}`))}.` : `${channel.name} has these slots already.`);
        await reload();
      } catch (error) {
        add.disabled = false;
        show(messages, explain(error));
        messages.focus();
      }
    });
    box.append(h("div", { class: "actions" }, add, h("a", { class: "button", href: "#/channels" }, "See the channel's slots")), messages);
  } else {
    box.append(h("p", { class: "hint" }, "This key lacks posts:write, so it cannot add slots to the channel."));
  }
  box.append(how);
  return box;
}

const wholePercent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 0 }).format;
const list = (words) => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`);
