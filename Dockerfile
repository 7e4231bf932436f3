# The service's image: `docker compose up -d` builds it (compose.yaml), or
# `docker build -t content-publishing .`. docs/operations.md, "Containers".
#
# Two stages. The first installs the pinned requirements into a virtualenv,
# in a layer of its own that only a change of requirements.txt rebuilds; then
# it byte-compiles the app's code. The second copies both onto a clean base:
# no compiler, no pip cache, and an unprivileged user. The default command is
# gunicorn with gunicorn.conf.py; the same image runs the dispatcher with
# `flask dispatch`. Every command starts through the entrypoint
# (content_publishing/cli/container.py), which refuses a missing secrets key
# file or an unwritable /data with one line, waits for PostgreSQL, and before
# gunicorn applies the migrations and makes the demo key once.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
COPY requirements.txt /tmp/requirements.txt
RUN /opt/venv/bin/pip install --quiet -r /tmp/requirements.txt \
 && /opt/venv/bin/pip uninstall --quiet -y pip setuptools
COPY app.py wsgi.py gunicorn.conf.py /app/
COPY content_publishing /app/content_publishing
RUN python -m compileall -q /app

FROM python:3.11-slim-bookworm
RUN groupadd --system --gid 10001 cps \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin cps \
 && install -d -o 10001 -g 10001 -m 0750 /data \
 && install -d /app \
 && ln -s /data /app/instance
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
# /app/instance is /data: the SQLite database (media are kept in it), the
# secrets key when no file is given, backups. FLASK_APP lets `flask ...` run
# without --app (`docker compose exec web flask keys list`).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    FLASK_APP=content_publishing.app \
    FLASK_DATABASE=/data/publishing.sqlite \
    BIND=0.0.0.0:8000
WORKDIR /app
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-m", "content_publishing.cli.container", "--health"]
ENTRYPOINT ["python", "-m", "content_publishing.cli.container"]
CMD ["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"]
