package keystore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// backendCase is a backend the store suite runs against.
type backendCase struct {
	name string // the backend's Name
	// make returns the backends of a fresh store, and a function that
	// makes the backend lose the master key (nil when the key lives in
	// the store file).
	make func(t *testing.T) (backends []Backend, lose func())
	// wrong returns backends that fail to open the store (a wrong
	// passphrase), or nil.
	wrong func(t *testing.T) []Backend
}

var memoryCase = backendCase{
	name: "memory",
	make: func(t *testing.T) ([]Backend, func()) {
		m := &Memory{}
		return []Backend{m}, func() { m.Delete(context.Background()) }
	},
}

var passphraseCase = backendCase{
	name: "passphrase",
	make: func(t *testing.T) ([]Backend, func()) {
		return []Backend{testPassphrase("correct horse")}, nil
	},
	wrong: func(t *testing.T) []Backend { return []Backend{testPassphrase("battery staple")} },
}

// needSecretService skips t unless a real Secret Service is there to use.
func needSecretService(t testing.TB) {
	t.Helper()
	if os.Getenv("AGATE_TEST_SECRET_SERVICE") != "1" {
		t.Skip("needs a real Secret Service: set AGATE_TEST_SECRET_SERVICE=1 inside an unlocked gnome-keyring session (.ci/keyring-test.sh does)")
	}
}

// keychainCase uses the real OS keychain, one entry per test.
var keychainCase = backendCase{
	name: "keychain",
	make: func(t *testing.T) ([]Backend, func()) {
		k := &Keychain{Service: "agate-test", User: t.Name()}
		t.Cleanup(func() { k.Delete(context.Background()) })
		return []Backend{k}, func() {
			if err := k.Delete(context.Background()); err != nil {
				t.Fatalf("delete the keychain entry: %v", err)
			}
		}
	},
}

func TestMemorySuite(t *testing.T)     { runSuite(t, memoryCase) }
func TestPassphraseSuite(t *testing.T) { runSuite(t, passphraseCase) }

// TestKeychainSuite runs the store suite against the real Secret Service.
func TestKeychainSuite(t *testing.T) {
	needSecretService(t)
	runSuite(t, keychainCase)
}

// suiteValues are values the suite seals, of every shape a secret takes.
var suiteValues = map[string]string{
	"openai":     "sk-proj-Zq9fK2mXc8LrT4vW7yB1nA5sD3gH6jE0",
	"github":     "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	"short":      "pin1",
	"unicode":    "pässwörd-ünïcödé-🔑-value",
	"pem":        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
	"long":       strings.Repeat("0123456789abcdef", 1024),
	"x.y-z_1":    "name with dots and dashes",
	"aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
}

func runSuite(t *testing.T, bc backendCase) {
	ctx := context.Background()

	t.Run("roundtrip", func(t *testing.T) {
		path := storePath(t)
		bs, _ := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Backend(); got != "" {
			t.Errorf("Backend() of a new store = %q, want \"\"", got)
		}
		mustSet(t, s, suiteValues)
		if got := s.Backend(); got != bc.name {
			t.Errorf("Backend() = %q, want %q", got, bc.name)
		}
		reopened, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []*Store{s, reopened} {
			for name, want := range suiteValues {
				got, err := st.Get(ctx, name)
				if err != nil || got != want {
					t.Errorf("Get(%q) = %q, %v; want the value set", name, Mask(got), err)
				}
			}
		}
		if got := reopened.Backend(); got != bc.name {
			t.Errorf("reopened Backend() = %q, want %q", got, bc.name)
		}
	})

	t.Run("overwrite and delete", func(t *testing.T) {
		bs, _ := bc.make(t)
		s, err := Open(storePath(t), bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, map[string]string{"k": "first-value-1234", "other": "kept-value-5678"})
		mustSet(t, s, map[string]string{"k": "second-value-9876"})
		if got, err := s.Get(ctx, "k"); err != nil || got != "second-value-9876" {
			t.Fatalf("Get after overwrite = %q, %v", Mask(got), err)
		}
		if err := s.Delete(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "k"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v, want ErrNotFound", err)
		}
		if got, err := s.Get(ctx, "other"); err != nil || got != "kept-value-5678" {
			t.Errorf("Get(other) = %q, %v", Mask(got), err)
		}
		if names, err := s.Names(); err != nil || !slices.Equal(names, []string{"other"}) {
			t.Errorf("Names() = %v, %v", names, err)
		}
	})

	t.Run("not found names the entry", func(t *testing.T) {
		bs, _ := bc.make(t)
		s, err := Open(storePath(t), bs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []struct {
			name string
			do   func() error
		}{
			{"get from empty", func() error { _, err := s.Get(ctx, "nope"); return err }},
			{"delete from empty", func() error { return s.Delete(ctx, "nope") }},
			{"get after set", func() error {
				mustSet(t, s, map[string]string{"there": "a-value-that-exists"})
				_, err := s.Get(ctx, "nope")
				return err
			}},
			{"delete after set", func() error { return s.Delete(ctx, "nope") }},
		} {
			err := op.do()
			var ee *EntryError
			if !errors.Is(err, ErrNotFound) || !errors.As(err, &ee) || ee.Name != "nope" {
				t.Errorf("%s: %v, want ErrNotFound naming \"nope\"", op.name, err)
			}
		}
	})

	t.Run("list masks", func(t *testing.T) {
		bs, _ := bc.make(t)
		s, err := Open(storePath(t), bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, suiteValues)
		list, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range list {
			names = append(names, e.Name)
			if e.Err != nil || e.Masked != Mask(suiteValues[e.Name]) {
				t.Errorf("entry %q: masked %q, err %v; want %q", e.Name, e.Masked, e.Err, Mask(suiteValues[e.Name]))
			}
		}
		want := slices.Sorted(maps.Keys(suiteValues))
		if !slices.Equal(names, want) {
			t.Errorf("List names = %v, want %v", names, want)
		}
		vals, err := s.Values(ctx)
		if err != nil || len(vals) != len(suiteValues) {
			t.Errorf("Values: %d values, %v", len(vals), err)
		}
	})

	t.Run("no plaintext on disk", func(t *testing.T) {
		path := storePath(t)
		bs, _ := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, suiteValues)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range suiteValues {
			if len(v) < 6 {
				continue // a short value could turn up in base64 by chance
			}
			for enc, form := range map[string]string{
				"plain": v, "base64": base64.StdEncoding.EncodeToString([]byte(v)),
				"base64url": base64.RawURLEncoding.EncodeToString([]byte(v)), "hex": hex.EncodeToString([]byte(v)),
				"json": strings.Trim(string(mustJSON(v)), `"`),
			} {
				if bytes.Contains(data, []byte(form)) {
					t.Errorf("the store file holds the value of %q (%s)", name, enc)
				}
			}
		}
		checkMode(t, path, 0o600)
		checkMode(t, filepath.Dir(path), 0o700|os.ModeDir)
	})

	t.Run("flipped byte names the entry", func(t *testing.T) {
		path := storePath(t)
		bs, _ := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, map[string]string{"victim": "sk-victim-value-0123456789", "bystander": "sk-bystander-value-987654"})
		orig, _ := os.ReadFile(path)
		sealed := entryText(t, orig, "victim")
		for _, pos := range []int{0, 10, 40, len(sealed) / 2, len(sealed) - 5} {
			flipped := []byte(sealed)
			flipped[pos] = otherB64(flipped[pos])
			writeFile(t, path, bytes.Replace(orig, []byte(sealed), flipped, 1))
			r, err := Open(path, bs...)
			if err != nil {
				t.Fatalf("pos %d: Open: %v (the damage is in one entry)", pos, err)
			}
			_, err = r.Get(ctx, "victim")
			var ee *EntryError
			if !errors.Is(err, ErrTampered) || !errors.As(err, &ee) || ee.Name != "victim" {
				t.Errorf("pos %d: Get(victim) = %v, want ErrTampered naming victim", pos, err)
			}
			if got, err := r.Get(ctx, "bystander"); err != nil || got != "sk-bystander-value-987654" {
				t.Errorf("pos %d: Get(bystander) = %q, %v", pos, Mask(got), err)
			}
		}
	})

	t.Run("swapped entries", func(t *testing.T) {
		path := storePath(t)
		bs, _ := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, map[string]string{"a": "value-of-a-0123456789", "b": "value-of-b-9876543210"})
		orig, _ := os.ReadFile(path)
		sa, sb := entryText(t, orig, "a"), entryText(t, orig, "b")
		swapped := strings.NewReplacer(sa, sb, sb, sa).Replace(string(orig))
		writeFile(t, path, []byte(swapped))
		r, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a", "b"} {
			_, err := r.Get(ctx, name)
			var ee *EntryError
			if !errors.Is(err, ErrTampered) || !errors.As(err, &ee) || ee.Name != name {
				t.Errorf("Get(%s) = %v, want ErrTampered naming %s", name, err, name)
			}
		}
		list, err := r.List(ctx)
		if err != nil || len(list) != 2 || !errors.Is(list[0].Err, ErrTampered) || list[0].Masked != "" {
			t.Errorf("List = %+v, %v; want both entries flagged", list, err)
		}
	})

	t.Run("truncated file", func(t *testing.T) {
		path := storePath(t)
		bs, _ := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, map[string]string{"k": "value-before-truncation"})
		orig, _ := os.ReadFile(path)
		for _, n := range []int{0, 1, len(orig) / 3, len(orig) / 2, len(orig) - 3} {
			writeFile(t, path, orig[:n])
			_, err := Open(path, bs...)
			if !errors.Is(err, ErrTampered) {
				t.Errorf("cut at %d of %d: Open = %v, want ErrTampered", n, len(orig), err)
			}
			// A store already open sees the damage on its next read, and a
			// write does not paper over it.
			if _, err := s.Get(ctx, "k"); !errors.Is(err, ErrTampered) {
				t.Errorf("cut at %d: Get on the open store = %v, want ErrTampered", n, err)
			}
			if err := s.Set(ctx, "new", "a-value-after-damage"); !errors.Is(err, ErrTampered) {
				t.Errorf("cut at %d: Set = %v, want ErrTampered", n, err)
			}
		}
	})

	t.Run("lost master key is locked, never replaced", func(t *testing.T) {
		path := storePath(t)
		bs, lose := bc.make(t)
		s, err := Open(path, bs...)
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, map[string]string{"k": "value-that-must-survive"})
		before, _ := os.ReadFile(path)
		var stale []Backend
		switch {
		case lose != nil:
			lose()
			stale = bs
		case bc.wrong != nil:
			stale = bc.wrong(t)
		default:
			t.Fatal("the case has no way to lose its key")
		}
		r, err := Open(path, stale...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(ctx, "k"); !errors.Is(err, ErrLocked) || errors.Is(err, ErrNotFound) {
			t.Errorf("Get = %v, want ErrLocked (and not ErrNotFound)", err)
		}
		if err := r.Set(ctx, "k2", "a-second-value-here"); !errors.Is(err, ErrLocked) {
			t.Errorf("Set = %v, want ErrLocked", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the store file changed: a new master key may have orphaned the secrets")
		}
	})
}

func TestSetRejects(t *testing.T) {
	s, err := Open(storePath(t), &Memory{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, value, why string }{
		{"", "some-value-here", "empty name"},
		{"-dash", "some-value-here", "leading dash"},
		{".dot", "some-value-here", "leading dot"},
		{"sp ace", "some-value-here", "space"},
		{"sl/ash", "some-value-here", "slash"},
		{strings.Repeat("n", 129), "some-value-here", "long name"},
		{"ok", "", "empty value"},
		{"ok", "nul\x00byte", "NUL"},
		{"ok", strings.Repeat("v", maxValueSize+1), "long value"},
	} {
		err := s.Set(context.Background(), tc.name, tc.value)
		if err == nil {
			t.Errorf("%s: Set accepted it", tc.why)
		} else if tc.value != "" && strings.Contains(err.Error(), tc.value) {
			t.Errorf("%s: the error quotes the value", tc.why)
		}
	}
	if names, _ := s.Names(); len(names) != 0 {
		t.Errorf("names after refused sets: %v", names)
	}
}

// TestTamperAnyByte changes each byte of a store file in turn: every
// change is an error or leaves every value as it was; none gives a wrong
// value or an emptied store.
func TestTamperAnyByte(t *testing.T) {
	ctx := context.Background()
	path := storePath(t)
	m := &Memory{}
	s, err := Open(path, m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "value-a-0123456789", "bb": "value-bb-987654321"}
	mustSet(t, s, want)
	orig, _ := os.ReadFile(path)
	for i := range orig {
		for _, b := range []byte{orig[i] ^ 0x01, orig[i] ^ 0x20, 'A', '"', '}'} {
			if b == orig[i] {
				continue
			}
			data := bytes.Clone(orig)
			data[i] = b
			writeFile(t, path, data)
			r, err := Open(path, m)
			if err != nil {
				continue
			}
			got, err := r.Values(ctx)
			if err != nil {
				if !errors.Is(err, ErrTampered) && !errors.Is(err, ErrLocked) {
					t.Errorf("byte %d = %q: Values error %v is neither ErrTampered nor ErrLocked", i, b, err)
				}
				continue
			}
			if len(got) != len(want) {
				t.Fatalf("byte %d = %q: %d values opened, want %d", i, b, len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("byte %d = %q: %q opened to a different value", i, b, k)
				}
			}
		}
	}
}

func TestOpenRejects(t *testing.T) {
	if _, err := Open(storePath(t), &Memory{}, &Memory{}); err == nil {
		t.Error("Open accepted two backends of one name")
	}
	dir := t.TempDir()
	if _, err := Open(dir); err == nil {
		t.Error("Open accepted a folder as the store file")
	}
	for _, tc := range []struct {
		why, data string
		tampered  bool
	}{
		{"newer version", `{"version":2,"entries":{}}`, false},
		{"version 0", `{"version":0,"entries":{}}`, true},
		{"unknown field", `{"version":1,"entries":{},"extra":1}`, true},
		{"entries without master", `{"version":1,"entries":{"a":"AAAA"}}`, true},
		{"bad entry name", `{"version":1,"master":{"backend":"memory","key_id":"AAAAAAAAAAAAAAAAAAAAAA=="},"entries":{"a b":"AAAA"}}`, true},
		{"short key id", `{"version":1,"master":{"backend":"memory","key_id":"AAAA"},"entries":{}}`, true},
		{"null state", `{"version":1,"master":{"backend":"memory","key_id":"AAAAAAAAAAAAAAAAAAAAAA==","state":null},"entries":{}}`, true},
		{"two documents", `{"version":1,"entries":{}}{}`, true},
		{"no entries", `{"version":1}`, true},
		{"array", `[]`, true},
	} {
		path := filepath.Join(t.TempDir(), "keys.json")
		writeFile(t, path, []byte(tc.data))
		_, err := Open(path, &Memory{})
		switch {
		case err == nil:
			t.Errorf("%s: Open accepted it", tc.why)
		case errors.Is(err, ErrTampered) != tc.tampered:
			t.Errorf("%s: %v; want ErrTampered = %v", tc.why, err, tc.tampered)
		}
	}
}

// TestVector opens a store file written by an earlier build with a known
// master key: the format must keep opening.
func TestVector(t *testing.T) {
	key, err := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	if err != nil {
		t.Fatal(err)
	}
	m := &Memory{}
	m.Set(context.Background(), key)
	s, err := Open(filepath.Join("testdata", "store-v1.json"), m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"openai": "sk-test-vector-openai-0123456789", "github": "ghp_testvector0123456789abcdefABCDEF01"}
	got, err := s.Values(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got["openai"] != want["openai"] || got["github"] != want["github"] {
		t.Errorf("the vector opened to other values: %d entries", len(got))
	}
	if s.Backend() != "memory" {
		t.Errorf("Backend() = %q", s.Backend())
	}
}

func TestAutoChoice(t *testing.T) {
	ctx := context.Background()
	down := &Memory{Err: ErrUnavailable}
	for _, tc := range []struct {
		why      string
		backends func() []Backend
		want     string // backend chosen, or "" for ErrLocked
	}{
		{"first answers", func() []Backend { return []Backend{&Memory{}, testPassphrase("pw")} }, "memory"},
		{"first unavailable", func() []Backend { return []Backend{down, testPassphrase("pw")} }, "passphrase"},
		{"no passphrase either", func() []Backend { return []Backend{down, &Passphrase{KDF: fastKDF}} }, ""},
		{"unset env passphrase", func() []Backend { return []Backend{down, &Passphrase{Ask: EnvPrompt(nil), KDF: fastKDF}} }, ""},
		{"nothing answers", func() []Backend { return []Backend{down} }, ""},
		{"no backend", func() []Backend { return nil }, ""},
	} {
		t.Run(tc.why, func(t *testing.T) {
			t.Setenv(PassphraseEnv, "")
			path := storePath(t)
			s, err := Open(path, tc.backends()...)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Set(ctx, "k", "a-value-to-keep")
			if tc.want == "" {
				if !errors.Is(err, ErrLocked) {
					t.Errorf("Set = %v, want ErrLocked", err)
				}
				if _, err := os.Stat(path); err == nil {
					t.Error("a store file was written with no master key")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Backend(); got != tc.want {
				t.Errorf("Backend() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSharedMasterKey: a backend that already holds a key (the keychain
// entry every store of the account shares) lends it to a new store rather
// than being overwritten.
func TestSharedMasterKey(t *testing.T) {
	ctx := context.Background()
	m := &Memory{}
	a, _ := Open(storePath(t), m)
	mustSet(t, a, map[string]string{"k": "value-in-store-a"})
	b, _ := Open(storePath(t), m)
	mustSet(t, b, map[string]string{"k": "value-in-store-b"})
	for _, s := range []*Store{a, b} {
		if _, err := s.Get(ctx, "k"); err != nil {
			t.Errorf("%s: %v", s.Path(), err)
		}
	}
}

func TestEmptiedStoreGetsNewKey(t *testing.T) {
	ctx := context.Background()
	path := storePath(t)
	m := &Memory{}
	s, _ := Open(path, m)
	mustSet(t, s, map[string]string{"k": "a-value-soon-gone"})
	if err := s.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	m.Delete(ctx)
	r, _ := Open(path, m)
	if err := r.Set(ctx, "k", "a-value-after-reset"); err != nil {
		t.Fatalf("Set on an empty store whose key is gone: %v", err)
	}
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	path := storePath(t)
	mem := &Memory{}
	s, err := Open(path, mem, testPassphrase("first pass"))
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, s, suiteValues)
	sealed := func() map[string]string {
		data, _ := os.ReadFile(path)
		f, err := parseFile(data)
		if err != nil {
			t.Fatal(err)
		}
		return f.Entries
	}
	before := sealed()

	steps := []struct {
		to   Backend
		want string
	}{
		{testPassphrase("first pass"), "passphrase"},
		{testPassphrase("second pass"), "passphrase"}, // a new passphrase
		{mem, "memory"},
		{testPassphrase("third pass"), "passphrase"},
	}
	for i, st := range steps {
		if err := s.Migrate(ctx, st.to); err != nil {
			t.Fatalf("step %d: Migrate: %v", i, err)
		}
		if s.Backend() != st.want {
			t.Fatalf("step %d: Backend() = %q, want %q", i, s.Backend(), st.want)
		}
		if !mapsEqual(sealed(), before) {
			t.Fatalf("step %d: the entries were re-sealed", i)
		}
		// A fresh process with only the new backend opens every secret.
		r, err := Open(path, st.to)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range suiteValues {
			if got, err := r.Get(ctx, name); err != nil || got != want {
				t.Fatalf("step %d: Get(%q) = %q, %v", i, name, Mask(got), err)
			}
		}
	}
	// Leaving memory for the passphrase removed the key from memory.
	if _, err := mem.Get(ctx, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("the memory backend still holds the key after the move: %v", err)
	}
	// The old passphrase no longer opens the store.
	r, _ := Open(path, testPassphrase("second pass"))
	if _, err := r.Get(ctx, "openai"); !errors.Is(err, ErrLocked) {
		t.Errorf("old passphrase: %v, want ErrLocked", err)
	}
}

func TestMigrateRefusesForeignKey(t *testing.T) {
	ctx := context.Background()
	other := &Memory{}
	other.Set(ctx, newMasterKey()) // another store's key
	s, _ := Open(storePath(t), testPassphrase("pw"))
	mustSet(t, s, map[string]string{"k": "value-of-this-store"})
	if err := s.Migrate(ctx, other); err == nil {
		t.Fatal("Migrate overwrote a backend holding another key")
	}
	if s.Backend() != "passphrase" {
		t.Errorf("Backend() = %q after a refused move", s.Backend())
	}
}

func TestMigrateCleanupError(t *testing.T) {
	ctx := context.Background()
	path := storePath(t)
	k := &Keychain{ring: &fakeRing{}}
	s, _ := Open(path, k)
	mustSet(t, s, map[string]string{"k": "value-moving-house"})
	k.ring.(*fakeRing).deleteErr = errors.New("dbus went away")
	err := s.Migrate(ctx, testPassphrase("pw"))
	var ce *CleanupError
	if !errors.As(err, &ce) || ce.Backend != "keychain" {
		t.Fatalf("Migrate = %v, want a *CleanupError for the keychain", err)
	}
	if s.Backend() != "passphrase" {
		t.Errorf("Backend() = %q; the move should stand", s.Backend())
	}
}

// TestConcurrentProcesses runs two processes that set keys in one store at
// once, on an existing store and on a new one (both racing to create the
// master key): no write is lost.
func TestConcurrentProcesses(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		name := map[bool]string{false: "existing store", true: "new store"}[fresh]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			path := storePath(t)
			if !fresh {
				s, _ := Open(path, testPassphrase("shared pass"))
				mustSet(t, s, map[string]string{"first": "value-of-first"})
			}
			const n = 20
			var procs []*helperProc
			for _, prefix := range []string{"p1", "p2"} {
				procs = append(procs, startHelper(t, "set", "HELPER_STORE="+path, "HELPER_PREFIX="+prefix,
					"HELPER_COUNT=20", PassphraseEnv+"=shared pass"))
			}
			for _, p := range procs {
				p.wait(t)
			}
			s, err := Open(path, testPassphrase("shared pass"))
			if err != nil {
				t.Fatal(err)
			}
			vals, err := s.Values(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, prefix := range []string{"p1", "p2"} {
				for i := range n {
					k := prefix + "-" + strconv.Itoa(i)
					if vals[k] != "value-of-"+k {
						t.Errorf("%s lost", k)
					}
				}
			}
			if !fresh && vals["first"] != "value-of-first" {
				t.Error("the key set before was lost")
			}
		})
	}
}

// TestKeychainFallback starts a process whose session bus points nowhere,
// as on a headless machine: the store picks the passphrase by itself.
func TestKeychainFallback(t *testing.T) {
	path := storePath(t)
	p := startHelper(t, "fallback", "HELPER_STORE="+path, PassphraseEnv+"=fallback pass",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(t.TempDir(), "no-bus"), "DISPLAY=")
	out := p.wait(t)
	if out != "passphrase" {
		t.Fatalf("backend chosen with no Secret Service = %q, want passphrase", out)
	}
	s, _ := Open(path, testPassphrase("fallback pass"))
	if got, err := s.Get(context.Background(), "fallback"); err != nil || got != "value-set-without-a-keychain" {
		t.Errorf("Get = %q, %v", Mask(got), err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// entryText returns the sealed text of entry name in a store file.
func entryText(t *testing.T, data []byte, name string) string {
	t.Helper()
	f, err := parseFile(data)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := f.Entries[name]
	if !ok {
		t.Fatalf("no entry %q", name)
	}
	return s
}

// otherB64 returns a base64 character other than c.
func otherB64(c byte) byte {
	if c == 'A' {
		return 'B'
	}
	return 'A'
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}
