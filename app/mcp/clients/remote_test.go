package clients

import (
	"bytes"
	"strings"
	"testing"
)

// TestRemoteEntries: which remote entries run through agate's bridge, with
// which transport and headers, and why the others stay as they are.
func TestRemoteEntries(t *testing.T) {
	tests := []struct {
		name, client, entry string
		args                string // agate's args after the name; "" when left
		why                 string
	}{
		{"streamable", ClaudeCode, `{"type": "http", "url": "https://h/mcp"}`, "--url-env MCP_REMOTE_URL", ""},
		{"sse type", ClaudeCode, `{"type": "sse", "url": "https://h/events"}`, "--url-env MCP_REMOTE_URL --sse", ""},
		{"gemini url is SSE", Gemini, `{"url": "https://h/mcp"}`, "--url-env MCP_REMOTE_URL --sse", ""},
		{"gemini httpUrl", Gemini, `{"httpUrl": "https://h/mcp"}`, "--url-env MCP_REMOTE_URL", ""},
		{"cursor by path", Cursor, `{"url": "https://h/sse/"}`, "--url-env MCP_REMOTE_URL --sse", ""},
		{"cursor streamable", Cursor, `{"url": "https://h/mcp"}`, "--url-env MCP_REMOTE_URL", ""},
		{"headers", VSCode, `{"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${input:tok}", "X-Api-Key": "k", "x.api.key": "j"}}`,
			"--url-env MCP_REMOTE_URL --header-env Authorization=MCP_HEADER_AUTHORIZATION --header-env X-Api-Key=MCP_HEADER_X_API_KEY --header-env x.api.key=MCP_HEADER_X_API_KEY_2", ""},
		{"helper", ClaudeCode, `{"type": "http", "url": "https://h/mcp", "headersHelper": "get-token"}`, "", "headersHelper"},
		{"oauth", ClaudeCode, `{"type": "http", "url": "https://h/mcp", "oauth": {"clientId": "x"}}`, "", "OAuth"},
		{"oauth off", OpenCode, `{"type": "remote", "url": "https://h/mcp", "oauth": false}`, "--url-env MCP_REMOTE_URL", ""},
		{"gemini sign-in", Gemini, `{"httpUrl": "https://h/mcp", "authProviderType": "google_credentials"}`, "", "authProviderType"},
		{"plain http away", Cursor, `{"url": "http://h.example/mcp"}`, "", "plain http://"},
		{"plain http here", Cursor, `{"url": "http://localhost:3000/mcp"}`, "--url-env MCP_REMOTE_URL", ""},
		{"user in URL", Cursor, `{"url": "https://me:pw@h/mcp"}`, "", "user or password"},
		{"not http", Cursor, `{"url": "ws://h/mcp"}`, "", "not http"},
		{"ws type", ClaudeCode, `{"type": "ws", "url": "wss://h/mcp"}`, "", "transport"},
		{"two URLs", Gemini, `{"url": "https://h/sse", "httpUrl": "https://h/mcp"}`, "", "twice"},
		{"header twice", Cursor, `{"url": "https://h/mcp", "headers": {"A": "1", "a": "2"}}`, "", "twice"},
		{"header not a string", Cursor, `{"url": "https://h/mcp", "headers": {"A": 1}}`, "", "not a string"},
		{"header name", Cursor, `{"url": "https://h/mcp", "headers": {"A B": "1"}}`, "", "not a header's name"},
		{"and a command", Cursor, `{"url": "https://h/mcp", "command": "x"}`, "", "both a URL and a command"},
		{"URL the client fills in", ClaudeCode, `{"type": "http", "url": "https://${HOST}/mcp"}`, "--url-env MCP_REMOTE_URL", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := "mcpServers"
			argv := tt.client == OpenCode
			if argv {
				root = "mcp"
			}
			data := []byte(`{"` + root + `": {"r": ` + tt.entry + "}}\n")
			tg := Target{Client: tt.client, Roots: [][]string{{root}}, ArgvCommand: argv}
			out, res, err := editJSON(data, tg, Options{Agate: agate}, false)
			if err != nil {
				t.Fatal(err)
			}
			if tt.args == "" {
				if len(res.Remote) != 1 || !strings.Contains(res.Remote[0].Why, tt.why) || !bytes.Equal(out, data) {
					t.Fatalf("want it left (%q): remote %+v\n%s", tt.why, res.Remote, out)
				}
				return
			}
			if len(res.Rewritten) != 1 {
				t.Fatalf("not rewritten: %+v", res)
			}
			want := "mcp run --name r " + tt.args
			if got := strings.Join(res.Rewritten[0].Now[1:], " "); got != want {
				t.Errorf("args %q, want %q", got, want)
			}
			if _, err := clientParse(JSON, false, out); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			back, un, err := editJSON(out, tg, Options{}, true)
			if err != nil || !bytes.Equal(back, data) || len(un.Rewritten) != 1 {
				t.Fatalf("uninstall (%v, %+v):\n%s\nwant:\n%s", err, un, back, data)
			}
		})
	}
}

// TestRemoteChangedSinceInstall: an entry edited after the install (a
// header added by hand, another URL) is not overwritten by Uninstall with
// the one from before: it stays, with why.
func TestRemoteChangedSinceInstall(t *testing.T) {
	data := []byte(`{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "timeout": 5}}}` + "\n")
	tg := Target{Client: ClaudeCode, Roots: [][]string{{"mcpServers"}}}
	out, _, err := editJSON(data, tg, Options{Agate: agate}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range [][2]string{
		{`"MCP_REMOTE_URL": "https://h/mcp"`, `"MCP_REMOTE_URL": "https://other/mcp"`},
		{`"timeout": 5`, `"timeout": 50`},
		{`"--url-env", "MCP_REMOTE_URL"`, `"--url-env", "MCP_REMOTE_URL", "--sse"`},
		{`"timeout": 5`, `"timeout": 5, "disabled": true`},
	} {
		changed := bytes.Replace(out, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(changed, out) {
			t.Fatalf("the edit %q did not apply:\n%s", edit[0], out)
		}
		back, res, err := editJSON(changed, tg, Options{}, true)
		if err != nil || !bytes.Equal(back, changed) || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Why, "changed since") {
			t.Errorf("after %q: %v %+v\n%s", edit[1], err, res, back)
		}
	}
}
