package policy

import (
	"strings"
	"testing"
)

// TestMCPCalls pins how calls through agate's MCP proxy are decided: the
// reference filesystem server's reads are read_file's, its writes are
// writes, a changed definition asks whatever a rule or grant says, and a
// server's annotations only raise risk.
func TestMCPCalls(t *testing.T) {
	const cfg = "[auto]\nmode = \"ask\"\nrules = [\"allow mcp__filesystem__write_file\", \"allow mcp__github__*\"]\n"
	tests := []struct {
		name, tool, args string
		mcp              *MCPTool
		grants           []Grant
		want             Verdict
		layer            Layer
		reason           string // a part of the reason, when it matters
	}{
		{"a read in the project", "mcp__filesystem__read_text_file", `{"path":"/home/u/proj/a.txt"}`, nil, nil, Allow, "", ""},
		{"a hook's relative read: from its cwd", "mcp__filesystem__read_file", `{"path":"a.txt"}`, nil, nil, Allow, "", ""},
		// The reference server resolves a relative path against its
		// first allowed directory (the client's first root), not its
		// working folder: with no root known, agate cannot tell the file.
		{"a relative read, no root known", "mcp__filesystem__read_file", `{"path":"a.txt"}`, &MCPTool{Known: "filesystem"}, nil, Ask, "", ""},
		{"a relative write, no root known", "mcp__filesystem__write_file", `{"path":".local/bin/git"}`, &MCPTool{Known: "filesystem"}, nil, Allow, LayerRule, ""},
		{"a relative read under the root", "mcp__filesystem__read_text_file", `{"path":"a.txt"}`, &MCPTool{Known: "filesystem", Base: "/home/u/proj"}, nil, Allow, "", ""},
		{"a relative read of a secret under the root", "mcp__filesystem__read_text_file", `{"path":".ssh/id_ed25519"}`, &MCPTool{Known: "filesystem", Base: "/home/u"}, nil, Ask, LayerProtected, ""},
		{"a relative listing under another root", "mcp__filesystem__list_directory", `{"path":"."}`, &MCPTool{Known: "filesystem", Base: "/home/u/docs"}, nil, Allow, "", ""},
		{"a relative edit under a root outside the project", "mcp__filesystem__edit_file", `{"path":"notes/x"}`, &MCPTool{Known: "filesystem", Base: "/home/u"}, nil, Ask, "", "outside the project"},
		{"a relative path with ..", "mcp__filesystem__read_text_file", `{"path":"a/../../b"}`, &MCPTool{Known: "filesystem", Base: "/home/u/proj"}, nil, Ask, "", ""},
		{"an empty path", "mcp__filesystem__directory_tree", `{"path":""}`, &MCPTool{Known: "filesystem", Base: "/home/u/proj"}, nil, Ask, "", ""},
		{"~user, which the server does not expand", "mcp__filesystem__read_text_file", `{"path":"~u/a"}`, &MCPTool{Known: "filesystem"}, nil, Ask, "", ""},
		{"a home path", "mcp__filesystem__read_text_file", `{"path":"~/proj/a"}`, &MCPTool{Known: "filesystem"}, nil, Allow, "", ""},
		{"one relative path among absolute ones", "mcp__filesystem__read_multiple_files", `{"paths":["/home/u/proj/a","b"]}`, &MCPTool{Known: "filesystem"}, nil, Ask, "", ""},
		{"a read of a secret file", "mcp__filesystem__read_text_file", `{"path":"/home/u/.ssh/id_ed25519"}`, nil, nil, Ask, LayerProtected, ""},
		{"many reads, one secret", "mcp__filesystem__read_multiple_files", `{"paths":["/home/u/proj/a","/home/u/.aws/credentials"]}`, nil, nil, Ask, LayerProtected, ""},
		{"a read outside the project", "mcp__filesystem__read_text_file", `{"path":"/tmp/x"}`, &MCPTool{Known: "filesystem"}, nil, Allow, "", ""},
		{"a listing", "mcp__filesystem__list_directory", `{"path":"/home/u/proj"}`, &MCPTool{Known: "filesystem"}, nil, Allow, "", ""},
		{"a move deletes its source", "mcp__filesystem__move_file", `{"source":"/home/u/notes","destination":"/home/u/proj/b"}`, nil, nil, Ask, "", ""},
		{"a write outside the project", "mcp__filesystem__edit_file", `{"path":"/etc/hosts"}`, nil, nil, Ask, "", ""},
		{"an allow rule", "mcp__filesystem__write_file", `{"path":"/home/u/proj/a"}`, &MCPTool{Known: "filesystem", Destructive: true}, nil, Allow, LayerRule, ""},
		{"an unknown tool", "mcp__other__do", `{}`, nil, nil, Ask, LayerDefault, "mcp__other__do"},
		{"an unknown tool that says it only reads", "mcp__other__peek", `{}`, &MCPTool{}, nil, Ask, LayerDefault, ""},
		{"a changed definition under an allow rule", "mcp__github__create_issue", `{}`, &MCPTool{Changed: []string{"description"}}, nil, Ask, LayerPin, "(description)"},
		{"a changed definition under a grant", "mcp__filesystem__read_text_file", `{"path":"/home/u/proj/a"}`,
			&MCPTool{Known: "filesystem", Changed: []string{"inputSchema", "annotations"}}, []Grant{{Tool: "mcp__filesystem__read_text_file", Any: true}}, Ask, LayerPin, "inputSchema, annotations"},
		{"a changed read-only tool", "mcp__filesystem__list_directory", `{"path":"/home/u/proj"}`, &MCPTool{Known: "filesystem", Changed: []string{"description"}}, nil, Ask, LayerPin, ""},
		{"a known read the server calls destructive", "mcp__filesystem__read_text_file", `{"path":"/home/u/proj/a"}`, &MCPTool{Known: "filesystem", Destructive: true}, nil, Ask, LayerRisk, "may destroy data"},
		{"a known read the server calls open-world", "mcp__filesystem__get_file_info", `{"path":"/home/u/proj/a"}`, &MCPTool{Known: "filesystem", OpenWorld: true}, nil, Ask, LayerRisk, "outside the machine"},
		// The catalog's entries go with the server a command runs, not
		// with the name a person gave it.
		{"the filesystem server named fs", "mcp__fs__read_text_file", `{"path":"a.txt"}`, &MCPTool{Known: "filesystem", Base: "/home/u/proj"}, nil, Allow, "", ""},
		{"a listing of the filesystem server named fs", "mcp__fs__list_directory", `{"path":"/home/u/proj"}`, &MCPTool{Known: "filesystem"}, nil, Allow, "", ""},
		{"a server named filesystem that runs something else", "mcp__filesystem__read_text_file", `{"path":"/home/u/proj/a.txt"}`, &MCPTool{Base: "/home/u/proj"}, nil, Ask, LayerDefault, ""},
		{"...its writes too, but for a rule the person wrote", "mcp__filesystem__write_file", `{"path":"/home/u/proj/a"}`, &MCPTool{}, nil, Allow, LayerRule, ""},
		{"fs through no proxy: nothing known", "mcp__fs__read_text_file", `{"path":"/home/u/proj/a.txt"}`, nil, nil, Ask, LayerDefault, ""},
		{"a grant allows what the server calls destructive", "mcp__other__drop", `{}`, &MCPTool{Destructive: true},
			[]Grant{{Tool: "mcp__other__drop", Any: true}}, Allow, LayerGrant, ""},
	}
	p := mustPolicy(t, cfg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(t, tt.tool, tt.args)
			r.MCP, r.Grants = tt.mcp, tt.grants
			d := p.Decide(r)
			if d.Verdict != tt.want || (tt.layer != "" && d.Layer != tt.layer) || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("%s %s: got %s (%s: %s), want %s (%s) with %q", tt.tool, tt.args, d.Verdict, d.Layer, d.Reason, tt.want, tt.layer, tt.reason)
			}
		})
	}
	// A changed definition asks even in yolo; plan still denies first.
	for mode, want := range map[string]Verdict{"yolo": Ask, "plan": Deny} {
		p := mustPolicy(t, "[auto]\nmode = \""+mode+"\"\n")
		r := req(t, "mcp__github__create_issue", `{}`)
		r.MCP = &MCPTool{Changed: []string{"description"}}
		if d := p.Decide(r); d.Verdict != want {
			t.Errorf("mode %s: a changed definition is %s (%s), want %s", mode, d.Verdict, d.Reason, want)
		}
	}
}

func TestMCPServersConfig(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
		pii  bool
	}{
		{"[mcp.servers.filesystem]\npii_redact = true\n", true, true},
		{"[mcp.servers.\"my.server-2\"]\npii_redact = false\n", true, false},
		{"[mcp.servers.\"a__b\"]\npii_redact = true\n", false, false},
		{"[mcp.servers.\"_a\"]\n", false, false},
		{"[mcp.servers.fs]\nredact = true\n", false, false},
		{"[mcp]\nother = 1\n", false, false},
	}
	for _, tt := range tests {
		cfg, err := Parse("config.toml", []byte(tt.text))
		if (err == nil) != tt.ok {
			t.Errorf("%q: err %v, want ok %v", tt.text, err, tt.ok)
			continue
		}
		if err == nil {
			for _, s := range cfg.MCP.Servers {
				if s.PIIRedact != tt.pii {
					t.Errorf("%q: pii_redact %v", tt.text, s.PIIRedact)
				}
			}
		}
	}
}
