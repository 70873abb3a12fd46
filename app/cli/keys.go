package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/keystore"
)

func init() {
	register(&command{
		name:    "keys",
		args:    "set NAME | get NAME | list | rm NAME | rotated NAME|FINGERPRINT | backend [--migrate keychain|passphrase]",
		summary: "keep provider keys and tokens sealed: set (from stdin or a hidden prompt), get, list, rm, rotated (a leak), backend",
		run:     cmdKeys,
	})
}

// maxSecretInput bounds a value read from standard input.
const maxSecretInput = 64 << 10

// errValueArgument refuses `agate keys set NAME VALUE`. It never echoes
// what was given: it is the secret.
var errValueArgument = usagef("keys set takes no value on the command line: there it lands in your shell " +
	"history and in every process list, so treat that value as exposed and rotate it. Pipe the value on " +
	"standard input (agate keys set NAME < file) or run agate keys set NAME in a terminal and paste it at the prompt")

func cmdKeys(ctx context.Context, e *Env, args []string) error {
	// Checked before the flags are parsed: a value starting with '-' (a PEM
	// key) would otherwise come back quoted in a "bad flag" error.
	if valueOnCommandLine(args) {
		return errValueArgument
	}
	fs := newFlags(e, "keys")
	var cf configFlags
	cf.add(fs)
	migrate := fs.String("migrate", "", "with `keys backend`: move the master key to keychain or passphrase (no secret is re-sealed)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return usagef("want a subcommand: set, get, list, rm, rotated or backend")
	}
	sub, rest := pos[0], pos[1:]
	if *migrate != "" && sub != "backend" {
		return usagef("--migrate goes with `agate keys backend`")
	}
	want := map[string]int{"set": 1, "get": 1, "rm": 1, "rotated": 1, "list": 0, "backend": 0}
	n, known := want[sub]
	switch {
	case !known:
		return usagef("unknown subcommand %q (want set, get, list, rm, rotated or backend)", sub)
	case sub == "set" && len(rest) > 1:
		return errValueArgument
	case len(rest) != n:
		if n == 1 {
			return usagef("keys %s takes one NAME", sub)
		}
		return usagef("keys %s takes no arguments", sub)
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	store, err := openKeyStore(e, paths)
	if err != nil {
		return err
	}
	switch sub {
	case "set":
		return keysSet(ctx, e, paths, store, rest[0])
	case "get":
		v, err := store.Get(ctx, rest[0])
		if err != nil {
			return err
		}
		if isTerminal(e.Stdout) {
			v += "\n"
		}
		_, err = io.WriteString(e.Stdout, v)
		return err
	case "rm":
		if err := store.Delete(ctx, rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "agate: removed %s\n", rest[0])
		return nil
	case "list":
		return keysList(ctx, e, paths, store)
	case "rotated":
		return keysRotated(ctx, e, paths, store, rest[0])
	}
	if *migrate != "" {
		return keysMigrate(ctx, e, store, *migrate)
	}
	return keysBackend(ctx, e, store)
}

// valueOnCommandLine reports whether args are `keys set` with more than a
// name: anything that is not one of keys' own flags counts.
func valueOnCommandLine(args []string) bool {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "--":
		case strings.HasPrefix(a, "-") && (name == "config" || name == "socket" || name == "migrate"):
			if !hasValue {
				i++ // the flag's value
			}
		case a == "-h" || a == "-help" || a == "--help":
		default:
			pos = append(pos, a)
		}
	}
	return len(pos) > 2 && pos[0] == "set"
}

// openKeyStore opens the key store with agate's backends: the OS keychain
// first, then the passphrase ($AGATE_PASSPHRASE, or a prompt when standard
// input is a terminal).
func openKeyStore(e *Env, p api.Paths) (*keystore.Store, error) {
	return keystore.Open(p.KeyStore(), &keystore.Keychain{}, passphraseBackend(e))
}

// passphraseBackend is the passphrase fallback as the command line asks
// for it.
func passphraseBackend(e *Env) *keystore.Passphrase {
	var prompt keystore.Prompt
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		prompt = func(ctx context.Context, isNew bool) (string, error) {
			if !isNew {
				return readHidden(ctx, f, e.Stderr, "agate: key store passphrase: ")
			}
			fmt.Fprintln(e.Stderr, "agate: the key store will be sealed with a passphrase (no keychain is used).")
			p1, err := readHidden(ctx, f, e.Stderr, "agate: choose a passphrase: ")
			if err != nil {
				return "", err
			}
			p2, err := readHidden(ctx, f, e.Stderr, "agate: the same passphrase again: ")
			if err != nil {
				return "", err
			}
			if p1 != p2 {
				return "", errors.New("the two passphrases differ")
			}
			return p1, nil
		}
	}
	return &keystore.Passphrase{Ask: keystore.EnvPrompt(prompt)}
}

// keysSet reads a value from standard input, or at a hidden prompt on a
// terminal, and seals it under name.
func keysSet(ctx context.Context, e *Env, p api.Paths, store *keystore.Store, name string) error {
	var value string
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		v, err := readHidden(ctx, f, e.Stderr, fmt.Sprintf("agate: value for %s (input hidden): ", name))
		if err != nil {
			return err
		}
		value = v
	} else {
		data, err := io.ReadAll(io.LimitReader(e.Stdin, maxSecretInput+1))
		if err != nil {
			return fmt.Errorf("read the value: %w", err)
		}
		if len(data) > maxSecretInput {
			return fmt.Errorf("the value on standard input is more than %d bytes", maxSecretInput)
		}
		value = string(bytes.TrimRight(data, "\r\n"))
	}
	if value == "" {
		return errors.New("empty value: pipe it on standard input, or type it at the prompt in a terminal")
	}
	if err := store.Set(ctx, name, value); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "agate: sealed %s (%s) in the key store (%s)\n", name, keystore.Mask(value), store.Backend())
	// A new value is the rotation a leak asked for.
	label := "keystore:" + name
	if leaks, _ := keystore.PendingLeaks(p.State); slices.ContainsFunc(leaks, func(l keystore.Leak) bool { return l.Name == label }) {
		if err := keystore.RecordRotated(p.State, label, time.Now()); err != nil {
			fmt.Fprintf(e.Stderr, "agate: %v\n", err)
		}
	}
	clearPastedOnSet(ctx, e, p, name, value)
	return nil
}

// keysList prints the backend, then each secret's name and masked tail,
// and those that appeared in an agent's arguments.
func keysList(ctx context.Context, e *Env, p api.Paths, store *keystore.Store) error {
	list, err := store.List(ctx)
	if err != nil && list == nil {
		return err
	}
	backend := store.Backend()
	if backend == "" {
		backend = "none yet"
	}
	fmt.Fprintf(e.Stdout, "backend: %s\n", backend)
	leaked := map[string]keystore.Leak{}
	leaks, lerr := keystore.PendingLeaks(p.State)
	for _, l := range leaks {
		leaked[l.Name] = l
	}
	pasted, perr := pastedByName(p)
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	var failed []error
	for _, en := range list {
		note := en.Masked
		switch {
		case err != nil:
			note = "(locked)"
		case en.Err != nil:
			note = "(does not open: tampered or corrupt)"
			failed = append(failed, en.Err)
		}
		if l, ok := leaked["keystore:"+en.Name]; ok {
			note += fmt.Sprintf("\tappeared in an agent's arguments %s: rotate it, then agate keys set %s", l.Last.Local().Format("2006-01-02 15:04"), en.Name)
		} else if l, ok := pasted["keystore:"+en.Name]; ok {
			note += fmt.Sprintf("\twas %s %s: rotate it, then agate keys set %s", l.Where, l.Last.Local().Format("2006-01-02 15:04"), en.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\n", en.Name, note)
	}
	tw.Flush()
	if len(list) == 0 {
		fmt.Fprintln(e.Stderr, "agate: no keys yet: agate keys set NAME")
	}
	if err != nil {
		return err
	}
	for _, err := range []error{lerr, perr} {
		if err != nil {
			fmt.Fprintf(e.Stderr, "agate: %v\n", err)
		}
	}
	return errors.Join(failed...)
}

// keysBackend prints the backend keeping the master key, or the one a
// first key would use.
func keysBackend(ctx context.Context, e *Env, store *keystore.Store) error {
	if b := store.Backend(); b != "" {
		fmt.Fprintln(e.Stdout, b)
		return nil
	}
	_, err := (&keystore.Keychain{}).Get(ctx, nil)
	if err == nil || errors.Is(err, keystore.ErrNotFound) {
		fmt.Fprintln(e.Stdout, "none yet: the first key set will use the keychain")
		return nil
	}
	fmt.Fprintf(e.Stdout, "none yet: the first key set will use a passphrase (%v)\n", err)
	return nil
}

// keysMigrate moves the master key to the backend called to.
func keysMigrate(ctx context.Context, e *Env, store *keystore.Store, to string) error {
	var b keystore.Backend
	switch to {
	case "keychain":
		b = &keystore.Keychain{}
	case "passphrase":
		b = passphraseBackend(e)
	default:
		return usagef("--migrate %q: want keychain or passphrase", to)
	}
	from := store.Backend()
	err := store.Migrate(ctx, b)
	var ce *keystore.CleanupError
	if err != nil && !errors.As(err, &ce) {
		return err
	}
	if from == "" {
		from = "nowhere (a new master key)"
	}
	fmt.Fprintf(e.Stderr, "agate: the master key moved from %s to %s; no secret was re-sealed\n", from, store.Backend())
	return err
}

// readHidden reads a line from the terminal f without echoing it. When ctx
// ends first, the terminal is put back as it was and the read abandoned.
func readHidden(ctx context.Context, f *os.File, w io.Writer, prompt string) (string, error) {
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	fmt.Fprint(w, prompt)
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		fmt.Fprintln(w)
		if r.err != nil {
			return "", fmt.Errorf("terminal: %w", r.err)
		}
		return string(r.b), nil
	case <-ctx.Done():
		term.Restore(fd, state)
		fmt.Fprintln(w)
		return "", ctx.Err()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
