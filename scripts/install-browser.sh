#!/usr/bin/env bash
# Install Debian's headless Chromium for the `audit explain --format html` browser test.
# Idempotent: does nothing when /usr/bin/chromium is already there. Never downloads a browser build of its own
# (no `playwright install`): the test drives this system Chromium through the playwright Python package.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
    echo "chromium: already installed ($("$CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "chromium: not installed and not root (no sudo): run 'apt-get install -y chromium' as root" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# fonts-dejavu-core: a font with the card suit symbols (♠ ♥ ♦ ♣) for the screenshot.
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core

if [ ! -x "$CHROMIUM" ]; then
    echo "chromium: apt-get finished but $CHROMIUM is missing" >&2
    exit 1
fi
echo "chromium: installed ($("$CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
