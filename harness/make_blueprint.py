"""The Make.com scenario of the kit (integrations/make/claim-and-publish.blueprint.json),
written here: its long formulas (every `{{upload_N}}` of a plan replaced by
its URN) are generated, not typed. NOT imported into Make by any run here.

    python -m harness.make_blueprint          write the blueprint
    python -m harness.make_blueprint --check  exit 1 if it differs from this

One post a run (the scenario is scheduled every minute): claim one, run its
publish plan, report it. Make runs a route's modules bundle by bundle, and
an Iterator over an empty list stops its route, so a post with uploads and
a post without take two routes that meet the same report modules.
"""

import json
import sys

from harness.paths import ROOT

BLUEPRINT = ROOT / "integrations" / "make" / "claim-and-publish.blueprint.json"
SERVICE = "https://publishing.example.com"
API_KEY = "svc_live_..."
LINKEDIN = "Bearer <LinkedIn access token>"
MAX_REFS = 20  # a post holds at most 20 images


def braces(text):
    """A regular expression for the literal `{{text}}`: Make reads `{{` as
    the start of a formula, so the braces are written as \\x7B and \\x7D."""
    return "/\\x7B\\x7B" + text + "\\x7D\\x7D/g"


def fill_refs(json_formula, urns):
    """`json_formula` with each `{{upload_N}}` replaced by the N+1th of `urns`."""
    formula = json_formula
    for n in range(MAX_REFS):
        formula = f"replace({formula}; {braces(f'upload_{n}')}; get({urns}; {n + 1}))"
    return formula


def http(module_id, name, x, y, url, method="post", headers=(), data=None, file=None, filter=None):
    mapper = {
        "url": url,
        "serializeUrl": False,
        "method": method,
        "headers": [{"name": k, "value": v} for k, v in headers],
        "qs": [],
        "parseResponse": True,
        "timeout": "30",
        "shareCookies": False,
        "rejectUnauthorized": True,
        "followRedirect": False,
        "useQuerystring": False,
        "gzip": True,
        "useMtls": False,
        "followAllRedirects": False,
    }
    if data is not None:
        mapper.update({"bodyType": "raw", "contentType": "application/json", "data": data})
    elif file is not None:
        mapper.update({"bodyType": "binaryData", "data": file})
    else:
        mapper["bodyType"] = ""
    module = {
        "id": module_id,
        "module": "http:ActionSendData",
        "version": 3,
        # handleErrors false: a 4xx or 5xx is an answer to read, not an error.
        "parameters": {"handleErrors": False, "useNewZLibDeCompress": True},
        "mapper": mapper,
        "metadata": {"designer": {"x": x, "y": y, "name": name}},
    }
    if filter:
        module["filter"] = filter
    return module


def condition(name, a, operator, b):
    return {"name": name, "conditions": [[{"a": a, "o": operator, "b": b}]]}


KEY = [("X-API-Key", API_KEY)]


def linkedin_headers(step):
    return [
        ("Authorization", LINKEDIN),
        ("LinkedIn-Version", f"{{{{{step}.headers.`LinkedIn-Version`}}}}"),
        ("X-Restli-Protocol-Version", "2.0.0"),
    ]


def message(module_id):
    """LinkedIn's message in a module's answer, safe inside a JSON string."""
    return f'{{{{replace({module_id}.data.message; "\\""; "\'")}}}}'


def status_is(name, answer, *rows):
    return {
        "name": name,
        "conditions": [[{"a": f"{{{{{answer}.statusCode}}}}", "o": o, "b": b} for o, b in rows]],
    }


def reports(first_id, answer, y):
    """The router after LinkedIn's answer to the post (module `answer`):
    published (then the first comment, if the plan has one), given back,
    refused, unknown."""
    post_id = "{{2.id}}"
    callback = f"{SERVICE}/functions/v1/make-post-callback"
    item = f"{SERVICE}/functions/v1/api-v2-posts-item/{post_id}"
    urn = f"{{{{{answer}.headers.`x-restli-id`}}}}"
    published = f'{{"post_id": "{post_id}", "linkedin_post_id": "{urn}"'
    comment = first_id + 1
    step = "get(2.linkedin_request.after; 1)"
    comment_url = f"{{{{replace({step}.url; {braces('post_urn')}; encodeURL({answer}.headers.`x-restli-id`))}}}}"
    comment_body = (
        f"{{{{replace(toString(toJSON({step}.body)); {braces('post_urn')}; "
        f"{answer}.headers.`x-restli-id`)}}}}"
    )
    with_comment = {
        "name": "Created, with a first comment",
        "conditions": [
            [
                {"a": f"{{{{{answer}.statusCode}}}}", "o": "number:equal", "b": "201"},
                {"a": "{{length(2.linkedin_request.after)}}", "o": "number:greater", "b": "0"},
            ]
        ],
    }
    without_comment = {
        "name": "Created, no comment",
        "conditions": [
            [
                {"a": f"{{{{{answer}.statusCode}}}}", "o": "number:equal", "b": "201"},
                {"a": "{{length(2.linkedin_request.after)}}", "o": "number:equal", "b": "0"},
            ]
        ],
    }
    return {
        "id": first_id,
        "module": "builtin:BasicRouter",
        "version": 1,
        "mapper": None,
        "metadata": {"designer": {"x": 1800, "y": y}},
        "routes": [
            {
                "flow": [
                    http(
                        comment,
                        "First comment",
                        2100,
                        y - 300,
                        comment_url,
                        headers=linkedin_headers("2.linkedin_request"),
                        data=comment_body,
                        filter=with_comment,
                    ),
                    {
                        "id": first_id + 2,
                        "module": "builtin:BasicRouter",
                        "version": 1,
                        "mapper": None,
                        "metadata": {"designer": {"x": 2400, "y": y - 300}},
                        "routes": [
                            {
                                "flow": [
                                    http(
                                        first_id + 3,
                                        "Report published, the comment's URN",
                                        2700,
                                        y - 400,
                                        callback,
                                        headers=KEY,
                                        data=published
                                        + f', "first_comment_urn": "{{{{{comment}.data.commentUrn}}}}"}}',
                                        filter=status_is(
                                            "Comment made", comment, ("number:equal", "201")
                                        ),
                                    )
                                ]
                            },
                            {
                                "flow": [
                                    http(
                                        first_id + 4,
                                        "Report published, the comment's error",
                                        2700,
                                        y - 250,
                                        callback,
                                        headers=KEY,
                                        data=published
                                        + f', "first_comment_error": "LinkedIn answered '
                                        f'{{{{{comment}.statusCode}}}}: {message(comment)}"}}',
                                        filter=status_is(
                                            "Comment refused", comment, ("number:notequal", "201")
                                        ),
                                    )
                                ]
                            },
                        ],
                    },
                ]
            },
            {
                "flow": [
                    http(
                        first_id + 5,
                        "Report published",
                        2100,
                        y - 150,
                        callback,
                        headers=KEY,
                        data=published + "}",
                        filter=without_comment,
                    )
                ]
            },
            {
                "flow": [
                    {
                        "id": first_id + 6,
                        "module": "util:FunctionSleep",
                        "version": 1,
                        "parameters": {},
                        "mapper": {
                            "duration": f"{{{{min(300; ifempty({answer}.headers.`retry-after`; 60))}}}}"
                        },
                        "metadata": {
                            "designer": {"x": 2100, "y": y, "name": "Wait for Retry-After"}
                        },
                        "filter": status_is(
                            "429: nothing was created", answer, ("number:equal", "429")
                        ),
                    },
                    http(
                        first_id + 7,
                        "Give back",
                        2400,
                        y,
                        item,
                        method="patch",
                        headers=KEY,
                        data='{"status": "Scheduled"}',
                    ),
                ]
            },
            {
                "flow": [
                    http(
                        first_id + 8,
                        "Report failed",
                        2100,
                        y + 150,
                        item,
                        method="patch",
                        headers=KEY,
                        data=f'{{"status": "Failed", "last_error": "LinkedIn answered '
                        f'{{{{{answer}.statusCode}}}}: {message(answer)}"}}',
                        filter=status_is(
                            "Refused (4xx)",
                            answer,
                            ("number:greaterorequal", "400"),
                            ("number:less", "500"),
                            ("number:notequal", "429"),
                        ),
                    )
                ]
            },
            {
                "flow": [
                    http(
                        first_id + 9,
                        "Report an unknown outcome",
                        2100,
                        y + 300,
                        item,
                        method="patch",
                        headers=KEY,
                        data=(
                            '{"status": "Failed", "last_error": "Outcome unknown: LinkedIn answered '
                            f"{{{{{answer}.statusCode}}}}: {message(answer)}. LinkedIn may have created "
                            "the post: check the author's feed before retrying it (the scenario never "
                            'retries it blind)."}'
                        ),
                        filter=status_is(
                            "5xx: the post may exist", answer, ("number:greaterorequal", "500")
                        ),
                    )
                ]
            },
        ],
    }


def publish(module_id, name, y, body_formula):
    return http(
        module_id,
        name,
        1500,
        y,
        "{{2.linkedin_request.url}}",
        headers=linkedin_headers("2.linkedin_request"),
        data=body_formula,
    )


def blueprint():
    body = "toString(toJSON(2.linkedin_request.body))"
    uploads_y, text_y = 600, 0
    flow = [
        http(
            1,
            "Claim one post",
            0,
            300,
            f"{SERVICE}/functions/v1/api-v2-posts-claim",
            headers=KEY,
            data='{"limit": 1, "lease_seconds": 600}',
        ),
        {
            "id": 2,
            "module": "builtin:BasicFeeder",
            "version": 1,
            "parameters": {},
            "mapper": {"array": "{{1.data.data}}"},
            "metadata": {"designer": {"x": 300, "y": 300, "name": "The claimed post"}},
        },
        {
            "id": 3,
            "module": "builtin:BasicRouter",
            "version": 1,
            "mapper": None,
            "metadata": {"designer": {"x": 600, "y": 300}},
            "routes": [
                {
                    "flow": [
                        publish(
                            10,
                            "Publish on LinkedIn (text)",
                            text_y,
                            f"{{{{{body}}}}}",
                        )
                        | {
                            "filter": condition(
                                "No uploads",
                                "{{length(2.linkedin_request.uploads)}}",
                                "number:equal",
                                "0",
                            )
                        },
                        reports(20, "10", text_y),
                    ]
                },
                {
                    "flow": [
                        {
                            "id": 4,
                            "module": "builtin:BasicFeeder",
                            "version": 1,
                            "parameters": {},
                            "mapper": {"array": "{{2.linkedin_request.uploads}}"},
                            "metadata": {
                                "designer": {"x": 900, "y": uploads_y, "name": "Each upload"}
                            },
                            "filter": condition(
                                "Uploads",
                                "{{length(2.linkedin_request.uploads)}}",
                                "number:greater",
                                "0",
                            ),
                        },
                        http(
                            5,
                            "Initialize upload",
                            1200,
                            uploads_y,
                            "{{4.initialize.url}}",
                            headers=linkedin_headers("4.initialize"),
                            data="{{toString(toJSON(4.initialize.body))}}",
                        ),
                        {
                            "id": 6,
                            "module": "http:ActionGetFile",
                            "version": 3,
                            "parameters": {"handleErrors": False},
                            "mapper": {
                                "url": "{{4.source}}",
                                "method": "get",
                                "serializeUrl": False,
                            },
                            "metadata": {
                                "designer": {"x": 1500, "y": uploads_y, "name": "Fetch the bytes"}
                            },
                            "filter": condition(
                                "Initialized", "{{5.statusCode}}", "number:equal", "200"
                            ),
                        },
                        http(
                            7,
                            "PUT the bytes",
                            1800,
                            uploads_y,
                            "{{5.data.value.uploadUrl}}",
                            method="put",
                            headers=[("Authorization", LINKEDIN)],
                            file="{{6.data}}",
                        ),
                        {
                            "id": 8,
                            "module": "builtin:BasicAggregator",
                            "version": 1,
                            "parameters": {"feeder": 4},
                            "mapper": {
                                "urn": "{{ifempty(5.data.value.image; 5.data.value.document)}}",
                                "ok": "{{if(7.statusCode < 300; 1; 0)}}",
                            },
                            "metadata": {
                                "designer": {"x": 2100, "y": uploads_y, "name": "The URNs"}
                            },
                        },
                        {
                            "id": 9,
                            "module": "builtin:BasicRouter",
                            "version": 1,
                            "mapper": None,
                            "metadata": {"designer": {"x": 2400, "y": uploads_y}},
                            "routes": [
                                {
                                    "flow": [
                                        publish(
                                            11,
                                            "Publish on LinkedIn (with media)",
                                            uploads_y + 300,
                                            "{{" + fill_refs(body, 'map(8.array; "urn")') + "}}",
                                        )
                                        | {
                                            "filter": condition(
                                                "Every upload taken",
                                                '{{sum(map(8.array; "ok"))}}',
                                                "number:equal",
                                                "{{length(2.linkedin_request.uploads)}}",
                                            )
                                        },
                                        reports(40, "11", uploads_y + 300),
                                    ]
                                },
                                {
                                    "flow": [
                                        http(
                                            12,
                                            "Report failed: an upload",
                                            2700,
                                            uploads_y,
                                            f"{SERVICE}/functions/v1/api-v2-posts-item/{{{{2.id}}}}",
                                            method="patch",
                                            headers=KEY,
                                            data=(
                                                '{"status": "Failed", "last_error": "An upload was not taken by '
                                                'LinkedIn (initialize or PUT). Nothing was posted."}'
                                            ),
                                            filter=condition(
                                                "An upload failed",
                                                '{{sum(map(8.array; "ok"))}}',
                                                "number:less",
                                                "{{length(2.linkedin_request.uploads)}}",
                                            ),
                                        )
                                    ]
                                },
                            ],
                        },
                    ]
                },
            ],
        },
    ]
    return {
        "name": "Content Publishing: claim and publish to LinkedIn (untested)",
        "flow": flow,
        "metadata": {
            "instant": False,
            "version": 1,
            "scenario": {
                "roundtrips": 1,
                "maxErrors": 3,
                "autoCommit": True,
                "autoCommitTriggerLast": True,
                "sequential": True,
                "confidential": False,
                "dataloss": False,
                "dlq": False,
                "freshVariables": False,
            },
            "designer": {"orphans": []},
            "zone": "eu1.make.com",
            "notes": [
                {
                    "moduleIds": [1],
                    "content": (
                        "Not tested by a run here: see integrations/README.md. Replace "
                        f"{SERVICE}, the X-API-Key value and the LinkedIn token; schedule the "
                        "scenario every minute (one post a run). A post whose publish plan has "
                        "uploads takes the lower route: each upload initialized, fetched and PUT, "
                        "then the post with the URNs filled in. A LinkedIn answer with no status "
                        "(a timeout) stops the run: the post then waits for its lease and is "
                        "marked Failed, may already be live, by the service."
                    ),
                }
            ],
        },
    }


def rendered():
    return json.dumps(blueprint(), indent=2, ensure_ascii=False) + "\n"


def main(argv):
    text = rendered()
    if "--check" in argv:
        current = BLUEPRINT.read_text() if BLUEPRINT.exists() else ""
        if current != text:
            print(
                "integrations/make/claim-and-publish.blueprint.json is not what harness/make_blueprint.py writes"
            )
            return 1
        return 0
    BLUEPRINT.write_text(text)
    print(f"wrote {BLUEPRINT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
