#!/usr/bin/env bash
# Times one hook call, whole process, as an agent runs it: agate's lean
# `agate-hook hook claude-code` (what `agate hooks install` points the
# agents at) answered by a running daemon, and `agate-cli hook`, beside the
# floor for a process per call (minhook: a Go program that only reads the
# JSON and prints an answer), the floor for a process that also asks the
# daemon (minrt: minhook plus one decision request over the socket, its
# audit line synced), a Python script doing the same as minhook, and the
# desktop build's `agate hook` (which links Fyne) when it is built. Then
# the daemon's side alone, from a warm client (roundtrip): the socket and
# HTTP (GET /v1/status) and one decision.
#
#   bench/hook.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agate-bench.XXXXXX")
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -trimpath -tags nogui -ldflags '-s -w' -o "$tmp/agate-cli" .
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/agate-hook" ./app/hooks/agate-hook
go build -o "$tmp/minhook" ./bench/minhook
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/minrt" ./bench/minrt
go build -o "$tmp/roundtrip" ./bench/roundtrip
go build -o "$tmp/timeit" ./bench/timeit

export AGATE_CONFIG="$tmp/config/config.toml" AGATE_STATE_DIR="$tmp/state" AGATE_SOCKET="$tmp/run/agate.sock"
"$tmp/agate-cli" serve 2>"$tmp/serve.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$AGATE_SOCKET" ] && break; sleep 0.05; done
[ -S "$AGATE_SOCKET" ] || { cat "$tmp/serve.log"; exit 1; }

# A call the policy allows at once (a risk-free command): the hook's own
# cost, not a person's.
cat >"$tmp/payload.json" <<JSON
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"$tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status --short"},"tool_use_id":"toolu_bench"}
JSON
# Check the answer is an allow before timing anything.
hookcmd="$tmp/agate-hook hook claude-code --agent-timeout 135s"
$hookcmd <"$tmp/payload.json" | grep -q '"permissionDecision":"allow"' ||
  { echo "bench/hook.sh: the hook did not allow the call" >&2; $hookcmd <"$tmp/payload.json"; exit 1; }

# The Go floor and agate's hook alone first: a heavy neighbour in the same
# rounds (Python, the Fyne binary) slows whatever runs after it.
echo "hook whole-process time, $rounds rounds, interleaved (ratios against the Go floor):"
"$tmp/timeit" -n "$rounds" -in "$tmp/payload.json" -- "go-floor=$tmp/minhook ;; floor+daemon=$tmp/minrt ;; agate-hook=$hookcmd"
echo
cmds="go-floor=$tmp/minhook"
py=""
for p in /usr/bin/python3 "$(command -v python3 || true)"; do [ -x "$p" ] && py=$p && break; done
[ -n "$py" ] && cmds="$cmds ;; python=$py bench/minhook.py"
cmds="$cmds ;; agate-hook=$hookcmd"
cmds="$cmds ;; agate-cli-hook=$tmp/agate-cli hook claude-code --agent-timeout 135s"
if [ -x bin/agate ]; then
  cmds="$cmds ;; agate-desktop-hook=bin/agate hook claude-code --agent-timeout 135s"
fi
echo "beside Python and the other builds:"
"$tmp/timeit" -n "$rounds" -in "$tmp/payload.json" -- $cmds
echo
echo "the daemon's side, from a warm client, a new connection per request:"
"$tmp/roundtrip" -n "$rounds" -cwd "$tmp"
