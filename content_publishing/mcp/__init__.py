"""An MCP server over the service's HTTP API, for AI assistants
(docs/mcp.md): `python -m content_publishing.mcp` (stdio) or `--http
HOST:PORT` (streamable HTTP). It needs the `mcp` extra: `pip install .[mcp]`.

    __main__.py        the command: stdio or --http, the settings, logging
    settings.py        CPS_BASE_URL, CPS_API_KEY, CPS_MCP_ALLOWED_HOSTS, CPS_FETCH_ALLOW_PRIVATE
    server.py          PlanningServer: the SDK's FastMCP with the tools and resources; refusals
                       as tool errors
    http_app.py        the streamable HTTP app: a key on every request, /health, uvicorn
    calls.py           whose key a call uses (CPS_API_KEY, or the request's header); Caller
    api.py             the service's API over HTTP: one request, its answer or its envelope
    errors.py          ToolFailure: the API's code, message and details as a tool error, a hint
    channels.py        the channel a post goes to, as the API says it (type and brand_id)
    shapes.py          the tools' output models (their output schemas)
    post_tools.py      list, get, draft, update, preview, schedule, queue, review, comment
    planning_tools.py  channels, free slots, analytics, suggested slots
    media_tools.py     upload_media: an image or PDF from a URL or base64, with alt text
    fetch.py           fetching a URL from public addresses only, redirects checked, capped
    resources.py       each channel's calendar of the next 14 days; the hashtag sets

It is a client of the API and nothing more: it imports nothing of the
service (tests/test_layout.py holds it to that), so every rule (scopes,
roles, approvals, guards, the length of a post) is the API's, applied to
the caller's own key.
"""
