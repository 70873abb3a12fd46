package agenttest

import (
	"context"
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

// Package is an agent (or a tool an agent runs) published on the npm
// registry, pinned to one version.
type Package struct {
	Name    string // "@google/gemini-cli"
	Version string // exact: "0.61.0"
	Bin     string // the program it installs: "gemini"
}

// The pinned versions the end-to-end tests run.
var (
	ClaudeCode    = Package{"@anthropic-ai/claude-code", "2.1.332", "claude"}
	GeminiCLI     = Package{"@google/gemini-cli", "0.61.0", "gemini"}
	Codex         = Package{"@openai/codex", "0.171.0", "codex"}
	QwenCode      = Package{"@qwen-code/qwen-code", "0.24.4", "qwen"}
	CopilotCLI    = Package{"@github/copilot", "1.0.102", "copilot"}
	OpenCode      = Package{"opencode-ai", "1.18.33", "opencode"}
	MCPFilesystem = Package{"@modelcontextprotocol/server-filesystem", "2026.8.31", "mcp-server-filesystem"}
	MCPEverything = Package{"@modelcontextprotocol/server-everything", "2026.8.31", "mcp-server-everything"}
)

func (p Package) String() string { return p.Name + "@" + p.Version }

// CacheDir is where Install keeps the agents: $AGATE_AGENTS_CACHE, else
// <user cache dir>/agate/agents ($XDG_CACHE_HOME or ~/.cache on Linux).
func CacheDir() (string, error) {
	if d := os.Getenv("AGATE_AGENTS_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agate", "agents"), nil
}

// dirName is the folder of one package version under the cache.
func (p Package) dirName() string {
	r := strings.NewReplacer("@", "", "/", "_")
	return r.Replace(p.Name) + "@" + p.Version
}

// installTimeout bounds one npm install (Codex is a 300 MB download).
const installTimeout = 10 * time.Minute

// Install returns the absolute path of p's program, installing p into
// the cache first when it is not there. It skips the test when npm is
// missing or the registry cannot be reached, and fails it when the
// install itself goes wrong.
func Install(t testing.TB, p Package) string {
	t.Helper()
	bin, err := install(p)
	var skip *skipError
	switch {
	case errors.As(err, &skip):
		t.Skipf("agenttest: %s: %v", p, skip.err)
	case err != nil:
		t.Fatalf("agenttest: install %s: %v", p, err)
	}
	return bin
}

type skipError struct{ err error }

func (e *skipError) Error() string { return e.err.Error() }

func install(p Package) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", &skipError{fmt.Errorf("no cache folder: %w", err)}
	}
	dir := filepath.Join(cache, p.dirName())
	bin := filepath.Join(dir, "node_modules", ".bin", p.Bin)
	done := filepath.Join(dir, ".agenttest-complete")
	if _, err := os.Stat(done); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	// One installer at a time per cache: other test processes wait here,
	// then find the package installed.
	lock, err := os.OpenFile(filepath.Join(cache, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock the cache: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(done); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", &skipError{errors.New("npm is not installed (Node.js 20 or later is needed to install the agent)")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// Ask the registry first: an unreachable registry is a skip, not a
	// failure.
	view := exec.CommandContext(ctx, npm, "view", "--fetch-retries=1", "--fetch-timeout=30000", p.String(), "version")
	view.Env = npmEnv()
	out, err := view.CombinedOutput()
	if err != nil || strings.TrimSpace(lastLine(string(out))) != p.Version {
		return "", &skipError{fmt.Errorf("the npm registry cannot be reached or has no %s: %v: %s", p, err, strings.TrimSpace(string(out)))}
	}
	tmp, err := os.MkdirTemp(cache, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// package.json keeps npm from walking up to a project of its own.
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"agenttest-install","private":true}`+"\n"), 0o644); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", tmp, p.String())
	cmd.Env = npmEnv()
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v: %s", err, tail(string(out), 2000))
	}
	if _, err := os.Stat(filepath.Join(tmp, "node_modules", ".bin", p.Bin)); err != nil {
		return "", fmt.Errorf("npm installed %s but there is no %s: %w", p, p.Bin, err)
	}
	os.RemoveAll(dir) // a half-finished earlier install
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(done, []byte(p.String()+"\n"), 0o644); err != nil {
		return "", err
	}
	return bin, nil
}

// npmEnv is the environment npm runs with: the test's, without update
// notices or funding messages.
func npmEnv() []string {
	return append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
