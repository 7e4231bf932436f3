"""The hosted functions this service mirrors are called with Supabase's own
clients: supabase-py and supabase-js `functions.invoke`, against real
gunicorn (`make test-slow`: supabase-js comes from the npm registry).

Each client sends the key as `Authorization: Bearer` and `apikey`; sends an
object body as JSON and a string body as `text/plain`, which the service
reads as JSON; and raises or returns a FunctionsHttpError for a non-2xx
answer, from which the service's error envelope is read as
docs/integrations.md shows.
"""

import json

import pytest

from harness import create_key, serve, supabase_js

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve(tmp_path_factory.mktemp("supabase"), workers=2) as server:
        yield server


def refusal(call):
    """The FunctionsHttpError supabase-py raises: (status, the service's envelope)."""
    from supabase_functions.errors import FunctionsHttpError

    with pytest.raises(FunctionsHttpError) as raised:
        call()
    # supabase-py keeps the envelope's `error` object as the exception's message.
    return raised.value.status, raised.value.message


def test_supabase_py_functions_invoke(server):
    # Imported here: supabase-py costs a pytest process about 1 s of CPU to
    # import, which collecting the suite would pay in every process.
    from supabase import create_client

    key = create_key(server.database, user="supabase-py")
    client = create_client(server.url, key)
    invoke = client.functions.invoke
    made = json.loads(
        invoke(
            "api-v2-posts", invoke_options={"body": {"type": "personal", "content": "an object"}}
        )
    )
    as_text = json.loads(
        invoke(
            "api-v2-posts",
            invoke_options={"body": json.dumps({"type": "personal", "content": "a string"})},
        )
    )
    assert made["status"] == as_text["status"] == "Draft"
    listed = json.loads(invoke("api-v2-posts", invoke_options={"method": "GET"}))
    assert {p["content"] for p in listed["data"]} == {"an object", "a string"}
    item = json.loads(invoke(f"api-v2-posts-item/{made['id']}", invoke_options={"method": "GET"}))
    assert item == made

    status, error = refusal(
        lambda: invoke("api-v2-posts", invoke_options={"body": {"type": "personal", "content": ""}})
    )
    assert status == 400 and error["code"] == "validation_error"
    assert error["message"].startswith("content: ") and "content" in error["details"]
    stranger = create_client(server.url, "svc_live_" + "x" * 40)
    status, error = refusal(
        lambda: stranger.functions.invoke("api-v2-posts", invoke_options={"method": "GET"})
    )
    assert status == 401 and error["code"] == "unauthorized"


def test_supabase_js_functions_invoke(server):
    key = create_key(server.database, user="supabase-js")
    out = supabase_js.invoke(server.url, key)
    assert out["object"]["data"]["content"] == "from supabase-js (an object)"
    assert out["string"]["data"]["content"] == "from supabase-js (a string)"
    assert {p["content"] for p in out["list"]["data"]["data"]} == {
        "from supabase-js (an object)",
        "from supabase-js (a string)",
    }
    invalid = out["invalid"]
    assert invalid["error"] == "FunctionsHttpError" and invalid["status"] == 400
    assert invalid["envelope"]["error"]["code"] == "validation_error"
    assert invalid["envelope"]["error"]["message"].startswith("content: ")
    assert out["unknown_key"]["status"] == 401
    assert out["unknown_key"]["envelope"]["error"]["code"] == "unauthorized"
