#!/bin/sh
# Runs the keystore's keychain tests against a real Secret Service:
# gnome-keyring in a private D-Bus session, with its own home folder,
# unlocked with a throwaway password; again with that bus found only at
# $XDG_RUNTIME_DIR/bus. Then the automatic fallback to the passphrase with
# no Secret Service at all.
#
#   .ci/keyring-test.sh          the tests (make test calls this)
#   .ci/keyring-test.sh -bench   the tests, then the keystore benchmarks
#
# DISPLAY and WAYLAND_DISPLAY are unset: with a display, a locked keyring
# pops up an unlock window and go-keyring waits for it forever. Every go
# test run has a -timeout for the same reason.
set -eu

cd "$(dirname "$0")/.."
bench=false
[ "${1:-}" = "-bench" ] && bench=true

# run LOG CMD...: runs a go test command into LOG, shows its results, and
# fails when it fails or when a test skipped (a keychain test that skips
# here proves nothing).
run() {
	log=$1
	shift
	status=0
	"$@" >"$log" 2>&1 || status=$?
	grep -E '^ *--- |^(PASS|FAIL|ok|panic)|_test\.go:|^Benchmark' "$log" || true
	if [ "$status" != 0 ]; then
		cat "$log" >&2
		exit "$status"
	fi
	if grep -q -- '--- SKIP' "$log"; then
		echo "keyring-test: a test skipped" >&2
		exit 1
	fi
}

# Inside the D-Bus session (this script runs itself there): unlock a fresh
# keyring, run the tests, leave a mark when they pass.
if [ -n "${KEYRING_TEST_INNER:-}" ]; then
	printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
	run "$KEYRING_TEST_INNER/suite.log" env AGATE_TEST_SECRET_SERVICE=1 \
		go test -race -count=1 -timeout 120s -run 'Keychain|Passphrase' -v ./keystore/
	if ! grep -q -- '--- PASS: TestKeychainSuite' "$KEYRING_TEST_INNER/suite.log"; then
		echo "keyring-test: the keychain suite did not run" >&2
		exit 1
	fi
	# The same bus found only where sd-bus and GDBus look for it,
	# $XDG_RUNTIME_DIR/bus, with DBUS_SESSION_BUS_ADDRESS unset: agate,
	# which starts no bus of its own, must still use this one.
	echo "keyring-test: the keychain suite with the bus only at \$XDG_RUNTIME_DIR/bus"
	[ -S "$XDG_RUNTIME_DIR/bus" ] || { echo "keyring-test: no bus at $XDG_RUNTIME_DIR/bus" >&2; exit 1; }
	run "$KEYRING_TEST_INNER/xdg.log" env -u DBUS_SESSION_BUS_ADDRESS AGATE_TEST_SECRET_SERVICE=1 \
		go test -race -count=1 -timeout 120s -run '^TestKeychainSuite$' -v ./keystore/
	if ! grep -q -- '--- PASS: TestKeychainSuite' "$KEYRING_TEST_INNER/xdg.log"; then
		echo "keyring-test: the keychain suite did not run with the bus at \$XDG_RUNTIME_DIR/bus" >&2
		exit 1
	fi
	if [ "$bench" = true ]; then
		run "$KEYRING_TEST_INNER/bench.log" env AGATE_TEST_SECRET_SERVICE=1 \
			go test -count=5 -timeout 600s -run '^$' \
			-bench 'GetCached|Unseal|KeychainFirstGet|PassphraseFirstGet|IndexContains' -benchtime 1s ./keystore/
	fi
	touch "$KEYRING_TEST_INNER/inner-ok"
	exit 0
fi

need_pkgs=""
command -v dbus-run-session >/dev/null 2>&1 || need_pkgs="$need_pkgs dbus"
command -v dbus-launch >/dev/null 2>&1 || need_pkgs="$need_pkgs dbus-x11"
command -v gnome-keyring-daemon >/dev/null 2>&1 || need_pkgs="$need_pkgs gnome-keyring"
if [ -n "$need_pkgs" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "keyring-test: installing$need_pkgs"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need_pkgs >/dev/null
	else
		echo "keyring-test: missing packages:$need_pkgs (apt-get install$need_pkgs)" >&2
		exit 1
	fi
fi

# Keep Go's caches and settings where they are: the session moves HOME and
# the XDG folders, and a moved build cache means a cold rebuild.
GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH) GOENV=$(go env GOENV)
export GOCACHE GOMODCACHE GOPATH GOENV

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agate-keyring.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/home" "$tmp/data" "$tmp/config" "$tmp/cache" "$tmp/run"
chmod 700 "$tmp/run"
set -- HOME="$tmp/home" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"

# The session bus listens where dbus-run-session puts it and, as a
# desktop session's does, at $XDG_RUNTIME_DIR/bus.
session_conf=/usr/share/dbus-1/session.conf
[ -f "$session_conf" ] || session_conf=/etc/dbus-1/session.conf
cat >"$tmp/session.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>$session_conf</include>
  <listen>unix:path=$tmp/run/bus</listen>
</busconfig>
EOF

echo "keyring-test: the keychain suite against gnome-keyring (Secret Service)"
# dbus-daemon complains it cannot raise its fd limit when not root-capable:
# harmless, filtered out. The pipe hides the inner status, hence the mark.
env -u DISPLAY -u WAYLAND_DISPLAY -u DBUS_SESSION_BUS_ADDRESS "$@" KEYRING_TEST_INNER="$tmp" \
	dbus-run-session --config-file="$tmp/session.conf" -- "$0" $([ "$bench" = true ] && echo -bench) 2>&1 |
	grep -v 'Failed to set fd limit' || true
if [ ! -f "$tmp/inner-ok" ]; then
	echo "keyring-test: FAILED against the Secret Service" >&2
	exit 1
fi

echo "keyring-test: the fallback with no Secret Service (the session bus points nowhere)"
run "$tmp/fallback.log" env -u DISPLAY -u WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/no-bus" "$@" \
	go test -race -count=1 -timeout 120s -run 'KeychainFallback|KeychainHangs|AutoChoice' -v ./keystore/
echo "keyring-test: ok"
