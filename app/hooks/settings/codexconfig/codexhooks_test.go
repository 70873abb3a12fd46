package codexconfig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHash: the hashes Codex 0.171.0 itself reported (app-server
// hooks/list, currentHash) for these hooks.
func TestHash(t *testing.T) {
	for _, c := range []struct {
		hook Hook
		want string
	}{
		{Hook{Event: "PreToolUse", Matcher: ".*", Command: "/tmp/cx/hook.sh PreToolUse", Timeout: 30},
			"sha256:4596e8b1389ae288758d289e2630ae6c3314326231b03873a3447aedbda716d9"},
		{Hook{Event: "PreToolUse", Matcher: "*", Command: "/usr/local/bin/agate-cli hook codex --agent-timeout 60s", Timeout: 70},
			"sha256:1109cd179ae60aa3872018859d97917d27d7008868230dda1b5759e7e204c0a6"},
		{Hook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh proj_toml"},
			"sha256:264ece991687cdced04ee6adf86c586d5ce555fdaf2677bded27f5cfbbf1fe81"},
		{Hook{Event: "PostToolUse", Command: "/tmp/cx/hook.sh proj_json"},
			"sha256:7ee8e1d8c51d2ae0b674a4554575801f9265797907db39634c7a1dbcfa764766"},
		{Hook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh PreToolUse # <a&b> \u00e9 \"q\"\ttab \\ back \u2028 ls \u007f del \u0001 ctl", Timeout: -1, StatusMessage: "Checking with agate"},
			"sha256:8f4505f3412b3b65d1bd7ae40cdedb4978215a92a9bd1c31d5cf82683fc34740"},
		{Hook{Event: "PreToolUse", Matcher: "Bash", Command: "/tmp/cx/hook.sh second", Async: true},
			"sha256:4b7acf3ae779b0c185104080d1618993b035cb5cd88cce0385cd1eb4730b45ee"},
		{Hook{Event: "PreToolUse", Matcher: "esc", Command: "e \b \f \u001f \u2028 \u2029 \U0001F600 </script> &amp; \u0000"},
			"sha256:0b5e49e6e083da4ee0a7f7526f75baaf4ad3e67488c26008b6f3e3ee349b630d"},
		{Hook{Event: "SessionStart", Matcher: "startup|resume", Command: "/tmp/cx/hook.sh ss"},
			"sha256:397070dfdde47d88a41f7fb249a5a5e9f459ee406d78517f4c521363adb94e7c"},
		{Hook{Event: "SessionEnd", Command: "/tmp/cx/hook.sh se2"},
			"sha256:cb2ade88cb3bda235332092a3d1a268b8606c8dd591ebb58de17b1e3ac839ab5"},
		{Hook{Event: "SessionEnd", Command: "/tmp/cx/hook.sh SessionEnd", Timeout: 30},
			"sha256:e1137b110add50756728e710d039819dd94530d1c3254cda2641dc9bee8961db"},
		{Hook{Event: "UserPromptSubmit", Matcher: "ignored", Command: "/tmp/cx/hook.sh ups"},
			"sha256:a2b1b6f37f62eb9f70c152fa02991628864b3ca520894066dd627ba2134af584"},
	} {
		if got := c.hook.Hash(); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.hook, got, c.want)
		}
	}
	if got, want := Key("/home/u/.codex/config.toml", "PermissionRequest", 2, 1), "/home/u/.codex/config.toml:permission_request:2:1"; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
}

const (
	src = "/home/u/.codex/config.toml"
	cmd = "/opt/agate/agate-hook hook codex --agent-timeout 135s"
)

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestInstall: agate's block goes after the person's own groups, with
// their indices in its keys, the rest of the file byte for byte; a second
// install changes nothing; uninstall gives the file back.
func TestInstall(t *testing.T) {
	for _, c := range []struct {
		file   string
		groups map[string]int // the group index of agate's hook per event
	}{
		{"empty.toml", map[string]int{"PreToolUse": 0, "PermissionRequest": 0, "PostToolUse": 0, "UserPromptSubmit": 0}},
		{"user-hooks.toml", map[string]int{"PreToolUse": 2, "PermissionRequest": 0, "PostToolUse": 1, "UserPromptSubmit": 0}},
		{"trusted-by-codex.toml", map[string]int{"PreToolUse": 1, "PermissionRequest": 0, "PostToolUse": 0, "UserPromptSubmit": 0}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data := testdata(t, c.file)
			out, states, err := Install(data, src, cmd, 135, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(states) != len(Hooks()) {
				t.Fatalf("states %v", states)
			}
			for i, s := range Hooks() {
				want := Key(src, s.Event, c.groups[s.Event], 0)
				if states[i].Key != want {
					t.Errorf("%s: key %s, want %s", s.Event, states[i].Key, want)
				}
			}
			st, err := Inspect(out, src, out)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Entries) != len(Hooks()) || len(st.Missing) != 0 {
				t.Fatalf("status %+v", st)
			}
			for _, e := range st.Entries {
				if e.Trust != Trusted || e.Timeout != 135 {
					t.Errorf("%+v", e)
				}
			}
			again, _, err := Install(out, src, cmd, 135, true)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("a second install changed the file (%v):\n%s", err, again)
			}
			back, changed, err := Uninstall(out, src)
			if err != nil || !changed {
				t.Fatalf("uninstall: %v %v", changed, err)
			}
			if c.file != "trusted-by-codex.toml" && !bytes.Equal(bytes.TrimRight(back, "\n"), bytes.TrimRight(data, "\n")) {
				t.Errorf("uninstall did not give the file back:\n%s\n---\n%s", back, data)
			}
			if st, _ := Inspect(back, src, back); len(st.Entries) != 0 {
				t.Errorf("left %+v", st.Entries)
			}
			if bytes.Contains(back, []byte("agate")) {
				t.Errorf("uninstall left agate's state:\n%s", back)
			}
			// Everything outside the block, byte for byte.
			rest, _ := removeBlock(out, BeginMarker, EndMarker)
			if c.file != "trusted-by-codex.toml" && !bytes.HasPrefix(data, bytes.TrimRight(rest, "\n")) {
				t.Errorf("the person's part changed:\n%s", rest)
			}
		})
	}
}

// TestInstallStale: a new timeout or command gives a new hash, and the old
// one is gone; a hash that does not match is reported stale.
func TestInstallStale(t *testing.T) {
	out, _, err := Install(nil, src, cmd, 135, true)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(out, []byte("timeout = 135\n"), []byte("timeout = 136\n"), 1)
	st, err := Inspect(edited, src, edited)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries[0].Trust == Trusted && st.Entries[1].Trust == Trusted && st.Entries[2].Trust == Trusted && st.Entries[3].Trust == Trusted {
		t.Errorf("a changed timeout is still trusted: %+v", st.Entries)
	}
	stale := 0
	for _, e := range st.Entries {
		if e.Trust == Stale {
			stale++
		}
	}
	if stale != 1 {
		t.Errorf("want one stale hook: %+v", st.Entries)
	}
	re, _, err := Install(out, src, cmd, 200, true)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(re, []byte("timeout = 135")) || strings.Count(string(re), "trusted_hash") != 4 {
		t.Errorf("reinstall:\n%s", re)
	}
	if st, _ := Inspect(out, src, nil); st.Entries[0].Trust != Untrusted {
		t.Errorf("no state read, but %s", st.Entries[0].Trust)
	}
}

// TestRefused: a file that is not TOML, or where agate's groups could not
// go, is an error naming the line, and nothing is returned.
func TestRefused(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"bad", "model = \"x\"\n[profiles\n", "line 2"},
		{"dup", "a = 1\na = 2\n", "line 2"},
		{"inline-groups", "[hooks]\nPreToolUse = [{matcher = \"*\", hooks = []}]\n", "would not parse"},
		{"inline-state", "[hooks]\nstate = {}\n", "would not parse"},
		{"hooks-not-table", "hooks = 3\n", "not a table"},
		{"open-block", "a = 1\n" + BeginMarker + "\n", "without"},
		{"open-block-indented", "a = 1\n  " + BeginMarker + "\n", "without"},
		{"stray-end", EndMarker + "\n", "without"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := Install([]byte(c.data), src, cmd, 135, true)
			if err == nil || !strings.Contains(err.Error(), c.want) || out != nil {
				t.Errorf("got %v, %q; want an error with %q", err, out, c.want)
			}
		})
	}
	moved := "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/usr/bin/agate-cli hook codex\"\n"
	if _, _, err := Install([]byte(moved), src, cmd, 135, true); !errors.Is(err, ErrOutside) {
		t.Errorf("agate's hook outside its block: %v", err)
	}
	if _, _, err := Install([]byte("a = [\n"), src, cmd, 135, true); !errors.Is(err, ErrNotTOML) {
		t.Errorf("not ErrNotTOML: %v", err)
	}
	if _, _, err := Install(nil, src, "a\nb", 135, true); err == nil {
		t.Error("a command on two lines was taken")
	}
}

// TestTrustElsewhere: for a project's file, the block has no state; the
// trust goes into the user's file in a block of its own, and comes out.
func TestTrustElsewhere(t *testing.T) {
	const proj = "/p/.codex/config.toml"
	out, states, err := Install(nil, proj, cmd, 135, false)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("trusted_hash")) {
		t.Errorf("state in a project file:\n%s", out)
	}
	user := []byte("model = \"gpt-5.5\"\n")
	u2, err := InstallTrust(user, proj, states, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Inspect(out, proj, u2)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range st.Entries {
		if e.Trust != Trusted {
			t.Errorf("%+v", e)
		}
	}
	u3, err := InstallTrust(u2, proj, states, nil)
	if err != nil || !bytes.Equal(u3, u2) {
		t.Errorf("second trust install changed it: %v\n%s", err, u3)
	}
	var keys []string
	for _, s := range states {
		keys = append(keys, s.Key)
	}
	back, changed, err := UninstallTrust(u2, proj, keys)
	if err != nil || !changed || string(back) != "model = \"gpt-5.5\"\n" {
		t.Errorf("uninstall trust: %v %v %q", changed, err, back)
	}
}

// TestMarkersInAString: the markers' text inside the person's multi-line
// string is theirs: it stays, byte for byte.
func TestMarkersInAString(t *testing.T) {
	data := []byte("notes = \"\"\"\n" + BeginMarker + "\nkeep\n" + EndMarker + "\n\"\"\"\n")
	out, _, err := Install(data, src, cmd, 135, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, data) {
		t.Fatalf("the string changed:\n%s", out)
	}
	back, _, err := Uninstall(out, src)
	if err != nil || !bytes.Equal(back, data) {
		t.Errorf("uninstall (%v):\n%s", err, back)
	}
}

// TestForeignStateInBlock: trust Codex wrote inside agate's block for a
// hook of the person's survives a reinstall and an uninstall.
func TestForeignStateInBlock(t *testing.T) {
	out, _, err := Install([]byte("[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/bin/mine\"\n"), src, cmd, 135, true)
	if err != nil {
		t.Fatal(err)
	}
	theirs := "[hooks.state.\"" + src + ":stop:0:0\"]\ntrusted_hash = \"sha256:abc\"\n"
	edited := bytes.Replace(out, []byte(EndMarker), []byte(theirs+EndMarker), 1)
	re, _, err := Install(edited, src, cmd, 200, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(re, []byte(theirs)) || bytes.Count(re, []byte("sha256:abc")) != 1 {
		t.Errorf("the person's trust was lost on reinstall:\n%s", re)
	}
	back, _, err := Uninstall(re, src)
	if err != nil || !bytes.Contains(back, []byte(theirs)) || bytes.Contains(back, []byte("agate")) {
		t.Errorf("uninstall (%v):\n%s", err, back)
	}
}

func TestHooksOff(t *testing.T) {
	for data, want := range map[string]string{
		"":                                  "",
		"[features]\nhooks = true\n":        "",
		"[features]\nhooks = false\n":       "[features] hooks = false",
		"[features]\ncodex_hooks = false\n": "[features] codex_hooks = false",
		"features = { hooks = false }\n":    "[features] hooks = false",
	} {
		st, err := Inspect([]byte(data), src, []byte(data))
		if err != nil || st.HooksOff != want {
			t.Errorf("%q: %q %v, want %q", data, st.HooksOff, err, want)
		}
	}
}

// FuzzInstall: whatever the file, Install either refuses it or returns a
// file that parses, holds agate's hooks trusted where the keys say, and
// keeps what was outside agate's block.
func FuzzInstall(f *testing.F) {
	for _, name := range []string{"empty.toml", "user-hooks.toml", "trusted-by-codex.toml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[hooks.state]\n\"x\" = { trusted_hash = \"y\" }\n"))
	f.Add([]byte("model = \"o4\"\r\n\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, states, err := Install(data, src, cmd, 135, true)
		if err != nil {
			return
		}
		st, err := Inspect(out, src, out)
		if err != nil {
			t.Fatalf("installed file does not read: %v\n%s", err, out)
		}
		trusted := 0
		for _, e := range st.Entries {
			for _, s := range states {
				if e.Key == s.Key && e.Trust == Trusted {
					trusted++
				}
			}
		}
		if trusted < len(states) {
			t.Fatalf("%d of %d trusted:\n%s", trusted, len(states), out)
		}
		back, _, err := Uninstall(out, src)
		if err != nil {
			t.Fatalf("uninstall: %v\n%s", err, out)
		}
		// A file agate never touched, ending with a newline, comes back
		// byte for byte.
		untouched := !bytes.Contains(data, []byte("agate")) && !bytes.Contains(data, []byte("state"))
		ends := len(data) == 0 || bytes.HasSuffix(data, []byte("\n")) && len(bytes.TrimSpace(data)) > 0
		if untouched && ends && !bytes.Equal(back, data) {
			t.Fatalf("uninstall gave\n%q\nnot\n%q", back, data)
		}
	})
}

// TestUninstallGivesBack: install then uninstall gives the file back byte
// for byte, however it ends (blank lines, CRLF line ends); a file with no
// newline at its end gets one.
func TestUninstallGivesBack(t *testing.T) {
	for _, data := range []string{
		"",
		"model = \"o4\"\n",
		"model = \"o4\"\n\n\n",
		"model = \"o4\"\r\n[profiles.fast]\r\nmodel = \"o4-mini\"\r\n",
		"model = \"o4\"\r\n\r\n",
		"# only a comment\n",
		string(testdata(t, "user-hooks.toml")),
	} {
		out, _, err := Install([]byte(data), src, cmd, 135, true)
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if crlf := strings.Contains(data, "\r\n"); crlf && strings.Count(string(out), "\n") != strings.Count(string(out), "\r\n") {
			t.Errorf("%q: a CRLF file got LF lines:\n%q", data, out)
		}
		again, _, err := Install(out, src, cmd, 135, true)
		if err != nil || !bytes.Equal(again, out) {
			t.Errorf("%q: a second install changed the file (%v):\n%q", data, err, again)
		}
		back, _, err := Uninstall(out, src)
		if err != nil || string(back) != data {
			t.Errorf("%q: uninstall gave %q (%v)", data, back, err)
		}
	}
	out, _, _ := Install([]byte("model = \"o4\""), src, cmd, 135, true)
	if back, _, _ := Uninstall(out, src); string(back) != "model = \"o4\"\n" {
		t.Errorf("no newline at the end: %q", back)
	}
}
