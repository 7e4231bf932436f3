#!/usr/bin/env bash
# Install wrk (Debian package) when it is missing; `make bench` calls this first.
# Needs root (or sudo) for apt-get; does nothing when wrk is already on PATH.
set -euo pipefail
if command -v wrk >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "error: wrk is not installed and installing it needs root (apt-get install -y wrk)" >&2
        exit 1
    fi
fi
echo "wrk not found: installing it with apt-get" >&2
# An apt list that has never been fetched finds no package: update once first.
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
command -v wrk >/dev/null
