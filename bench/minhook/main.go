// Command minhook is the floor for a hook process: it reads the agent's
// JSON and prints an answer, and does nothing else. bench/hook.sh times
// agate's hook against it.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var in map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n")
}
