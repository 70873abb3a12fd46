package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigConfig is a 200-rule config: rules for tools the benchmarked calls
// do not use, then a few that they reach last.
func bigConfig() string {
	var b strings.Builder
	b.WriteString("[auto]\ntrusted_dirs = [\"~/work\"]\ntrusted_domains = [\"docs.python.org\", \"go.dev\"]\nrules = [\n")
	for i := 0; i < 196; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "  \"deny mcp__server%d__*\",\n", i)
		case 1:
			fmt.Fprintf(&b, "  \"ask web *internal%d.example.com*\",\n", i)
		case 2:
			fmt.Fprintf(&b, "  \"deny shell *tool%d --dangerous*\",\n", i)
		case 3:
			fmt.Fprintf(&b, "  \"allow bash make target%d*\",\n", i)
		}
	}
	b.WriteString("  \"deny fs *.env\",\n  \"deny shell rm -rf /*\",\n  \"ask fs /etc/*\",\n  \"allow bash git status*\",\n]\n")
	return b.String()
}

func benchDecide(b *testing.B, tool, argsJSON string, want Verdict) {
	p := mustPolicy(b, bigConfig())
	var a map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &a); err != nil {
		b.Fatal(err)
	}
	r := &Request{Tool: tool, Args: a, Agent: "claude-code", Cwd: testCwd, Interactive: true, Files: absentFiles}
	if d := p.Decide(r); d.Verdict != want {
		b.Fatalf("got %s (%s), want %s", d.Verdict, d.Reason, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Decide(r)
	}
}

// BenchmarkDecideFileWrite: a Write in the project under a 200-rule config.
func BenchmarkDecideFileWrite(b *testing.B) {
	benchDecide(b, "Write", `{"file_path":"/home/u/proj/src/main.go","content":"package main\n\nfunc main() {}\n"}`, Allow)
}

// BenchmarkDecideShellCompound: a compound shell command, parsed and
// analysed, under a 200-rule config.
func BenchmarkDecideShellCompound(b *testing.B) {
	benchDecide(b, "Bash", `{"command":"cd src && go test ./... 2>&1 | tail -20 && git status --short"}`, Allow)
}

// BenchmarkDecideWithJSON: the file write including decoding its JSON
// arguments, as the daemon does per call.
func BenchmarkDecideWithJSON(b *testing.B) {
	p := mustPolicy(b, bigConfig())
	raw := []byte(`{"file_path":"/home/u/proj/src/main.go","content":"package main\n\nfunc main() {}\n"}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var a map[string]any
		if err := json.Unmarshal(raw, &a); err != nil {
			b.Fatal(err)
		}
		p.Decide(&Request{Tool: "Write", Args: a, Agent: "claude-code", Cwd: testCwd, Interactive: true, Files: absentFiles})
	}
}

// BenchmarkCompile: compiling the 200-rule config, as a reload does.
func BenchmarkCompile(b *testing.B) {
	text := []byte(bigConfig())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cfg, err := Parse("c.toml", text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compile(cfg, testOpts); err != nil {
			b.Fatal(err)
		}
	}
}
