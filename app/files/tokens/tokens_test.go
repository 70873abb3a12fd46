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

func TestAddLookupRemove(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", FileName)
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	ci, err := Add(ctx, path, Token{Name: "ci", UID: 1001, Project: "/srv/app", Mode: "manual", Expires: now.Add(time.Hour)}, now)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := Add(ctx, path, Token{Name: "bot", UID: 1002}, now)
	if err != nil || ci == bot || !strings.HasPrefix(ci, "agt_") || len(ci) < 50 {
		t.Fatalf("%q %q %v", ci, bot, err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), ci) || strings.Contains(string(data), ci[4:]) {
		t.Fatal("the secret is stored")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := Add(ctx, path, Token{Name: "ci", UID: 1}, now); !errors.Is(err, ErrExists) {
		t.Errorf("a second ci: %v", err)
	}
	list, err := Load(path)
	if err != nil || len(list) != 2 {
		t.Fatalf("%v %v", list, err)
	}
	for _, tt := range []struct {
		secret string
		uid    int
		at     time.Time
		want   error
		name   string
	}{
		{ci, 1001, now, nil, "ci"},
		{bot, 1002, now.Add(1000 * time.Hour), nil, "bot"},
		{ci, 1002, now, ErrWrongUID, ""},
		{ci, 1001, now.Add(time.Hour), ErrExpired, ""},
		{ci + "x", 1001, now, ErrUnknown, ""},
		{ci[:len(ci)-1], 1001, now, ErrUnknown, ""},
		{"", 1001, now, ErrUnknown, ""},
		{strings.TrimPrefix(ci, "agt_"), 1001, now, ErrUnknown, ""},
	} {
		tok, err := Lookup(list, tt.secret, tt.uid, "", tt.at)
		if !errors.Is(err, tt.want) || (tt.want == nil && tok.Name != tt.name) {
			t.Errorf("Lookup(%.10q, %d): %v %v", tt.secret, tt.uid, tok, err)
		}
	}
	if err := Remove(ctx, path, "ci"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, path, "ci"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removed twice: %v", err)
	}
	list, _ = Load(path)
	if _, err := Lookup(list, ci, 1001, "", now); !errors.Is(err, ErrUnknown) {
		t.Errorf("a revoked token: %v", err)
	}
	if uids := UIDs(list); !uids[1002] || uids[1001] {
		t.Errorf("uids %v", uids)
	}
}

func TestWithin(t *testing.T) {
	tok := Token{Project: "/srv/app"}
	for dir, want := range map[string]bool{"/srv/app": true, "/srv/app/src": true, "/srv/app/../app/x": true, "/srv/app2": false, "/srv": false, "/": false, "/srv/app/../other": false} {
		if tok.Within(dir) != want {
			t.Errorf("Within(%q) = %v", dir, !want)
		}
	}
	if !(&Token{}).Within("/anywhere") {
		t.Error("a token with no project is limited")
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"not json":    "{",
		"version":     `{"version": 2, "tokens": []}`,
		"unknown key": `{"version": 1, "tokens": [], "x": 1}`,
		"bad hash":    `{"version": 1, "tokens": [{"name": "a", "hash": "zz", "uid": 1}]}`,
		"twice":       `{"version": 1, "tokens": [{"name": "a", "hash": "` + strings.Repeat("0", 64) + `", "uid": 1}, {"name": "a", "hash": "` + strings.Repeat("0", 64) + `", "uid": 1}]}`,
		"relative":    `{"version": 1, "tokens": [{"name": "a", "hash": "` + strings.Repeat("0", 64) + `", "uid": 1, "project": "app"}]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(p, []byte(text), 0o600)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version": 1, "tokens": [{"name": "a", "hash": "` + strings.Repeat("0", 64) + `", "uid": 1}]}`))
	f.Add([]byte(`{"version":1,"tokens":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := parse("tokens.json", data)
		if err != nil {
			return
		}
		for _, tok := range list {
			if ValidName(tok.Name) != nil || len(tok.Hash) != 64 {
				t.Fatalf("a bad token read: %+v", tok)
			}
		}
	})
}
