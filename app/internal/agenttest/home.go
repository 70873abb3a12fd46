package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Enabled reports whether the end-to-end agent tests are asked for
// (AGATE_AGENT_TESTS=1); Require skips the test when they are not.
func Enabled() bool { return os.Getenv("AGATE_AGENT_TESTS") == "1" }

// Require skips the test unless AGATE_AGENT_TESTS=1.
func Require(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skip("agenttest: runs real agents; set AGATE_AGENT_TESTS=1 (make test-agents)")
	}
}

// Home is a scratch home folder for one agent run: HOME and the XDG
// folders point into it, so the agent's settings, caches and logs stay
// there.
type Home struct {
	Root    string // the temp folder holding all of it
	Home    string // HOME
	Config  string // XDG_CONFIG_HOME
	Cache   string // XDG_CACHE_HOME
	Data    string // XDG_DATA_HOME
	State   string // XDG_STATE_HOME
	Runtime string // XDG_RUNTIME_DIR (0700)
	Work    string // a project folder for the agent to work in
}

// NewHome makes a scratch home under a test temp folder.
func NewHome(t testing.TB) *Home {
	t.Helper()
	// Not t.TempDir: an agent that is still shutting down when the test
	// ends may write one more file, and a failed removal must not fail
	// the test.
	// Outside /tmp where it can be: the sandbox gives a confined command a
	// /tmp of its own, so a home under the host's /tmp would be out of
	// sight there anyway, and hidden paths would prove nothing.
	base := ""
	if filepath.Clean(os.TempDir()) == "/tmp" {
		if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
			base = "/var/tmp"
		}
	}
	root, err := os.MkdirTemp(base, "agt-home")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(t, root) })
	h := &Home{
		Root: root, Home: filepath.Join(root, "home"), Config: filepath.Join(root, "home", ".config"),
		Cache: filepath.Join(root, "home", ".cache"), Data: filepath.Join(root, "home", ".local", "share"),
		State: filepath.Join(root, "home", ".local", "state"), Work: filepath.Join(root, "work"),
	}
	// The runtime folder is short: unix socket paths are limited to about
	// 100 bytes, and test temp folders are long.
	rt, err := os.MkdirTemp("", "agt-run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(t, rt) })
	h.Runtime = rt
	for _, d := range []string{h.Home, h.Config, h.Cache, h.Data, h.State, h.Work, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(h.Runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	return h
}

// removeAll removes dir, trying again for a few seconds while something
// still writes into it; it only logs when it cannot.
func removeAll(t testing.TB, dir string) {
	var err error
	for range 20 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("agenttest: could not remove %s: %v", dir, err)
}

// Env is the environment of a program run in this home: PATH and the
// locale from the test's environment, HOME and the XDG folders, telemetry,
// update checks and error reports off for every agent, then extra
// ("KEY=value", later ones win).
func (h *Home) Env(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + h.Home,
		"USER=" + firstNonEmpty(os.Getenv("USER"), "agate"),
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"SHELL=/bin/bash",
		"TMPDIR=" + filepath.Join(h.Root, "tmp"),
		"XDG_CONFIG_HOME=" + h.Config,
		"XDG_CACHE_HOME=" + h.Cache,
		"XDG_DATA_HOME=" + h.Data,
		"XDG_STATE_HOME=" + h.State,
		"XDG_RUNTIME_DIR=" + h.Runtime,
		// Claude Code
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		// Gemini CLI (usage statistics are off in its settings too)
		"GEMINI_TELEMETRY_ENABLED=false",
		// Codex
		"CODEX_HOME=" + filepath.Join(h.Home, ".codex"),
		// npm and node
		"NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false",
	}
	return mergeEnv(env, extra)
}

// mergeEnv returns env with extra applied: a KEY=value replaces KEY, a
// bare KEY removes it.
func mergeEnv(env, extra []string) []string {
	out := append([]string(nil), env...)
	for _, kv := range extra {
		k, _, hasValue := strings.Cut(kv, "=")
		kept := out[:0]
		for _, e := range out {
			if ek, _, _ := strings.Cut(e, "="); ek != k {
				kept = append(kept, e)
			}
		}
		out = kept
		if hasValue {
			out = append(out, kv)
		}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// claudeKey is the dummy API key Claude Code is given.
const claudeKey = "sk-ant-agenttest-dummy"

// ClaudeState writes Claude Code's ~/.claude.json as after a person's
// first run: onboarding done (else it checks that it can reach its
// servers, and stops), the dummy API key approved, the work folder
// trusted.
func (h *Home) ClaudeState(t testing.TB) { t.Helper(); h.ClaudeStateFor(t, h.Work) }

// ClaudeStateFor is ClaudeState with project as the trusted folder (a
// container's, where it sees the project elsewhere).
func (h *Home) ClaudeStateFor(t testing.TB, project string) {
	t.Helper()
	WriteJSON(t, filepath.Join(h.Home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  ClaudeCode.Version,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{project: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}}},
	})
}

// ClaudeEnv points Claude Code at the fake server.
func (s *Server) ClaudeEnv() []string {
	return []string{"ANTHROPIC_BASE_URL=" + s.URL, "ANTHROPIC_API_KEY=" + claudeKey}
}

// GeminiEnv points Gemini CLI at the fake server.
func (s *Server) GeminiEnv() []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + s.URL, "GEMINI_API_KEY=agenttest-dummy"}
}

// CodexEnv gives Codex the dummy key WriteCodexConfig's provider reads.
func (s *Server) CodexEnv() []string {
	return []string{"AGENTTEST_OPENAI_KEY=agenttest-dummy"}
}

// QwenEnv points Qwen Code at the fake server's Chat Completions API.
func (s *Server) QwenEnv() []string {
	return []string{"OPENAI_BASE_URL=" + s.URL + "/v1", "OPENAI_API_KEY=agenttest-dummy", "OPENAI_MODEL=agenttest-model"}
}

// CopilotEnv points Copilot CLI at the fake server's Chat Completions
// API with its own key (BYOK), offline: no GitHub login, telemetry, web
// tools or updates.
func (s *Server) CopilotEnv(h *Home) []string {
	return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + s.URL + "/v1", "COPILOT_PROVIDER_API_KEY=agenttest-dummy",
		"COPILOT_MODEL=gpt-4.1", "COPILOT_AUTO_UPDATE=false", "COPILOT_HOME=" + filepath.Join(h.Home, ".copilot")}
}

// OpenCodeEnv turns off what OpenCode fetches at start (models, updates,
// sharing, LSP downloads, default plugins), and points the npm install it
// runs in every config folder at a closed port, so it fails at once
// rather than after npm's retries.
func (s *Server) OpenCodeEnv() []string {
	return []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0"}
}

// OpenCodeConfig writes OpenCode's user config with a provider that is
// the fake server's Chat Completions API. It returns the file's path.
func (h *Home) OpenCodeConfig(t testing.TB, s *Server) string {
	t.Helper()
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": s.URL + "/v1", "apiKey": "agenttest-dummy"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake", "tool_call": true}},
		}},
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		"autoupdate": false, "share": "disabled",
	}
	path := filepath.Join(h.Config, "opencode", "opencode.json")
	WriteJSON(t, path, cfg)
	return path
}

// QwenSettings writes Qwen Code's user settings for the fake server (the
// OpenAI-compatible auth, no statistics, telemetry or update checks),
// plus extra top-level keys. It returns the settings file's path.
func (h *Home) QwenSettings(t testing.TB, extra map[string]any) string {
	t.Helper()
	s := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"enableAutoUpdate": false},
		"telemetry": map[string]any{"enabled": false},
	}
	for k, v := range extra {
		s[k] = v
	}
	path := filepath.Join(h.Home, ".qwen", "settings.json")
	WriteJSON(t, path, s)
	return path
}

// WriteFile writes data to path, making its folder.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteJSON writes v as JSON to path.
func WriteJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(t, path, append(b, '\n'))
}

// GeminiSettings writes Gemini CLI's user settings for the fake server:
// the API key auth, no usage statistics, no update checks, plus extra
// top-level keys (mcpServers, tools, ...), and trusts the work folder.
// It returns the settings file's path.
func (h *Home) GeminiSettings(t testing.TB, extra map[string]any) string {
	t.Helper()
	s := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false},
	}
	for k, v := range extra {
		s[k] = v
	}
	path := filepath.Join(h.Home, ".gemini", "settings.json")
	WriteJSON(t, path, s)
	// The work folder is trusted, as a person would have trusted it:
	// Gemini CLI refuses to run headless in a folder that is not.
	WriteJSON(t, filepath.Join(h.Home, ".gemini", "trustedFolders.json"), map[string]string{h.Work: "TRUST_FOLDER"})
	return path
}

// WriteCodexConfig writes Codex's config.toml with a provider that is
// the fake server's Responses API, plus extra TOML. Codex's own sandbox
// is off (danger-full-access): its bubblewrap setup fails in some test
// environments here ("cannot establish app-server socket mount
// isolation"), and the commands the tests give are harmless.
func (h *Home) WriteCodexConfig(t testing.TB, s *Server, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf(`model = "gpt-5-codex"
model_provider = "agenttest"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.agenttest]
name = "agenttest"
base_url = "%s/v1"
env_key = "AGENTTEST_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"
%s
`, s.URL, extra)
	path := filepath.Join(h.Home, ".codex", "config.toml")
	WriteFile(t, path, []byte(cfg))
	return path
}

// Result is how a program ended.
type Result struct {
	Code     int // the exit status; -1 when it was killed or did not start
	Stdout   string
	Stderr   string
	Err      error // a start failure or the deadline
	Duration time.Duration
}

func (r *Result) String() string {
	return fmt.Sprintf("exit %d after %v (err %v)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Duration.Round(time.Millisecond), r.Err, tail(r.Stdout, 6000), tail(r.Stderr, 6000))
}

// Cmd is a program to run in a home.
type Cmd struct {
	Bin     string
	Args    []string
	Env     []string // the whole environment (Home.Env)
	Dir     string   // the working folder; "" for the home's Work
	Stdin   string
	Timeout time.Duration // 0 for two minutes
}

// Run runs c in h and waits for it, killing it (and what it started) at
// the deadline.
func (h *Home) Run(t testing.TB, c Cmd) *Result {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.Dir == "" {
		c.Dir = h.Work
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Bin, c.Args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	cmd.Stdin = strings.NewReader(c.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := &Result{Code: -1, Stdout: out.String(), Stderr: errb.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.Code = 0
	case errors.As(err, &ee) && ee.Exited():
		r.Code = ee.ExitCode()
	default:
		r.Err = err
	}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("killed after %v: %w", c.Timeout, ctx.Err())
	}
	// Whatever the agent left running in its group goes too.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return r
}

// AgateBin returns the folder with agate's binaries (agate-cli,
// agate-hook): $AGATE_E2E_BIN, else bin/ at the top of the source tree.
// It skips the test when they are not there.
func AgateBin(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("AGATE_E2E_BIN")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(d, "bin")
				break
			}
			if filepath.Dir(d) == d {
				t.Fatal("agenttest: no go.mod above the test's folder")
			}
		}
	}
	for _, b := range []string{"agate-cli", "agate-hook"} {
		if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.Mode()&0o111 == 0 {
			t.Skipf("agenttest: no %s in %s: build it first (make cli), or set AGATE_E2E_BIN", b, dir)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// InstallHooks installs agate's hooks for agent in h with agate's own
// installer, `agate-cli hooks install AGENT --bin agate-hook`, run in h
// with env (which must name agate's config and socket: AGATE_CONFIG,
// AGATE_SOCKET). It returns the installer's output.
func (h *Home) InstallHooks(t testing.TB, binDir, agent string, env []string, args ...string) string {
	t.Helper()
	r := h.Run(t, Cmd{
		Bin:  filepath.Join(binDir, "agate-cli"),
		Args: append([]string{"hooks", "install", agent, "--bin", filepath.Join(binDir, "agate-hook")}, args...),
		Env:  env, Timeout: 30 * time.Second,
	})
	if r.Code != 0 {
		t.Fatalf("agate hooks install %s: %s", agent, r)
	}
	return r.Stdout
}
