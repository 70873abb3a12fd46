#!/bin/sh
# A wrapper in Pepe's contract that confines nothing: it records what agate
# passed it in the work dir, then runs its arguments.
printf '%s\n%s\n%s\n' "$AGATE_SANDBOX_CWD" "$PEPE_SANDBOX_CWD" "$(pwd -P)" > "$AGATE_SANDBOX_CWD/wrapper.log"
exec "$@"
