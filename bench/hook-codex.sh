#!/usr/bin/env bash
# Times one Codex hook call, whole process, as Codex runs it: agate's lean
# `agate-hook hook codex` answered by a running daemon, for a PreToolUse
# the policy allows (no output, exit 0) and one it denies (exit 2), beside
# the floor for a process per call (a Go program that only reads the JSON
# and prints an answer). The Codex hook also walks its parent processes to
# tell `codex exec` from the TUI; run by this script it finds no codex and
# walks to the top, the longest walk.
#
#   bench/hook-codex.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agate-bench.XXXXXX")
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -trimpath -tags nogui -ldflags '-s -w' -o "$tmp/agate-cli" .
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/agate-hook" ./app/hooks/agate-hook
go build -o "$tmp/minhook" ./bench/minhook
go build -o "$tmp/timeit" ./bench/timeit

export AGATE_CONFIG="$tmp/config/config.toml" AGATE_STATE_DIR="$tmp/state" AGATE_SOCKET="$tmp/run/agate.sock"
mkdir -p "$tmp/config"
printf '[auto]\nhard_deny = ["bash touch forbidden*"]\n' >"$AGATE_CONFIG"
"$tmp/agate-cli" serve 2>"$tmp/serve.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$AGATE_SOCKET" ] && break; sleep 0.05; done
[ -S "$AGATE_SOCKET" ] || { cat "$tmp/serve.log"; exit 1; }

payload() {
  printf '{"session_id":"bench","turn_id":"t1","transcript_path":null,"cwd":"%s","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"call_1"}' "$tmp" "$1"
}
payload "git status --short" >"$tmp/allow.json"
payload "touch forbidden.txt" >"$tmp/deny.json"
hookcmd="$tmp/agate-hook hook codex --agent-timeout 135s"
# Check the answers before timing anything: an allow is no output and
# exit 0, a deny exit 2.
out=$($hookcmd <"$tmp/allow.json") && [ -z "$out" ] ||
  { echo "bench/hook-codex.sh: the hook did not allow the call: $out" >&2; exit 1; }
if $hookcmd <"$tmp/deny.json" 2>/dev/null; then
  echo "bench/hook-codex.sh: the hook did not deny the call" >&2; exit 1
fi

echo "codex hook whole-process time, $rounds rounds, interleaved (ratios against the Go floor):"
"$tmp/timeit" -n "$rounds" -in "$tmp/allow.json" -- "go-floor=$tmp/minhook ;; agate-hook-allow=$hookcmd"
"$tmp/timeit" -n "$rounds" -ok 2 -in "$tmp/deny.json" -- "go-floor=$tmp/minhook ;; agate-hook-deny=$hookcmd"
