package tokens

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestContainerToken(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	path := Path(state)
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	a, err := Add(ctx, path, Token{Name: "a", UID: 0, Project: "/home/me/proj", Container: true, Inside: "/workspaces/proj"}, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Add(ctx, path, Token{Name: "b", UID: 0, Project: "/home/me/other", Container: true, Inside: "/workspaces/proj"}, now)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := Add(ctx, path, Token{Name: "ci", UID: 1001}, now)
	if err != nil {
		t.Fatal(err)
	}
	list, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		secret, socket string
		uid            int
		want           error
	}{
		{a, "a", 100999, nil},           // any uid: the container's are not the host's
		{a, "b", 0, ErrWrongSocket},     // on another container's socket
		{b, "a", 0, ErrWrongSocket},     // another container's token
		{a, "", 0, ErrWrongSocket},      // on the tokens' socket
		{ci, "a", 1001, ErrWrongSocket}, // a caller's token on a container's socket
		{ci, "", 1001, nil},
	} {
		tok, err := Lookup(list, tt.secret, tt.uid, tt.socket, now)
		if !errors.Is(err, tt.want) {
			t.Errorf("Lookup(%.8q on %q by %d) = %v, %v; want %v", tt.secret, tt.socket, tt.uid, tok, err, tt.want)
		}
	}
	if uids := UIDs(list); len(uids) != 1 || !uids[1001] {
		t.Errorf("UIDs %v: a container's token opens the tokens' socket to nobody", uids)
	}
	for _, bad := range []Token{
		{Name: "c", Container: true, Project: "/p"},
		{Name: "c", Container: true, Project: "/p", Inside: "/"},
		{Name: "c", Container: true, Project: "/", Inside: "/w"},
		{Name: "c", Container: true, Project: "/p", Inside: "w"},
		{Name: "c", Container: true, Project: "/p/../q", Inside: "/w"},
		{Name: "c", Project: "/p", Inside: "/w"},
		{Name: "c", Container: true, Project: "/p", Inside: "/my work"},
	} {
		if _, err := Add(ctx, path, bad, now); err == nil {
			t.Errorf("Add(%+v) took it", bad)
		}
	}
}

func TestContainerPaths(t *testing.T) {
	tok := &Token{Name: "a", Container: true, Project: "/home/me/proj", Inside: "/work"}
	for in, want := range map[string]string{
		"/work":           "/home/me/proj",
		"/work/":          "/home/me/proj",
		"/work/src/a.go":  "/home/me/proj/src/a.go",
		"/work/../etc":    "",
		"/workspace":      "",
		"/home/me/proj/x": "",
		"/":               "",
		"/work/./x/../y":  "/home/me/proj/y",
	} {
		got, ok := tok.HostPath(in)
		if ok != (want != "") || ok && got != want {
			t.Errorf("HostPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for in, want := range map[string]string{
		"rm -rf /work/build":                  "rm -rf /home/me/proj/build",
		"cat /work":                           "cat /home/me/proj",
		"cp /workspace/a /work/b":             "cp /workspace/a /home/me/proj/b",
		"x=/work/y; echo \"/work\" '/work/z'": "x=/home/me/proj/y; echo \"/home/me/proj\" '/home/me/proj/z'",
		"cat a/work/b":                        "cat a/work/b",
		"/work/a:/work/b":                     "/home/me/proj/a:/home/me/proj/b",
		"/workx /work2":                       "/workx /work2",
		"no paths here":                       "no paths here",
	} {
		if got := tok.HostText(in); got != want {
			t.Errorf("HostText(%q) = %q; want %q", in, got, want)
		}
	}
	if got := tok.InsideText("it deletes /home/me/proj/build, which git cannot give back"); got != "it deletes /work/build, which git cannot give back" {
		t.Errorf("InsideText: %q", got)
	}
	if got := tok.InsidePath("/home/me/proj/a"); got != "/work/a" {
		t.Errorf("InsidePath: %q", got)
	}
	plain := &Token{Name: "ci", Project: "/srv"}
	if p, ok := plain.HostPath("/srv/x"); !ok || p != "/srv/x" || plain.HostText("/work") != "/work" {
		t.Error("a token that is not a container's moves paths")
	}
}

func TestWriteContainerDir(t *testing.T) {
	state := t.TempDir()
	hook := filepath.Join(t.TempDir(), "agate-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o700)
	dir, err := WriteContainerDir(state, "box", "agt_secret", hook)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(ContainersDir(state)); fi.Mode().Perm() != 0o700 {
		t.Errorf("the containers' folder is %v: others of the host could read the tokens", fi.Mode())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
		t.Errorf("the container's folder is %v", fi.Mode())
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ContainerToken)); strings.TrimSpace(string(data)) != "agt_secret" {
		t.Errorf("token file %q", data)
	}
	if fi, err := os.Stat(filepath.Join(dir, ContainerHook)); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the hook: %v %v", fi, err)
	}
	if _, err := WriteContainerDir(state, "box", "agt_other", hook); err == nil {
		t.Error("a second folder over the first")
	}
	long := strings.Repeat("n", 64)
	if _, err := WriteContainerDir(filepath.Join(state, strings.Repeat("d", 60)), long, "agt_x", hook); err == nil || !strings.Contains(err.Error(), "socket") {
		t.Errorf("a socket path too long: %v", err)
	}
	if err := RemoveContainerDir(state, "box"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("removed: %v", err)
	}
	if err := RemoveContainerDir(state, "../x"); err == nil {
		t.Error("a name with ..")
	}
}

func FuzzHostText(f *testing.F) {
	f.Add("rm -rf /work/build", "/work")
	f.Add("/work/a:/work", "/work")
	f.Fuzz(func(t *testing.T, s, inside string) {
		inside = filepath.Clean("/" + inside)
		if inside == "/" || strings.Contains(inside, "/home/me/proj") {
			return
		}
		tok := &Token{Container: true, Project: "/home/me/proj", Inside: inside}
		if tok.checkContainer() != nil {
			return
		}
		out := tok.HostText(s)
		// What was not a whole path is left; what was comes back.
		if strings.Contains(s, "/home/me/proj") {
			return
		}
		if back := tok.InsideText(out); back != s {
			t.Fatalf("HostText(%q) = %q, back %q", s, out, back)
		}
	})
}
