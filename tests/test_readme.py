"""The README's curl walkthrough, run as written against real gunicorn."""

import json
import re
import shutil
import subprocess

import pytest

from harness import ROOT, create_key, serve

MARKER = "<!-- readme-test -->"
START = "FLASK_SCHEDULE_MIN_LEAD_SECONDS=1 make run"


def readme_block():
    text = (ROOT / "README.md").read_text()
    after = text.split(MARKER, 1)[1]
    match = re.search(r"```sh\n(.*?)```", after, re.S)
    return match.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readme_curl_walkthrough(tmp_path):
    block = readme_block()
    assert "KEY=svc_live_..." in block and "API=http://127.0.0.1:8000/functions/v1" in block
    assert START in (ROOT / "README.md").read_text()  # the walkthrough's server, as started here
    with serve(tmp_path, workers=2, env={"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "1"}) as server:
        key = create_key(server.database)
        script = block.replace("KEY=svc_live_...", f"KEY={key}").replace(
            "http://127.0.0.1:8000", server.url
        )
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    documents = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    commands = block.count("curl -s") - block.count("$(curl -s")
    assert len(documents) == commands
    assert not [d for d in documents if "error" in d], documents
    created, read, scheduled, due, claimed, published, article, articles = documents
    assert created["status"] == "Draft" and read["id"] == created["id"]
    assert scheduled["status"] == "Scheduled" and scheduled["version"] == 2
    assert [p["id"] for p in due["data"]] == [created["id"]]  # its time has come
    assert due["total"] == 1 and due["data"][0]["status"] == "Scheduled"
    assert [p["id"] for p in claimed["data"]] == [created["id"]]
    assert claimed["data"][0]["status"] == "Publishing" and claimed["data"][0]["handoff_id"]
    assert published["status"] == "Published" and published["id"] == created["id"]
    assert published["handoff_id"] is None and published["handoff_count"] == 1
    assert published["live_url"].endswith("urn:li:share:7012345678901234567")
    assert article["status"] == "Draft" and articles["total"] == 1
