#!/usr/bin/env bash
# ensure-promtool.sh prints the path of a promtool, for the tests that run
# "promtool check metrics" on the dashboard's /metrics and "promtool check
# rules" / "promtool test rules" on extra/prometheus' alert rules
# (internal/cli/metrics): $PROMTOOL, else promtool on PATH, else one taken
# from Debian's prometheus package. That package is not installed (it would
# set up a Prometheus server): "apt-get download" fetches it (about 20 MB,
# no root needed) and promtool alone is unpacked into
# ${XDG_CACHE_HOME:-~/.cache}/redisson-go/, where later runs find it. It
# prints one line on stderr before it downloads; without apt-get it says how
# to get promtool and fails.
set -euo pipefail

if [[ -n "${PROMTOOL:-}" ]]; then
	if command -v "$PROMTOOL" >/dev/null 2>&1; then
		command -v "$PROMTOOL"
		exit 0
	fi
	echo "ensure-promtool: PROMTOOL=$PROMTOOL is not an executable; fix it, or unset it" >&2
	exit 1
fi
if command -v promtool >/dev/null 2>&1; then
	command -v promtool
	exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/redisson-go"
if [[ -x "$cache/promtool" ]]; then
	echo "$cache/promtool"
	exit 0
fi

manual_hint() {
	echo "  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends prometheus" >&2
	echo "  elsewhere:     take promtool from a release at https://github.com/prometheus/prometheus/releases" >&2
	echo "                 and put it on PATH, or set PROMTOOL to it" >&2
}
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
	echo "ensure-promtool: promtool not found and this is not Debian/Ubuntu (no apt-get); install it yourself:" >&2
	manual_hint
	exit 1
fi

echo "ensure-promtool: promtool not found; taking it from Debian's prometheus package (apt-get download, ~20 MB) into $cache..." >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1); then
	# The package lists may be empty (a fresh container): refresh them.
	sudo=()
	if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	fi
	if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null ||
		! (cd "$tmp" && apt-get download -qq prometheus >/dev/null); then
		echo "ensure-promtool: apt-get could not download the prometheus package; install promtool yourself:" >&2
		manual_hint
		exit 1
	fi
fi
dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/pkg"
mkdir -p "$cache"
install -m 0755 "$tmp/pkg/usr/bin/promtool" "$cache/promtool"
echo "ensure-promtool: $("$cache/promtool" --version 2>&1 | head -1) in $cache/promtool" >&2
echo "$cache/promtool"
