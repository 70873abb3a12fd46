#!/usr/bin/env bash
# bench/sandbox.sh: what confining a command costs.
#
# Times, in one run, bare `true`, bwrap called directly with exactly the
# flags a confined call's line gives it (from `agate-hook sandbox --strict
# ... --print`), that line run by agate-hook (what an agent runs for every
# confined call), the same line run by agate-cli, and `agate sandbox --
# true` (the config's profile), many times each, and prints the medians and
# the ratios. The target: agate-hook adds under TARGET_MS (2 ms) to bare
# bwrap at the median. When agate's main calls sandbox.MaybeReexec, the
# landlock launcher is timed too.
#
#   bench/sandbox.sh               # 200 runs of each
#   N=500 bench/sandbox.sh         # more runs
#   STRICT=1 bench/sandbox.sh      # exit 1 when the target is missed
#   NO_HYPERFINE=1 bench/sandbox.sh  # the bash loop even if hyperfine is there
#
# Uses hyperfine when it is installed (apt install hyperfine), else a bash
# loop timed with $EPOCHREALTIME. Needs go and bwrap (apt install bubblewrap).
set -euo pipefail

N=${N:-200}
WARMUP=${WARMUP:-10}
TARGET_MS=${TARGET_MS:-2}
BIN=${AGATE_BENCH_BIN:-/tmp/agate-bench}
HOOK=${AGATE_BENCH_HOOK:-/tmp/agate-bench-hook}

die() { echo "bench/sandbox.sh: $*" >&2; exit 1; }
command -v bwrap >/dev/null || die "bwrap is not installed (apt install bubblewrap)"
command -v go >/dev/null || die "go is not installed"

cd "$(dirname "$0")/.."
# What runs per command is the command-line build (`make cli`'s
# bin/agate-cli): no GUI, which would cost tens of milliseconds at start-up,
# and no cgo.
CGO_ENABLED=0 go build -trimpath -tags nogui -ldflags '-s -w' -o "$BIN" . || die "go build failed"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$HOOK" ./app/hooks/agate-hook || die "go build agate-hook failed"
FLOOR=${HOOK}-minexec
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$FLOOR" ./bench/minexec || die "go build bench/minexec failed"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The defaults, not the config of whoever runs this.
export AGATE_CONFIG="$work/config.toml" AGATE_STATE_DIR="$work/state" AGATE_SOCKET="$work/state/agate.sock"
unset AGATE_SANDBOX_CWD PEPE_SANDBOX_CWD
# A login session has a runtime dir, where agate remembers that user
# namespaces work (one fork per boot); a bare root shell may not.
if [[ -z ${XDG_RUNTIME_DIR:-} ]]; then
	export XDG_RUNTIME_DIR="$work/run" && mkdir -m 700 "$XDG_RUNTIME_DIR"
	runtime_note="XDG_RUNTIME_DIR was unset: a private one was made for the run, as a login session has"
fi

strict="sandbox --strict --work $work --read-only --launcher bwrap"
bwrap_line=$("$HOOK" $strict --print -- true) || die "agate-hook sandbox --print failed"
# The hidden files' content comes from fd 3, the views' (git's config)
# from fd 4 on, as agate passes them; empty ones cost bwrap the same.
bwrap_line=${bwrap_line% 3</dev/null}
exec 3</dev/null 4</dev/null 5</dev/null
eval "bwrap_cmd=($bwrap_line)"
"${bwrap_cmd[@]}" || die "bwrap with agate's flags failed: $bwrap_line"
"$HOOK" $strict -- true || die "agate-hook sandbox -- true failed"
"$BIN" sandbox --launcher bwrap -- true || die "agate sandbox -- true failed"

names=("bare true" "bwrap, a confined line's flags" "agate-hook (a confined line)" "agate-cli, the same line" "agate sandbox -- true (config's)"
	"Go exec floor, the same bwrap")
lines=("$(type -P true)" "$bwrap_line" "$HOOK $strict -- true" "$BIN $strict -- true" "$BIN sandbox --launcher bwrap -- true"
	"$FLOOR $bwrap_line")
if "$HOOK" sandbox --strict --work "$work" --read-only --launcher landlock -- true 2>/dev/null; then
	names+=("agate-hook (landlock)")
	lines+=("$HOOK sandbox --strict --work $work --read-only --launcher landlock -- true")
else
	landlock_note="landlock launcher: not timed (it needs a kernel with Landlock ABI 3+, user namespaces, and main calling sandbox.MaybeReexec)"
fi

clock=epoch
if ((BASH_VERSINFO[0] < 5)); then clock=date; fi
use_hyperfine=
if [[ -z ${NO_HYPERFINE:-} ]] && command -v hyperfine >/dev/null; then use_hyperfine=1; fi
if [[ -n $use_hyperfine ]]; then
	method="hyperfine $(hyperfine --version | cut -d' ' -f2)"
else
	method="bash loop, $clock clock"
fi

# samples_us prints "INDEX MICROSECONDS" for every run of every command.
# The commands take turns (round by round with hyperfine, run by run in the
# loop), so a change in the machine's load hits them all alike.
samples_us() {
	local k
	if [[ -n $use_hyperfine ]]; then
		local rounds=${ROUNDS:-5} r json="$work/hyperfine.json"
		local per=$(((N + rounds - 1) / rounds))
		for ((r = 0; r < rounds; r++)); do
			hyperfine -N --style none --warmup "$WARMUP" --runs "$per" --export-json "$json" "${lines[@]}" \
				>/dev/null 2>"$work/hyperfine.err" || { cat "$work/hyperfine.err" >&2; die "hyperfine failed"; }
			# The pretty-printed JSON has one time (in seconds) per line
			# inside each result's "times" array.
			awk '/"times": \[/ { inside = 1; k++; next }
				inside && /\]/ { inside = 0; next }
				inside { gsub(/[ ,]/, ""); printf "%d %d\n", k - 1, $0 * 1e6 }' "$json"
		done
		return
	fi
	local i s e
	for ((k = 0; k < ${#lines[@]}; k++)); do
		eval "cmd$k=(${lines[k]})"
	done
	for ((i = -WARMUP; i < N; i++)); do
		for ((k = 0; k < ${#lines[@]}; k++)); do
			local -n cmd="cmd$k"
			if [[ $clock == epoch ]]; then
				s=${EPOCHREALTIME/[.,]/}
				"${cmd[@]}" >/dev/null 2>&1 || die "failed: ${lines[k]}"
				e=${EPOCHREALTIME/[.,]/}
				((i < 0)) || echo "$k $((10#$e - 10#$s))"
			else
				s=$(date +%s%N)
				"${cmd[@]}" >/dev/null 2>&1 || die "failed: ${lines[k]}"
				e=$(date +%s%N)
				((i < 0)) || echo "$k $(((e - s) / 1000))"
			fi
			unset -n cmd
		done
	done
}

samples_us >"$work/samples"
med=()
for ((k = 0; k < ${#lines[@]}; k++)); do
	count=$(awk -v k="$k" '$1 == k' "$work/samples" | wc -l)
	((count > 0)) || die "no timings for ${names[k]}"
	med+=("$(awk -v k="$k" '$1 == k { print $2 }' "$work/samples" | sort -n | sed -n "$(((count + 1) / 2))p")")
done

ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "x%.2f", a / b }'; }

echo "sandbox start-up, median of $N runs each, taking turns ($method), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r), $(bwrap --version)"
printf '  %-28s %10s\n' "${names[0]}" "$(ms "${med[0]}")"
printf '  %-28s %10s   %s bare\n' "${names[1]}" "$(ms "${med[1]}")" "$(ratio "${med[1]}" "${med[0]}")"
for ((k = 2; k < ${#med[@]}; k++)); do
	printf '  %-28s %10s   %s bwrap, %s bare\n' "${names[k]}" "$(ms "${med[k]}")" \
		"$(ratio "${med[k]}" "${med[1]}")" "$(ratio "${med[k]}" "${med[0]}")"
done
[[ -n ${landlock_note:-} ]] && echo "  $landlock_note"
[[ -n ${runtime_note:-} ]] && echo "  $runtime_note"

added=$((med[2] - med[1]))
verdict=$(awk -v a="$added" -v t="$TARGET_MS" 'BEGIN { print (a < t * 1000) ? "met" : "MISSED" }')
echo "agate-hook adds $(ms "$added") to bare bwrap at the median, running a confined call's line (target: under $TARGET_MS ms): $verdict"
echo "of which a Go program that only execs bwrap (bench/minexec) costs $(ms $((med[5] - med[1]))): agate's own work is $(ms $((med[2] - med[5])))"
if [[ $verdict != met && -n ${STRICT:-} ]]; then
	exit 1
fi
