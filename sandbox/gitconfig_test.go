package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitList renders entries as `git config --list` prints them.
func gitList(entries []gitEntry) []string {
	var out []string
	for _, e := range entries {
		name := e.section + "."
		if e.hasSub {
			name += e.sub + "."
		}
		name += e.key
		if !e.noValue {
			name += "=" + e.value
		}
		out = append(out, name)
	}
	return out
}

// realGitList is what git itself reads of a config file, nil when git
// refuses it.
func realGitList(t *testing.T, path string) ([]string, bool) {
	t.Helper()
	out, err := exec.Command("git", "config", "-f", path, "--no-includes", "--null", "--list").Output()
	if err != nil {
		return nil, false
	}
	var list []string
	for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if kv == "" {
			continue
		}
		// --null: the name, a newline, the value; a name alone has no value.
		name, value, ok := strings.Cut(kv, "\n")
		if ok {
			name += "=" + value
		}
		list = append(list, name)
	}
	return list, true
}

// TestGitConfigAsGitReadsIt reads every config of the corpus as git does:
// the same variables and values where git reads the file, an error where
// git refuses it (strict-* files git reads and agate refuses: they are
// hidden, which only costs the confined command its git settings).
func TestGitConfigAsGitReadsIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	files, _ := filepath.Glob("testdata/gitconfig/*.conf")
	if len(files) < 5 {
		t.Fatalf("the corpus has %d files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, gitReads := realGitList(t, f)
			got, err := parseGitConfig(data)
			strict := strings.HasPrefix(filepath.Base(f), "strict-")
			switch {
			case !gitReads && err == nil:
				t.Fatalf("git refuses it, agate read %q", gitList(got))
			case !gitReads:
				return
			case err != nil && strict:
				return
			case err != nil:
				t.Fatalf("git reads it, agate: %v", err)
			case strict:
				t.Fatalf("a strict- file agate reads: rename it")
			}
			if !slices.Equal(gitList(got), want) {
				t.Errorf("agate read\n%q\ngit reads\n%q", gitList(got), want)
			}
			// The view reads back, in git, as the kept entries alone.
			view, err := GitConfigView(data)
			if err != nil {
				t.Fatal(err)
			}
			vf := filepath.Join(t.TempDir(), "view")
			if err := os.WriteFile(vf, view, 0o600); err != nil {
				t.Fatal(err)
			}
			back, ok := realGitList(t, vf)
			if !ok {
				t.Fatalf("git refuses the view:\n%s", view)
			}
			var kept []gitEntry
			for _, e := range got {
				if gitKeep[e.section] && !urlWithCredentials(e.value) {
					kept = append(kept, e)
				}
			}
			if !slices.Equal(back, gitList(kept)) {
				t.Errorf("git reads the view as\n%q\nwant\n%q", back, gitList(kept))
			}
			// And a repository's own config's view.
			rview, err := RepoConfigView(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(vf, rview, 0o600); err != nil {
				t.Fatal(err)
			}
			if back, ok = realGitList(t, vf); !ok {
				t.Fatalf("git refuses the repository's view:\n%s", rview)
			}
			kept = kept[:0]
			for _, e := range got {
				if !gitDropRepo[e.section] && !urlWithCredentials(e.value) {
					kept = append(kept, e)
				}
			}
			if !slices.Equal(back, gitList(kept)) {
				t.Errorf("git reads the repository's view as\n%q\nwant\n%q", back, gitList(kept))
			}
		})
	}
}

// TestGitConfigViewLeavesOutCredentials: what can hold a credential or
// point at one is gone from the view; what local work needs stays.
func TestGitConfigViewLeavesOutCredentials(t *testing.T) {
	data, err := os.ReadFile("testdata/gitconfig/everyday.conf")
	if err != nil {
		t.Fatal(err)
	}
	view, err := GitConfigView(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"ghp_", "TOKEN", "SECRET", "PROXY_PASS", "Authorization", "gitconfig-work", "helper", "[url", "[alias", "[include"} {
		if bytes.Contains(view, []byte(secret)) {
			t.Errorf("the view holds %q:\n%s", secret, view)
		}
	}
	for _, keep := range []string{"Ada Lovelace", "ada@example.com", "code --wait", "git-lfs filter-process", "directory = \"*\"", "\tgpgsign\n", "sops -d"} {
		if !bytes.Contains(view, []byte(keep)) {
			t.Errorf("the view lost %q:\n%s", keep, view)
		}
	}
}

func TestGitConfigRefuses(t *testing.T) {
	for _, in := range []string{
		"[user\n",
		"[user \"x]\n",
		"[user]\n\tname = \"open\n",
		"[user]\n\tname = a\\qb\n",
		"[user]\n\tname = a\\",
		"[user]\n\t9name = x\n",
		"[user]\n\tna me = x\n",
		"name = before any section\n",
		"[user]\n\tname = a\x00b\n",
		"[.x]\n",
		"[a.b \"c\"]\n",
	} {
		if got, err := parseGitConfig([]byte(in)); err == nil {
			t.Errorf("%q: read as %q, want an error", in, gitList(got))
		}
	}
}

// FuzzGitConfigView: whatever the file, a view reads back as exactly the
// kept entries of the file, and holds nothing of another section.
func FuzzGitConfigView(f *testing.F) {
	files, _ := filepath.Glob("testdata/gitconfig/*.conf")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, perr := parseGitConfig(data)
		view, err := GitConfigView(data)
		if (perr == nil) != (err == nil) {
			t.Fatalf("parse %v, view %v", perr, err)
		}
		if err != nil {
			return
		}
		back, err := parseGitConfig(view)
		if err != nil {
			t.Fatalf("the view does not read back: %v\n%s", err, view)
		}
		if rview, err := RepoConfigView(data); err != nil {
			t.Fatalf("the repository's view: %v", err)
		} else if _, err := parseGitConfig(rview); err != nil {
			t.Fatalf("the repository's view does not read back: %v\n%s", err, rview)
		}
		var kept []gitEntry
		for _, e := range entries {
			if gitKeep[e.section] && !urlWithCredentials(e.value) {
				kept = append(kept, e)
			}
		}
		if !slices.Equal(gitList(back), gitList(kept)) {
			t.Fatalf("the view reads back as %q, want %q", gitList(back), gitList(kept))
		}
	})
}

// TestRepoConfigViewKeepsTheRepository: a repository's view keeps what git
// needs of it (its format, extensions, remotes, branches) and loses the
// tokens a checkout leaves.
func TestRepoConfigViewKeepsTheRepository(t *testing.T) {
	data, err := os.ReadFile("testdata/gitconfig/repo.conf")
	if err != nil {
		t.Fatal(err)
	}
	view, err := RepoConfigView(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"ghs_", "AUTHORIZATION", "helper", "secrets.conf"} {
		if bytes.Contains(view, []byte(secret)) {
			t.Errorf("the view holds %q:\n%s", secret, view)
		}
	}
	for _, keep := range []string{"objectformat = \"sha256\"", "url = \"https://github.com/o/r\"", "merge = \"refs/heads/main\""} {
		if !bytes.Contains(view, []byte(keep)) {
			t.Errorf("the view lost %q:\n%s", keep, view)
		}
	}
}

func TestGitEnvView(t *testing.T) {
	env := []string{"PATH=/bin", "GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic SECRET",
		"GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=*",
		"GIT_CONFIG_KEY_2=remote.origin.url", "GIT_CONFIG_VALUE_2=https://u:SECRET@host/r",
		"GIT_CONFIG_PARAMETERS='credential.helper'='!echo password=SECRET'", "GIT_AUTHOR_NAME=a"}
	got := GitEnvView(env)
	want := []string{"PATH=/bin", "GIT_AUTHOR_NAME=a", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_COUNT=1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := GitEnvView([]string{"GIT_CONFIG_PARAMETERS='core.editor'='vi'"}); len(got) != 1 {
		t.Errorf("a harmless git -c went: %q", got)
	}
	if got := GitEnvView([]string{"GIT_CONFIG_COUNT=x", "GIT_CONFIG_KEY_0=core.editor", "GIT_CONFIG_VALUE_0=vi"}); len(got) != 0 {
		t.Errorf("a count agate cannot read kept %q", got)
	}
}
