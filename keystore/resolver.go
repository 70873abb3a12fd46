package keystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Defaults of a Resolver.
const (
	DefaultTTL         = 60 * time.Second // how long a resolved value is kept
	DefaultExecTimeout = 15 * time.Second // how long an exec: command may take
)

// Resolver resolves references to secrets and keeps what it resolved for a
// minute. Opening a vault costs a few hundred milliseconds; revoking a key
// in it takes effect within the TTL. A Resolver is safe for concurrent
// use; set its fields before sharing it.
type Resolver struct {
	// Store opens keystore: references; nil makes them unset.
	Store *Store
	// VaultEnv names the variables an exec: command gets, besides PATH
	// and HOME: [secrets] vault_env. Nothing else of the environment
	// reaches the command.
	VaultEnv []string
	// LookupEnv reads the environment; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Now is the clock of the cache; nil is time.Now.
	Now func() time.Time
	// TTL is how long an exec:, file: or keystore: value is kept; zero is
	// DefaultTTL. ${VAR} is read at every use and never kept.
	TTL time.Duration
	// ExecTimeout bounds an exec: command; zero is DefaultExecTimeout.
	ExecTimeout time.Duration

	mu    sync.Mutex
	cache map[string]cachedValue // by reference text; guarded by mu
}

type cachedValue struct {
	value string
	until time.Time
}

// NewResolver returns a Resolver over store (may be nil) that passes
// vaultEnv to exec: commands.
func NewResolver(store *Store, vaultEnv []string) *Resolver {
	return &Resolver{Store: store, VaultEnv: vaultEnv}
}

// Resolve returns the secret ref points to. ok is false when there is no
// secret to use, and err then says why: errors.Is(err, ErrUnset) for an
// unset variable, a missing file or entry; ErrLocked for a locked store;
// ErrBadReference for a reference that does not parse; otherwise a vault
// command that failed or timed out. Such a secret must be treated as
// unset, never as "". Every error is a *RefError describing the reference
// without its value.
//
// A value that is not a reference (see IsReference) is a literal and is
// returned as it is: CheckField is where literals are refused or warned
// about.
func (r *Resolver) Resolve(ctx context.Context, ref string) (value string, ok bool, err error) {
	if !IsReference(ref) {
		if ref == "" {
			return "", false, &RefError{Ref: `""`, Err: fmt.Errorf("%w: empty value", ErrUnset)}
		}
		return ref, true, nil
	}
	p, err := ParseRef(ref)
	if err != nil {
		return "", false, &RefError{Ref: "reference", Err: err}
	}
	if p.Kind == RefEnv {
		v, set := r.lookup(p.Arg)
		if !set || v == "" {
			return "", false, &RefError{Ref: p.String(), Err: fmt.Errorf("%w: the variable is not set", ErrUnset)}
		}
		return v, true, nil
	}
	now := r.now()
	r.mu.Lock()
	c, hit := r.cache[ref]
	r.mu.Unlock()
	if hit && now.Before(c.until) {
		return c.value, true, nil
	}
	switch p.Kind {
	case RefFile:
		value, err = readSecretFile(p.Arg)
	case RefKeystore:
		value, err = r.fromStore(ctx, p.Arg)
	case RefExec:
		value, err = r.run(ctx, p.Argv)
	}
	if err != nil {
		r.mu.Lock()
		delete(r.cache, ref)
		r.mu.Unlock()
		return "", false, &RefError{Ref: p.String(), Err: err}
	}
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]cachedValue{}
	}
	r.cache[ref] = cachedValue{value: value, until: now.Add(r.ttl())}
	r.mu.Unlock()
	return value, true, nil
}

// Flush drops every kept value, as when the config changes.
func (r *Resolver) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.cache)
}

func (r *Resolver) fromStore(ctx context.Context, name string) (string, error) {
	if r.Store == nil {
		return "", fmt.Errorf("%w: no key store", ErrUnset)
	}
	v, err := r.Store.Get(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("%w: no such entry in the key store", ErrUnset)
	}
	return v, err
}

// readSecretFile reads a mounted secret: at most 64 KiB, trimmed.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: no such file", ErrUnset)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxValueSize+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxValueSize {
		return "", fmt.Errorf("file is more than %d bytes", maxValueSize)
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fmt.Errorf("%w: the file is empty", ErrUnset)
	}
	return v, nil
}

// run runs an exec: command with only PATH, HOME and VaultEnv in its
// environment, no standard input, and a timeout; its standard output,
// trimmed, is the secret. A command that fails, prints nothing or prints
// too much gives no value, whatever it printed.
func (r *Resolver) run(ctx context.Context, argv []string) (string, error) {
	timeout := r.ExecTimeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = r.vaultEnviron()
	var stdout, stderr capped
	stdout.max, stderr.max = maxValueSize, 4<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	killGroupOnCancel(cmd)
	err := cmd.Run()
	value := strings.TrimSpace(stdout.buf.String())
	switch {
	case parent.Err() != nil:
		return "", parent.Err()
	case ctx.Err() != nil:
		return "", fmt.Errorf("no answer within %v", timeout)
	case err != nil:
		if why := lastLine(stderr.buf.String(), value); why != "" {
			return "", fmt.Errorf("%v: %s", err, why)
		}
		return "", err
	case stdout.over:
		return "", fmt.Errorf("printed more than %d bytes", maxValueSize)
	case value == "":
		return "", fmt.Errorf("%w: the command printed nothing", ErrUnset)
	}
	return value, nil
}

// vaultEnviron is the whole environment of an exec: command.
func (r *Resolver) vaultEnviron() []string {
	var env []string
	seen := map[string]bool{}
	for _, k := range append([]string{"PATH", "HOME"}, r.VaultEnv...) {
		if seen[k] {
			continue
		}
		seen[k] = true
		if v, ok := r.lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func (r *Resolver) lookup(k string) (string, bool) {
	if r.LookupEnv != nil {
		return r.LookupEnv(k)
	}
	return os.LookupEnv(k)
}

func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Resolver) ttl() time.Duration {
	if r.TTL > 0 {
		return r.TTL
	}
	return DefaultTTL
}

// lastLine returns the last non-blank line of a command's error output,
// cut to 200 bytes, with secret (what it printed on stdout) masked out.
func lastLine(s, secret string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if secret != "" {
		line = strings.ReplaceAll(line, secret, Mask(secret))
	}
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}

// capped is a buffer that keeps at most max bytes and notes an overflow.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

// Write keeps what fits and drops the rest, never failing, so the
// command is not killed by a broken pipe.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}
