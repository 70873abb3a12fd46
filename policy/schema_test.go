package policy

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agatehq/agate/policy/schema"
)

// TestSchemaMatchesConfig holds package schema, which the hook binary
// reads config.toml by, to the Config type the engine parses into: a key
// added to one and not the other fails here, not in a person's hook.
func TestSchemaMatchesConfig(t *testing.T) {
	sections := map[string]reflect.Type{
		"auto": reflect.TypeFor[Auto](), "approvals": reflect.TypeFor[Approvals](), "hooks": reflect.TypeFor[Hooks](),
		"sandbox": reflect.TypeFor[Sandbox](), "secrets": reflect.TypeFor[Secrets](), "audit": reflect.TypeFor[Audit](), "undo": reflect.TypeFor[Undo](),
		"agents.*": reflect.TypeFor[Agent](), "mcp.servers.*": reflect.TypeFor[MCPServer](),
	}
	for name, typ := range sections {
		var keys []string
		for f := range typ.Fields() {
			if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag != "" && tag != "-" {
				keys = append(keys, tag)
			}
		}
		want := slices.Clone(schema.Keys[name])
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("[%s]: the engine reads %v, package schema lists %v", name, keys, want)
		}
	}
	if len(schema.Keys) != len(sections) {
		t.Errorf("package schema lists %d sections, the test checks %d", len(schema.Keys), len(sections))
	}
}
