package daemon

import (
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/internal/apptest"
)

func TestRevokeGrantRemovesOnlyThatGrant(t *testing.T) {
	p := apptest.Paths(t, "")
	path := p.Grants
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[agents.claude-code]\ngrants = [\"bash:none\", \"bash(git status)\", \"write_file:writes\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := New(p, Options{Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.RevokeGrant("claude-code", "bash:none"); err != nil {
		t.Fatal(err)
	}
	g, err := grants.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, gr := range g.For("claude-code") {
		left = append(left, gr.String())
	}
	if strings.Join(left, ",") != "bash(git status),write_file:writes" {
		t.Errorf("left %v", left)
	}
	if err := d.RevokeGrant("claude-code", "bash:none"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("revoking it again: %v", err)
	}
	if err := d.RevokeGrant("claude-code", "bash(("); err == nil {
		t.Error("a grant that does not parse was accepted")
	}
}
