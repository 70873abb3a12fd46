package clients

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/agatehq/agate/app/internal/jsonc"
	"github.com/tailscale/hujson"
)

const agate = "/usr/local/bin/agate"

func names(ss []Server) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Key)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// copyTo puts testdata/name in a temp folder and returns its path.
func copyTo(t *testing.T, name string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// jsonServers decodes the servers at path in a JSON(C) file.
func jsonServers(t *testing.T, data []byte, path ...string) map[string]map[string]any {
	t.Helper()
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	out := map[string]map[string]any{}
	for k, s := range v.(map[string]any) {
		out[k], _ = s.(map[string]any)
	}
	return out
}

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct {
		file                             string
		target                           Target
		rewritten, remote, skipped, kept string
		// check looks at the installed file.
		check func(t *testing.T, out []byte)
	}{
		{
			file:   "claude.json",
			target: Target{Client: ClaudeCode, Roots: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}}},
			// "my tools" is not a valid name: it runs as my_tools.
			rewritten: "filesystem,git,my tools,plain,remote",
			check: func(t *testing.T, out []byte) {
				s := jsonServers(t, out, "mcpServers")
				want := []any{"mcp", "run", "--name", "filesystem", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/docs"}
				if s["filesystem"]["command"] != agate || !reflect.DeepEqual(s["filesystem"]["args"], want) {
					t.Errorf("filesystem: %v", s["filesystem"])
				}
				if s["filesystem"]["env"] == nil || s["filesystem"]["type"] != "stdio" {
					t.Errorf("filesystem lost its other keys: %v", s["filesystem"])
				}
				if !reflect.DeepEqual(s["plain"]["args"], []any{"mcp", "run", "--name", "plain", "--", "/usr/local/bin/my-server"}) {
					t.Errorf("plain: %v", s["plain"])
				}
				p := jsonServers(t, out, "projects", "/home/me/proj", "mcpServers")
				if args := p["my tools"]["args"].([]any); args[3] != "my_tools" {
					t.Errorf("my tools: %v", p["my tools"])
				}
				if !bytes.Contains(out, []byte(`"numStartups": 12,`)) || !bytes.Contains(out, []byte(`"allowedTools": [],`)) {
					t.Error("the rest of the file changed")
				}
			},
		},
		{
			file:      "settings.jsonc",
			target:    Target{Client: Gemini, Roots: [][]string{{"mcpServers"}}},
			rewritten: "everything,sse", skipped: "bad",
			check: func(t *testing.T, out []byte) {
				for _, keep := range []string{"// Gemini CLI settings", "// the theme", "/* the everything server */"} {
					if !bytes.Contains(out, []byte(keep)) {
						t.Errorf("lost %q", keep)
					}
				}
				if s := jsonServers(t, out, "mcpServers"); s["everything"]["command"] != agate {
					t.Errorf("everything: %v", s["everything"])
				}
			},
		},
		{
			file:      "config.toml",
			target:    Target{Client: Codex, Format: TOML, Roots: [][]string{{"mcp_servers"}}},
			rewritten: "bare,docs,tabled", remote: "remote", skipped: "inline",
			check: func(t *testing.T, out []byte) {
				var doc struct {
					MCP map[string]struct {
						Command string
						Args    []string
						Env     map[string]string
					} `toml:"mcp_servers"`
					Profiles map[string]map[string]string
				}
				if _, err := toml.Decode(string(out), &doc); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if d := doc.MCP["docs"]; d.Command != agate || strings.Join(d.Args, " ") != "mcp run --name docs -- npx -y @modelcontextprotocol/server-filesystem /home/me/docs" || d.Env["TOKEN"] != "x" {
					t.Errorf("docs: %+v", d)
				}
				if b := doc.MCP["bare"]; strings.Join(b.Args, " ") != "mcp run --name bare -- uvx" {
					t.Errorf("bare: %+v", b)
				}
				if !bytes.Contains(out, []byte("# the filesystem server")) || doc.Profiles["fast"]["model"] != "o4-mini" {
					t.Errorf("the rest of the file changed:\n%s", out)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path, orig := copyTo(t, tt.file)
			tt.target.File = path
			res, err := Install(tt.target, Options{Agate: agate})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || res.Backup == "" || names(res.Rewritten) != tt.rewritten || names(res.Remote) != tt.remote || names(res.Skipped) != tt.skipped {
				t.Fatalf("install: %+v", res)
			}
			if b, _ := os.ReadFile(res.Backup); !bytes.Equal(b, orig) {
				t.Error("the backup is not the file as it was")
			}
			out, _ := os.ReadFile(path)
			tt.check(t, out)
			// Twice is once.
			again, err := Install(tt.target, Options{Agate: agate})
			if err != nil || again.Changed || names(again.Proxied) != tt.rewritten {
				t.Fatalf("a second install: %+v %v", again, err)
			}
			// A moved agate binary: the servers are pointed at the new one,
			// not wrapped twice.
			moved, err := Install(tt.target, Options{Agate: "/opt/agate/bin/agate"})
			if err != nil || !moved.Changed || names(moved.Rewritten) != tt.rewritten {
				t.Fatalf("an install from a moved binary: %+v %v", moved, err)
			}
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(agate)) || bytes.Count(b, []byte(`"run"`)) > len(moved.Rewritten) {
				t.Fatalf("after the move:\n%s", b)
			}
			// Uninstall gives the file back.
			un, err := Uninstall(tt.target)
			if err != nil || names(un.Rewritten) != tt.rewritten {
				t.Fatalf("uninstall: %+v %v", un, err)
			}
			back, _ := os.ReadFile(path)
			if !bytes.Equal(back, orig) {
				t.Errorf("uninstall did not give the file back:\n%s", back)
			}
			if tt.file == "settings.jsonc" {
				s := jsonServers(t, back, "mcpServers")
				if s["everything"]["command"] != "npx" || !reflect.DeepEqual(s["everything"]["args"], []any{"-y", "@modelcontextprotocol/server-everything"}) {
					t.Errorf("everything: %v", s["everything"])
				}
			}
		})
	}
}

func TestEditRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, data string }{
		{"not JSON", `{"mcpServers": `},
		{"a server named twice", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`},
		{"an array", `[]`},
		{"mcpServers twice", `{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}`},
		{"deep", strings.Repeat("[", 20000)},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, "f.json")
		os.WriteFile(path, []byte(tt.data), 0o600)
		if _, err := Install(Target{File: path, Roots: [][]string{{"mcpServers"}}}, Options{Agate: agate}); err == nil {
			t.Errorf("%s: edited", tt.name)
		}
		if b, _ := os.ReadFile(path); string(b) != tt.data {
			t.Errorf("%s: the file changed", tt.name)
		}
	}
	// A server that names "command" twice is skipped, not guessed at.
	path := filepath.Join(dir, "dup.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x", "command": "y"}}}`), 0o600)
	res, err := Install(Target{File: path, Roots: [][]string{{"mcpServers"}}}, Options{Agate: agate})
	if err != nil || names(res.Skipped) != "a" || res.Changed {
		t.Errorf("a server naming command twice: %+v %v", res, err)
	}
	// A relative agate is refused.
	if _, err := Install(Target{File: path}, Options{Agate: "agate"}); err == nil {
		t.Error("a relative agate binary")
	}
	// A missing file is nothing to do.
	if res, err := Install(Target{File: filepath.Join(dir, "none.json")}, Options{Agate: agate}); err != nil || res.Exists {
		t.Errorf("a missing file: %+v %v", res, err)
	}
	// A TOML inline table is skipped.
	path = filepath.Join(dir, "c.toml")
	os.WriteFile(path, []byte("[mcp_servers]\nfoo = { command = \"x\", args = [\"a\"] }\n"), 0o600)
	res, err = Install(Target{File: path, Format: TOML, Roots: [][]string{{"mcp_servers"}}}, Options{Agate: agate})
	if err != nil || names(res.Skipped) != "foo" || res.Changed {
		t.Errorf("an inline table: %+v %v", res, err)
	}
}

// TestLinkFollowed: a linked file is edited where it points, and the
// link stays a link.
func TestLinkFollowed(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	os.WriteFile(real, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(Target{File: link, Roots: [][]string{{"mcpServers"}}}, Options{Agate: agate}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); !bytes.Contains(b, []byte(agate)) {
		t.Fatalf("the file the link points to: %s", b)
	}
}

func TestTargets(t *testing.T) {
	env := func(k string) string { return map[string]string{"CODEX_HOME": "/c"}[k] }
	for _, tt := range []struct{ client, project, want string }{
		{ClaudeCode, "", "/h/.claude.json"},
		{ClaudeCode, "/p", "/p/.mcp.json,/h/.claude.json"},
		{Cursor, "", "/h/.cursor/mcp.json"},
		{Gemini, "/p", "/p/.gemini/settings.json"},
		{Codex, "", "/c/config.toml"},
		{VSCode, "/p", "/p/.vscode/mcp.json"},
	} {
		ts, err := Targets(tt.client, "/h", tt.project, env)
		var files []string
		for _, x := range ts {
			files = append(files, x.File)
		}
		if err != nil || strings.Join(files, ",") != tt.want {
			t.Errorf("%s %s: %v %v", tt.client, tt.project, files, err)
		}
	}
	if _, err := Targets("emacs", "/h", "", env); err == nil {
		t.Error("an unknown client")
	}
	// A relative CODEX_HOME is taken from the current folder, as Codex
	// takes it.
	t.Chdir(t.TempDir())
	wd, _ := os.Getwd()
	rel := func(k string) string { return map[string]string{"CODEX_HOME": "cx"}[k] }
	if ts, err := Targets(Codex, "/h", "", rel); err != nil || len(ts) != 1 || ts[0].File != filepath.Join(wd, "cx", "config.toml") {
		t.Errorf("relative CODEX_HOME: %+v %v", ts, err)
	}
}

// FuzzEditJSON: whatever the file, an edit fails or gives a file that
// Uninstall turns back into one whose servers run what they ran.
func FuzzEditJSON(f *testing.F) {
	for _, name := range []string{"claude.json", "settings.jsonc", "roundtrip/claude-code.json", "roundtrip/vscode-mcp.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["--"]},"b":{"command":"/bin/agate","args":["mcp","run","--name","b","--","y"]}}}`))
	f.Add([]byte(`{"mcpServers":{"r":{"type":"sse","url":"https://h/sse","headers":{"A":"b\u0020c","a-b":"${X}"},"timeout":5}, "s": {"url": "http://[::1]:9/mcp"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tg := Target{Client: ClaudeCode, Roots: [][]string{{"mcpServers"}}}
		out, res, err := editJSON(data, tg, Options{Agate: agate}, false)
		if err != nil {
			return
		}
		back, _, err := editJSON(out, tg, Options{}, true)
		if err != nil {
			t.Fatalf("uninstall of an install failed: %v", err)
		}
		if fresh(res) && !bytes.Equal(back, data) {
			t.Fatalf("uninstall of an install is not the file:\n%s\nwas:\n%s", back, data)
		}
		for _, s := range res.Rewritten {
			if s.Where != "mcpServers" {
				continue
			}
			d, err := jsonc.Parse(back)
			if err != nil {
				t.Fatal(err)
			}
			var srv *hujson.Object
			walk(d, d.Root(), []string{"mcpServers", s.Key}, nil, func(_ []string, o jsonc.Box) { srv = o.Object() })
			if srv == nil {
				t.Fatalf("server %q gone", s.Key)
			}
			var cmd, u string
			var args []string
			for _, m := range srv.Members {
				switch literalString(m.Name) {
				case "command":
					cmd = literalString(m.Value)
				case "args":
					args, _ = stringArray(m.Value)
				case "url", "httpUrl", "serverUrl":
					u = literalString(m.Value)
				}
			}
			if s.URL != "" {
				if u != s.URL || cmd != "" {
					t.Fatalf("remote server %q: url %q command %q, was %q", s.Key, u, cmd, s.URL)
				}
				continue
			}
			wantCmd, wantArgs := original(s)
			if cmd != wantCmd || strings.Join(args, "\x00") != strings.Join(wantArgs, "\x00") {
				t.Fatalf("server %q: %q %q, was %q %q", s.Key, cmd, args, s.Command, s.Args)
			}
		}
	})
}

// FuzzEditTOML: as FuzzEditJSON, for Codex's config.
func FuzzEditTOML(f *testing.F) {
	for _, name := range []string{"config.toml", "roundtrip/codex-config.toml", "roundtrip/codex-dotted.toml",
		"roundtrip/codex-top-dotted.toml", "roundtrip/codex-crlf.toml", "roundtrip/codex-no-newline.toml"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		tg := Target{Format: TOML, Roots: [][]string{{"mcp_servers"}}}
		out, res, err := editTOML(data, tg, Options{Agate: agate}, false)
		if err != nil {
			return
		}
		back, _, err := editTOML(out, tg, Options{}, true)
		if err != nil {
			t.Fatalf("uninstall of an install failed: %v\n%s", err, out)
		}
		if fresh(res) && !bytes.Equal(back, data) {
			t.Fatalf("uninstall of an install is not the file:\n%q\nwas:\n%q", back, data)
		}
		var doc map[string]any
		if _, err := toml.Decode(string(back), &doc); err != nil {
			t.Fatal(err)
		}
		servers, _ := doc["mcp_servers"].(map[string]any)
		for _, s := range res.Rewritten {
			srv, _ := servers[s.Key].(map[string]any)
			cmd, _ := srv["command"].(string)
			wantCmd, wantArgs := original(s)
			if cmd != wantCmd || strings.Join(anyStrings(srv["args"]), "\x00") != strings.Join(wantArgs, "\x00") {
				t.Fatalf("server %q: %q %v, was %q %q", s.Key, cmd, srv["args"], s.Command, s.Args)
			}
		}
	})
}

// fresh reports whether an install wrapped every server it rewrote for
// the first time: its uninstall must give the file back byte for byte.
func fresh(res Result) bool {
	for _, s := range res.Rewritten {
		if _, _, ok := unwrap(s.Command, s.Args); ok {
			return false
		}
	}
	return len(res.Proxied) == 0
}

// original is what a server ran before any agate: what it ran, or, when
// it already ran through another agate binary, what that one ran.
func original(s Server) (string, []string) {
	if c, a, ok := unwrap(s.Command, s.Args); ok {
		return c, a
	}
	return s.Command, s.Args
}

// TestInspect: Inspect says which servers run through agate and which do
// not, before and after an install, and writes nothing.
func TestInspect(t *testing.T) {
	path, data := copyTo(t, "claude.json")
	tg := Target{Client: ClaudeCode, File: path, Roots: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}}}
	res, err := Inspect(tg)
	if err != nil || !res.Exists {
		t.Fatalf("Inspect = %+v, %v", res, err)
	}
	if names(res.Proxied) != "" || names(res.Rewritten) != "filesystem,git,my tools,plain" || names(res.Remote) != "remote" {
		t.Errorf("before install: proxied %q, not %q, remote %q", names(res.Proxied), names(res.Rewritten), names(res.Remote))
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
		t.Fatal("Inspect wrote the file")
	}
	if _, err := Install(Target{Client: tg.Client, File: path, Roots: tg.Roots}, Options{Agate: agate}); err != nil {
		t.Fatal(err)
	}
	res, err = Inspect(tg)
	if err != nil || names(res.Proxied) != "filesystem,git,my tools,plain,remote" || names(res.Rewritten) != "" || names(res.Remote) != "" {
		t.Errorf("after install: proxied %q, not %q, %v", names(res.Proxied), names(res.Rewritten), err)
	}
	if res, err := Inspect(Target{Client: Cursor, File: filepath.Join(t.TempDir(), "none.json"), Roots: [][]string{{"mcpServers"}}}); err != nil || res.Exists {
		t.Errorf("a missing file: %+v, %v", res, err)
	}
}
