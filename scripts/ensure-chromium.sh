#!/usr/bin/env bash
# ensure-chromium.sh makes sure a headless-capable Chromium is installed at
# /usr/bin/chromium, for the dashboard's browser tests (browsertest/). It
# prints nothing when it is there, and one line on stderr before it starts
# installing. On Debian/Ubuntu it installs Debian's chromium package with
# apt-get (with sudo when not root); elsewhere it says how to install
# Chromium and fails. The tests never skip without it: they fail with the
# same hint.
set -euo pipefail

# The browser tests run $CHROMIUM when it is set, else /usr/bin/chromium.
if [[ -n "${CHROMIUM:-}" ]]; then
	if command -v "$CHROMIUM" >/dev/null 2>&1; then
		exit 0
	fi
	echo "ensure-chromium: CHROMIUM=$CHROMIUM is not an executable; fix it, or unset it to use /usr/bin/chromium" >&2
	exit 1
fi

if [[ -x /usr/bin/chromium ]]; then
	exit 0
fi

manual_hint() {
	echo "  Debian:        sudo apt-get install -y chromium" >&2
	echo "  Ubuntu:        sudo snap install chromium (or a Chromium/Chrome .deb), then set CHROMIUM to its binary" >&2
	echo "  macOS:         brew install --cask chromium, then set CHROMIUM to its binary" >&2
	echo "  or any Chrome/Chromium: set CHROMIUM to the browser's executable" >&2
}

if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-chromium: /usr/bin/chromium not found and this is not Debian/Ubuntu (no apt-get); install Chromium yourself:" >&2
	manual_hint
	exit 1
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "ensure-chromium: /usr/bin/chromium not found; installing it needs root, and sudo is missing. Run as root:" >&2
		echo "  apt-get update && apt-get install -y chromium" >&2
		exit 1
	fi
	sudo=(sudo)
fi

# apt-get runs quietly and Chromium is large (~100 MB with its libraries).
echo "ensure-chromium: /usr/bin/chromium not found; installing chromium with ${sudo[*]:+sudo }apt-get (apt-get update, then apt-get install; this can take a few minutes)..." >&2

if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null ||
	! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; then
	echo "ensure-chromium: apt-get could not install chromium (on Ubuntu the chromium package is a snap stub); install it yourself:" >&2
	manual_hint
	exit 1
fi

if [[ ! -x /usr/bin/chromium ]]; then
	echo "ensure-chromium: apt-get installed chromium, but /usr/bin/chromium is still missing; set CHROMIUM to the browser's executable" >&2
	exit 1
fi
echo "ensure-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium) with apt-get"
