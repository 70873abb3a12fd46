package settingsjson

import (
	"strings"

	"github.com/agatehq/agate/app/internal/jsonc"
)

// QwenHooksOffEnv are the variables with which Qwen Code runs no hook at
// all, the user's included (--safe-mode and --bare set the same).
var QwenHooksOffEnv = []string{"QWEN_CODE_SAFE_MODE", "QWEN_CODE_SIMPLE"}

// QwenHooksOff says why Qwen Code would run none of the hooks in a
// settings file, or "" when nothing there turns them off: disableAllHooks,
// or one of QwenHooksOffEnv set in getenv's environment (nil: none).
// Every call then runs with no gate.
func QwenHooksOff(settings []byte, getenv func(string) string) string {
	var why []string
	if s, err := parseSettings(settings); err == nil {
		if v, ok := jsonc.Get(s.root.Object(), "disableAllHooks"); ok && jsonc.Raw(v) == "true" {
			why = append(why, "disableAllHooks is true")
		}
	}
	if getenv != nil {
		for _, k := range QwenHooksOffEnv {
			if v := getenv(k); v != "" && v != "0" && v != "false" {
				why = append(why, k+" is set")
			}
		}
	}
	return strings.Join(why, ", ")
}

// CopilotHooksOff says why Copilot CLI would run none of its hooks, from
// its settings file (settings.json or config.json in ~/.copilot), or ""
// when nothing there turns them off: disableAllHooks.
func CopilotHooksOff(settings []byte) string {
	s, err := parseSettings(settings)
	if err != nil {
		return ""
	}
	if v, ok := jsonc.Get(s.root.Object(), "disableAllHooks"); ok && jsonc.Raw(v) == "true" {
		return "disableAllHooks is true"
	}
	return ""
}
