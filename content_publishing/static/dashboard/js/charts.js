// Charts drawn by the page itself as SVG (no library, no build step): a line
// chart with a scale on each side, horizontal bars, a weekday x hour heatmap.
// Each is drawn for the width it is given, in pixels, so its text stays 12 px
// from a phone to a wide screen; it is redrawn when the width changes. The
// SVG is hidden from screen readers: the table that goes with every chart
// (chartFigure) holds the same figures, and a button shows it to everyone.
// Colours and lines come from dashboard.css (classes), since the page's
// Content-Security-Policy allows no inline style; SVG attributes are not style.
import { h } from "./dom.js";

// The SVG namespace as the HTML parser gives it to an <svg> (the page's files
// name no address of another host, not even this identifier).
const NS = new DOMParser().parseFromString("<svg></svg>", "text/html").body.firstChild.namespaceURI;
const TEXT = 12; // px
const FONT_WIDTH = 0.6; // of the text size: a generous average for cutting labels

/** s("rect", {x: 1, class: "bar"}, child, ...): an SVG element. */
export function s(tag, attrs = {}, ...children) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

const numberFormat = new Intl.NumberFormat(undefined);
const compactFormat = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
const percentFormat = new Intl.NumberFormat(undefined, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

export const count = (n) => (n === null || n === undefined ? "—" : numberFormat.format(n));
export const compact = (n) => (n === null || n === undefined ? "—" : compactFormat.format(n));
export const percent = (x) => (x === null || x === undefined ? "—" : percentFormat.format(x));

/** A round top for a scale from 0 that holds `max`, and its step. */
function niceScale(max, ticks = 4) {
  if (!(max > 0)) return { top: 1, step: 0.25 };
  const rough = max / ticks;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= rough);
  return { top: Math.ceil(max / step) * step, step };
}

function svgRoot(width, height, className) {
  return s("svg", { class: `chart ${className}`, width, height, viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true", focusable: "false" });
}

/** A text cut to fit `pixels` at the chart's text size. */
export function fit(text, pixels) {
  const room = Math.max(4, Math.floor(pixels / (TEXT * FONT_WIDTH)));
  const chars = Array.from(text);
  return chars.length <= room ? text : `${chars.slice(0, room - 1).join("").trimEnd()}…`;
}

/**
 * Lines over evenly spaced labels, each series on the left scale or the
 * right one: lineChart(width, {labels, series: [{name, values, side: "left" |
 * "right", className, format, axisFormat}]}). A missing value (null) breaks
 * its line.
 */
export function lineChart(width, { labels, series, height = width < 560 ? 220 : 260 }) {
  const margin = { top: 14, right: 52, bottom: 34, left: 52 };
  const plotW = Math.max(40, width - margin.left - margin.right);
  const plotH = height - margin.top - margin.bottom;
  const svg = svgRoot(width, height, "line-chart");
  const n = labels.length;
  const x = (i) => margin.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const scales = {};
  for (const side of ["left", "right"]) {
    const values = series.filter((one) => one.side === side).flatMap((one) => one.values.filter((v) => v !== null && v !== undefined));
    if (values.length || series.some((one) => one.side === side)) scales[side] = niceScale(Math.max(0, ...values));
  }
  const y = (side, value) => margin.top + plotH - (value / scales[side].top) * plotH;
  // The grid and the scales' labels, on the left scale's ticks.
  for (const [side, scale] of Object.entries(scales)) {
    const format = series.find((one) => one.side === side).axisFormat;
    for (let value = 0; value <= scale.top + scale.step / 2; value += scale.step) {
      const at = y(side, value);
      if (side === "left") svg.append(s("line", { class: "grid", x1: margin.left, x2: margin.left + plotW, y1: at, y2: at }));
      const anchor = side === "left" ? { x: margin.left - 6, "text-anchor": "end" } : { x: margin.left + plotW + 6, "text-anchor": "start" };
      svg.append(s("text", { class: `axis axis-${side}`, y: at + 4, ...anchor }, format(value)));
    }
  }
  // Labels along the bottom, as many as fit without touching.
  const longest = Math.max(1, ...labels.map((label) => label.length));
  const spacing = n > 1 ? plotW / (n - 1) : plotW;
  const every = Math.max(1, Math.ceil((longest * TEXT * FONT_WIDTH + 10) / spacing));
  labels.forEach((label, i) => {
    if (i % every === 0) svg.append(s("text", { class: "axis", x: x(i), y: height - 10, "text-anchor": "middle" }, label));
  });
  svg.append(s("line", { class: "baseline", x1: margin.left, x2: margin.left + plotW, y1: margin.top + plotH, y2: margin.top + plotH }));
  for (const one of series) {
    let run = [];
    const runs = [];
    one.values.forEach((value, i) => {
      if (value === null || value === undefined) {
        if (run.length) runs.push(run);
        run = [];
      } else run.push([x(i), y(one.side, value), i]);
    });
    if (run.length) runs.push(run);
    for (const points of runs) {
      svg.append(s("polyline", { class: `series ${one.className}`, points: points.map(([px, py]) => `${px},${py}`).join(" ") }));
      for (const [px, py, i] of points) {
        svg.append(s("circle", { class: `point ${one.className}`, cx: px, cy: py, r: 3.5 }, s("title", {}, `${labels[i]}: ${one.name} ${one.format(one.values[i])}`)));
      }
    }
  }
  return svg;
}

/** Horizontal bars, one row each: barChart(width, [{label, value, text,
 *  onclick}], {max}): the label above its bar, the value's text after it. */
export function barChart(width, rows, { max } = {}) {
  const rowH = 46;
  const height = rows.length * rowH + 4;
  const svg = svgRoot(width, height, "bar-chart");
  const top = max ?? Math.max(0, ...rows.map((row) => row.value));
  // Room after the longest bar for the longest value, so that none is cut.
  const longest = Math.max(0, ...rows.map((row) => Array.from(row.text).length));
  const valueRoom = Math.min(width * 0.5, longest * TEXT * FONT_WIDTH + 12);
  const barRoom = Math.max(20, width - valueRoom - 4);
  rows.forEach((row, i) => {
    const y0 = i * rowH;
    const length = top > 0 ? Math.max(2, (row.value / top) * barRoom) : 2;
    const group = s(
      "g",
      { class: row.onclick ? "bar-row bar-link" : "bar-row", onclick: row.onclick },
      s("title", {}, `${row.label}: ${row.text}`),
      s("text", { class: "bar-label", x: 0, y: y0 + 15 }, fit(row.label, width - 4)),
      s("rect", { class: "bar", x: 0, y: y0 + 22, width: length, height: 16, rx: 3 }),
      s("text", { class: "bar-value", x: length + 6, y: y0 + 35 }, row.text),
    );
    svg.append(group);
  });
  return svg;
}

const DAY_NAMES = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };
export const DAYS = Object.keys(DAY_NAMES);
export const dayName = (day) => DAY_NAMES[day];
export const hourLabel = (hour) => `${String(hour).padStart(2, "0")}:00`;

/** A light-to-dark blue for `share` (0-1) of the highest mean. */
function heat(share) {
  const from = [232, 238, 252];
  const to = [24, 56, 160];
  const mix = from.map((c, k) => Math.round(c + (to[k] - c) * Math.min(1, Math.max(0, share))));
  return `rgb(${mix.join(",")})`;
}

/**
 * The week as a grid of hours, each cell coloured by its mean engagement,
 * empty where nothing went out: heatmap(width, cells [{day, hour, posts,
 * measured, engagement}], {marked: Set of "day-hour"}). Days are rows on a
 * wide screen and columns on a narrow one, so that a cell stays big enough
 * to see and to touch.
 */
export function heatmap(width, cells, { marked = new Set() } = {}) {
  const wide = width >= 640;
  const labelW = 44;
  const headH = 22;
  const hours = [...Array(24).keys()];
  const cols = wide ? 24 : 7;
  const cellW = Math.max(12, (width - labelW) / cols);
  const cellH = wide ? 30 : 22;
  const rows = wide ? 7 : 24;
  const height = headH + rows * cellH + 2;
  const svg = svgRoot(width, height, "heatmap");
  const top = Math.max(0, ...cells.map((cell) => cell.engagement ?? 0));
  const byKey = new Map(cells.map((cell) => [`${cell.day}-${cell.hour}`, cell]));
  const place = (dayIndex, hour) => (wide ? [labelW + hour * cellW, headH + dayIndex * cellH] : [labelW + dayIndex * cellW, headH + hour * cellH]);
  if (wide) {
    for (const hour of hours) {
      if (hour % 3 === 0) svg.append(s("text", { class: "axis", x: labelW + hour * cellW + 2, y: 14 }, hourLabel(hour)));
    }
    DAYS.forEach((day, d) => svg.append(s("text", { class: "axis", x: 0, y: headH + d * cellH + cellH / 2 + 4 }, dayName(day))));
  } else {
    DAYS.forEach((day, d) => svg.append(s("text", { class: "axis", x: labelW + d * cellW + cellW / 2, y: 14, "text-anchor": "middle" }, dayName(day))));
    for (const hour of hours) svg.append(s("text", { class: "axis", x: 0, y: headH + hour * cellH + cellH / 2 + 4 }, hourLabel(hour)));
  }
  const showValues = cellW >= 34;
  DAYS.forEach((day, d) => {
    for (const hour of hours) {
      const cell = byKey.get(`${day}-${hour}`) ?? { posts: 0, measured: 0, engagement: null };
      const [cx, cy] = place(d, hour);
      const known = cell.engagement !== null && cell.engagement !== undefined;
      const share = known && top > 0 ? cell.engagement / top : 0;
      const words = known
        ? `${dayName(day)} ${hourLabel(hour)}: ${percent(cell.engagement)} mean engagement, ${cell.measured} post${cell.measured === 1 ? "" : "s"} with figures`
        : `${dayName(day)} ${hourLabel(hour)}: ${cell.posts ? `${cell.posts} post${cell.posts === 1 ? "" : "s"}, no figures yet` : "nothing published"}`;
      const group = s(
        "g",
        { class: marked.has(`${day}-${hour}`) ? "cell cell-suggested" : "cell" },
        s("title", {}, words),
        s("rect", { class: known ? "cell-box" : "cell-box cell-empty", x: cx + 1, y: cy + 1, width: cellW - 2, height: cellH - 2, rx: 3, fill: known ? heat(share) : null }),
      );
      group.setAttribute("data-cell", `${day}-${hour}`);
      if (known && showValues) {
        group.append(s("text", { class: share > 0.55 ? "cell-value cell-value-dark" : "cell-value", x: cx + cellW / 2, y: cy + cellH / 2 + 4, "text-anchor": "middle" }, (cell.engagement * 100).toFixed(1)));
      }
      if (marked.has(`${day}-${hour}`)) {
        group.append(s("rect", { class: "cell-mark", x: cx + 2, y: cy + 2, width: cellW - 4, height: cellH - 4, rx: 3 }));
      }
      svg.append(group);
    }
  });
  return svg;
}

/** The scale of the heatmap in words and colours: "lower … higher". */
export function heatLegend(top) {
  const steps = [0, 0.25, 0.5, 0.75, 1];
  const svg = s("svg", { class: "heat-legend", width: 150, height: 14, viewBox: "0 0 150 14", "aria-hidden": "true", focusable: "false" });
  steps.forEach((share, i) => svg.append(s("rect", { x: i * 30, y: 0, width: 30, height: 14, fill: heat(share) })));
  return h(
    "span",
    { class: "legend-block" },
    h("span", { class: "legend-scale" }, percent(0), svg, percent(top)),
    h("span", { class: "legend-note" }, "Grey: nothing published, or no figures yet. Outlined in orange: a suggested time."),
  );
}

/**
 * A chart with its figures: a <figure> holding the caption, the chart (for
 * the eye) and a table (for screen readers, and for anyone who presses
 * "Show the figures"). `draw(width)` makes the SVG for the figure's width;
 * it is drawn again when the window is resized.
 */
export function chartFigure({ title, note, draw, table, id }) {
  const canvas = h("div", { class: "chart-canvas" });
  const tableBox = h("div", { class: "chart-table visually-hidden", id: `${id}-table` }, table);
  const toggle = h("button", { type: "button", class: "button button-small chart-toggle", "aria-expanded": "false", "aria-controls": `${id}-table` }, "Show the figures");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "Hide the figures" : "Show the figures";
    tableBox.classList.toggle("visually-hidden", !open);
  });
  const figure = h(
    "figure",
    { class: "chart-figure panel", id },
    h("figcaption", { class: "chart-head" }, h("h2", { class: "chart-title" }, title), toggle),
    note ? h("p", { class: "hint chart-note" }, note) : null,
    canvas,
    tableBox,
  );
  let drawnFor = 0;
  const redraw = () => {
    const width = Math.floor(canvas.clientWidth);
    if (!width || width === drawnFor) return;
    drawnFor = width;
    canvas.replaceChildren(draw(width));
  };
  requestAnimationFrame(redraw);
  figure.redraw = redraw;
  return figure;
}

/** Redraw every chart on the page for its new width (a resize, a rotation). */
let pending = 0;
window.addEventListener("resize", () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(() => {
    for (const figure of document.querySelectorAll(".chart-figure")) figure.redraw?.();
  });
});

/** A plain table: head [labels], rows [[cells]]; cells may be nodes. */
export function figureTable(caption, head, rows) {
  return h(
    "table",
    { class: "list-table figure-table" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, head.map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell, i) => (i === 0 ? h("th", { scope: "row" }, cell) : h("td", {}, cell)))))),
  );
}
