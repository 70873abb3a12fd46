package policy

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

//go:embed secrets.toml
var secretStoresText []byte

// SecretStore is where one tool keeps its secrets: a read of one of its
// paths, or of a folder that holds one, is a secret read, and the sandbox
// hides each that exists. A path is "~/...", absolute, or a name or glob
// matched anywhere; a trailing "/" is a folder and all it holds.
type SecretStore struct {
	Name  string // the entry's name in secrets.toml: "aws"
	Tool  string // whose secrets: "AWS CLI and SDKs"
	Paths []string
}

// SecretStores returns the built-in secret stores (policy/secrets.toml),
// sorted by name. The list is read once; the caller must not change it.
func SecretStores() []SecretStore {
	s, err := secretStores()
	if err != nil {
		panic("policy: built-in secrets.toml: " + err.Error())
	}
	return s
}

// secretStores is secrets.toml as secretstores_table.go holds it, read
// once: the table is written from the file (go test ./policy -run
// TestSecretStoresTable -update), and that test fails when the two
// differ. Every agate command, the sandbox's runner among them, reads
// the list at start: a table costs nothing to read, the TOML a
// millisecond.
var secretStores = sync.OnceValues(func() ([]SecretStore, error) {
	if len(secretStoresTable) == 0 {
		return parseSecretStores(secretStoresText)
	}
	return secretStoresTable, nil
})

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
