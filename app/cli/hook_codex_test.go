package cli

import (
	"strings"
	"testing"

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
