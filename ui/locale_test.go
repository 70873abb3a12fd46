package ui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStartIsQuietWithCUTF8 runs this test binary again with LANG=C.UTF-8
// (many systems' default where LANG is not set): Fyne's packages start
// without logging a locale error, and the environment the program (and
// every command it starts) sees is the one it was given.
func TestStartIsQuietWithCUTF8(t *testing.T) {
	if os.Getenv("AGATE_LOCALE_CHILD") != "" {
		fmt.Printf("LANG=%s\n", os.Getenv("LANG"))
		return
	}
	c := exec.Command(os.Args[0], "-test.run=^TestStartIsQuietWithCUTF8$", "-test.count=1")
	c.Env = append(cleanLocaleEnv(), "LANG=C.UTF-8", "AGATE_LOCALE_CHILD=1")
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr.String())
	}
	if strings.Contains(stderr.String(), "Fyne") || strings.Contains(string(out), "Fyne") {
		t.Errorf("Fyne logged at start:\n%s%s", out, stderr.String())
	}
	if !strings.Contains(string(out), "LANG=C.UTF-8\n") {
		t.Errorf("the program saw another LANG:\n%s", out)
	}
}

func cleanLocaleEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			env = append(env, kv)
		}
	}
	return env
}
