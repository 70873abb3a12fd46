#!/usr/bin/env bash
# Figures for the desktop app, measured on the real binaries under Xvfb
# (inside ui/testdata/with-desktop.sh, which this script enters itself):
#
#  1. call → popup on screen: from just before a risky call is sent
#     (`agate-cli hook claude-code`, a new process, as an agent runs it) to
#     the popup window being mapped and viewable, polled with xdotool
#     (each poll is one xdotool process, about 2-4 ms: the figure is an
#     upper bound). The first call of a run (cold: the window's first
#     show) is reported apart from the next ones (warm). Each popup is
#     answered with Escape before the next call.
#  2. idle memory of the tray app: Rss and Anonymous from
#     /proc/PID/smaps_rollup, idle after start-up and again idle after the
#     popups (8 s after each: past the app's idle release of memory).
#
#   bench/desktop.sh [ROUNDS]     (make build first; bin/ is used)
#
# Knobs for digging: BENCH_IDLE (seconds idle before the second memory
# reading, default 8), BENCH_GODEBUG (GODEBUG for agate, e.g. gctrace=1),
# BENCH_DEBUG=1 (print the biggest anonymous mappings and the last GCs).
#
# The hook's whole-process time (agate-hook, agate-cli, and the Fyne
# binary's `agate hook`) is bench/hook.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
if [ -z "${AGATE_BENCH_INNER:-}" ]; then
  [ -x bin/agate ] && [ -x bin/agate-cli ] || { echo "bench/desktop.sh: make build first" >&2; exit 1; }
  AGATE_BENCH_INNER=1 exec ./ui/testdata/with-desktop.sh "$0" "$rounds"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agate-bench-desktop.XXXXXX")
agate=""
trap '[ -n "$agate" ] && kill "$agate" 2>/dev/null && wait "$agate"; rm -rf "$tmp"' EXIT
export AGATE_CONFIG="$tmp/config/config.toml" AGATE_STATE_DIR="$tmp/state" AGATE_SOCKET="$tmp/run/agate.sock"
mkdir -p "$tmp/project"
title='agate: approval needed'

now() { date +%s%N; }
mem() { # mem PID: "rss_mb anon_mb"
  awk '/^Rss:/ {r=$2} /^Anonymous:/ {a=$2} END {printf "%.1f %.1f\n", r/1024, a/1024}' "/proc/$1/smaps_rollup"
}

GODEBUG=${BENCH_GODEBUG:-} ./bin/agate >"$tmp/agate.log" 2>&1 &
agate=$!
for _ in $(seq 300); do ./bin/agate-cli status 2>/dev/null | grep -q 'asks:.*tray' && break; sleep 0.1; done
./bin/agate-cli status 2>/dev/null | grep -q 'asks:.*tray' || { cat "$tmp/agate.log" >&2; exit 1; }
sleep 8 # past the app's idle release (ui.idleRelease, 5 s)
read -r rss0 anon0 < <(mem "$agate")

lat=()
for i in $(seq "$rounds"); do
  payload="{\"session_id\":\"bench\",\"transcript_path\":\"/tmp/t.jsonl\",\"cwd\":\"$tmp/project\",\"permission_mode\":\"default\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf build-$i\"},\"tool_use_id\":\"toolu_$i\"}"
  t0=$(now)
  ./bin/agate-cli hook claude-code <<<"$payload" >"$tmp/hook.out" 2>&1 &
  hook=$!
  until win=$(xdotool search --onlyvisible --name "$title" 2>/dev/null); do :; done
  t1=$(now)
  lat+=($(( (t1 - t0) / 1000 )))
  win=${win%%$'\n'*}
  xdotool windowfocus "$win" 2>/dev/null || true
  sleep 0.2
  xdotool key Escape
  wait "$hook"
  grep -q '"permissionDecision":"deny"' "$tmp/hook.out" || { echo "round $i: the hook did not print deny:" >&2; cat "$tmp/hook.out" >&2; exit 1; }
  while xdotool search --onlyvisible --name "$title" >/dev/null 2>&1; do sleep 0.01; done
done
sleep "${BENCH_IDLE:-8}"
read -r rss1 anon1 < <(mem "$agate")
if [ -n "${BENCH_DEBUG:-}" ]; then
  awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6} /^Anonymous:/{ if ($2>2000) print $2, name}' /proc/$agate/smaps | sort -rn | head
  grep '^gc ' "$tmp/agate.log" | tail -2
fi

ms() { awk -v us="$1" 'BEGIN {printf "%.1f ms", us/1000}'; }
warm=$(printf '%s\n' "${lat[@]:1}" | sort -n)
n=$(printf '%s\n' "$warm" | grep -c .)
median=$(printf '%s\n' "$warm" | sed -n "$(( (n + 1) / 2 ))p")
p90=$(printf '%s\n' "$warm" | sed -n "$(( (n * 9 + 9) / 10 ))p")
max=$(printf '%s\n' "$warm" | tail -1)
echo "call → popup on screen (agate-cli hook start → window viewable, xdotool polling):"
echo "  cold (first popup):      $(ms "${lat[0]}")"
echo "  warm, $n calls:          median $(ms "$median"), p90 $(ms "$p90"), max $(ms "$max")"
echo "tray app memory (/proc/PID/smaps_rollup):"
echo "  idle after start:        Rss ${rss0} MB, Anonymous ${anon0} MB"
echo "  idle after $rounds popups:   Rss ${rss1} MB, Anonymous ${anon1} MB"
