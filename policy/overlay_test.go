package policy

import (
	"strings"
	"testing"
)

func TestOverlayOnlyTightens(t *testing.T) {
	base := mustPolicy(t, `
[auto]
mode = "accept_edits"
auto_approve = ["fs", "code", "memory"]
rules = ["allow bash make*"]
[agents.claude-code]
mode = "yolo"
`)
	ov, err := ParseOverlay("/repo/.agate.toml", []byte(`
[auto]
mode = "yolo"                       # looser: refused
auto_approve = ["fs", "web"]        # web is not auto-approved by the person: refused; code and memory dropped
rules = [
  "deny shell make deploy*",
  "allow shell curl*",              # refused
  "ask fs *.sql",
]
hard_deny = ["shell terraform destroy*"]
protected_paths = ["migrations/"]
trusted_dirs = ["/"]                # refused
[tools]
web = false
[agents.claude-code]
mode = "ask"                        # stricter than the person's yolo
auto_approve = ["*"]                # refused
`))
	if err != nil {
		t.Fatal(err)
	}
	p := base.WithOverlay(ov)
	problems := map[string]bool{}
	for _, pr := range p.Problems() {
		problems[pr.Key] = true
		if !strings.Contains(pr.Error(), "/repo/.agate.toml") || !strings.Contains(pr.Error(), "only tighten") {
			t.Errorf("problem %q does not name the file and the reason", pr)
		}
	}
	for _, k := range []string{"auto.mode", "auto.auto_approve", "auto.rules[1]", "auto.trusted_dirs[0]", "agents.claude-code.auto_approve[0]"} {
		if !problems[k] {
			t.Errorf("no problem reported for %s (got %v)", k, problems)
		}
	}
	tests := []struct {
		name, agent, tool, args string
		want                    Verdict
		layer                   Layer
	}{
		{"project deny beats the person's allow", "gemini", "Bash", `{"command":"make deploy-prod"}`, Deny, LayerRule},
		{"the person's allow still works", "gemini", "Bash", `{"command":"make test"}`, Allow, LayerRule},
		{"refused allow rule does not allow", "gemini", "Bash", `{"command":"curl https://x"}`, Ask, LayerRisk},
		{"project ask rule", "gemini", "Write", `{"file_path":"db/schema.sql"}`, Ask, LayerRule},
		{"project hard deny", "gemini", "Bash", `{"command":"terraform destroy -auto-approve"}`, Deny, LayerHardDeny},
		{"project protected path", "gemini", "Write", `{"file_path":"migrations/001.sql"}`, Ask, LayerRule},
		{"project protected path, other", "gemini", "Write", `{"file_path":"migrations/002.py"}`, Ask, LayerProtected},
		{"category switched off", "gemini", "WebFetch", `{"url":"https://x"}`, Deny, LayerTools},
		{"mode stays accept_edits (yolo refused)", "gemini", "Edit", `{"file_path":"a.go"}`, Allow, LayerAcceptEdits},
		{"agent's yolo tightened to ask", "claude-code", "Bash", `{"command":"curl https://example.com"}`, Ask, LayerRisk},
		{"memory dropped from auto_approve", "gemini", "save_memory", `{"fact":"x"}`, Allow, LayerRisk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(t, tt.tool, tt.args)
			r.Agent = tt.agent
			d := p.Decide(r)
			if d.Verdict != tt.want || d.Layer != tt.layer {
				t.Fatalf("got %s at %s (%s), want %s at %s", d.Verdict, d.Layer, d.Reason, tt.want, tt.layer)
			}
		})
	}
	// The base is untouched.
	if d := base.Decide(req(t, "Bash", `{"command":"make deploy-prod"}`)); d.Verdict != Allow {
		t.Fatalf("base policy changed: %s", d.Verdict)
	}
}

func TestOverlayCannotLoosenMode(t *testing.T) {
	base := mustPolicy(t, "[auto]\nmode = \"plan\"\n")
	ov, err := ParseOverlay(".agate.toml", []byte("[auto]\nmode = \"ask\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := base.WithOverlay(ov)
	if p.Mode() != ModePlan || len(p.Problems()) != 1 {
		t.Fatalf("mode %s, problems %v", p.Mode(), p.Problems())
	}
}

func TestFailedOverlayIsManual(t *testing.T) {
	base := mustPolicy(t, "")
	_, err := ParseOverlay("/repo/.agate.toml", []byte("[auto\nmode = 1"))
	if err == nil {
		t.Fatal("no error")
	}
	p := base.FailedOverlay("/repo/.agate.toml", err)
	if p.Mode() != ModeManual || len(p.Problems()) != 1 || !strings.Contains(p.Problems()[0].Error(), "/repo/.agate.toml") {
		t.Fatalf("mode %s problems %v", p.Mode(), p.Problems())
	}
	if d := p.Decide(req(t, "Write", `{"file_path":"a.go"}`)); d.Verdict != Ask || d.Layer != LayerMode {
		t.Fatalf("write under a broken overlay: %s at %s", d.Verdict, d.Layer)
	}
}

func TestOverlayRefusesOtherSections(t *testing.T) {
	ov, err := ParseOverlay(".agate.toml", []byte("[approvals]\ntimeout = \"1h\"\n[sandbox]\nfail_closed = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Problems()) != 2 {
		t.Fatalf("problems %v", ov.Problems())
	}
}

// TestOverlayPrograms: a project may make a program ask on every call,
// never say what one does.
func TestOverlayPrograms(t *testing.T) {
	base := mustPolicy(t, "")
	ov, err := ParseOverlay(".agate.toml", []byte("[programs.ls]\nask = true\n\n[programs.deploy]\nsummary = \"harmless\"\neffects = [\"none\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Problems()) != 1 || !strings.Contains(ov.Problems()[0].Error(), "deploy") {
		t.Fatalf("problems %v", ov.Problems())
	}
	p := base.WithOverlay(ov)
	if d := p.Decide(req(t, "Bash", `{"command":"ls -la"}`)); d.Verdict != Ask {
		t.Fatalf("ls in a project that makes it ask: %s (%s)", d.Verdict, d.Reason)
	}
	if d := p.Decide(req(t, "Bash", `{"command":"deploy --prod"}`)); d.Verdict != Ask {
		t.Fatalf("a project declared its own program harmless: %s (%s)", d.Verdict, d.Reason)
	}
	if d := base.Decide(req(t, "Bash", `{"command":"ls -la"}`)); d.Verdict != Allow {
		t.Fatalf("ls elsewhere: %s", d.Verdict)
	}
}

// FuzzParseOverlay: never panics, and a merged overlay never allows a call
// the base policy denies.
func FuzzParseOverlay(f *testing.F) {
	f.Add("[auto]\nrules = [\"allow *\"]\nmode = \"yolo\"\n")
	f.Add("[auto]\nhard_deny = [\"shell\"]\n[tools]\nshell = true\n")
	f.Add("[agents.x]\nauto_approve = [\"*\"]\ntrust_untrusted_content = true\n")
	f.Add("[programs.rm]\nask = true\n[programs.curl]\neffects = [\"none\"]\n")
	base := mustPolicy(f, "[auto]\nrules = [\"deny shell rm*\"]\n")
	calls := []*Request{
		{Tool: "Bash", Args: map[string]any{"command": "rm -rf build"}, Cwd: testCwd, Interactive: true},
		{Tool: "Write", Args: map[string]any{"file_path": "/etc/passwd"}, Cwd: testCwd, Interactive: true},
	}
	f.Fuzz(func(t *testing.T, text string) {
		ov, err := ParseOverlay("f.toml", []byte(text))
		if err != nil {
			return
		}
		p := base.WithOverlay(ov)
		for _, r := range calls {
			if b, o := base.Decide(r), p.Decide(r); o.Verdict > b.Verdict {
				t.Fatalf("overlay loosened %s: base %s, merged %s", r.Tool, b.Verdict, o.Verdict)
			}
		}
	})
}
