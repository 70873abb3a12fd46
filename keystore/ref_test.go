package keystore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refCases are references and what they parse to; FuzzParseRef starts
// from them too.
var refCases = []struct {
	in   string
	kind string
	arg  string
	argv []string
	ok   bool
}{
	{in: "${OPENAI_API_KEY}", kind: RefEnv, arg: "OPENAI_API_KEY", ok: true},
	{in: "${_x1}", kind: RefEnv, arg: "_x1", ok: true},
	{in: "${}"},
	{in: "${1X}"},
	{in: "${A-B}"},
	{in: "${OPEN"},
	{in: "${A}${B}"},
	{in: "exec:op read op://Work/openai/key", kind: RefExec, arg: "op read op://Work/openai/key",
		argv: []string{"op", "read", "op://Work/openai/key"}, ok: true},
	{in: "exec:vault kv get -field=key secret/openai", kind: RefExec, arg: "vault kv get -field=key secret/openai",
		argv: []string{"vault", "kv", "get", "-field=key", "secret/openai"}, ok: true},
	{in: `exec:sh -c 'pass show x | head -1'`, kind: RefExec, arg: `sh -c 'pass show x | head -1'`,
		argv: []string{"sh", "-c", "pass show x | head -1"}, ok: true},
	{in: `exec:printf "%s" "a \"b\" \$c" \ d ''`, kind: RefExec, arg: `printf "%s" "a \"b\" \$c" \ d ''`,
		argv: []string{"printf", "%s", `a "b" $c`, " d", ""}, ok: true},
	{in: "exec:"},
	{in: "exec:   "},
	{in: "exec:echo 'open"},
	{in: `exec:echo "open`},
	{in: `exec:echo \`},
	{in: "file:/run/secrets/openai", kind: RefFile, arg: "/run/secrets/openai", ok: true},
	{in: "file:/run//secrets/../secrets/x", kind: RefFile, arg: "/run/secrets/x", ok: true},
	{in: "file:relative/path"},
	{in: "file:"},
	{in: "keystore:openai", kind: RefKeystore, arg: "openai", ok: true},
	{in: "keystore:"},
	{in: "keystore:../x"},
	{in: "sk-literal-value"},
	{in: ""},
}

func TestParseRef(t *testing.T) {
	for _, tc := range refCases {
		r, err := ParseRef(tc.in)
		if !tc.ok {
			if err == nil || !errors.Is(err, ErrBadReference) {
				t.Errorf("ParseRef(%q) = %+v, %v; want ErrBadReference", tc.in, r, err)
			}
			continue
		}
		if err != nil || r.Kind != tc.kind || r.Arg != tc.arg || !slices.Equal(r.Argv, tc.argv) {
			t.Errorf("ParseRef(%q) = %+v, %v; want %s %q %q", tc.in, r, err, tc.kind, tc.arg, tc.argv)
		}
	}
}

func TestRefString(t *testing.T) {
	for in, want := range map[string]string{
		"${OPENAI_API_KEY}":                           "${OPENAI_API_KEY}",
		"exec:/usr/bin/op read op://x --token=s3cr3t": "exec:op",
		"file:/run/secrets/k":                         "file:/run/secrets/k",
		"keystore:openai":                             "keystore:openai",
	} {
		r, err := ParseRef(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.String(); got != want {
			t.Errorf("%q: String() = %q, want %q", in, got, want)
		}
	}
}

func TestIsReference(t *testing.T) {
	for s, want := range map[string]bool{
		"${X}": true, "${X": true, "exec:op": true, "file:/x": true, "keystore:k": true,
		"sk-abc": false, "$X": false, "": false, "EXEC:op": false, " ${X}": false, "https://x": false,
	} {
		if got := IsReference(s); got != want {
			t.Errorf("IsReference(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCheckField(t *testing.T) {
	const lit = "sk-proj-literal-0123456789abcdef"
	for _, tc := range []struct {
		value    string
		sealed   bool
		wantWarn bool
		wantErr  bool
		contains string
	}{
		{value: "", sealed: true},
		{value: "${OPENAI_API_KEY}", sealed: true},
		{value: "keystore:openai", sealed: true},
		{value: "exec:op read x", sealed: false},
		{value: "exec:", sealed: false, wantErr: true},
		{value: "${BAD", sealed: true, wantErr: true},
		{value: lit, sealed: true, wantErr: true, contains: "…cdef"},
		{value: lit, sealed: false, wantWarn: true, contains: "…cdef"},
		{value: "$OPENAI_API_KEY", sealed: false, wantWarn: true, contains: "${OPENAI_API_KEY}"},
		{value: "$OPENAI_API_KEY", sealed: true, wantErr: true, contains: "${OPENAI_API_KEY}"},
	} {
		warn, err := CheckField(tc.value, tc.sealed)
		if (warn != "") != tc.wantWarn || (err != nil) != tc.wantErr {
			t.Errorf("CheckField(%q, %v) = %q, %v", tc.value, tc.sealed, warn, err)
			continue
		}
		msg := warn
		if err != nil {
			msg = err.Error()
		}
		if tc.contains != "" && !strings.Contains(msg, tc.contains) {
			t.Errorf("CheckField(%q, %v): %q does not say %q", tc.value, tc.sealed, msg, tc.contains)
		}
		if strings.Contains(msg, lit) {
			t.Errorf("CheckField(%q): the message quotes the value", tc.value)
		}
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestResolver(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env := map[string]string{
		"PATH":        os.Getenv("PATH"),
		"HOME":        dir,
		"SET_VAR":     "value-from-the-environment",
		"EMPTY_VAR":   "",
		"VAULT_TOKEN": "vault-credential-for-the-command",
		"OTHER_KEY":   "must-not-reach-the-command",
	}
	secretFile := filepath.Join(dir, "secret")
	writeFile(t, secretFile, []byte("  value-from-a-file\n"))
	emptyFile := filepath.Join(dir, "empty")
	writeFile(t, emptyFile, []byte("\n"))

	store, _ := Open(filepath.Join(dir, "keys.json"), &Memory{})
	mustSet(t, store, map[string]string{"openai": "value-from-the-store"})
	locked, _ := Open(filepath.Join(dir, "locked.json"), &Memory{})
	mustSet(t, locked, map[string]string{"k": "value-nobody-can-read"})
	lockedReopen, _ := Open(filepath.Join(dir, "locked.json"), &Memory{})

	r := &Resolver{
		Store:       store,
		VaultEnv:    []string{"VAULT_TOKEN"},
		LookupEnv:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		ExecTimeout: 5 * time.Second,
	}
	for _, tc := range []struct {
		ref  string
		want string
		is   error // the sentinel for a failure
		fail bool
	}{
		{ref: "${SET_VAR}", want: "value-from-the-environment"},
		{ref: "${UNSET_VAR}", fail: true, is: ErrUnset},
		{ref: "${EMPTY_VAR}", fail: true, is: ErrUnset},
		{ref: "file:" + secretFile, want: "value-from-a-file"},
		{ref: "file:" + emptyFile, fail: true, is: ErrUnset},
		{ref: "file:" + filepath.Join(dir, "missing"), fail: true, is: ErrUnset},
		{ref: "keystore:openai", want: "value-from-the-store"},
		{ref: "keystore:missing", fail: true, is: ErrUnset},
		{ref: "exec:echo value-from-a-command", want: "value-from-a-command"},
		{ref: `exec:sh -c 'printf "%s\n" "$VAULT_TOKEN"'`, want: "vault-credential-for-the-command"},
		{ref: `exec:sh -c 'printf "%s" "$OTHER_KEY"'`, fail: true, is: ErrUnset}, // not passed: prints nothing
		{ref: `exec:sh -c 'echo partial-output; exit 3'`, fail: true},            // a failing vault gives no value
		{ref: "exec:true", fail: true, is: ErrUnset},                             // printed nothing
		{ref: "exec:/nonexistent/vault-cli read x", fail: true},                  // cannot start
		{ref: `exec:sh -c 'head -c 70000 /dev/zero | tr "\0" x'`, fail: true},    // too much
		{ref: "exec:", fail: true, is: ErrBadReference},
		{ref: "literal-value", want: "literal-value"},
		{ref: "", fail: true, is: ErrUnset},
	} {
		got, ok, err := r.Resolve(ctx, tc.ref)
		if tc.fail {
			var re *RefError
			if ok || got != "" || err == nil || !errors.As(err, &re) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Errorf("Resolve(%q) = %q, %v, %v; want unset with %v", tc.ref, got, ok, err, tc.is)
			}
			if err != nil && strings.Contains(err.Error(), "partial-output") {
				t.Errorf("Resolve(%q): the error quotes the command's output", tc.ref)
			}
			continue
		}
		if !ok || err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v, %v; want %q", tc.ref, got, ok, err, tc.want)
		}
	}

	// The command sees PATH, HOME and the vault variables, nothing else.
	got, ok, err := r.Resolve(ctx, "exec:env")
	if !ok {
		t.Fatal(err)
	}
	var names []string
	for _, kv := range strings.Split(got, "\n") {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	slices.Sort(names)
	names = slices.DeleteFunc(names, func(n string) bool { return n == "PWD" || n == "SHLVL" || n == "_" }) // a shell's own
	if want := []string{"HOME", "PATH", "VAULT_TOKEN"}; !slices.Equal(names, want) {
		t.Errorf("the command's environment has %v, want %v", names, want)
	}

	// A locked store reads as unset, with ErrLocked as the reason.
	lr := &Resolver{Store: lockedReopen}
	if v, ok, err := lr.Resolve(ctx, "keystore:k"); ok || v != "" || !errors.Is(err, ErrLocked) {
		t.Errorf("locked store: %q, %v, %v; want unset with ErrLocked", v, ok, err)
	}
	if _, ok, err := (&Resolver{}).Resolve(ctx, "keystore:k"); ok || !errors.Is(err, ErrUnset) {
		t.Errorf("no store: %v, %v; want ErrUnset", ok, err)
	}
}

func TestResolverTimeout(t *testing.T) {
	r := &Resolver{ExecTimeout: 50 * time.Millisecond}
	_, ok, err := r.Resolve(context.Background(), "exec:sh -c 'sleep 30 & sleep 30'")
	if ok || err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Errorf("a hanging vault: %v, %v; want unset with no answer", ok, err)
	}
}

// TestResolverCache: a value is kept for the TTL, then fetched again, so a
// key revoked in the vault stops working within it. ${VAR} is never kept.
func TestResolverCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	counter := filepath.Join(dir, "runs")
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	env := map[string]string{"PATH": os.Getenv("PATH"), "V": "first-env-value"}
	r := &Resolver{
		Now:       clock.now,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	ref := "exec:sh -c 'echo x >> " + counter + "; wc -l < " + counter + " | tr -d \" \"; '"
	runs := func() string {
		v, ok, err := r.Resolve(ctx, ref)
		if !ok {
			t.Fatal(err)
		}
		return v
	}
	steps := []struct {
		advance time.Duration
		want    string
	}{
		{0, "1"},
		{30 * time.Second, "1"},
		{29 * time.Second, "1"},
		{2 * time.Second, "2"}, // 61 s after the first run
		{59 * time.Second, "2"},
		{time.Second, "3"},
	}
	for i, st := range steps {
		clock.t = clock.t.Add(st.advance)
		if got := runs(); got != st.want {
			t.Errorf("step %d: command output %q, want %q", i, got, st.want)
		}
	}
	r.Flush()
	if got := runs(); got != "4" {
		t.Errorf("after Flush: %q, want 4", got)
	}

	if v, _, _ := r.Resolve(ctx, "${V}"); v != "first-env-value" {
		t.Fatalf("${V} = %q", v)
	}
	env["V"] = "second-env-value"
	if v, _, _ := r.Resolve(ctx, "${V}"); v != "second-env-value" {
		t.Errorf("${V} was kept: %q", v)
	}
	delete(env, "V")
	if _, ok, _ := r.Resolve(ctx, "${V}"); ok {
		t.Error("an unset ${V} still resolved")
	}
}

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b\tc\n", []string{"a", "b", "c"}},
		{`a'b c'd`, []string{"ab cd"}},
		{`"" ''`, []string{"", ""}},
		{`"a\nb"`, []string{`a\nb`}},
		{`a\ b`, []string{"a b"}},
		{`'it''s'`, []string{"its"}},
	} {
		got, err := splitWords(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestResolverConcurrent resolves from many goroutines at once, for -race.
func TestResolverConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	writeFile(t, path, []byte("a-shared-file-secret"))
	r := NewResolver(nil, nil)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				if v, ok, err := r.Resolve(context.Background(), "file:"+path); !ok || v != "a-shared-file-secret" {
					errs <- fmt.Errorf("got %q, %v, %v", v, ok, err)
					return
				}
				r.Flush()
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
