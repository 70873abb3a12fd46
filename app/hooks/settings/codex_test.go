package settings

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/app/internal/tomledit"
)

// TestCodexInstall: agate's hooks go into a CODEX_HOME that is a link,
// keyed by the resolved path and trusted; the person's settings stay;
// a second install changes nothing; uninstall gives the file back.
func TestCodexInstall(t *testing.T) {
	w := newHooksWorld(t)
	real := filepath.Join(w.home, "real-codex")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(w.home, "codex-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", link)
	file, err := Path("codex", "")
	if err != nil {
		t.Fatal(err)
	}
	mine := "# mine\nmodel = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/bin/true\"\n"
	if err := os.WriteFile(file, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	edit, err := InstallWith("codex", file, w.bin, 135*time.Second, InstallOptions{User: true})
	if err != nil || !edit.Changed || edit.Backup == "" {
		t.Fatalf("install: %+v %v", edit, err)
	}
	data, _ := os.ReadFile(file)
	if !bytes.HasPrefix(data, []byte(mine)) {
		t.Errorf("the person's part changed:\n%s", data)
	}
	key := filepath.Join(real, "config.toml") + ":pre_tool_use:1:0"
	if !strings.Contains(string(data), tomledit.String(key)) || !strings.Contains(string(data), "timeout = 135\n") {
		t.Errorf("no trust for %s:\n%s", key, data)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	st := Status("codex", file)
	if !st.Installed() || len(st.Entries) != 4 {
		t.Fatalf("status %+v", st)
	}
	for _, e := range st.Entries {
		if e.Trust != "trusted" || e.BinProblem != "" {
			t.Errorf("%+v", e)
		}
	}
	if edit, err := InstallWith("codex", file, w.bin, 135*time.Second, InstallOptions{User: true}); err != nil || edit.Changed {
		t.Errorf("second install: %+v %v", edit, err)
	}
	if edit, err := Uninstall("codex", file); err != nil || !edit.Changed {
		t.Fatalf("uninstall: %+v %v", edit, err)
	}
	data, _ = os.ReadFile(file)
	if string(data) != mine {
		t.Errorf("after uninstall:\n%s", data)
	}
}

// TestCodexProject: hooks in a project's config.toml are trusted from the
// user's, the one file Codex reads trust from; uninstall removes both.
func TestCodexProject(t *testing.T) {
	w := newHooksWorld(t)
	proj := filepath.Join(w.home, "proj")
	file, err := Path("codex", proj)
	if err != nil {
		t.Fatal(err)
	}
	edit, err := InstallWith("codex", file, w.bin, 135*time.Second, InstallOptions{})
	if err != nil || !edit.Changed || edit.Trust == "" {
		t.Fatalf("install: %+v %v", edit, err)
	}
	pdata, _ := os.ReadFile(file)
	udata, _ := os.ReadFile(edit.Trust)
	if bytes.Contains(pdata, []byte("trusted_hash")) || !bytes.Contains(udata, []byte(file+":pre_tool_use:0:0")) {
		t.Errorf("project:\n%s\nuser:\n%s", pdata, udata)
	}
	if st := Status("codex", file); !st.Installed() || !strings.Contains(st.HooksOff, "trust_level") {
		t.Errorf("status %+v: want the project's trust asked for", st)
	}
	// The person trusts the project in Codex.
	udata, _ = os.ReadFile(edit.Trust)
	os.WriteFile(edit.Trust, append([]byte("[projects."+tomledit.String(proj)+"]\ntrust_level = \"trusted\"\n\n"), udata...), 0o600)
	if st := Status("codex", file); !st.Installed() || st.HooksOff != "" {
		t.Errorf("status %+v", st)
	}
	os.WriteFile(edit.Trust, udata, 0o600)
	if _, err := Uninstall("codex", file); err != nil {
		t.Fatal(err)
	}
	udata, _ = os.ReadFile(edit.Trust)
	pdata, _ = os.ReadFile(file)
	if len(bytes.TrimSpace(udata)) != 0 || len(bytes.TrimSpace(pdata)) != 0 {
		t.Errorf("left: user %q project %q", udata, pdata)
	}
}

// TestCodexUninstallNothing: uninstalling where Codex has no folder
// creates none.
func TestCodexUninstallNothing(t *testing.T) {
	w := newHooksWorld(t)
	t.Setenv("CODEX_HOME", filepath.Join(w.home, "nowhere"))
	file, _ := Path("codex", "")
	if edit, err := Uninstall("codex", file); err != nil || edit.Changed {
		t.Errorf("%+v %v", edit, err)
	}
	if _, err := os.Stat(filepath.Join(w.home, "nowhere")); err == nil {
		t.Error("uninstall made Codex's folder")
	}
}

// TestCodexBadFile: a config.toml that is not TOML is an error naming it
// and the line, and is left as it was.
func TestCodexBadFile(t *testing.T) {
	w := newHooksWorld(t)
	file, _ := Path("codex", "")
	os.MkdirAll(filepath.Dir(file), 0o700)
	bad := "model = \"x\"\n[profiles\n"
	os.WriteFile(file, []byte(bad), 0o644)
	_, err := InstallWith("codex", file, w.bin, time.Minute, InstallOptions{User: true})
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != bad || len(backups(t, file)) != 0 {
		t.Errorf("file touched: %q", data)
	}
	if st := Status("codex", file); st.Err == nil {
		t.Errorf("status of a bad file: %+v", st)
	}
}
