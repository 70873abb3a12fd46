package agenttest

import (
	"os"
	"testing"
	"time"
)

func claudeProbeSettings(t *testing.T, h *Home) {
	ev := map[string]any{}
	for _, e := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied", "Notification", "Stop", "PostToolBatch", "UserPromptSubmit", "SessionEnd"} {
		ev[e] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": "/tmp/probe/cprobe.sh"}}}}
	}
	WriteJSON(t, h.Home+"/.claude/settings.json", map[string]any{"hooks": ev})
}

func TestProbeClaudeP(t *testing.T) {
	Require(t)
	bin := Install(t, ClaudeCode)
	h := NewHome(t)
	s := NewServer(t, Call("Bash", map[string]any{"command": "rm -f scratch.txt", "description": "remove"}), Say("all done"))
	claudeProbeSettings(t, h)
	r := h.Run(t, Cmd{Bin: bin, Args: []string{"-p", "clean", "--output-format", "json"}, Env: h.Env(s.ClaudeEnv()...)})
	t.Logf("%s\n%s", r, s.Dump())
}

func TestProbeClaudeTUI(t *testing.T) {
	Require(t)
	bin := Install(t, ClaudeCode)
	h := NewHome(t)
	s := NewServer(t, Call("Bash", map[string]any{"command": "rm -f scratch.txt", "description": "remove"}), Say("all done"))
	claudeProbeSettings(t, h)
	h.ClaudeState(t)
	u := h.StartTUI(t, Cmd{Bin: bin, Args: []string{"clean up"}, Env: h.Env(s.ClaudeEnv()...)})
	for i := 0; i < 6; i++ {
		time.Sleep(2 * time.Second)
		u.Dump("t")
		if os.Getenv("PROBE_KEYS") != "" && i == 2 {
			u.Keys(os.Getenv("PROBE_KEYS"))
		}
	}
	t.Logf("%s", s.Dump())
}
