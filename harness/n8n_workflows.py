"""The n8n kit's workflows (integrations/n8n/*.json), written here once.

The kit's four workflows: claim and publish, push (post.due) and publish,
tell a person when a post fails, and collect stats. Both publishing
workflows run the same publish plan (docs/linkedin.md) with
the same nodes, from **Plan** to the reports; only how a post comes in
differs (a claim of one post at a time, or a post.due delivery). Writing
the shared nodes once keeps the two from drifting apart.

    python -m harness.n8n_workflows          write integrations/n8n/*.json
    python -m harness.n8n_workflows --check  exit 1 if one differs from this

`tests/test_n8n_kit.py` (in `make test`) checks that the shipped files are
what this writes; `make test-n8n` runs them on real n8n.
"""

import json
import sys
import uuid

from harness.paths import ROOT

KIT = ROOT / "integrations" / "n8n"
CLAIM_ID, PUSH_ID, NOTIFY_ID = "cpsClaimPublish1", "cpsPushPublish01", "cpsNotifyFailed1"
COLLECT_ID = "cpsCollectStats1"
API_KEY = {"id": "cpsApiKeyHeader1", "name": "Content Publishing API key"}
LINKEDIN = {"id": "linkedInBearer01", "name": "LinkedIn access token"}
HOOK_TOKEN = {"id": "cpsHookToken0001", "name": "Content Publishing webhook token"}
FAILED_TOKEN = {"id": "cpsHookToken0002", "name": "Content Publishing webhook token (post.failed)"}
SMTP = {"id": "cpsSmtpAccount01", "name": "Mail account (SMTP)"}
PUSH_PATH = "content-publishing-post-due"
FAILED_PATH = "content-publishing-post-failed"
LINKEDIN_TIMEOUT_MS = 30000
# How long a give-back waits for LinkedIn's Retry-After at most, in the claim
# workflow: n8n keeps a shorter wait in memory, so that `n8n execute` and a
# scheduled run wait alike; the post then waits for the next run.
CLAIM_MAX_WAIT = 60
# After an unknown outcome: how long the workflow waits before it looks for
# the post among the author's newest ones (LinkedIn may list a new post a
# moment later), and how much earlier than the send a post found may have
# been made (LinkedIn's clock and n8n's differ); as the service's own
# publisher does (publisher/run.py).
CHECK_DELAY_SECONDS = 5
CLOCK_ALLOWANCE_MS = 5000
POSTS_CHECKED = 50


# --- the JavaScript of the Code nodes --------------------------------------------------------

# Shared by the Code nodes that read a LinkedIn answer (an HTTP Request node
# with the full response and "never error": statusCode, headers, body; or,
# when no answer came, `error`).
SAID = r"""
function said(r) {
  if (r.error) {
    const e = r.error;
    const why = (e && (e.description || e.message || e.code)) || JSON.stringify(e);
    return `no answer from LinkedIn (${String(why).slice(0, 300)})`;
  }
  const b = r.body;
  let m = r.statusMessage || 'no message';
  if (b && typeof b === 'object') m = b.message || JSON.stringify(b);
  else if (typeof b === 'string' && b) {
    try { m = JSON.parse(b).message || b; } catch (_) { m = b; }
  }
  return `LinkedIn answered ${r.statusCode}: ${String(m).slice(0, 500)}`;
}
function errorCode(r) {
  const e = r.error || {};
  return e.code || (e.cause && e.cause.code) || (String(e.message || '').match(/\b(E[A-Z_]{4,})\b/) || [])[1] || '';
}
// Errors that prove the request never reached LinkedIn: nothing was created.
const NOTHING_SENT = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];
function retryAfter(value, most) {
  let seconds = Number(value);
  if (value === undefined || value === null || value === '' || Number.isNaN(seconds)) {
    const at = Date.parse(value);
    seconds = Number.isNaN(at) ? 60 : (at - Date.now()) / 1000;
  }
  return Math.min(Math.max(Math.ceil(seconds), 1), most);
}
"""

PLAN_CHECK = r"""
function planProblem(plan) {
  if (!plan || typeof plan !== 'object' || !plan.url || !plan.body) {
    return 'The handoff carries no linkedin_request to send: nothing was sent to LinkedIn.';
  }
  const media = plan.media || [];
  if (media.length && !(plan.uploads || []).length) {
    return `The post has ${media.length} media URL(s) but its linkedin_request has no uploads `
      + '(the publish plan of a newer service): update the service, then retry the post. '
      + 'Nothing was sent to LinkedIn.';
  }
  return null;
}
function planned(fields) {
  const plan = fields.plan || {};
  const problem = planProblem(plan);
  const item = {...fields, uploads: plan.uploads || [], after: plan.after || []};
  if (problem) Object.assign(item, {outcome: 'failed', last_error: problem});
  return [{json: item}];
}
"""

CLAIM_PLAN = (
    PLAN_CHECK
    + r"""
// One claimed post (this run claims one at a time): what the next nodes need.
const settings = $('Settings').first().json;
const post = $input.first().json.data[0];
const service = String(settings.baseUrl).replace(/\/+$/, '');
return planned({
  post_id: post.id,
  plan: post.linkedin_request,
  service,
  callback_url: `${service}/functions/v1/make-post-callback`,
  max_wait: Math.min(CLAIM_MAX_WAIT, Math.max(1, Math.floor(Number(settings.leaseSeconds) / 2))),
});
""".replace("CLAIM_MAX_WAIT", str(CLAIM_MAX_WAIT))
)

PUSH_PLAN = (
    PLAN_CHECK
    + r"""
// The post.due delivery (already acknowledged): what the next nodes need.
const data = $('Drop repeats').first().json.body.data;
const callback = String(data.callback_url);
return planned({
  post_id: data.post.id,
  plan: data.linkedin_request,
  service: callback.replace(/\/functions\/v1\/make-post-callback$/, ''),
  callback_url: callback,
  max_wait: Math.max(1, Math.floor(Number(data.lease_seconds || 600) / 2)),
});
"""
)

ONE_ITEM_PER_UPLOAD = r"""
// Each upload of the plan, in order, as an item of its own.
const plan = $('Plan').first().json;
return plan.uploads.map((upload, index) => ({json: {...upload, index, post_id: plan.post_id}}));
"""

CHECK_INITIALIZED = (
    SAID
    + r"""
// Every upload got its uploadUrl and URN, or the post goes no further.
const plan = $('Plan').first().json;
const uploads = $('One item per upload').all().map((item) => item.json);
const answers = $input.all().map((item) => item.json);
const out = [];
for (const [i, upload] of uploads.entries()) {
  const r = answers[i] || {error: {message: 'no answer'}};
  const value = r.body && typeof r.body === 'object' ? r.body.value : null;
  const urn = value && (value.image || value.document);
  if (r.statusCode === 200 && value && value.uploadUrl && urn) {
    out.push({json: {...upload, upload_url: value.uploadUrl, urn}});
    continue;
  }
  const why = `Upload ${i + 1} of ${uploads.length} (${upload.ref}) could not start: ${said(r)}. `
    + 'Nothing was posted.';
  if (r.statusCode === 429) {
    const retry = retryAfter(r.headers && r.headers['retry-after'], plan.max_wait);
    return [{json: {post_id: plan.post_id, outcome: 'give_back', retry_after: retry, last_error: why}}];
  }
  return [{json: {post_id: plan.post_id, outcome: 'failed', last_error: why}}];
}
return out;
"""
)

CHECK_UPLOADED = (
    SAID
    + r"""
// The bytes of every upload were fetched whole and taken by LinkedIn: the
// URN of each ref, or the post goes no further.
const plan = $('Plan').first().json;
const uploads = $('Check initialization').all().map((item) => item.json);
const fetched = $('Fetch the bytes').all();
const put = $input.all().map((item) => item.json);
const refs = {};
for (const [i, upload] of uploads.entries()) {
  const got = fetched[i] ? fetched[i].json : {error: {message: 'not fetched'}};
  const data = fetched[i] && fetched[i].binary && fetched[i].binary.data;
  let why = null;
  if (got.error || !(got.statusCode >= 200 && got.statusCode < 300) || !data) {
    why = `its bytes could not be fetched from ${upload.source} (`
      + `${got.error ? (got.error.message || got.error.code) : 'HTTP ' + got.statusCode})`;
  } else if (upload.bytes && data.bytes && Number(data.bytes) !== Number(upload.bytes)) {
    why = `${upload.source} gave ${data.bytes} bytes, not the ${upload.bytes} of the plan`;
  } else if (!(put[i] && put[i].statusCode >= 200 && put[i].statusCode < 300)) {
    why = `LinkedIn did not take its bytes: ${said(put[i] || {error: {message: 'no answer'}})}`;
  }
  if (why) {
    return [{json: {
      post_id: plan.post_id,
      outcome: put[i] && put[i].statusCode === 429 ? 'give_back' : 'failed',
      retry_after: retryAfter(put[i] && put[i].headers && put[i].headers['retry-after'], plan.max_wait),
      last_error: `Upload ${i + 1} of ${uploads.length} (${upload.ref}): ${why}. Nothing was posted.`,
    }}];
  }
  refs[upload.ref] = upload.urn;
}
return [{json: {post_id: plan.post_id, refs}}];
"""
)

FILL = r"""
// {{ref}} -> the URN LinkedIn gave that upload (in URLs percent-encoded).
function fill(value, names, inUrl) {
  if (typeof value === 'string') {
    return value.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (whole, ref) =>
      ref in names ? (inUrl ? encodeURIComponent(names[ref]) : names[ref]) : whole);
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, names, inUrl));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, names, inUrl)]));
  }
  return value;
}
function headersOf(step) {
  // The credential sends Authorization; the rest as the plan says.
  return Object.fromEntries(Object.entries(step.headers || {})
    .filter(([name]) => name.toLowerCase() !== 'authorization'));
}
"""

FILL_POST = (
    FILL
    + r"""
// The post as LinkedIn must get it: every {{ref}} replaced by its URN.
const plan = $('Plan').first().json;
const refs = $input.first().json.refs || {};
return [{json: {
  post_id: plan.post_id,
  url: fill(plan.plan.url, refs, true),
  headers: headersOf(plan.plan),
  body: fill(plan.plan.body, refs, false),
  sent_at: Date.now(),  // an unknown outcome looks for posts made since
}}];
"""
)

POST_OUTCOME = (
    SAID
    + r"""
// What LinkedIn's answer to the post proves. 201: published. 429, or no
// connection at all: nothing was created, so the post is given back, after
// Retry-After. Another 4xx: refused, Failed. A 5xx, a timeout or a dropped
// connection: the outcome is unknown; the post is never sent again blind,
// but looked for among the author's newest posts (the next nodes).
const plan = $('Plan').first().json;
const r = $input.first().json;
const out = {post_id: plan.post_id};
const status = r.statusCode;
if (status === 201 && r.headers && r.headers['x-restli-id']) {
  Object.assign(out, {outcome: 'published', linkedin_post_id: r.headers['x-restli-id']});
} else if (status === 429) {
  const retry = retryAfter(r.headers && r.headers['retry-after'], plan.max_wait);
  Object.assign(out, {outcome: 'give_back', retry_after: retry, last_error: said(r)});
} else if (status >= 400 && status < 500) {
  Object.assign(out, {outcome: 'failed', last_error: said(r)});
} else if (r.error && NOTHING_SENT.includes(errorCode(r))) {
  Object.assign(out, {outcome: 'give_back', retry_after: retryAfter(null, plan.max_wait), last_error: said(r)});
} else {
  Object.assign(out, {
    outcome: 'unknown',
    why: said(r),
    sent_at: $('Fill in the URNs').first().json.sent_at,
  });
}
return [{json: out}];
"""
)

FIND_URL = r"""={{ (() => {
  const plan = $('Plan').first().json.plan;
  const author = encodeURIComponent(plan.body.author || '');
  return `${plan.url}?q=author&author=${author}&count=POSTS_CHECKED`;
})() }}""".replace("POSTS_CHECKED", str(POSTS_CHECKED))

FOUND_OUTCOME = (
    SAID
    + r"""
// After an unknown outcome: the author's newest posts, read with the
// channel's own LinkedIn token. Those with exactly the commentary sent, made
// since it was sent (less the clocks' allowance), are the candidates: one is
// this post, Published with its URN; none, Failed (most likely never made);
// more than one, Failed naming each, for a person to choose.
const plan = $('Plan').first().json;
const unknown = $('Post outcome').first().json;
const r = $input.first().json;
const author = plan.plan.body.author;
const out = {post_id: plan.post_id};
const start = `Outcome unknown: ${unknown.why}`;
let body = r.body;
if (typeof body === 'string') { try { body = JSON.parse(body); } catch (_) { body = null; } }
if (!(r.statusCode >= 200 && r.statusCode < 300) || !body || !Array.isArray(body.elements)) {
  Object.assign(out, {
    outcome: 'failed',
    last_error: `${start}. LinkedIn may have created the post, and it could not be checked `
      + `(${said(r)}): check the author's feed before retrying it (the kit never retries it blind).`,
  });
  return [{json: out}];
}
const since = Number(unknown.sent_at) - CLOCK_ALLOWANCE_MS;
const found = body.elements
  .filter((e) => e && e.commentary === plan.plan.body.commentary
    && Number(e.createdAt || e.publishedAt || 0) >= since && e.id)
  .map((e) => e.id);
if (found.length === 1) {
  Object.assign(out, {outcome: 'published', linkedin_post_id: found[0]});
} else if (found.length === 0) {
  Object.assign(out, {
    outcome: 'failed',
    last_error: `${start}. The post is not among the newest posts of ${author} on LinkedIn: `
      + 'it was most likely not published. Look on LinkedIn, then retry it, or mark it '
      + 'Published if it is there.',
  });
} else {
  Object.assign(out, {
    outcome: 'failed',
    last_error: `${start}. ${found.length} posts of ${author} on LinkedIn have its text, made `
      + `since it was sent: ${found.join(' and ')}. Which is this one cannot be told: look on `
      + 'LinkedIn, then report it Published with its URN, or retry it if neither is.',
  });
}
return [{json: out}];
""".replace("CLOCK_ALLOWANCE_MS", str(CLOCK_ALLOWANCE_MS))
)

ONE_ITEM_PER_STEP = (
    FILL
    + r"""
// The steps after the post (the first comment), in order: {{post_urn}} is
// the post's URN (x-restli-id), and the upload refs still apply.
const plan = $('Plan').first().json;
const outcome = $input.first().json;
const names = {...(($('Check uploads').isExecuted && $('Check uploads').first().json.refs) || {}),
  post_urn: outcome.linkedin_post_id};
return plan.after.map((step, index) => ({json: {
  ref: step.ref || `after_${index}`,
  method: step.method || 'POST',
  url: fill(step.url, names, true),
  headers: headersOf(step),
  body: fill(step.body, names, false),
}}));
"""
)

AFTER_OUTCOME = (
    SAID
    + r"""
// The post is live whatever happens here: a refused first comment is
// reported beside it (first_comment_error), never as a failed post.
const found = $('Found on LinkedIn?');
const outcome = {...(found.isExecuted ? found.first().json : $('Post outcome').first().json)};
const steps = $('One item per step').all().map((item) => item.json);
const answers = $input.all().map((item) => item.json);
for (const [i, step] of steps.entries()) {
  const r = answers[i] || {error: {message: 'not sent'}};
  if (step.ref !== 'first_comment') continue;
  if (r.statusCode === 201 || r.statusCode === 200) {
    const b = r.body && typeof r.body === 'object' ? r.body : {};
    const header = r.headers && r.headers['x-restli-id'];
    outcome.first_comment_urn = b.commentUrn || b['$URN'] || (header ? decodeURIComponent(header) : null);
  } else {
    outcome.first_comment_error = said(r).slice(0, 1000);
  }
}
return [{json: outcome}];
"""
)

DROP_REPEATS = r"""// Drops a delivery whose webhook-id was seen already (the service retries
// with the same id when it got no 2xx). The ids live in the workflow's static
// data, which n8n keeps for active (production) runs and writes when a run
// ends; they are forgotten after 4 days, past the last retry.
const seen = $getWorkflowStaticData('global');
seen.webhookIds = seen.webhookIds || {};
const now = Date.now();
for (const [id, at] of Object.entries(seen.webhookIds)) {
  if (now - at > 4 * 24 * 3600 * 1000) delete seen.webhookIds[id];
}
return $input.all().map((item) => {
  const id = item.json.headers['webhook-id'];
  const duplicate = Boolean(id && seen.webhookIds[id]);
  if (id && !duplicate) seen.webhookIds[id] = now;
  return { json: { ...item.json, duplicate } };
});
"""

VERIFY_SIGNATURE = r"""// Optional: verify the Standard Webhooks signature. Needs the operator to allow
// the crypto module (NODE_FUNCTION_ALLOW_BUILTIN=crypto), and the Webhook node's
// option "Raw Body" on. Enable this node and set SECRET to the endpoint's secret.
const SECRET = 'whsec_...';
const crypto = require('crypto');
const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
const out = [];
for (const item of $input.all()) {
  const h = item.json.headers;
  const raw = (await this.helpers.getBinaryDataBuffer(out.length, 'data')).toString('utf8');
  const signed = `${h['webhook-id']}.${h['webhook-timestamp']}.${raw}`;
  const expected = crypto.createHmac('sha256', key).update(signed).digest('base64');
  const age = Math.abs(Date.now() / 1000 - Number(h['webhook-timestamp']));
  const given = String(h['webhook-signature'] || '').split(' ').map(s => s.split(',')[1]);
  if (age > 300 || !given.includes(expected)) throw new Error('webhook signature does not verify');
  out.push(item);
}
return out;
"""

NEXT_CLAIM = r"""
// One more claim while this run has published fewer than claimLimit posts.
// A post given back (LinkedIn's 429) ends the run: the rest stay Scheduled.
const done = $runIndex + 1;
const limit = Number($('Settings').first().json.claimLimit);
return done < limit ? [{json: {claimed: done}}] : [];
"""

NOTIFY_MESSAGE = r"""
// One line a person reads: a post that failed (the post.failed event), or a
// run of one of the kit's workflows that failed (n8n's Error Trigger).
const settings = $('Settings').first().json;
const item = $input.first().json;
let subject;
let text;
if (item.body && item.body.type === 'post.failed') {
  const post = item.body.data;
  const excerpt = String(post.content || '').replace(/\s+/g, ' ').slice(0, 120);
  subject = `LinkedIn post failed: ${excerpt}`;
  text = `A LinkedIn post failed (${post.type}${post.brand_id ? ' ' + post.brand_id : ''}, `
    + `scheduled ${post.scheduled_at || 'unscheduled'}).\n\n"${excerpt}"\n\n`
    + `Why: ${post.last_error || 'no reason given'}\n\n`
    + `Open it: ${settings.dashboardUrl || ''}#/posts/${post.id} (post id ${post.id})`;
} else {
  const run = item.execution || {};
  const workflow = item.workflow || {};
  subject = `n8n workflow failed: ${workflow.name || 'a workflow'}`;
  text = `The n8n workflow "${workflow.name || '?'}" failed`
    + `${run.lastNodeExecuted ? ' in node "' + run.lastNodeExecuted + '"' : ''}: `
    + `${(run.error && run.error.message) || 'no message'}.\n${run.url || ''}`;
}
return [{json: {subject, text, notifyBy: settings.notifyBy}}];
"""


# --- nodes -----------------------------------------------------------------------------------

# The collect-stats workflow: which posts to read, and LinkedIn's answers as snapshots.
POSTS_TO_READ = r"""
// One item per post published in the last `days` days, with the LinkedIn
// request that reads its figures: a brand post's through its channel's
// organization, a personal post's social actions.
const settings = $('Settings').first().json;
const api = String(settings.linkedinApi).replace(/\/+$/, '');
const since = Date.now() - Number(settings.days) * 86400000;
const organizations = {};
for (const page of $('Channels').all()) {
  for (const channel of page.json.data || []) {
    if (channel.type === 'brand' && channel.author_urn) organizations[channel.id] = channel.author_urn;
  }
}
const posts = $input.all().flatMap((page) => page.json.data || []);
const wanted = posts.filter((post) => post.linkedin_post_id && Date.parse(post.published_at) >= since);
return wanted.map((post) => {
  const urn = post.linkedin_post_id;
  const organization = post.type === 'brand' ? organizations[post.brand_id] : null;
  let url;
  if (organization) {
    const list = urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
    url = `${api}/rest/organizationalEntityShareStatistics?q=organizationalEntity`
      + `&organizationalEntity=${encodeURIComponent(organization)}&${list}=List(${encodeURIComponent(urn)})`;
  } else {
    url = `${api}/rest/socialActions/${encodeURIComponent(urn)}`;
  }
  return {json: {post_id: post.id, urn, kind: organization ? 'page' : 'member', url}};
});
"""

STATS_SNAPSHOTS = r"""
// LinkedIn's answers as snapshots, taken now; a failed call is left out
// (its post is read again next hour).
const asked = $('Posts to read').all();
const takenAt = new Date().toISOString();
const count = (value) => (Number.isInteger(value) && value >= 0 ? value : null);
const snapshots = [];
$input.all().forEach((answer, index) => {
  const post = asked[index] && asked[index].json;
  const body = answer.json || {};
  if (!post || body.error) return;
  if (post.kind === 'page') {
    const element = (body.elements || [])[0];
    const stats = element && element.totalShareStatistics;
    if (!stats) return;
    snapshots.push({
      post_id: post.post_id,
      taken_at: takenAt,
      impressions: count(stats.impressionCount),
      members_reached: count(stats.uniqueImpressionsCount),
      reactions: count(stats.likeCount),
      comments: count(stats.commentCount),
      reshares: count(stats.shareCount),
      clicks: count(stats.clickCount),
    });
  } else {
    const likes = body.likesSummary || {};
    const comments = body.commentsSummary || {};
    if (likes.totalLikes === undefined && comments.aggregatedTotalComments === undefined) return;
    snapshots.push({
      post_id: post.post_id,
      taken_at: takenAt,
      reactions: count(likes.totalLikes),
      comments: count(comments.aggregatedTotalComments),
    });
  }
});
const batches = [];
for (let start = 0; start < snapshots.length; start += 500) {
  batches.push({json: {data: snapshots.slice(start, start + 500)}});
}
return batches;
"""


def _id(workflow, name):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"content-publishing/n8n/{workflow}/{name}"))


class Workflow:
    """Nodes and connections, as n8n's export has them."""

    def __init__(self, key, name, workflow_id, settings=None):
        self.key, self.name, self.workflow_id = key, name, workflow_id
        self.nodes = []
        self.connections = {}
        self.settings = {"executionOrder": "v1", **(settings or {})}

    def add(self, name, node_type, version, position, parameters, **extra):
        node = {
            "parameters": parameters,
            "id": _id(self.key, name),
            "name": name,
            "type": node_type,
            "typeVersion": version,
            "position": list(position),
            **extra,
        }
        self.nodes.append(node)
        return name

    def connect(self, source, target, output=0):
        outputs = self.connections.setdefault(source, {"main": []})["main"]
        while len(outputs) <= output:
            outputs.append([])
        outputs[output].append({"node": target, "type": "main", "index": 0})

    def export(self):
        return {
            "name": self.name,
            "id": self.workflow_id,
            "nodes": self.nodes,
            "connections": self.connections,
            "active": False,
            "settings": self.settings,
            "pinData": {},
            "tags": [],
        }


def note(wf, name, position, content, width=640, height=320):
    return wf.add(
        name,
        "n8n-nodes-base.stickyNote",
        1,
        position,
        {"content": content, "height": height, "width": width},
    )


def code(wf, name, position, js, **extra):
    return wf.add(name, "n8n-nodes-base.code", 2, position, {"jsCode": js.strip() + "\n"}, **extra)


def condition(wf, name, position, expression):
    """An If node: output 0 when `expression` is true, 1 otherwise."""
    return wf.add(
        name,
        "n8n-nodes-base.if",
        2.2,
        position,
        {
            "conditions": {
                "options": {
                    "caseSensitive": True,
                    "leftValue": "",
                    "typeValidation": "loose",
                    "version": 2,
                },
                "conditions": [
                    {
                        "id": _id(wf.key, name + "/condition"),
                        "leftValue": "={{ " + expression + " }}",
                        "rightValue": "",
                        "operator": {"type": "boolean", "operation": "true", "singleValue": True},
                    }
                ],
                "combinator": "and",
            },
            "options": {},
        },
    )


def http(
    wf,
    name,
    position,
    *,
    method,
    url,
    credential=None,
    headers=None,
    body=None,
    binary=None,
    options=None,
    retry=False,
    on_error="continueRegularOutput",
    notes=None,
    linkedin=False,
):
    """An HTTP Request node. `linkedin`: the full response, never an error
    for a status (the next Code node reads it), an answer-less request as
    an item with `error`."""
    parameters = {"method": method, "url": url}
    if credential:
        parameters.update(
            {"authentication": "genericCredentialType", "genericAuthType": "httpHeaderAuth"}
        )
    if headers:
        parameters.update({"sendHeaders": True, "specifyHeaders": "json", "jsonHeaders": headers})
    if body is not None:
        parameters.update({"sendBody": True, "specifyBody": "json", "jsonBody": body})
    if binary:
        parameters.update(
            {"sendBody": True, "contentType": "binaryData", "inputDataFieldName": binary}
        )
    opts = {"timeout": LINKEDIN_TIMEOUT_MS, **(options or {})}
    if linkedin:
        opts.setdefault("response", {"response": {"fullResponse": True, "neverError": True}})
    parameters["options"] = opts
    extra = {}
    if credential:
        extra["credentials"] = {"httpHeaderAuth": dict(credential)}
    if retry:
        extra.update({"retryOnFail": True, "maxTries": 5, "waitBetweenTries": 2000})
    if on_error:
        extra["onError"] = on_error
    if notes:
        extra.update({"notes": notes, "notesInFlow": True})
    return wf.add(name, "n8n-nodes-base.httpRequest", 4.2, position, parameters, **extra)


def set_fields(wf, name, position, fields, include_other=False, notes=None):
    parameters = {
        "assignments": {
            "assignments": [
                {"id": _id(wf.key, f"{name}/{field}"), "name": field, "value": value, "type": kind}
                for field, value, kind in fields
            ]
        },
        "options": {},
    }
    if include_other:
        parameters["includeOtherFields"] = True
    extra = {"notes": notes, "notesInFlow": True} if notes else {}
    return wf.add(name, "n8n-nodes-base.set", 3.4, position, parameters, **extra)


# --- the publish plan, shared by both workflows ------------------------------------------------


def publish_plan(wf, plan_js, x=0, y=300):
    """From **Plan** (the post in hand) to the reports. Returns the names of
    the nodes a claim loop continues from (each report that ends a post) and
    the give-back node."""
    plan = code(
        wf,
        "Plan",
        (x, y),
        plan_js,
        notes="The post and its publish plan (linkedin_request).",
        notesInFlow=True,
    )
    planned = condition(wf, "Planned?", (x + 200, y), "!$json.outcome")
    has_uploads = condition(wf, "Uploads?", (x + 400, y), "$json.uploads.length > 0")
    per_upload = code(wf, "One item per upload", (x + 400, y + 220), ONE_ITEM_PER_UPLOAD)
    initialize = http(
        wf,
        "Initialize upload",
        (x + 600, y + 220),
        method="POST",
        url="={{ $json.initialize.url }}",
        credential=LINKEDIN,
        headers="={{ JSON.stringify(Object.fromEntries(Object.entries($json.initialize.headers || {})"
        ".filter(([k]) => k.toLowerCase() !== 'authorization'))) }}",
        body="={{ JSON.stringify($json.initialize.body) }}",
        linkedin=True,
        notes="initializeUpload: an upload URL and the image or document URN.",
    )
    check_init = code(wf, "Check initialization", (x + 800, y + 220), CHECK_INITIALIZED)
    initialized = condition(wf, "Initialized?", (x + 1000, y + 220), "!$json.outcome")
    fetch = http(
        wf,
        "Fetch the bytes",
        (x + 1200, y + 220),
        method="GET",
        url="={{ $json.source }}",
        options={
            "response": {
                "response": {
                    "fullResponse": True,
                    "neverError": True,
                    "responseFormat": "file",
                    "outputPropertyName": "data",
                }
            }
        },
        notes="From the plan's source (the service's media URL).",
    )
    put = http(
        wf,
        "PUT the bytes",
        (x + 1400, y + 220),
        method="PUT",
        url="={{ $('Check initialization').item.json.upload_url }}",
        credential=LINKEDIN,
        binary="data",
        linkedin=True,
        notes="To the uploadUrl LinkedIn gave.",
    )
    check_uploads = code(wf, "Check uploads", (x + 1600, y + 220), CHECK_UPLOADED)
    uploaded = condition(wf, "Uploaded?", (x + 1800, y + 220), "!$json.outcome")
    fill = code(wf, "Fill in the URNs", (x + 2000, y), FILL_POST)
    publish = http(
        wf,
        "Publish on LinkedIn",
        (x + 2200, y),
        method="POST",
        url="={{ $json.url }}",
        credential=LINKEDIN,
        headers="={{ JSON.stringify($json.headers) }}",
        body="={{ JSON.stringify($json.body) }}",
        linkedin=True,
        notes="The post, text escaped by the service, URNs filled in.",
    )
    outcome = code(wf, "Post outcome", (x + 2400, y), POST_OUTCOME)
    unknown = condition(wf, "Outcome unknown?", (x + 2400, y + 440), "$json.outcome === 'unknown'")
    check_wait = wf.add(
        "Wait before the check",
        "n8n-nodes-base.wait",
        1.1,
        (x + 2600, y + 440),
        {"amount": CHECK_DELAY_SECONDS, "unit": "seconds"},
        webhookId=_id(wf.key, "check-wait-webhook"),
    )
    find = http(
        wf,
        "Look for it on LinkedIn",
        (x + 2800, y + 440),
        method="GET",
        url=FIND_URL,
        credential=LINKEDIN,
        headers="={{ JSON.stringify({...Object.fromEntries(Object.entries($('Plan').first().json"
        ".plan.headers || {}).filter(([k]) => !['authorization', 'content-type']"
        ".includes(k.toLowerCase()))), 'X-RestLi-Method': 'FINDER'}) }}",
        linkedin=True,
        notes="The author's newest posts, with the channel's own token.",
    )
    found = code(wf, "Found on LinkedIn?", (x + 3000, y + 440), FOUND_OUTCOME)
    steps_due = condition(
        wf,
        "Comment to add?",
        (x + 2600, y),
        "$json.outcome === 'published' && $('Plan').first().json.after.length > 0",
    )
    per_step = code(wf, "One item per step", (x + 2600, y - 220), ONE_ITEM_PER_STEP)
    send_step = http(
        wf,
        "Post the first comment",
        (x + 2800, y - 220),
        method="={{ $json.method }}",
        url="={{ $json.url }}",
        credential=LINKEDIN,
        headers="={{ JSON.stringify($json.headers) }}",
        body="={{ JSON.stringify($json.body) }}",
        linkedin=True,
        notes="The plan's `after` steps, in order.",
    )
    after = code(wf, "Comment outcome", (x + 3000, y - 220), AFTER_OUTCOME)
    route = wf.add(
        "Report",
        "n8n-nodes-base.switch",
        3.2,
        (x + 3200, y),
        {
            "rules": {
                "values": [
                    _rule(wf, "published", "published"),
                    _rule(wf, "give back", "give_back"),
                    _rule(wf, "failed", "failed"),
                ]
            },
            "options": {},
        },
    )
    published = http(
        wf,
        "Report published",
        (x + 3450, y - 200),
        method="POST",
        url="={{ $('Plan').first().json.callback_url }}",
        credential=API_KEY,
        body="={{ JSON.stringify(Object.fromEntries(Object.entries({post_id: $json.post_id, "
        "linkedin_post_id: $json.linkedin_post_id, first_comment_urn: $json.first_comment_urn, "
        "first_comment_error: $json.first_comment_error}).filter(([k, v]) => v !== undefined && v !== null))) }}",
        retry=True,
        on_error="continueErrorOutput",
        notes="The callback; live_url defaults to the post's feed URL.",
    )
    callback_failed = set_fields(
        wf,
        "Callback failed",
        (x + 3700, y - 100),
        [
            ("post_id", "={{ $('Report').item.json.post_id }}", "string"),
            (
                "last_error",
                "=Published on LinkedIn as {{ $('Report').item.json.linkedin_post_id }}, but the "
                "callback failed: {{ $json.error && ($json.error.message || $json.error) || 'unknown error' }}. "
                "Do not publish it again.",
                "string",
            ),
        ],
    )
    failed = http(
        wf,
        "Report failed",
        (x + 3950, y + 50),
        method="PATCH",
        url="={{ $('Plan').first().json.service }}/functions/v1/api-v2-posts-item/{{ $json.post_id }}",
        credential=API_KEY,
        body="={{ JSON.stringify({status: 'Failed', last_error: String($json.last_error).slice(0, 2000)}) }}",
        retry=True,
        notes="Failed, with LinkedIn's message (last_error).",
    )
    wait = wf.add(
        "Wait for Retry-After",
        "n8n-nodes-base.wait",
        1.1,
        (x + 3450, y + 220),
        {"amount": "={{ $json.retry_after }}", "unit": "seconds"},
        webhookId=_id(wf.key, "wait-webhook"),
    )
    give_back = http(
        wf,
        "Give back",
        (x + 3700, y + 220),
        method="PATCH",
        url="={{ $('Plan').first().json.service }}/functions/v1/api-v2-posts-item/{{ $('Report').item.json.post_id }}",
        credential=API_KEY,
        body="={{ JSON.stringify({status: 'Scheduled'}) }}",
        retry=True,
        notes="Scheduled again, untried: LinkedIn created nothing.",
    )
    for source, target, output in [
        (plan, planned, 0),
        (planned, has_uploads, 0),
        (planned, route, 1),
        (has_uploads, per_upload, 0),
        (has_uploads, fill, 1),
        (per_upload, initialize, 0),
        (initialize, check_init, 0),
        (check_init, initialized, 0),
        (initialized, fetch, 0),
        (initialized, route, 1),
        (fetch, put, 0),
        (put, check_uploads, 0),
        (check_uploads, uploaded, 0),
        (uploaded, fill, 0),
        (uploaded, route, 1),
        (fill, publish, 0),
        (publish, outcome, 0),
        (outcome, unknown, 0),
        (unknown, check_wait, 0),
        (unknown, steps_due, 1),
        (check_wait, find, 0),
        (find, found, 0),
        (found, steps_due, 0),
        (steps_due, per_step, 0),
        (steps_due, route, 1),
        (per_step, send_step, 0),
        (send_step, after, 0),
        (after, route, 0),
        (route, published, 0),
        (route, wait, 1),
        (route, failed, 2),
        (published, callback_failed, 1),
        (callback_failed, failed, 0),
        (wait, give_back, 0),
    ]:
        wf.connect(source, target, output)
    return [published, failed], give_back


def _rule(wf, name, outcome):
    return {
        "conditions": {
            "options": {
                "caseSensitive": True,
                "leftValue": "",
                "typeValidation": "strict",
                "version": 2,
            },
            "conditions": [
                {
                    "id": _id(wf.key, f"Report/{name}"),
                    "leftValue": "={{ $json.outcome }}",
                    "rightValue": outcome,
                    "operator": {"type": "string", "operation": "equals"},
                }
            ],
            "combinator": "and",
        },
        "renameOutput": True,
        "outputKey": name,
    }


# --- the three workflows -------------------------------------------------------------------------

CLAIM_ABOUT = """## Claim and publish
Every minute: claim one due post (`api-v2-posts-claim`, limit 1), run its publish plan (uploads, the post, the first comment), report it, then claim the next, up to `claimLimit` posts a run. A post is reported as soon as LinkedIn answers it, so a crash leaves at most the one post in flight to its lease.

LinkedIn's 429 (or no connection at all) gives the post back after `Retry-After` and ends the run; a 4xx is `Failed` with LinkedIn's message; a 5xx or a timeout is an unknown outcome, never retried blind: the post is looked for among the author's newest posts, and reported Published with the URN found (or `Failed`, saying why).

Credentials: **Content Publishing API key** (Header Auth, `X-API-Key`) and **LinkedIn access token** (Header Auth, `Authorization: Bearer ...`). Set `baseUrl` in **Settings**."""

PUSH_ABOUT = """## Push: publish each post.due delivery
Register this Webhook's production URL as your `post.due` endpoint, with `"auth_header": {"name": "X-Hook-Token"}`; put the token it shows once in the **Content Publishing webhook token** credential (Header Auth).

The workflow answers 200 at once, after the token and the repeat check, and only then publishes: the post is then in its hands under the handoff's lease, and a run that dies leaves it to that lease, never to a second delivery. The publish plan and the reports are those of the claim workflow."""

NOTIFY_ABOUT = """## Tell a person when a post fails
Register this Webhook's production URL as a `post.failed` endpoint, with `"auth_header": {"name": "X-Hook-Token"}`, and put its token in the **Content Publishing webhook token (post.failed)** credential.

In **Settings**, `notifyBy` is `chat` (a Slack-compatible incoming webhook: Slack, Mattermost, Rocket.Chat, Google Chat...) or `mail` (the **Mail account (SMTP)** credential). To hear of the kit's own failed runs too, pick this workflow as the *Error workflow* in the other workflows' settings."""


COLLECT_ABOUT = """## Collect stats
Every hour: the figures of the posts published in the last `days` days (30), read from LinkedIn and sent to the service (`POST /api-v2-posts-stats`, 500 snapshots a request), each taken now.

Brand posts: `organizationalEntityShareStatistics` of the channel's organization (impressions, members reached, reactions, comments, reshares, clicks). Personal posts: `socialActions` (reactions and comments; LinkedIn gives members no impressions). A post whose LinkedIn call fails is left for the next hour: one failure never stops the others.

Credentials: **Content Publishing API key** (Header Auth, `X-API-Key`) and **LinkedIn access token** (Header Auth, `Authorization: Bearer ...`, with `r_organization_social` for pages). Set `baseUrl` in **Settings**."""


def claim_workflow():
    wf = Workflow("claim", "Content Publishing: claim and publish to LinkedIn", CLAIM_ID)
    note(wf, "About", (0, -260), CLAIM_ABOUT, width=700, height=340)
    every = wf.add(
        "Every minute",
        "n8n-nodes-base.scheduleTrigger",
        1.2,
        (0, 200),
        {"rule": {"interval": [{"field": "minutes", "minutesInterval": 1}]}},
    )
    run_now = wf.add("Run now", "n8n-nodes-base.manualTrigger", 1, (0, 400), {})
    settings = set_fields(
        wf,
        "Settings",
        (200, 300),
        [
            ("baseUrl", "https://publishing.example.com", "string"),
            ("claimLimit", 10, "number"),
            ("leaseSeconds", 600, "number"),
        ],
        notes="Fill in baseUrl: your service, without a trailing slash.",
    )
    claim = http(
        wf,
        "Claim one post",
        (400, 300),
        method="POST",
        url="={{ $('Settings').first().json.baseUrl }}/functions/v1/api-v2-posts-claim",
        credential=API_KEY,
        body="={{ JSON.stringify({limit: 1, lease_seconds: $('Settings').first().json.leaseSeconds}) }}",
        retry=True,
        on_error=None,
        notes="Hands the next due post to this run alone (Publishing).",
    )
    claimed = condition(wf, "Claimed one?", (600, 300), "($json.data || []).length > 0")
    ends, _ = publish_plan(wf, CLAIM_PLAN, x=800, y=300)
    next_claim = code(wf, "Next claim?", (5000, 300), NEXT_CLAIM)
    for source, target in [
        (every, settings),
        (run_now, settings),
        (settings, claim),
        (claim, claimed),
        (claimed, "Plan"),
        (next_claim, claim),
    ]:
        wf.connect(source, target)
    for end in ends:
        wf.connect(end, next_claim)
    return wf


def push_workflow():
    wf = Workflow("push", "Content Publishing: push (post.due) and publish to LinkedIn", PUSH_ID)
    note(wf, "About", (-40, -260), PUSH_ABOUT, width=700, height=320)
    hook = wf.add(
        "post.due webhook",
        "n8n-nodes-base.webhook",
        2,
        (0, 300),
        {
            "httpMethod": "POST",
            "path": PUSH_PATH,
            "authentication": "headerAuth",
            "responseMode": "responseNode",
            "options": {},
        },
        webhookId="5d0c3c53-8f5e-4f43-9a43-3f7b1c1f0a27",
        credentials={"httpHeaderAuth": dict(HOOK_TOKEN)},
    )
    verify = code(wf, "Verify signature (optional)", (200, 300), VERIFY_SIGNATURE, disabled=True)
    drop = code(wf, "Drop repeats", (400, 300), DROP_REPEATS)
    respond = wf.add(
        "Acknowledge",
        "n8n-nodes-base.respondToWebhook",
        1.1,
        (600, 300),
        {
            "respondWith": "json",
            "responseBody": "={{ JSON.stringify({received: true}) }}",
            "options": {"responseCode": 200},
        },
        notes="200 at once: the lease starts; the service sends no second delivery.",
        notesInFlow=True,
    )
    fresh = condition(
        wf,
        "New post.due?",
        (800, 300),
        "!$json.duplicate && $json.body.type === 'post.due' && !!$json.body.data.linkedin_request",
    )
    publish_plan(wf, PUSH_PLAN, x=1000, y=300)
    for source, target in [
        (hook, verify),
        (verify, drop),
        (drop, respond),
        (respond, fresh),
        (fresh, "Plan"),
    ]:
        wf.connect(source, target)
    return wf


def notify_workflow():
    wf = Workflow("notify", "Content Publishing: tell a person when a post fails", NOTIFY_ID)
    note(wf, "About", (-40, -300), NOTIFY_ABOUT, width=700, height=220)
    hook = wf.add(
        "post.failed webhook",
        "n8n-nodes-base.webhook",
        2,
        (0, 200),
        {
            "httpMethod": "POST",
            "path": FAILED_PATH,
            "authentication": "headerAuth",
            "responseMode": "onReceived",
            "options": {},
        },
        webhookId="0b5f7c7e-3c8e-4b4a-9a61-2f4d7c1e9b10",
        credentials={"httpHeaderAuth": dict(FAILED_TOKEN)},
    )
    error_trigger = wf.add("A kit run failed", "n8n-nodes-base.errorTrigger", 1, (0, 420), {})
    settings = set_fields(
        wf,
        "Settings",
        (220, 300),
        [
            ("notifyBy", "chat", "string"),
            ("chatWebhookUrl", "https://hooks.slack.com/services/T000/B000/XXXX", "string"),
            ("mailTo", "social@example.com", "string"),
            ("mailFrom", "n8n@example.com", "string"),
            ("dashboardUrl", "https://publishing.example.com/functions/v1/dashboard", "string"),
        ],
        include_other=True,
        notes="notifyBy: chat or mail.",
    )
    message = code(wf, "Message", (440, 300), NOTIFY_MESSAGE)
    by_chat = condition(wf, "By chat?", (660, 300), "$json.notifyBy !== 'mail'")
    chat = http(
        wf,
        "Post to chat",
        (880, 200),
        method="POST",
        url="={{ $('Settings').first().json.chatWebhookUrl }}",
        body="={{ JSON.stringify({text: $json.subject + '\\n' + $json.text}) }}",
        retry=True,
        on_error=None,
        notes='A Slack-compatible incoming webhook: {"text": ...}.',
    )
    mail = wf.add(
        "Send mail",
        "n8n-nodes-base.emailSend",
        2.1,
        (880, 400),
        {
            "fromEmail": "={{ $('Settings').first().json.mailFrom }}",
            "toEmail": "={{ $('Settings').first().json.mailTo }}",
            "subject": "={{ $json.subject }}",
            "emailFormat": "text",
            "text": "={{ $json.text }}",
            "options": {"appendAttribution": False},
        },
        credentials={"smtp": dict(SMTP)},
        retryOnFail=True,
        maxTries=3,
        waitBetweenTries=5000,
    )
    for source, target, output in [
        (hook, settings, 0),
        (error_trigger, settings, 0),
        (settings, message, 0),
        (message, by_chat, 0),
        (by_chat, chat, 0),
        (by_chat, mail, 1),
    ]:
        wf.connect(source, target, output)
    return wf


def collect_workflow():
    """Every hour, the figures of the last `days` days' posts, from LinkedIn
    to POST /api-v2-posts-stats. A LinkedIn call that fails is an item with
    `error` (onError: continue), left out of the snapshots: one failure
    never stops the others."""
    wf = Workflow("collect", "Content Publishing: collect stats from LinkedIn", COLLECT_ID)
    note(wf, "About", (-420, -360), COLLECT_ABOUT, width=700, height=360)
    every = wf.add(
        "Every hour",
        "n8n-nodes-base.scheduleTrigger",
        1.2,
        (-420, 60),
        {"rule": {"interval": [{"field": "hours", "hoursInterval": 1}]}},
    )
    run_now = wf.add("Run now", "n8n-nodes-base.manualTrigger", 1, (-420, 240), {})
    settings = set_fields(
        wf,
        "Settings",
        (-180, 140),
        [
            ("baseUrl", "https://publishing.example.com", "string"),
            ("linkedinApi", "https://api.linkedin.com", "string"),
            ("linkedinVersion", "202511", "string"),
            ("days", 30, "number"),
        ],
        notes="Fill in baseUrl: your service, without a trailing slash.",
    )
    service = {"credentials": {"httpHeaderAuth": dict(API_KEY)}, "retryOnFail": True}
    channels = wf.add(
        "Channels",
        "n8n-nodes-base.httpRequest",
        4.2,
        (60, 140),
        {
            "url": "={{ $('Settings').first().json.baseUrl }}/functions/v1/channels?limit=100",
            "authentication": "genericCredentialType",
            "genericAuthType": "httpHeaderAuth",
            "options": {"timeout": LINKEDIN_TIMEOUT_MS},
        },
        **service,
        maxTries=3,
        waitBetweenTries=2000,
        notes="Each brand channel's organization (author_urn).",
        notesInFlow=True,
    )
    since = "={{ $now.minus({days: $('Settings').first().json.days + 1}).toUTC().toISO() }}"
    posts = wf.add(
        "Published posts",
        "n8n-nodes-base.httpRequest",
        4.2,
        (300, 140),
        {
            "url": "={{ $('Settings').first().json.baseUrl }}/functions/v1/api-v2-posts",
            "authentication": "genericCredentialType",
            "genericAuthType": "httpHeaderAuth",
            "sendQuery": True,
            "specifyQuery": "keypair",
            "queryParameters": {
                "parameters": [
                    {"name": "status", "value": "Published"},
                    {"name": "order", "value": "scheduled_at"},
                    {"name": "scheduled_after", "value": since},
                    {"name": "limit", "value": "100"},
                ]
            },
            "options": {
                "timeout": LINKEDIN_TIMEOUT_MS,
                "pagination": {
                    "pagination": {
                        "paginationMode": "responseContainsNextURL",
                        "nextURL": "={{ $response.body.next }}",
                        "paginationCompleteWhen": "other",
                        "completeExpression": "={{ !$response.body.next }}",
                        "limitPagesFetched": True,
                        "maxRequests": 200,
                    }
                },
            },
        },
        **service,
        maxTries=3,
        waitBetweenTries=2000,
        notes="Published posts scheduled in the last days + 1, page by page (next).",
        notesInFlow=True,
    )
    to_read = code(
        wf,
        "Posts to read",
        (540, 140),
        POSTS_TO_READ,
        notes="Which posts, and where LinkedIn keeps their figures.",
        notesInFlow=True,
    )
    read = wf.add(
        "Read figures on LinkedIn",
        "n8n-nodes-base.httpRequest",
        4.2,
        (780, 140),
        {
            "url": "={{ $json.url }}",
            "authentication": "genericCredentialType",
            "genericAuthType": "httpHeaderAuth",
            "sendHeaders": True,
            "specifyHeaders": "keypair",
            "headerParameters": {
                "parameters": [
                    {
                        "name": "LinkedIn-Version",
                        "value": "={{ $('Settings').first().json.linkedinVersion }}",
                    },
                    {"name": "X-Restli-Protocol-Version", "value": "2.0.0"},
                ]
            },
            "options": {"timeout": LINKEDIN_TIMEOUT_MS},
        },
        credentials={"httpHeaderAuth": dict(LINKEDIN)},
        onError="continueRegularOutput",
        notes="One request per post; a failure is skipped, not fatal.",
        notesInFlow=True,
    )
    batches = code(
        wf,
        "Snapshots",
        (1020, 140),
        STATS_SNAPSHOTS,
        notes="500 snapshots to a batch.",
        notesInFlow=True,
    )
    send = wf.add(
        "Send stats",
        "n8n-nodes-base.httpRequest",
        4.2,
        (1260, 140),
        {
            "method": "POST",
            "url": "={{ $('Settings').first().json.baseUrl }}/functions/v1/api-v2-posts-stats",
            "authentication": "genericCredentialType",
            "genericAuthType": "httpHeaderAuth",
            "sendBody": True,
            "specifyBody": "json",
            "jsonBody": "={{ JSON.stringify({data: $json.data}) }}",
            "options": {"timeout": LINKEDIN_TIMEOUT_MS},
        },
        **service,
        maxTries=5,
        waitBetweenTries=2000,
        notes="Idempotent: a retry of the same batch replaces, never doubles.",
        notesInFlow=True,
    )
    for source, target in [
        (every, settings),
        (run_now, settings),
        (settings, channels),
        (channels, posts),
        (posts, to_read),
        (to_read, read),
        (read, batches),
        (batches, send),
    ]:
        wf.connect(source, target)
    return wf


WORKFLOWS = {
    "claim-and-publish.json": claim_workflow,
    "push.json": push_workflow,
    "notify-failed.json": notify_workflow,
    "collect-stats.json": collect_workflow,
}


def rendered():
    """{file name: its text}."""
    return {
        name: json.dumps(build().export(), indent=2, ensure_ascii=False) + "\n"
        for name, build in WORKFLOWS.items()
    }


def main(argv):
    stale = [
        name
        for name, text in rendered().items()
        if not (KIT / name).exists() or (KIT / name).read_text() != text
    ]
    if "--check" in argv:
        for name in stale:
            print(f"integrations/n8n/{name} is not what harness/n8n_workflows.py writes")
        return 1 if stale else 0
    for name, text in rendered().items():
        (KIT / name).write_text(text)
    print(f"wrote {len(WORKFLOWS)} workflows into {KIT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
