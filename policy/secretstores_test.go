package policy

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// secrets.toml is the list of secret stores as people edit it; the
// table agate links (package stores, which has no parser) is written from
// it, and TestSecretStoresTable fails when the two differ.
//
//go:embed secrets.toml
var secretStoresText []byte

// parseSecretStores reads a secrets.toml: every store names its tool and
// at least one path, every path is a pattern the policy can match.
func parseSecretStores(data []byte) ([]SecretStore, error) {
	var file struct {
		Store map[string]struct {
			Tool  string   `toml:"tool"`
			Paths []string `toml:"paths"`
		} `toml:"store"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&file)
	if err != nil {
		return nil, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("unknown key %s", u[0])
	}
	out := make([]SecretStore, 0, len(file.Store))
	for name, st := range file.Store {
		if strings.TrimSpace(st.Tool) == "" {
			return nil, fmt.Errorf("store.%s: no tool", name)
		}
		if len(st.Paths) == 0 {
			return nil, fmt.Errorf("store.%s: no paths", name)
		}
		for i, p := range st.Paths {
			if _, err := compilePathPattern(p, Options{Home: "/home/u"}); err != nil {
				return nil, fmt.Errorf("store.%s.paths[%d] %q: %w", name, i, p, err)
			}
		}
		out = append(out, SecretStore{Name: name, Tool: st.Tool, Paths: st.Paths})
	}
	slices.SortFunc(out, func(a, b SecretStore) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// TestSecretStores: the built-in list names at least sixty tools' stores,
// and a read of each store under home, or a recursive read of a folder
// that holds one, asks as a secret read.
func TestSecretStores(t *testing.T) {
	stores := SecretStores()
	if len(stores) < 60 {
		t.Fatalf("%d secret stores, want at least 60", len(stores))
	}
	p := mustPolicy(t, "")
	home := testHome
	for _, st := range stores {
		for _, path := range st.Paths {
			rest, ok := strings.CutPrefix(path, "~/")
			if !ok || strings.ContainsAny(rest, "*?[") {
				continue
			}
			cmd := "cat '" + home + "/" + strings.TrimSuffix(rest, "/") + "'"
			if strings.HasSuffix(rest, "/") {
				cmd = "grep -r token '" + home + "/" + strings.TrimSuffix(rest, "/") + "'"
			}
			d := p.Decide(&Request{Tool: "Bash", Args: map[string]any{"command": cmd}, Cwd: "/home/u/proj", Workspace: "/home/u/proj", Interactive: true})
			if d.Verdict != Ask || d.Layer != LayerProtected {
				t.Errorf("%s (%s): %s at %s (%s), want a secret read", cmd, st.Tool, d.Verdict, d.Layer, d.Reason)
			}
		}
	}
	for _, cmd := range []string{"grep -r . ~/.config", "tar czf /tmp/x.tgz ~/.config", "cat ~/.config/stripe/config.toml",
		"grep -r . ~/.aws", "find ~/.kube -type f -exec cat {} +"} {
		d := p.Decide(&Request{Tool: "Bash", Args: map[string]any{"command": cmd}, Cwd: "/home/u/proj", Workspace: "/home/u/proj", Interactive: true})
		if d.Verdict == Allow {
			t.Errorf("%s: allowed (%s)", cmd, d.Reason)
		}
	}
}

// TestParseSecretStores: a store with no tool, no paths, a bad pattern
// or an unknown key is an error naming it.
func TestParseSecretStores(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[store.x]\npaths = [\"~/.x\"]\n", "store.x: no tool"},
		{"[store.x]\ntool = \"X\"\n", "store.x: no paths"},
		{"[store.x]\ntool = \"X\"\npaths = [\"~/[\"]\n", "store.x.paths[0]"},
		{"[store.x]\ntool = \"X\"\npaths = [\"~/.x\"]\nkind = 1\n", "unknown key"},
		{"[store.x\n", "toml"},
	} {
		if _, err := parseSecretStores([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
	}
	if got, err := parseSecretStores([]byte("[store.b]\ntool = \"B\"\npaths = [\"~/.b\"]\n[store.a]\ntool = \"A\"\npaths = [\"/a\"]\n")); err != nil || len(got) != 2 || got[0].Name != "a" {
		t.Errorf("two stores: %+v %v", got, err)
	}
}

// FuzzParseSecretStores: any input is a list or an error, never a panic,
// and every store of a list has a tool and paths.
func FuzzParseSecretStores(f *testing.F) {
	f.Add(secretStoresText)
	f.Add([]byte("[store.x]\ntool = \"X\"\npaths = [\"~/.x\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		stores, err := parseSecretStores(data)
		if err != nil {
			return
		}
		for _, s := range stores {
			if s.Tool == "" || len(s.Paths) == 0 {
				t.Fatalf("store %+v", s)
			}
		}
	})
}

var updateTable = flag.Bool("update", false, "write stores/secrets_table.go from secrets.toml")

// TestSecretStoresTable: the table agate links (stores.Secrets) is secrets.toml,
// store for store and path for path (-update writes it again).
func TestSecretStoresTable(t *testing.T) {
	want, err := parseSecretStores(secretStoresText)
	if err != nil {
		t.Fatal(err)
	}
	if *updateTable {
		var b strings.Builder
		b.WriteString("// Code generated from policy/secrets.toml by TestSecretStoresTable -update; DO NOT EDIT.\n\npackage stores\n\n")
		b.WriteString("var secrets = []Secret{\n")
		for _, st := range want {
			fmt.Fprintf(&b, "\t{Name: %q, Tool: %q, Paths: []string{", st.Name, st.Tool)
			for i, p := range st.Paths {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q", p)
			}
			b.WriteString("}},\n")
		}
		b.WriteString("}\n")
		src, err := format.Source([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("stores/secrets_table.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !reflect.DeepEqual(SecretStores(), want) {
		t.Fatal("stores/secrets_table.go is not secrets.toml: run go test ./policy -run TestSecretStoresTable -update")
	}
}

// TestRootsHomeIsNotASecret: /root/ is a store for everyone but root; for
// root it is home, and a read there is judged as any read of home is.
func TestRootsHomeIsNotASecret(t *testing.T) {
	req := func(cmd string) *Request {
		return &Request{Tool: "Bash", Args: map[string]any{"command": cmd}, Cwd: "/root/proj", Workspace: "/root/proj", Interactive: true}
	}
	root, err := Compile(DefaultConfig(), Options{Home: "/root"})
	if err != nil {
		t.Fatal(err)
	}
	if d := root.Decide(req("cat /root/notes/todo.txt")); d.Verdict != Allow {
		t.Errorf("root reading its own home: %s (%s)", d.Verdict, d.Reason)
	}
	if d := root.Decide(req("cat /root/.aws/credentials")); d.Verdict == Allow {
		t.Errorf("root reading its own AWS keys: %s (%s)", d.Verdict, d.Reason)
	}
	user, err := Compile(DefaultConfig(), Options{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	if d := user.Decide(req("cat /root/notes/todo.txt")); d.Verdict == Allow {
		t.Errorf("a user reading root's home: %s (%s)", d.Verdict, d.Reason)
	}
}
