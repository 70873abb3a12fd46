package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

// TestHookCmdCodex: what `agate hook codex` prints for each of the
// daemon's answers. PreToolUse: an allow is no output at all, anything
// else exit 2 with the reason (Codex takes an allow or ask answer as a
// failed hook, and runs the call). PermissionRequest: allow or deny as
// Codex's decision object. Run by no codex process, the call is taken as
// headless (unknown is not safe), and the daemon is told so.
func TestHookCmdCodex(t *testing.T) {
	newHookWorld(t, "")
	d := newFakeDaemon(t)
	allow := api.DecideResponse{Decision: policy.Allow, Layer: policy.LayerRule, Reason: "an allow rule matched", By: api.ByPolicy}
	deny := api.DecideResponse{Decision: policy.Deny, Layer: policy.LayerHardDeny, Reason: "piping a script into a shell", By: api.ByPolicy}
	ask := api.DecideResponse{Decision: policy.Ask, Layer: policy.LayerDefault, Reason: "nothing pre-approved it", By: api.ByAgent}
	unattended := api.DecideResponse{Decision: policy.Deny, Layer: policy.LayerRisk, Reason: "nobody can be asked, so it is denied: it deletes x", By: api.ByUnattended}
	for _, c := range []struct {
		name, file string
		answer     api.DecideResponse
		code       int
		stdout     string // exactly
		stderr     string // contained
	}{
		{"allow", "codex/pretooluse-bash.json", allow, 0, "", ""},
		{"deny", "codex/pretooluse-bash.json", deny, 2, "", "agate: piping a script into a shell [layer: hard_deny]. The user did not authorize"},
		{"ask", "codex/pretooluse-bash.json", ask, 2, "", "agate approvals --watch"},
		{"unattended", "codex/pretooluse-bash.json", unattended, 2, "", "agate approvals --watch"},
		{"permission allow", "codex/permissionrequest-bash.json", allow, 0,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n", ""},
		{"permission deny", "codex/permissionrequest-bash.json", deny, 0,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"agate: piping a script into a shell [layer: hard_deny]. The user did not authorize this tool call. Do not retry it as it is: try another approach, or check in with the user."}}}` + "\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d.set(func(d *fakeDaemon) { d.answer, d.decides = c.answer, nil })
			code, stdout, stderr := runHook(t, payload(t, c.file), "codex", "--agent-timeout", "135s", "--socket", d.socket)
			if code != c.code || stdout != c.stdout || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, c.code, c.stdout, c.stderr)
			}
			if strings.Contains(stdout, `"permissionDecision"`) {
				t.Errorf("a PreToolUse decision was printed: %s", stdout)
			}
			decides, _, _ := d.seen()
			if len(decides) != 1 || !decides[0].Headless || decides[0].Agent != "codex" ||
				decides[0].Reasks != strings.HasPrefix(c.name, "permission") || decides[0].Tool != "Bash" {
				t.Errorf("the daemon was asked %+v", decides)
			}
		})
	}
}

// TestHookCmdCodexDeadline: the hook blocks the call 5 s before Codex's
// own timeout (--agent-timeout), whatever the daemon is doing: Codex runs
// a call whose hook it had to kill.
func TestHookCmdCodexDeadline(t *testing.T) {
	newHookWorld(t, "")
	d := newFakeDaemon(t)
	d.set(func(d *fakeDaemon) { d.answer, d.delay = api.DecideResponse{Decision: policy.Allow}, time.Minute })
	start := time.Now()
	code, stdout, stderr := runHook(t, payload(t, "codex/pretooluse-bash.json"), "codex", "--agent-timeout", "7s", "--socket", d.socket)
	took := time.Since(start)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "did not answer") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a block", code, stdout, stderr)
	}
	if took < 1500*time.Millisecond || took > 4*time.Second {
		t.Errorf("blocked after %v, want about 2 s (7 s less 5 s)", took)
	}
}
