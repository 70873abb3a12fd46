package mcp

import (
	"slices"
	"testing"
)

func TestToolDefHash(t *testing.T) {
	a, err := ParseToolDef([]byte(`{"name":"read","description":"Reads.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number","default":1.50}}},"annotations":{"readOnlyHint":true},"_meta":{"x":1},"icons":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Layout, member order and _meta do not change a definition.
	b, err := ParseToolDef([]byte(`{ "annotations" : {"readOnlyHint":true}, "inputSchema":{"properties":{"n":{"default":1.50,"type":"number"},"path":{"type":"string"}},"type":"object"},
		"description":"Reads.", "name":"read", "outputSchema": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash != b.Hash || a.Hash[:7] != "sha256:" || len(a.Hash) != 71 {
		t.Errorf("hashes %s and %s", a.Hash, b.Hash)
	}
	if string(a.InputSchema) != `{"properties":{"n":{"default":1.50,"type":"number"},"path":{"type":"string"}},"type":"object"}` {
		t.Errorf("canonical schema: %s", a.InputSchema)
	}
	for _, tc := range []struct {
		json   string
		fields []string
	}{
		{`{"name":"read","description":"Reads.\u200b","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number","default":1.50}}},"annotations":{"readOnlyHint":true}}`, []string{"description"}},
		{`{"name":"read","description":"Reads.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"annotations":{"readOnlyHint":false}}`, []string{"inputSchema", "annotations"}},
		{`{"name":"read","title":"T","description":"Reads.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number","default":1.50}}},"annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}`, []string{"title", "outputSchema", "execution"}},
	} {
		c, err := ParseToolDef([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if c.Hash == a.Hash {
			t.Errorf("%s: same hash", tc.json)
		}
		if got := ChangedFields(a, c); !slices.Equal(got, tc.fields) {
			t.Errorf("%s: changed %v, want %v", tc.json, got, tc.fields)
		}
	}
	if _, err := ParseToolDef([]byte(`{"description":"no name"}`)); err == nil {
		t.Error("a tool with no name was taken")
	}
	h := a.Hints()
	if h.ReadOnlyHint == nil || !*h.ReadOnlyHint || h.DestructiveHint != nil {
		t.Errorf("hints: %+v", h)
	}
}
