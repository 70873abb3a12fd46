#!/bin/sh
# with-desktop.sh CMD [ARG...]: runs CMD in a throwaway desktop session and
# exits with its status: an Xvfb display (1280x800x24, :99 or the next
# free one), a private D-Bus session (dbus-run-session) with the dunst
# notification daemon, and HOME, XDG_* and the runtime dir in a temp dir,
# so nothing touches the real home, and Mesa's shader cache stays out of
# it. `make test-ui`, `make screenshots` and bench/desktop.sh use it.
set -eu

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agate-desktop.XXXXXX")
xvfb=""
cleanup() {
	[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
	# A process of the session may still be writing its last file.
	rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }
}
trap cleanup EXIT INT TERM

# Go keeps its caches where they are: a fresh HOME would mean a cold
# build (minutes for Fyne).
if command -v go >/dev/null; then
	export GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)" GOENV="$(go env GOENV)"
fi
export HOME="$tmp/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share"
export XDG_CACHE_HOME="$HOME/.cache" XDG_STATE_HOME="$HOME/.local/state"
export XDG_RUNTIME_DIR="$tmp/run"
export LANG=en_US.UTF-8
unset WAYLAND_DISPLAY AGATE_CONFIG AGATE_STATE_DIR AGATE_SOCKET DBUS_SESSION_BUS_ADDRESS
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"

n=99
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xvfb=$!
i=0
while [ ! -e "/tmp/.X11-unix/X$n" ]; do
	i=$((i + 1))
	if [ $i -gt 200 ] || ! kill -0 "$xvfb" 2>/dev/null; then
		echo "with-desktop: Xvfb :$n did not start" >&2
		cat "$tmp/xvfb.log" >&2
		exit 1
	fi
	sleep 0.05
done
export DISPLAY=":$n"

# Inside the bus session: a notification daemon, then the command.
dbus-run-session -- sh -c '
	dunst >"$XDG_RUNTIME_DIR/dunst.log" 2>&1 &
	dunst=$!
	status=0
	"$@" || status=$?
	kill "$dunst" 2>/dev/null
	exit $status
' with-desktop "$@"
