package keystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fastKDF keeps argon2id cheap in tests; the real parameters are measured
// in BenchmarkPassphraseUnlock.
var fastKDF = KDF{Time: 1, MemoryKiB: 64, Threads: 1}

// fixedPass is a passphrase prompt that always answers pass.
func fixedPass(pass string) Prompt {
	return func(context.Context, bool) (string, error) { return pass, nil }
}

// testPassphrase is a fast passphrase backend answering pass.
func testPassphrase(pass string) *Passphrase {
	return &Passphrase{Ask: fixedPass(pass), KDF: fastKDF}
}

// TestMain runs the helper processes of the multi-process tests when the
// test binary is started as one, and the tests otherwise.
func TestMain(m *testing.M) {
	if mode := os.Getenv("AGATE_KEYSTORE_HELPER"); mode != "" {
		if err := helperMain(mode); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperMain is a child process of a test:
//
//	set:      sets $HELPER_COUNT keys named $HELPER_PREFIX-i in the store at
//	          $HELPER_STORE, with the passphrase from $AGATE_PASSPHRASE
//	fallback: opens the store at $HELPER_STORE with the real keychain then
//	          the passphrase, sets one key, prints the backend chosen
func helperMain(mode string) error {
	ctx := context.Background()
	path := os.Getenv("HELPER_STORE")
	switch mode {
	case "set":
		s, err := Open(path, &Passphrase{Ask: EnvPrompt(nil), KDF: fastKDF})
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(os.Getenv("HELPER_COUNT"))
		if err != nil {
			return err
		}
		prefix := os.Getenv("HELPER_PREFIX")
		for i := range n {
			name := fmt.Sprintf("%s-%d", prefix, i)
			if err := s.Set(ctx, name, "value-of-"+name); err != nil {
				return err
			}
		}
		return nil
	case "fallback":
		s, err := Open(path, &Keychain{Service: "agate-test-fallback"}, &Passphrase{Ask: EnvPrompt(nil), KDF: fastKDF})
		if err != nil {
			return err
		}
		if err := s.Set(ctx, "fallback", "value-set-without-a-keychain"); err != nil {
			return err
		}
		fmt.Print(s.Backend())
		return nil
	}
	return errors.New("unknown helper mode " + mode)
}

// storePath returns a store path in a fresh temp folder.
func storePath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "state", "keys.json")
}

// mustSet sets each name to its value.
func mustSet(t *testing.T, s *Store, kv map[string]string) {
	t.Helper()
	for k, v := range kv {
		if err := s.Set(context.Background(), k, v); err != nil {
			t.Fatalf("Set(%q): %v", k, err)
		}
	}
}

// helperProc is a child process running helperMain.
type helperProc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// startHelper starts the test binary as a helper in mode, with env added
// to the test's environment.
func startHelper(t *testing.T, mode string, env ...string) *helperProc {
	t.Helper()
	p := &helperProc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
	// Under -race a process sleeps a second before it exits, unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	p.cmd.Env = append(os.Environ(), append([]string{"GORACE=" + gorace, "AGATE_KEYSTORE_HELPER=" + mode}, env...)...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wait waits for the helper and returns what it printed; a failed helper
// fails t.
func (p *helperProc) wait(t *testing.T) string {
	t.Helper()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("helper %v: %v\n%s", p.cmd.Env[len(p.cmd.Env)-1], err, p.stderr.String())
	}
	return p.stdout.String()
}
