// Times: the API speaks UTC (RFC 3339 with Z); the page shows the browser's
// time zone and keeps UTC one hover away (the title of every <time>).
import { h } from "./dom.js";

export const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

const WHEN = { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" };
const localFormat = new Intl.DateTimeFormat(undefined, WHEN);
const utcFormat = new Intl.DateTimeFormat(undefined, { ...WHEN, timeZone: "UTC", timeZoneName: "short" });
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
const longDayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "long", year: "numeric" });

const shortFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

export const local = (iso) => localFormat.format(new Date(iso));
/** "Tue 1 Dec, 09:00": the year too when it is not this one. */
export const short = (iso) => (new Date(iso).getFullYear() === new Date().getFullYear() ? shortFormat.format(new Date(iso)) : local(iso));
export const utc = (iso) => utcFormat.format(new Date(iso));
export const clock = (iso) => clockFormat.format(new Date(iso));
export const dayLabel = (date) => dayFormat.format(date);
/** "13–19 January 2025": the days from `first` to `last`. */
export const dayRange = (first, last) => longDayFormat.formatRange(first, last);

/** <time> showing `iso` in the browser's zone (or `text`), UTC on hover. */
export function timeElement(iso, text = local(iso)) {
  return h("time", { datetime: iso, title: utc(iso) }, text);
}

// Weeks start on the locale's first day (Monday unless the locale says
// otherwise); days are local calendar days, so a week across a daylight
// saving change still has seven of them.
function firstWeekday() {
  const locale = new Intl.Locale(navigator.language || "en");
  const info = locale.getWeekInfo?.() ?? locale.weekInfo;
  return (info?.firstDay ?? 1) % 7; // Intl counts Sunday as 7, Date as 0
}

export function startOfWeek(date) {
  const day = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  const back = (day.getDay() - firstWeekday() + 7) % 7;
  return addDays(day, -back);
}

export function addDays(date, days) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

const pad = (n) => String(n).padStart(2, "0");

/** "2025-01-13": a local calendar day, as used in the calendar's address. */
export function dayKey(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function parseDayKey(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || "");
  return match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : null;
}

/** The value a datetime-local input holds for `date`, to the minute. */
export function toLocalInput(date) {
  return `${dayKey(date)}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value ("2025-01-13T08:00") as a Date in the browser's zone. */
export function fromLocalInput(value) {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(value); // no offset: read as local time
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "2 h 5 min", "9 min 58 s", "12 s": how long `ms` is, roughly. */
export function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600);
  const min = Math.floor((s % 3600) / 60), sec = s % 60;
  if (d) return hr ? `${d} d ${hr} h` : `${d} d`;
  if (hr) return min ? `${hr} h ${min} min` : `${hr} h`;
  if (min) return sec ? `${min} min ${sec} s` : `${min} min`;
  return `${sec} s`;
}
