package settingsjson

import (
	"bytes"
	"path/filepath"

	"github.com/agatehq/agate/app/internal/jsonc"
	"github.com/tailscale/hujson"
)

// GeminiPolicyFile is the name of the Gemini CLI policy file agate
// installs, in the policies folder beside the user's settings.json
// (~/.gemini/policies/agate.toml).
const GeminiPolicyFile = "agate.toml"

// geminiPolicyMark is the first line of agate's policy file: Uninstall
// removes a policy file only when it starts so.
const geminiPolicyMark = "# agate: written by `agate hooks install gemini`; `agate hooks uninstall gemini` removes it."

// GeminiPolicyPath is where agate's policy goes for a settings file.
func GeminiPolicyPath(settingsFile string) string {
	return filepath.Join(filepath.Dir(settingsFile), "policies", GeminiPolicyFile)
}

// GeminiPolicy is the Gemini CLI policy agate installs with its hooks.
//
// Gemini CLI does not let a BeforeTool hook's "allow" skip its own
// confirmation: the hook decides, then Gemini's policy engine asks the
// person again for every shell command, file write or MCP call. This rule
// hands those calls to agate's hook alone in the interactive modes that
// would ask (default and auto-edit), so one call gets one prompt: agate's
// allow runs the call, its deny blocks it, its ask reaches the person in
// agate's prompt or Gemini's dialog. It is at the user tier's lowest
// priority, so a person's own rules still win, and it leaves plan mode,
// yolo and headless runs as Gemini has them.
//
// The rule is safe only while agate's hook runs on every call and always
// answers with exit 0 or 2 (runner.Main): Gemini CLI runs a call whose hook
// failed in any other way.
func GeminiPolicy() []byte {
	return []byte(geminiPolicyMark + `
#
# Gemini CLI asks its own question after agate's hook has allowed a call.
# agate's BeforeTool hook decides every tool call (allow, deny, or ask you
# in agate's prompt or Gemini's dialog), so Gemini is told not to ask again.
# This holds only while agate's hooks are installed in ~/.gemini/settings.json.
[[rule]]
toolName = "*"
decision = "allow"
priority = 1
modes = ["default", "autoEdit"]
interactive = true
`)
}

// IsGeminiPolicy reports whether data is a policy file agate wrote.
func IsGeminiPolicy(data []byte) bool {
	return bytes.HasPrefix(data, []byte(geminiPolicyMark+"\n"))
}

// GeminiHooksOff says why Gemini CLI would not run agate's hooks from a
// settings file, or "" when nothing there turns them off: hooks switched
// off (hooksConfig.enabled = false), or agate's turned off by name
// (hooksConfig.disabled holds "agate", as Gemini's /hooks panel writes).
// With agate's policy installed, Gemini then runs every call unasked.
func GeminiHooksOff(settings []byte) string {
	s, err := parseSettings(settings)
	if err != nil {
		return ""
	}
	v, ok := jsonc.Get(s.root.Object(), "hooksConfig")
	if !ok {
		return ""
	}
	hc, ok := v.Value.(*hujson.Object)
	if !ok {
		return ""
	}
	if en, ok := jsonc.Get(hc, "enabled"); ok && jsonc.Raw(en) == "false" {
		return "hooksConfig.enabled is false"
	}
	if d, ok := jsonc.Get(hc, "disabled"); ok {
		if list, ok := d.Value.(*hujson.Array); ok {
			for _, item := range list.Elements {
				if jsonc.Raw(&item) == `"agate"` {
					return `hooksConfig.disabled lists "agate"`
				}
			}
		}
	}
	return ""
}
