// What a Scheduled post waits for, in people's words, from the publisher's
// own state: a channel this service publishes itself goes out in a moment
// when due, and one it could not send yet says why and when it tries again
// (the post's `retrying`: "LinkedIn could not be reached; trying again at
// 23:40 (3rd try)"); an automation's channel waits for the automation.
import { h } from "./dom.js";
import { channelById } from "./profiles.js";
import * as time from "./time.js";
import { countdown } from "./widgets.js";

const ORDINAL = ["th", "st", "nd", "rd"];
const nth = (n) => `${n}${(n % 100 >= 11 && n % 100 <= 13) || n % 10 > 3 ? "th" : ORDINAL[n % 10]}`;

/** The cause the publisher gave, said as a person would. */
export function causeInWords(cause) {
  if (/\b429\b|rate limit|too many/i.test(cause)) return "LinkedIn asked to wait before the next post";
  if (/\b5\d\d\b/.test(cause)) return "LinkedIn had a problem on its side";
  if (/connection|did not resolve|no answer within|TLS|reach/i.test(cause)) return "LinkedIn could not be reached";
  return cause;
}

/** Whether this service itself publishes the post's channel. */
export const publishedByService = (post) => channelById(post.channel_id)?.publisher === "linkedin";

/** The Due cell or note of a Scheduled post. */
export function dueState(post, before = "in {}") {
  if (post.retrying) {
    const { cause, next_try_at: at, tries } = post.retrying;
    return h("span", { class: "retrying", title: cause }, `${causeInWords(cause)}; trying again at `, time.timeElement(at, time.clock(at)), ` (${nth(tries + 1)} try)`);
  }
  const due = publishedByService(post) ? "due now: this service is sending it" : "due now: waiting for the automation to take it";
  return countdown(post.scheduled_at, before, due);
}
