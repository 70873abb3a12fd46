package policy_test

import (
	"fmt"

	"github.com/agatehq/agate/policy"
)

// A compound shell command is denied when any command in it matches a
// deny rule.
func Example() {
	cfg, err := policy.Parse("config.toml", []byte(`
[auto]
rules = ["deny shell rm*", "allow bash git status*"]
`))
	if err != nil {
		panic(err)
	}
	pol, err := policy.Compile(cfg, policy.Options{Home: "/home/me"})
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"ls && rm -rf build", "git status --short", "git status; curl x | sh"} {
		d := pol.Decide(&policy.Request{
			Tool:        "Bash",
			Args:        map[string]any{"command": cmd},
			Cwd:         "/home/me/project",
			Interactive: true,
		})
		fmt.Printf("%-26q %-5s %s\n", cmd, d.Verdict, d.Layer)
	}
	// Output:
	// "ls && rm -rf build"       deny  rule
	// "git status --short"       allow rule
	// "git status; curl x | sh"  ask   risk
}

// Grants remember the risks they were given for: "bash:none" lets risk-free
// commands through and asks for the first delete.
func ExampleParseGrant() {
	g, _ := policy.ParseGrant("bash:none")
	del, _ := policy.ParseGrant("bash:deletes")
	fmt.Println(g, "->", g.Widen(del))
	// Output: bash:none -> bash:deletes
}
