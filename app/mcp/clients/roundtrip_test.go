package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

// clientParse reads a file by its client's rules: Codex's TOML with
// go-toml/v2 (as strict as Codex's own parser about tables declared
// twice), JSON files with encoding/json, JSONC after hujson drops the
// comments and trailing commas.
func clientParse(format Format, jsonc bool, data []byte) (map[string]any, error) {
	var doc map[string]any
	if format == TOML {
		return doc, gotoml.Unmarshal(data, &doc)
	}
	if jsonc {
		std, err := hujson.Standardize(bytes.Clone(data))
		if err != nil {
			return nil, err
		}
		data = std
	}
	return doc, json.Unmarshal(data, &doc)
}

// TestRoundTripCorpus installs and uninstalls real-world-shaped configs:
// the installed file reads by the client's rules with every stdio server
// through agate, and uninstalling gives back the file byte for byte.
func TestRoundTripCorpus(t *testing.T) {
	tests := []struct {
		file      string
		target    Target
		jsonc     bool
		rewritten string
	}{
		{file: "claude-code.json", target: Target{Client: ClaudeCode, Roots: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}}},
			rewritten: "context7,github,postgres,sentry,unicode é ✓"},
		{file: "vscode-mcp.json", target: Target{Client: VSCode, Roots: [][]string{{"servers"}}}, jsonc: true,
			rewritten: "Perplexity,fetch,github,noargs"},
		{file: "gemini-settings.json", target: Target{Client: Gemini, Roots: [][]string{{"mcpServers"}}},
			rewritten: "docs,events,local"},
		{file: "codex-config.toml", target: Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "context7,dotted.name,empty_args,literal,multiline"},
		{file: "opencode.jsonc", target: Target{Client: OpenCode, Roots: [][]string{{"mcp"}}, ArgvCommand: true}, jsonc: true,
			rewritten: "docs,escaped,fs,git.tools"},
		{file: "copilot-mcp-config.json", target: Target{Client: Copilot, Roots: [][]string{{"mcpServers"}}},
			rewritten: "demo,github,playwright"},
		{file: "codex-dotted.toml", target: Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "inner,quoted key"},
		{file: "codex-top-dotted.toml", target: Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "top"},
		{file: "codex-crlf.toml", target: Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "a,b"},
		{file: "codex-no-newline.toml", target: Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "last"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "roundtrip", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			edit := editJSON
			if tt.target.Format == TOML {
				edit = editTOML
			}
			out, res, err := edit(data, tt.target, Options{Agate: agate}, false)
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			if got := names(res.Rewritten); got != tt.rewritten {
				t.Errorf("rewritten %q, want %q (skipped %v)", got, tt.rewritten, res.Skipped)
			}
			if _, err := clientParse(tt.target.Format, tt.jsonc, out); err != nil {
				t.Fatalf("the installed file does not read as its client reads it: %v\n%s", err, out)
			}
			if !tt.jsonc && tt.target.Format == JSON && !json.Valid(out) {
				t.Fatalf("not plain JSON any more:\n%s", out)
			}
			again, _, err := edit(out, tt.target, Options{Agate: agate}, false)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("a second install changed the file (%v):\n%s", err, again)
			}
			back, _, err := edit(out, tt.target, Options{}, true)
			if err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if !bytes.Equal(back, data) {
				t.Errorf("uninstall does not give the file back:\n%s\nwant:\n%s", diffLines(string(back), string(data)), "")
			}
			// Through another agate binary, then back: the same file.
			moved, _, err := edit(out, tt.target, Options{Agate: "/opt/agate2/agate"}, false)
			if err != nil {
				t.Fatalf("install of another binary: %v", err)
			}
			if back, _, err := edit(moved, tt.target, Options{}, true); err != nil || !bytes.Equal(back, data) {
				t.Errorf("uninstall after a move does not give the file back (%v): %s", err, diffLines(string(back), string(data)))
			}
		})
	}
}

// diffLines names the first line where got and want differ.
func diffLines(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// TestInstallAgateNotUTF8: a binary path that is not UTF-8 would be
// written as another path (TOML and JSON hold UTF-8 only): refused, and
// the file is not touched.
func TestInstallAgateNotUTF8(t *testing.T) {
	path, orig := copyTo(t, "config.toml")
	_, err := Install(Target{File: path, Format: TOML, Roots: [][]string{{"mcp_servers"}}}, Options{Agate: "/opt/\xffagate/agate"})
	if err == nil {
		t.Fatal("installed a path that is not UTF-8")
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Error("the file changed")
	}
}

// TestInstallOpenCodeAndCopilot: OpenCode's servers ("command" one
// array) and Copilot CLI's ("type": "local") run through agate's proxy
// with every other key kept, remote ones through its bridge, and a
// server whose command is not a list of strings is skipped with why.
func TestInstallOpenCodeAndCopilot(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "roundtrip", "opencode.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	out, res, err := editJSON(data, Target{Client: OpenCode, Roots: [][]string{{"mcp"}}, ArgvCommand: true}, Options{Agate: agate}, false)
	if err != nil {
		t.Fatal(err)
	}
	if names(res.Remote) != "" || names(res.Skipped) != "broken" || !strings.Contains(res.Skipped[0].Why, "not a list of strings") {
		t.Errorf("remote %v, skipped %v", res.Remote, res.Skipped)
	}
	s := jsonServers(t, out, "mcp")
	// OpenCode's remote server: a local one ("command" one array, its
	// environment "environment"), the header's {env:TOKEN} as written.
	wantDocs := []any{agate, "mcp", "run", "--name", "docs", "--url-env", "MCP_REMOTE_URL", "--header-env", "Authorization=MCP_HEADER_AUTHORIZATION"}
	if env, _ := s["docs"]["environment"].(map[string]any); !reflect.DeepEqual(s["docs"]["command"], wantDocs) || s["docs"]["type"] != "local" ||
		env["MCP_REMOTE_URL"] != "https://mcp.example.com/mcp" || env["MCP_HEADER_AUTHORIZATION"] != "Bearer {env:TOKEN}" || s["docs"]["url"] != nil || s["docs"]["headers"] != nil {
		t.Errorf("docs: %v", s["docs"])
	}
	want := []any{agate, "mcp", "run", "--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/docs"}
	if !reflect.DeepEqual(s["fs"]["command"], want) || s["fs"]["environment"] == nil || s["fs"]["enabled"] != true || s["fs"]["args"] != nil {
		t.Errorf("fs: %v", s["fs"])
	}
	if got := s["git.tools"]["command"].([]any); got[4] != "git.tools" || got[6] != "uvx" {
		t.Errorf("git.tools: %v", got)
	}
	if !bytes.Contains(out, []byte(`"/opt/my\u0020server/run"`)) {
		t.Errorf("an escape the person wrote was not kept:\n%s", out)
	}
	data, err = os.ReadFile(filepath.Join("testdata", "roundtrip", "copilot-mcp-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, res, err = editJSON(data, Target{Client: Copilot, Roots: [][]string{{"mcpServers"}}}, Options{Agate: agate}, false)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonServers(t, out, "mcpServers")
	if c["github"]["type"] != "local" || c["github"]["command"] != agate || c["github"]["tools"] == nil || c["github"]["url"] != nil {
		t.Errorf("github: %v", c["github"])
	}
	if c["demo"]["command"] != agate || !reflect.DeepEqual(c["demo"]["args"], []any{"mcp", "run", "--name", "demo", "--", "node", "/home/me/mcp/demo.js"}) || c["demo"]["tools"] == nil || c["demo"]["type"] != "local" {
		t.Errorf("demo: %v", c["demo"])
	}
	if names(res.Remote) != "" {
		t.Errorf("remote %v", res.Remote)
	}
}

// TestTargetsOpenCodeAndCopilot: where each keeps its servers.
func TestTargetsOpenCodeAndCopilot(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, "xdg")}[k] }
	ts, err := Targets(OpenCode, home, "", env)
	if err != nil || len(ts) != 1 || ts[0].File != filepath.Join(home, "xdg", "opencode", "opencode.json") {
		t.Fatalf("opencode: %+v %v", ts, err)
	}
	dir := filepath.Join(home, "xdg", "opencode")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "opencode.jsonc"), []byte("{}"), 0o600)
	if ts, _ := Targets(OpenCode, home, "", env); len(ts) != 1 || filepath.Base(ts[0].File) != "opencode.jsonc" {
		t.Errorf("opencode with opencode.jsonc: %+v", ts)
	}
	if ts, _ := Targets(OpenCode, home, "/p", env); ts[0].File != "/p/opencode.json" {
		t.Errorf("opencode project: %+v", ts)
	}
	if ts, err := Targets(Copilot, home, "", func(k string) string { return map[string]string{"COPILOT_HOME": "/c"}[k] }); err != nil || ts[0].File != "/c/mcp-config.json" {
		t.Errorf("copilot: %+v %v", ts, err)
	}
	if ts, _ := Targets(Copilot, home, "", env); ts[0].File != filepath.Join(home, ".copilot", "mcp-config.json") {
		t.Errorf("copilot: %+v", ts)
	}
	if _, err := Targets(Copilot, home, "/p", env); err == nil {
		t.Error("copilot has a project config")
	}
}
