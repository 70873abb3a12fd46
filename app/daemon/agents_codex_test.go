package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/hooks/settings/codexrules"
	"github.com/agatehq/agate/app/internal/agenttest"
	"github.com/agatehq/agate/policy"
)

// These tests run the real Codex CLI (agenttest.Codex, `codex exec`) with
// agate's hooks and rules, installed by `agate-cli hooks install codex`,
// the real agate-hook binary and a real daemon. They run with
// AGATE_AGENT_TESTS=1 (make test-agents).

type codexWorld struct {
	*agentWorld
	codex string
}

func newCodexWorld(t *testing.T, config string, turns ...agenttest.Turn) *codexWorld {
	t.Helper()
	w := newAgentWorld(t, config, turns...)
	c := &codexWorld{agentWorld: w, codex: agenttest.Install(t, agenttest.Codex)}
	w.h.WriteCodexConfig(t, w.s, "")
	out := w.h.InstallHooks(t, w.bin, "codex", w.h.Env())
	t.Logf("agate hooks install codex:\n%s", out)
	return c
}

// exec runs `codex exec` on prompt, with extra arguments before it.
func (c *codexWorld) exec(t *testing.T, env []string, prompt string, args ...string) *agenttest.Result {
	t.Helper()
	a := append([]string{"exec", "--skip-git-repo-check"}, args...)
	r := c.h.Run(t, agenttest.Cmd{Bin: c.codex, Args: append(a, prompt), Env: c.h.Env(append(c.s.CodexEnv(), env...)...), Timeout: 90 * time.Second})
	t.Logf("codex exec: %s\nmodel server:\n%s", r, c.s.Dump())
	if r.Code != 0 {
		t.Fatalf("codex: %s", r)
	}
	return r
}

func (c *codexWorld) exists(name string) bool {
	_, err := os.Stat(filepath.Join(c.h.Work, name))
	return err == nil
}

// TestCodexHarmlessRuns: a call agate allows runs (no output from the
// hook is Codex's "go on"); the decision is in agate's log.
func TestCodexHarmlessRuns(t *testing.T) {
	c := newCodexWorld(t, "[auto]\nrules = [\"allow bash touch ran.txt\"]\n",
		agenttest.Call("exec_command", map[string]any{"cmd": "touch ran.txt"}), agenttest.Say("done"))
	r := c.exec(t, nil, "make a file")
	if !c.exists("ran.txt") {
		t.Fatalf("the allowed command did not run\n%s", c.auditDump(t))
	}
	if !strings.Contains(r.Stderr, "hook: PreToolUse Completed") {
		t.Errorf("codex did not run agate's PreToolUse hook: %s", r.Stderr)
	}
	if ev := c.auditEvents(t, "Bash"); len(ev) != 1 || ev[0] != "decision allow policy" {
		t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
	}
}

// TestCodexDestructiveBlocked: a delete git cannot give back asks; with
// nobody attached to agate, codex exec (headless, and PreToolUse cannot
// ask anyway) gets agate's denial, the file stays, and the model is told
// agate's reason and how to approve such a call.
func TestCodexDestructiveBlocked(t *testing.T) {
	c := newCodexWorld(t, "", agenttest.Call("exec_command", map[string]any{"cmd": "rm keep.txt"}), agenttest.Say("done"))
	tooBigToKeep(t, filepath.Join(c.h.Work, "keep.txt"))
	c.exec(t, nil, "clean up")
	if !c.exists("keep.txt") {
		t.Fatalf("the command ran\n%s", c.auditDump(t))
	}
	res := resultsText(c.s)
	for _, want := range []string{"blocked by PreToolUse hook: agate: ", "keep.txt, which git cannot give back", "agate approvals --watch"} {
		if !strings.Contains(res, want) {
			t.Fatalf("the model was not told %q: %q", want, res)
		}
	}
	if ev := c.auditEvents(t, "Bash"); len(ev) != 1 || ev[0] != "decision deny unattended" {
		t.Fatalf("audit: %q\n%s", ev, c.auditDump(t))
	}
}

// TestCodexPersonAsked: with a person attached to agate (a terminal
// approver), agate asks them and the hook says what they answered.
func TestCodexPersonAsked(t *testing.T) {
	for _, answer := range []policy.Verdict{policy.Allow, policy.Deny} {
		t.Run(answer.String(), func(t *testing.T) {
			c := newCodexWorld(t, "", agenttest.Call("exec_command", map[string]any{"cmd": "rm keep.txt"}), agenttest.Say("done"))
			tooBigToKeep(t, filepath.Join(c.h.Work, "keep.txt"))
			seen := c.attachApprover(t, answer, false)
			c.exec(t, nil, "clean up")
			if a := seen.list(); len(a) != 1 || a[0].Subject != "rm keep.txt" || !a[0].Headless {
				t.Fatalf("the person was asked about %+v", a)
			}
			res := resultsText(c.s)
			if answer == policy.Allow {
				if c.exists("keep.txt") || strings.Contains(res, "agate: ") {
					t.Fatalf("allowed, yet the file is there or the model saw %q", res)
				}
			} else if !c.exists("keep.txt") || !strings.Contains(res, "the person denied it") {
				t.Fatalf("denied, yet the file is gone or the model saw %q", res)
			}
		})
	}
}

// TestCodexDaemonDown: with no daemon, every call is blocked, even with
// on_daemon_down = "ask" (an ask would let Codex run it).
func TestCodexDaemonDown(t *testing.T) {
	c := newCodexWorld(t, "[hooks]\non_daemon_down = \"ask\"\n",
		agenttest.Call("exec_command", map[string]any{"cmd": "touch ran.txt"}), agenttest.Say("done"))
	c.exec(t, []string{"AGATE_SOCKET=" + filepath.Join(c.h.Runtime, "nobody-here.sock")}, "make a file")
	if c.exists("ran.txt") {
		t.Fatal("the call ran with the daemon down")
	}
	if res := resultsText(c.s); !strings.Contains(res, "agate: the daemon is not running") {
		t.Fatalf("the model saw %q", res)
	}
}

// TestCodexRulesHoldWithoutHooks: agate's rules file forbids a hard_deny
// command even with Codex's hooks off; `codex execpolicy check` agrees.
func TestCodexRulesHoldWithoutHooks(t *testing.T) {
	c := newCodexWorld(t, "[auto]\nhard_deny = [\"bash touch forbidden.txt*\"]\n",
		agenttest.Call("exec_command", map[string]any{"cmd": "touch forbidden.txt"}), agenttest.Say("done"))
	rules := codexrules.Path(filepath.Join(c.h.Home, ".codex"))
	check := exec.Command(c.codex, "execpolicy", "check", "--rules", rules, "touch", "forbidden.txt")
	check.Env = c.h.Env()
	out, err := check.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"decision":"forbidden"`) {
		t.Fatalf("codex execpolicy check: %v\n%s\n%s", err, out, must(os.ReadFile(rules)))
	}
	for _, cmd := range [][]string{{"shutdown", "-h", "now"}, {"rm", "-rf", "/"}, {"mkfs.ext4", "/dev/sda"}} {
		check := exec.Command(c.codex, append([]string{"execpolicy", "check", "--rules", rules}, cmd...)...)
		check.Env = c.h.Env()
		if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), `"decision":"forbidden"`) {
			t.Errorf("%q: %v\n%s", cmd, err, out)
		}
	}
	check = exec.Command(c.codex, "execpolicy", "check", "--rules", rules, "touch", "fine.txt")
	check.Env = c.h.Env()
	if out, err := check.CombinedOutput(); err != nil || strings.Contains(string(out), "forbidden") {
		t.Errorf("touch fine.txt: %v\n%s", err, out)
	}
	c.exec(t, nil, "make a file", "--disable", "hooks")
	if c.exists("forbidden.txt") {
		t.Fatal("the forbidden command ran")
	}
	if res := resultsText(c.s); !strings.Contains(res, "agate: hard_deny bash touch forbidden.txt*") {
		t.Fatalf("the model saw %q", res)
	}
	if ev := c.auditEvents(t, "Bash"); len(ev) != 0 {
		t.Errorf("hooks off, yet agate decided: %q", ev)
	}
}

// TestCodexOfferedToolsKnown: every tool codex exec offers the model is
// one agate's catalog knows: when Codex ships a new tool, this fails.
func TestCodexOfferedToolsKnown(t *testing.T) {
	// gpt-5-codex (no bundled metadata: the fallback tool set) and
	// gpt-5.5 (apply_patch, tool_search) offer different tools.
	for _, model := range []string{"gpt-5-codex", "gpt-5.5"} {
		t.Run(model, func(t *testing.T) {
			c := newCodexWorld(t, "", agenttest.Say("hello"))
			c.exec(t, nil, "say hello", "-m", model)
			checkOfferedKnown(t, c.agentWorld, codexOffered(c.s))
		})
	}
}

// codexOffered lists the tools of Codex's first request, a namespace's
// tools by the names its hooks give them (mcp__SERVER__TOOL for an MCP
// server, the bare name for the others).
func codexOffered(s *agenttest.Server) []string {
	conv := s.Conversation()
	if len(conv) == 0 {
		return nil
	}
	var names []string
	for _, t := range listOf(conv[0].JSON()["tools"]) {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		typ, _ := tm["type"].(string)
		switch {
		case typ == "namespace":
			for _, in := range listOf(tm["tools"]) {
				im, _ := in.(map[string]any)
				n, _ := im["name"].(string)
				if strings.HasPrefix(name, "mcp__") {
					n = name + "__" + n
				}
				names = append(names, n)
			}
		case name != "":
			names = append(names, name)
		default:
			names = append(names, typ) // a built-in tool: web_search
		}
	}
	return names
}

func listOf(v any) []any { l, _ := v.([]any); return l }

// checkOfferedKnown fails for any offered tool agate's catalog does not
// know, and when nothing was offered at all (a test that sees no tools
// proves nothing).
func checkOfferedKnown(t *testing.T, w *agentWorld, offered []string) {
	t.Helper()
	if len(offered) == 0 {
		t.Fatalf("no tools offered\n%s", w.s.Dump())
	}
	cat := w.d.state.Load().pol.Catalog()
	var unknown []string
	for _, name := range offered {
		if !cat.Describe(name).Known {
			unknown = append(unknown, name)
		}
	}
	t.Logf("offered: %v", offered)
	if len(unknown) > 0 {
		t.Fatalf("agate's catalog does not know %v (add them to policy/catalog.toml)", unknown)
	}
}

func must(b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestCodexBesideUserHooks: with the person's own PreToolUse group (which
// they trusted) before agate's block, both run; Codex's app-server lists
// agate's hooks with the keys and hashes agate recorded, trusted.
func TestCodexBesideUserHooks(t *testing.T) {
	w := newAgentWorld(t, "[auto]\nrules = [\"allow bash touch ran.txt\"]\n",
		agenttest.Call("exec_command", map[string]any{"cmd": "touch ran.txt"}), agenttest.Say("done"))
	c := &codexWorld{agentWorld: w, codex: agenttest.Install(t, agenttest.Codex)}
	mine := filepath.Join(w.h.Root, "mine.json")
	cfg := w.h.CodexConfigPath(t)
	w.h.WriteCodexConfig(t, w.s, agenttest.CodexHooksTOML(cfg, []agenttest.CodexHook{{Event: "PreToolUse", Matcher: "Bash", Command: "cat > " + mine, Timeout: 30}}))
	w.h.InstallHooks(t, w.bin, "codex", w.h.Env())
	r := c.exec(t, nil, "make a file")
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the person's own hook did not run: %v", err)
	}
	if !c.exists("ran.txt") || len(c.auditEvents(t, "Bash")) != 1 {
		t.Errorf("agate's hook did not decide the call:\n%s\n%s", r.Stderr, c.auditDump(t))
	}
	if n := strings.Count(r.Stderr, "hook: PreToolUse Completed"); n != 2 {
		t.Errorf("%d PreToolUse hooks completed, want 2:\n%s", n, r.Stderr)
	}
	hooks := codexHooksList(t, c)
	t.Logf("codex app-server hooks/list: %+v", hooks)
	data, _ := os.ReadFile(cfg)
	found := 0
	for _, h := range hooks {
		if !strings.Contains(h.Command, "agate-hook hook codex") {
			continue
		}
		found++
		if h.TrustStatus != "trusted" || !strings.Contains(string(data), h.Key) || !strings.Contains(string(data), h.CurrentHash) {
			t.Errorf("codex lists %+v; agate recorded:\n%s", h, data)
		}
		if h.EventName == "preToolUse" && !strings.HasSuffix(h.Key, ":pre_tool_use:1:0") {
			t.Errorf("agate's PreToolUse key %s: want group 1, after the person's", h.Key)
		}
	}
	if found != 4 {
		t.Errorf("codex lists %d of agate's hooks, want 4: %+v", found, hooks)
	}
}

// codexHook is one hook as `codex app-server`'s hooks/list gives it.
type codexHook struct {
	Key, EventName, Command, CurrentHash, TrustStatus string
}

// codexHooksList asks `codex app-server` (JSON-RPC on stdio) for the
// hooks Codex sees in the work folder.
func codexHooksList(t *testing.T, c *codexWorld) []codexHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.codex, "app-server")
	cmd.Env, cmd.Dir = c.h.Env(c.s.CodexEnv()...), c.h.Work
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	for _, m := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"agate-test","version":"0.1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"hooks/list","params":{"cwds":[` + strconv.Quote(c.h.Work) + `]}}`,
	} {
		if _, err := io.WriteString(in, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []codexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		var hooks []codexHook
		for _, d := range msg.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks
	}
	t.Fatalf("no hooks/list answer from codex app-server: %v", sc.Err())
	return nil
}

// TestCodexConfigIsALink: a config.toml that is a link (dotfiles kept in
// a repository) is edited where it points, the link stays, and Codex
// trusts agate's hooks by the keys agate recorded.
func TestCodexConfigIsALink(t *testing.T) {
	w := newAgentWorld(t, "", agenttest.Say("done"))
	c := &codexWorld{agentWorld: w, codex: agenttest.Install(t, agenttest.Codex)}
	link := w.h.WriteCodexConfig(t, w.s, "")
	target := filepath.Join(w.h.Root, "dotfiles", "codex.toml")
	data, _ := os.ReadFile(link)
	agenttest.WriteFile(t, target, data)
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	w.h.InstallHooks(t, w.bin, "codex", w.h.Env())
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	hooks := codexHooksList(t, c)
	t.Logf("hooks/list: %+v", hooks)
	n := 0
	for _, h := range hooks {
		if strings.Contains(h.Command, "agate-hook hook codex") {
			n++
			if h.TrustStatus != "trusted" {
				t.Errorf("%+v", h)
			}
		}
	}
	if n != 4 {
		t.Errorf("codex lists %d of agate's hooks: %+v", n, hooks)
	}
}

// TestCodexTUIIsInteractive: under Codex's terminal UI (its hooks run in
// its app-server daemon) the hook tells the daemon a person is at
// Codex's side: agate's approval is not marked headless, and the person's
// answer in agate decides the call.
func TestCodexTUIIsInteractive(t *testing.T) {
	c := newCodexWorld(t, "", agenttest.Call("exec_command", map[string]any{"cmd": "rm keep.txt"}), agenttest.Say("done"))
	tooBigToKeep(t, filepath.Join(c.h.Work, "keep.txt"))
	seen := c.attachApprover(t, policy.Allow, false)
	u := c.h.StartTUI(t, agenttest.Cmd{Bin: c.codex, Args: []string{"-c", "projects." + strconv.Quote(c.h.Work) + ".trust_level=\"trusted\"", "clean up"},
		Env: c.h.Env(c.s.CodexEnv()...)})
	deadline := time.Now().Add(60 * time.Second)
	for len(seen.list()) == 0 && time.Now().Before(deadline) {
		s := u.Screen()
		if strings.Contains(s, "Yes, continue") || strings.Contains(s, "trust") && strings.Contains(s, "1.") {
			u.Keys("Enter")
		}
		time.Sleep(500 * time.Millisecond)
	}
	u.Dump("codex tui")
	a := seen.list()
	if len(a) != 1 || a[0].Headless {
		t.Fatalf("approvals %+v\n%s\n%s", a, c.auditDump(t), c.s.Dump())
	}
	if !u.Until(func(string) bool { return !c.exists("keep.txt") }, 20*time.Second) {
		t.Fatalf("the person allowed it in agate, yet the file is there\n%s", c.auditDump(t))
	}
}

// TestCodexTUITrustAll: the person adds a hook of their own after
// agate's install and trusts it in Codex's terminal UI ("Trust all and
// continue"): Codex writes its trust into the file, agate's hooks stay
// trusted and in place, and agate's next install keeps the person's
// trust.
func TestCodexTUITrustAll(t *testing.T) {
	c := newCodexWorld(t, "", agenttest.Say("done"))
	cfg := c.h.CodexConfigPath(t)
	data, _ := os.ReadFile(cfg)
	mine := "\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"true\"\n"
	agenttest.WriteFile(t, cfg, append(data, mine...))
	u := c.h.StartTUI(t, agenttest.Cmd{Bin: c.codex, Args: []string{"-c", "projects." + strconv.Quote(c.h.Work) + ".trust_level=\"trusted\""},
		Env: c.h.Env(c.s.CodexEnv()...)})
	if !u.WaitFor("Trust all and continue", 30*time.Second) {
		u.Dump("no review dialog")
		t.Fatal("Codex did not ask to review the new hook")
	}
	// A key typed while the dialog is still being drawn can be lost, or
	// land elsewhere: answer whichever of Codex's two trust screens shows
	// until the trust is written.
	deadline := time.Now().Add(30 * time.Second)
	var after []byte
	for time.Now().Before(deadline) {
		after, _ = os.ReadFile(cfg)
		if strings.Contains(string(after), ":stop:0:0") {
			break
		}
		switch screen := u.Screen(); {
		case strings.Contains(screen, "t trust all"): // the /hooks browser
			u.Keys("t")
		case strings.Contains(screen, "› 2. Trust all and continue"):
			u.Keys("Enter")
		case strings.Contains(screen, "Trust all and continue"):
			u.Keys("2")
		}
		time.Sleep(time.Second)
	}
	u.Dump("after trust all")
	t.Logf("config.toml after Codex trusted the person's hook:\n%s", after)
	if !strings.Contains(string(after), ":stop:0:0") {
		t.Fatal("Codex did not record the trust")
	}
	for _, h := range codexHooksList(t, c) {
		if h.TrustStatus != "trusted" {
			t.Errorf("%+v", h)
		}
	}
	c.h.InstallHooks(t, c.bin, "codex", c.h.Env())
	again, _ := os.ReadFile(cfg)
	t.Logf("after agate's install again:\n%s", again)
	for _, h := range codexHooksList(t, c) {
		if h.TrustStatus != "trusted" {
			t.Errorf("after reinstall: %+v", h)
		}
	}
}

// TestCodexWebSearchOff: web_search runs at the model's provider, where
// no hook sees it; web_search = "disabled" (what the README advises where
// taint matters) takes it off the tool list.
func TestCodexWebSearchOff(t *testing.T) {
	c := newCodexWorld(t, "", agenttest.Say("hello"))
	c.exec(t, nil, "say hello", "-c", `web_search="disabled"`)
	offered := codexOffered(c.s)
	if len(offered) == 0 || slices.Contains(offered, "web_search") {
		t.Fatalf("offered %v", offered)
	}
}

// TestCodexProjectHooks: hooks installed in a project's
// .codex/config.toml, with their trust in the user's config.toml (the
// one file Codex reads trust from), run in that project once Codex
// trusts it.
func TestCodexProjectHooks(t *testing.T) {
	w := newAgentWorld(t, "[auto]\nrules = [\"allow bash touch ran.txt\"]\n",
		agenttest.Call("exec_command", map[string]any{"cmd": "touch ran.txt"}), agenttest.Say("done"))
	c := &codexWorld{agentWorld: w, codex: agenttest.Install(t, agenttest.Codex)}
	w.h.WriteCodexConfig(t, w.s, "\n[projects."+strconv.Quote(w.h.Work)+"]\ntrust_level = \"trusted\"\n")
	out := w.h.InstallHooks(t, w.bin, "codex", w.h.Env(), "--project", w.h.Work)
	t.Logf("install --project:\n%s", out)
	if _, err := os.Stat(filepath.Join(w.h.Work, ".codex", "config.toml")); err != nil {
		t.Fatal(err)
	}
	r := c.exec(t, nil, "make a file")
	if !c.exists("ran.txt") || len(c.auditEvents(t, "Bash")) != 1 || !strings.Contains(r.Stderr, "hook: PreToolUse Completed") {
		t.Fatalf("agate's project hook did not decide the call:\n%s\n%s", r.Stderr, c.auditDump(t))
	}
	for _, h := range codexHooksList(t, c) {
		if strings.Contains(h.Command, "agate-hook hook codex") && h.TrustStatus != "trusted" {
			t.Errorf("%+v", h)
		}
	}
}

// TestCodexConfined: the real Codex, `codex exec`, with the default
// config. With full access (Codex's sandbox off), what agate lets through
// on its own judgment runs confined, the hook's PreToolUse allow carrying
// the rewritten command (the one allow Codex takes): a link made to a
// credential store reads nothing, the project's code reaching for a
// listener on loopback does not reach it, go test passes, nothing asks.
// Inside Codex's workspace-write sandbox agate's cannot start (it refuses
// the user namespace), so there nothing is rewritten to fail: the calls
// are judged as without confinement, and the project's code, which reads
// what it likes in Codex's sandbox, is not let through unasked.
func TestCodexConfined(t *testing.T) {
	for _, mode := range []string{"danger-full-access", "workspace-write"} {
		nested := mode != "danger-full-access"
		t.Run(mode, func(t *testing.T) {
			port, reached := loopbackListener(t)
			c := newCodexWorld(t, "",
				agenttest.Call("exec_command", map[string]any{"cmd": "cat \"$(printf k)\""}),
				agenttest.Call("exec_command", map[string]any{"cmd": "sh run_tests.sh"}),
				agenttest.Call("exec_command", map[string]any{"cmd": "go test ./..."}),
				agenttest.Say("done"))
			needKernelSandbox(t, c.d)
			if _, err := exec.LookPath("go"); err != nil {
				t.Skip("no go here")
			}
			agenttest.WriteFile(t, filepath.Join(c.h.Home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = CANARY_aws_51c0\n"))
			// The project holds a link, named by a path agate cannot know
			// before it runs: judged an unnamed read, it runs confined and
			// must meet the sandbox, not the store.
			if err := os.Symlink("../home/.aws/credentials", filepath.Join(c.h.Work, "k")); err != nil {
				t.Fatal(err)
			}
			agenttest.WriteFile(t, filepath.Join(c.h.Work, "run_tests.sh"), []byte(
				"(exec 3<>/dev/tcp/127.0.0.1/"+port+") 2>/dev/null && echo REACHED || echo NO-NETWORK\n"))
			agenttest.WriteFile(t, filepath.Join(c.h.Work, "go.mod"), []byte("module m\ngo 1.21\n"))
			agenttest.WriteFile(t, filepath.Join(c.h.Work, "m_test.go"), []byte("package m\nimport \"testing\"\nfunc TestM(t *testing.T) {}\n"))
			c.exec(t, []string{"PATH=" + os.Getenv("PATH")}, "test it", "--sandbox", mode)
			var outs []string
			for _, tr := range c.s.ToolResults() {
				outs = append(outs, tr.Output)
			}
			if len(outs) != 3 {
				t.Fatalf("tool results %q", outs)
			}
			if !nested && (strings.Contains(outs[0], "CANARY") || !strings.Contains(outs[0], "Permission denied")) {
				t.Errorf("a link to a credential store: %q", outs[0])
			}
			if len(reached) > 0 || !nested && !strings.Contains(outs[1], "NO-NETWORK") {
				t.Errorf("the project's code reached the network: %q (%d connections)", outs[1], len(reached))
			}
			if !nested && !strings.Contains(outs[2], "ok") {
				t.Errorf("go test: %q", outs[2])
			}
			for _, rec := range c.audit(t) {
				if rec.Tool != "Bash" || rec.Event != "decision" {
					continue
				}
				switch {
				case nested && rec.Confined != "":
					t.Errorf("%s: rewritten to run confined inside Codex's sandbox (%s)", rec.Subject, rec.Confined)
				case nested && rec.Subject != "cat \"$(printf k)\"" && rec.Decision != "deny":
					t.Errorf("%s: %s (%s): the project's code let through unasked in Codex's sandbox", rec.Subject, rec.Decision, rec.Reason)
				case !nested && (rec.Decision != "allow" || rec.Confined == ""):
					t.Errorf("%s: %s, confined %q (%s): want an allow, confined, no ask", rec.Subject, rec.Decision, rec.Confined, rec.Reason)
				}
			}
		})
	}
}

// TestCodexDeleteKept: the real codex exec deletes a file git cannot give
// back: it runs unasked because agate keeps a copy first, and `agate undo
// ID` puts it back byte for byte.
func TestCodexDeleteKept(t *testing.T) {
	c := newCodexWorld(t, "", agenttest.Call("exec_command", map[string]any{"cmd": "rm notes.txt"}), agenttest.Say("done"))
	body := []byte("the person's notes\n\x00\xff and bytes that are not text\n")
	agenttest.WriteFile(t, filepath.Join(c.h.Work, "notes.txt"), body)
	c.exec(t, nil, "clean up")
	c.checkKeptAndUndo(t, "Bash", filepath.Join(c.h.Work, "notes.txt"), body)
}
