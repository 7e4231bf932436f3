"""Quick checks of the container files that run in the default suite (well
under a second); `make test-docker` builds and runs the real thing.

The Dockerfile, compose.yaml, .env.example and .dockerignore must agree
with each other, with the service's settings and with docs/operations.md,
and keep the secrets out of the environment file and the build.
"""

import re

from content_publishing.cli.container import WAIT_VARIABLE
from content_publishing.settings import defaults
from harness import ROOT
from harness.docker import POSTGRES_IMAGE, PYTHON_IMAGE

COMPOSE = (ROOT / "compose.yaml").read_text()
DOCKERFILE = (ROOT / "Dockerfile").read_text()
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
SECRET_SETTINGS = ("SECRETS_KEY", "SMTP_PASSWORD_FILE", "LINKEDIN_CLIENT_SECRET")


def env_example():
    """{name: value} of .env.example's settings (commented examples left out)."""
    lines = (ROOT / ".env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_every_setting_of_env_example_is_a_documented_one():
    names = env_example()
    settings = {f"FLASK_{name}" for name in defaults("instance")}
    for name in names:
        if name.startswith("FLASK_"):
            assert name in settings, name
            assert f"`{name}`" in OPERATIONS, name
        else:  # compose.yaml's own, gunicorn's and the entrypoint's
            assert name in COMPOSE or f"`{name}`" in OPERATIONS, name
    assert WAIT_VARIABLE in names and "POSTGRES_PASSWORD" in names


def test_no_secret_is_in_the_environment_file():
    names = env_example()
    for setting in SECRET_SETTINGS:
        assert f"FLASK_{setting}" not in names
    assert "@" not in names["FLASK_SMTP_URL"]  # no user:password@ either


def test_the_service_reads_each_secret_from_a_compose_secret_file():
    declared = dict(re.findall(r"^  (\w+):\n    file: \./secrets/(\w+)$", COMPOSE, re.MULTILINE))
    assert set(declared) == {"secrets_key", "smtp_password", "linkedin_client_secret"}
    assert all(name == file for name, file in declared.items())
    named = dict(re.findall(r"(FLASK_\w+_FILE): /run/secrets/(\w+)", COMPOSE))
    assert named == {
        "FLASK_SECRETS_KEY_FILE": "secrets_key",
        "FLASK_SMTP_PASSWORD_FILE": "smtp_password",
        "FLASK_LINKEDIN_CLIENT_SECRET_FILE": "linkedin_client_secret",
    }
    for setting in named:
        assert setting.removeprefix("FLASK_") in defaults("instance")


def test_the_base_images_are_the_ones_the_stand_ins_are_built_for():
    assert re.findall(r"^FROM (\S+)", DOCKERFILE, re.MULTILINE) == [PYTHON_IMAGE, PYTHON_IMAGE]
    assert re.findall(r"^    image: (\S+)$", COMPOSE, re.MULTILINE) == [POSTGRES_IMAGE]


def test_the_build_sees_only_the_package_and_its_requirements():
    rules = [
        line
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert rules[0] == "*"  # everything out, then these back in
    allowed = {rule.removeprefix("!").rstrip("/") for rule in rules if rule.startswith("!")}
    assert allowed == {
        "requirements.txt",
        "app.py",
        "wsgi.py",
        "gunicorn.conf.py",
        "content_publishing",
    }
    copied = re.findall(r"^COPY (?!--from)(.+) /\S*$", DOCKERFILE, re.MULTILINE)
    assert {name for line in copied for name in line.split()} <= allowed
