package watcher_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agatehq/agate/watcher"
)

// A daemon keeps its policy in an atomic.Pointer that the watcher swaps. A
// broken edit is reported and the last good policy stays.
func Example() {
	dir, err := os.MkdirTemp("", "agate-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.toml")
	save := func(s string) { // agate writes a temp file and renames it
		os.WriteFile(path+".tmp", []byte(s), 0o600)
		os.Rename(path+".tmp", path)
	}
	save("mode = ask\n")

	var policy atomic.Pointer[string] // what the request path reads
	events := make(chan string)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	send := func(s string) {
		select {
		case events <- s:
		case <-ctx.Done():
		}
	}
	go watcher.Watch(ctx, watcher.Config[string]{
		Dir:   dir,
		Files: []string{"config.toml"},
		Load: func(context.Context) (string, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return "", err
			}
			mode, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "mode = ")
			if !ok || (mode != "ask" && mode != "deny") {
				return "", errors.New("config.toml:1: mode: want ask or deny")
			}
			return mode, nil
		},
		Apply: func(mode string) {
			policy.Store(&mode)
			send("applied " + mode)
		},
		Fail: func(err error) { send("error: " + err.Error()) },
	})
	next := func() {
		select {
		case e := <-events:
			fmt.Printf("%s (policy: %s)\n", e, *policy.Load())
		case <-time.After(5 * time.Second):
			fmt.Println("timeout")
		}
	}

	next() // the first Load
	save("mode = deny\n")
	next()
	save("mode = allow-everything\n")
	next()
	save("mode = ask\n")
	next()
	// Output:
	// applied ask (policy: ask)
	// applied deny (policy: deny)
	// error: config.toml:1: mode: want ask or deny (policy: deny)
	// applied ask (policy: ask)
}
