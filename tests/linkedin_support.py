"""What the LinkedIn connection tests share: harness/linkedin_signin.py, by
the names the tests use."""

from harness.linkedin_signin import (  # noqa: F401 (the tests' names)
    ADA,
    CALLBACK,
    CHANNEL,
    CHANNELS,
    CLIENT_ID,
    CLIENT_SECRET,
    CONNECT,
    PAGES,
    authorize,
    callback_args,
    connect_live,
    environment,
    leaked,
    linkedin_for,
    settings,
)
