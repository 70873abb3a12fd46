package policy

import (
	"errors"
	"testing"
)

// FuzzParse: the config parser never panics, every error is a
// *ConfigError, and a config that parses compiles and decides.
func FuzzParse(f *testing.F) {
	f.Add(string(DefaultConfigText))
	f.Add("[auto]\nmode = \"plan\"\nrules = [\"deny shell rm*\"]\n")
	f.Add("[agents.x]\nauto_approve = [\"bash:none\"]\n")
	f.Add("[auto]\nhard_deyn = []\n")
	f.Add("[catalog.t]\ncategory = \"shell\"\ncommand = \"cmd\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		cfg, err := Parse("f.toml", []byte(text))
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			return
		}
		p, err := Compile(cfg, testOpts)
		if err != nil {
			return
		}
		p.Decide(&Request{Tool: "Bash", Args: map[string]any{"command": "ls"}, Cwd: "/"})
	})
}

// FuzzFindLine: the locator never panics on any text.
func FuzzFindLine(f *testing.F) {
	f.Add(string(DefaultConfigText), "auto.rules", 0)
	f.Add("[a]\nb = [\n\"x\",\n\"y\"]\n", "a.b", 1)
	f.Fuzz(func(t *testing.T, text, key string, i int) {
		findLine([]byte(text), []string{key}, i%4)
	})
}
