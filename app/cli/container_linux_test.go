//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/internal/agenttest"
	"github.com/agatehq/agate/policy"
)

// containerRig is a real daemon on the host with a dev container added
// (devbox, and other for a second project), a person at a terminal
// approver who denies what asks, and a way to run a program in a real
// container (podman) with devbox's folder and project mounted.
type containerRig struct {
	base, proj, proj2, state, bin, sock, folder, ctrSock string
	claude                                               string // the path of Claude Code's binary in the container
	h                                                    *agenttest.Home
	s                                                    *agenttest.Server
	person                                               func(args ...string) result
	serveLog                                             *syncBuffer
	approvals                                            func() []api.Approval
	// in runs argv in the container, as uid (0 or the agent's).
	in func(uid int, timeout time.Duration, argv ...string) *agenttest.Result
}

const (
	agentUID = 1000
	inside   = "/workspaces/proj"
)

func newContainerRig(t *testing.T, turns ...agenttest.Turn) *containerRig {
	t.Helper()
	agenttest.Require(t)
	if os.Getuid() != 0 {
		t.Skip("needs root: podman runs the container rootful, as another uid")
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("no podman (.ci/deps.sh agents installs it)")
	}
	rig := &containerRig{bin: agenttest.AgateBin(t)}
	claude := agenttest.Install(t, agenttest.ClaudeCode)
	claudeReal, err := filepath.EvalSymlinks(claude)
	if err != nil {
		t.Fatal(err)
	}
	rig.claude = "/opt/claude/" + filepath.Base(claudeReal)
	base, err := os.MkdirTemp("", "agt-ctr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	rig.base = base
	proj, proj2, state := filepath.Join(base, "proj"), filepath.Join(base, "proj2"), filepath.Join(base, "st")
	rig.proj, rig.proj2, rig.state = proj, proj2, state
	for _, d := range []string{filepath.Join(proj, "src"), proj2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(proj, "README"), []byte("the container's project\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "src", "main.go"), []byte("package main\n"), 0o644)
	os.Symlink("/etc", filepath.Join(proj, "escape"))
	chownAll(t, proj, agentUID)

	rig.sock = filepath.Join(state, "run", "agate.sock")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "AGATE_STATE_DIR=" + state, "AGATE_CONFIG=" + filepath.Join(state, "config.toml"),
		"AGATE_SOCKET=" + rig.sock, "AGATE_TOKEN_SOCKET=" + filepath.Join(base, "tok", "tokens.sock"), "TMPDIR=" + base}
	rig.person = func(args ...string) result {
		cmd := exec.Command(filepath.Join(rig.bin, "agate-cli"), args...)
		cmd.Env = env
		return run(t, cmd, "")
	}
	add := rig.person("container", "add", "devbox", "--project", proj, "--mode", "manual")
	rig.folder = filepath.Join(state, "containers", "devbox")
	if add.code != 0 || !strings.Contains(add.stdout, rig.folder+":/run/agate:ro") || !strings.Contains(add.stdout, inside) {
		t.Fatalf("container add: %+v", add)
	}
	if r := rig.person("container", "add", "other", "--project", proj2, "--inside", inside); r.code != 0 {
		t.Fatalf("container add other: %+v", r)
	}

	daemon := exec.Command(filepath.Join(rig.bin, "agate-cli"), "serve")
	daemon.Env = env
	rig.serveLog = &syncBuffer{}
	daemon.Stdout, daemon.Stderr = rig.serveLog, rig.serveLog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	rig.ctrSock = filepath.Join(rig.folder, "agate.sock")
	waitFor(t, "the container's socket", func() bool {
		c, err := net.Dial("unix", rig.ctrSock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	// The person, at a terminal approver: denies what asks, and keeps
	// what they were shown.
	var mu sync.Mutex
	var seen []api.Approval
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &api.Client{Socket: rig.sock}
	go c.Events(ctx, true, func(ev api.Event) error {
		if ev.Type == "approval.requested" && ev.Approval != nil {
			mu.Lock()
			seen = append(seen, *ev.Approval)
			mu.Unlock()
			c.Answer(ctx, &api.AnswerRequest{IDs: []string{ev.Approval.ID}, Answer: api.Answer{Decision: policy.Deny, Scope: api.ScopeOnce, Via: "terminal"}})
		}
		return nil
	})
	rig.approvals = func() []api.Approval {
		mu.Lock()
		defer mu.Unlock()
		return append([]api.Approval(nil), seen...)
	}
	waitFor(t, "the approver", func() bool {
		st, err := c.Status(ctx)
		return err == nil && strings.Contains(fmt.Sprint(st.Prompters), "terminal")
	})

	// The container: its own root, the host's /usr, agate's folder, the
	// project, a home, and Claude Code.
	h := agenttest.NewHome(t)
	s := agenttest.NewServer(t, turns...)
	h.ClaudeStateFor(t, inside)
	chownAll(t, h.Root, agentUID)
	rig.h, rig.s = h, s
	root := containerRoot(t, base, agentUID)
	ctrEnv := mergeEnvs(h.Env(s.ClaudeEnv()...), "PATH=/usr/local/bin:/usr/bin:/bin",
		"AGATE_SOCKET=/run/agate/agate.sock", "AGATE_TOKEN_FILE=/run/agate/token")
	rig.in = func(uid int, timeout time.Duration, argv ...string) *agenttest.Result {
		t.Helper()
		args := []string{"run", "--rm", "--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096",
			"--network", "host", "--user", fmt.Sprintf("%d:%d", uid, uid), "--workdir", inside,
			"-v", "/usr:/usr:ro", "-v", rig.folder + ":/run/agate:ro", "-v", proj + ":" + inside, "-v", h.Root + ":" + h.Root,
			"-v", filepath.Dir(claudeReal) + ":/opt/claude:ro"}
		for _, kv := range ctrEnv {
			args = append(args, "--env", kv)
		}
		args = append(append(args, "--rootfs", root), argv...)
		return h.Run(t, agenttest.Cmd{Bin: podman, Args: args, Env: os.Environ(), Dir: base, Timeout: timeout})
	}
	return rig
}

// TestClaudeInContainer runs the real Claude Code inside a real
// container (podman, as Debian packages it) with agate's folder mounted
// read-only, its hooks installed inside by agate-cli from that folder,
// against the real daemon on the host: a harmless call runs, a
// destructive one reaches the host's popup labelled with the container
// and, denied there, leaves the host's disk as it was; then, with the
// real agate-hook, a second container's token cannot decide for the
// first's socket or project, a link out of the project is judged where
// it points on the host, and once removed the container is refused.
//
// There is no image registry here: the container's root is a folder
// made for the test, with the host's /usr mounted read-only in it (the
// libraries Claude Code's native binary needs), as the only image a
// machine with no registry has.
func TestClaudeInContainer(t *testing.T) {
	rig := newContainerRig(t,
		agenttest.Call("Bash", map[string]any{"command": "cat " + inside + "/README", "description": "read"}),
		agenttest.Call("Bash", map[string]any{"command": "rm -rf src", "description": "clean"}),
		agenttest.Say("done"))
	proj, state, bin, base, s, serveLog := rig.proj, rig.state, rig.bin, rig.base, rig.s, rig.serveLog
	folder, ctrSock, person := rig.folder, rig.ctrSock, rig.person
	if r := person("container"); !strings.Contains(r.stdout, "devbox") || !strings.Contains(r.stdout, "other") {
		t.Errorf("container list: %+v", r)
	}
	if r := rig.in(agentUID, 60*time.Second, "/run/agate/agate-cli", "hooks", "install", "claude-code", "--bin", "/run/agate/agate-hook"); r.Code != 0 {
		t.Fatalf("agate hooks install, in the container: %s", r)
	}
	r := rig.in(agentUID, 3*time.Minute, rig.claude, "-p", "tidy up", "--output-format", "json")
	t.Logf("claude in the container: %s\nmodel server:\n%s\ndaemon:\n%s", r, s.Dump(), serveLog.String())
	if r.Code != 0 {
		t.Fatalf("claude: %s", r)
	}
	res := s.ToolResults()
	if len(res) != 2 || res[0].IsError || !strings.Contains(res[0].Output, "the container's project") {
		t.Fatalf("the harmless read did not run: %+v", res)
	}
	if !res[1].IsError || !strings.Contains(res[1].Output, "agate") {
		t.Errorf("the model was not told agate's denial: %+v", res[1])
	}
	if _, err := os.Stat(filepath.Join(proj, "src", "main.go")); err != nil {
		t.Fatalf("the destructive call ran on the host's disk: %v", err)
	}
	if asked := rig.approvals(); len(asked) != 1 || asked[0].Agent != "container:devbox" || asked[0].Cwd != proj || asked[0].Subject != "rm -rf src" {
		t.Fatalf("the popup did not show the container's call as the host sees it: %+v", asked)
	}

	// With the real agate-hook, as a container's agent would call it.
	hook := filepath.Join(bin, "agate-hook")
	token := func(name string) string {
		data, err := os.ReadFile(filepath.Join(state, "containers", name, "token"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(data))
	}
	call := func(socket, tok, cwd, command string) string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"session_id": "ctr-1", "transcript_path": filepath.Join(base, "t.jsonl"), "cwd": cwd,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": command}, "tool_use_id": "toolu_1"})
		cmd := exec.Command(hook, "hook", "claude-code")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + base, "AGATE_SOCKET=" + socket, "AGATE_TOKEN=" + tok, "TMPDIR=" + base}
		cmd.Dir = base
		r := run(t, cmd, string(b))
		return r.stdout + r.stderr
	}
	const allow = `"permissionDecision":"allow"`
	otherSock := filepath.Join(state, "containers", "other", "agate.sock")
	devbox, other := token("devbox"), token("other")
	if out := call(ctrSock, devbox, inside, "cat "+inside+"/README"); !strings.Contains(out, allow) {
		t.Fatalf("a read in the project, by the container's token: %s", out)
	}
	for _, tt := range []struct{ what, out, why string }{
		{"another container's token on this socket", call(ctrSock, other, inside, "cat "+inside+"/README"), "the token is not for this socket"},
		{"the token on another container's socket", call(otherSock, devbox, inside, "cat "+inside+"/README"), "the token is not for this socket"},
		{"a folder outside the container's mount", call(ctrSock, devbox, "/root", "cat .bashrc"), "may act only in its project, which it sees at " + inside + ", and this call is in /root"},
		{"the host's path of the project", call(ctrSock, devbox, proj, "cat README"), "this call is in " + proj},
		{"a link out of the project", call(ctrSock, devbox, inside, "cat "+inside+"/escape/shadow"), "it reads /etc/shadow"},
	} {
		if strings.Contains(tt.out, allow) || !strings.Contains(tt.out, tt.why) {
			t.Errorf("%s: want a block saying %q: %s", tt.what, tt.why, tt.out)
		}
	}
	if out := call(otherSock, other, inside, "cat README"); !strings.Contains(out, allow) {
		t.Errorf("the second container in its own project: %s", out)
	}

	// Every line names its container; the token is in none.
	audit, _ := os.ReadFile(filepath.Join(state, "audit.jsonl"))
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		if strings.Contains(line, devbox) || strings.Contains(line, other) {
			t.Fatalf("a token in the audit log: %s", line)
		}
		if strings.Contains(line, `"agent":"container:devbox"`) {
			n++
			if !strings.Contains(line, `"container":"devbox"`) {
				t.Errorf("a line without its container: %s", line)
			}
		}
	}
	if n < 4 {
		t.Errorf("%d audit lines of the container:\n%s", n, audit)
	}

	if r := person("container", "remove", "devbox"); r.code != 0 {
		t.Fatalf("container remove: %+v", r)
	}
	if out := call(ctrSock, devbox, inside, "cat "+inside+"/README"); strings.Contains(out, allow) {
		t.Errorf("a removed container: %s", out)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("the removed container's folder: %v", err)
	}
}

// containerRoot makes a container's root folder: the merged-/usr links,
// the folders its mounts go on, and an /etc naming root and the agent's
// user.
func containerRoot(t *testing.T, base string, uid int) string {
	t.Helper()
	root := filepath.Join(base, "rootfs")
	for _, d := range []string{"usr", "etc", "tmp", "proc", "dev", "sys", "run/agate", "opt/claude", "workspaces/proj", "root"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(root, "tmp"), 0o1777)
	for _, l := range []string{"bin", "sbin", "lib", "lib64"} {
		os.Symlink("usr/"+l, filepath.Join(root, l))
	}
	agenttest.WriteFile(t, filepath.Join(root, "etc", "passwd"), []byte(fmt.Sprintf("root:x:0:0:root:/root:/bin/bash\nagent:x:%d:%d:agent:/home/agent:/bin/bash\n", uid, uid)))
	agenttest.WriteFile(t, filepath.Join(root, "etc", "group"), []byte(fmt.Sprintf("root:x:0:\nagent:x:%d:\n", uid)))
	agenttest.WriteFile(t, filepath.Join(root, "etc", "hosts"), []byte("127.0.0.1 localhost\n"))
	return root
}

// chownAll gives dir and everything in it to uid.
func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mergeEnvs is env with extra set ("KEY=value", later ones win).
func mergeEnvs(env []string, extra ...string) []string {
	out := []string{}
	seen := map[string]int{}
	for _, kv := range append(append([]string{}, env...), extra...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			continue
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// TestClaudeManagedHooksInContainer: Claude Code's managed settings, as
// the README says to use them for a team, with agate's hooks installed
// there by `agate hooks install claude-code --settings
// /etc/claude-code/managed-settings.json` and "allowManagedHooksOnly":
// the real Claude Code runs agate's managed hook (a destructive call is
// put to the person and, denied, does not run), and not the hook of the
// user's own settings that would let everything through. In a container,
// so that its /etc is the container's.
func TestClaudeManagedHooksInContainer(t *testing.T) {
	rig := newContainerRig(t)
	managed := "/etc/claude-code/managed-settings.json"
	// As the container's root, as an administrator would (its own home:
	// the agent's is not root's to trust).
	if r := rig.in(0, 60*time.Second, "/usr/bin/env", "HOME=/root", "XDG_CONFIG_HOME=/root/.config", "XDG_STATE_HOME=/root/.local/state",
		"/run/agate/agate-cli", "hooks", "install", "claude-code", "--settings", managed, "--bin", "/run/agate/agate-hook"); r.Code != 0 {
		t.Fatalf("agate hooks install --settings %s, in the container: %s", managed, r)
	}
	host := filepath.Join(rig.base, "rootfs", managed)
	var m map[string]any
	data, err := os.ReadFile(host)
	if err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("the managed settings: %v %s", err, data)
	}
	if cmd := fmt.Sprint(m["hooks"]); !strings.Contains(cmd, "/run/agate/agate-hook hook claude-code") || strings.Contains(cmd, "--socket") {
		t.Fatalf("the managed hooks name a socket of one user's, or not agate-hook: %s", data)
	}
	// The user's own hook: it would allow every call, and leaves a mark.
	mark := filepath.Join(rig.h.Root, "user-hook-ran")
	agenttest.WriteJSON(t, filepath.Join(rig.h.Home, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command",
			"command": "touch " + mark + "; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'"}}}}}})
	chownAll(t, rig.h.Home, agentUID)
	claude := func() {
		t.Helper()
		debug := filepath.Join(rig.h.Root, "claude-debug.log")
		r := rig.in(agentUID, 3*time.Minute, rig.claude, "-p", "tidy up", "--output-format", "json", "--debug-file", debug)
		dbg, _ := os.ReadFile(debug)
		t.Logf("claude in the container: %s\nmodel server:\n%s\ndebug log:\n%s", r, rig.s.Dump(), grepLines(string(dbg), "Hook PreToolUse"))
		if r.Code != 0 {
			t.Fatalf("claude: %s", r)
		}
	}
	read := agenttest.Call("Bash", map[string]any{"command": "cat README", "description": "read"})
	// Without allowManagedHooksOnly both run.
	rig.s.Script(read, agenttest.Say("done"))
	claude()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the user's hook did not run without allowManagedHooksOnly, so what follows proves nothing: %v", err)
	}
	os.Remove(mark)
	m["allowManagedHooksOnly"] = true
	agenttest.WriteJSON(t, host, m)
	os.Chmod(host, 0o644)
	rig.s.Script(read, agenttest.Call("Bash", map[string]any{"command": "rm -rf src", "description": "clean"}), agenttest.Say("done"))
	claude()
	if _, err := os.Stat(mark); err == nil {
		t.Error("the user's own hook ran, with allowManagedHooksOnly")
	}
	if _, err := os.Stat(filepath.Join(rig.proj, "src", "main.go")); err != nil {
		t.Fatalf("the destructive call ran: %v", err)
	}
	if asked := rig.approvals(); len(asked) != 1 || asked[0].Agent != "container:devbox" || asked[0].Subject != "rm -rf src" {
		t.Errorf("agate's managed hook did not put the call to the person: %+v", asked)
	}
	res := rig.s.ToolResults()
	if len(res) < 2 || res[len(res)-2].IsError || !res[len(res)-1].IsError || !strings.Contains(res[len(res)-1].Output, "agate") {
		t.Errorf("the read ran and the delete was denied by agate, not so: %+v", res)
	}
}

// grepLines is the lines of s holding any of words.
func grepLines(s string, words ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
