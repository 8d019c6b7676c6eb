#!/usr/bin/env bash
# ensure-redis.sh makes sure redis-server and redis-cli are installed, for the
# tests, the demo and the benchmarks, which start their own redis-server
# processes on free loopback ports. It prints nothing when both are there,
# and one line on stderr before it starts installing.
# On Debian/Ubuntu it installs the redis-server package (which brings
# redis-cli) with apt-get; elsewhere it says how to install Redis and fails.
# It never starts or configures a Redis service itself.
set -euo pipefail

# The tests run $REDIS_SERVER when it is set, else redis-server from PATH.
if [[ -n "${REDIS_SERVER:-}" ]] && ! command -v "$REDIS_SERVER" >/dev/null 2>&1; then
	echo "ensure-redis: REDIS_SERVER=$REDIS_SERVER is not an executable; fix it, or unset it to use redis-server from PATH" >&2
	exit 1
fi

have_server() {
	[[ -n "${REDIS_SERVER:-}" ]] || command -v redis-server >/dev/null 2>&1
}

have_cli() {
	command -v redis-cli >/dev/null 2>&1 ||
		{ [[ -n "${REDIS_SERVER:-}" ]] && [[ -x "$(dirname "$(command -v "$REDIS_SERVER")")/redis-cli" ]]; }
}

if have_server && have_cli; then
	exit 0
fi

missing=()
have_server || missing+=(redis-server)
have_cli || missing+=(redis-cli)

manual_hint() {
	echo "  Debian/Ubuntu: sudo apt-get install -y redis-server" >&2
	echo "  macOS:         brew install redis" >&2
	echo "  Fedora/RHEL:   sudo dnf install -y redis" >&2
	echo "  Alpine:        sudo apk add redis" >&2
	echo "  or build it from https://redis.io/download and set REDIS_SERVER to the redis-server binary" >&2
}

if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-redis: ${missing[*]} not found and this is not Debian/Ubuntu (no apt-get); install Redis 7+ yourself:" >&2
	manual_hint
	exit 1
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "ensure-redis: ${missing[*]} not found; installing it needs root, and sudo is missing. Run as root:" >&2
		echo "  apt-get update && apt-get install -y redis-server" >&2
		exit 1
	fi
	sudo=(sudo)
fi

# apt-get runs quietly and can take a minute or more: say so first.
echo "ensure-redis: ${missing[*]} not found; installing redis-server with ${sudo[*]:+sudo }apt-get (apt-get update, then apt-get install; this can take a minute)..." >&2

export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -qq >/dev/null ||
	! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null; then
	echo "ensure-redis: apt-get could not install redis-server; install Redis 7+ yourself:" >&2
	manual_hint
	exit 1
fi

if ! have_server || ! have_cli; then
	echo "ensure-redis: apt-get installed redis-server, but redis-server or redis-cli is still not on PATH" >&2
	exit 1
fi
echo "ensure-redis: installed redis-server with apt-get: $(redis-server --version | cut -d' ' -f1-3)"
