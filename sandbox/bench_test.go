package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// benchOptions is a typical agent command's options: a work dir with git
// hooks and agent settings in it, a few hidden paths, a real environment.
func benchOptions(b *testing.B) Options {
	b.Helper()
	work := b.TempDir()
	for _, d := range []string{".git/hooks", ".claude", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, ".git", "config"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	return Options{
		Launcher: LauncherWrapper, Wrapper: "/bin/sh", FailClosed: true, WorkDir: work,
		Protected: DefaultProtected(work, home, nil),
		Hidden:    DefaultHidden(home, nil, nil),
		Env:       append(os.Environ(), "OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=ghp_x"),
	}
}

// BenchmarkNewPlan resolves options into a mount layout: the per-command
// work before any launcher runs.
func BenchmarkNewPlan(b *testing.B) {
	o := benchOptions(b)
	argv := []string{"go", "test", "./..."}
	for b.Loop() {
		if _, err := newPlan(o, argv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepare builds the whole confined command, launcher choice
// included.
func BenchmarkPrepare(b *testing.B) {
	o := benchOptions(b)
	argv := []string{"go", "test", "./..."}
	ctx := context.Background()
	for b.Loop() {
		if _, err := Prepare(ctx, o, argv); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDefaultProtected(b *testing.B) {
	o := benchOptions(b)
	home, _ := os.UserHomeDir()
	for b.Loop() {
		DefaultProtected(o.WorkDir, home, []string{"*.pem"})
	}
}

func BenchmarkScrubEnv(b *testing.B) {
	env := append(os.Environ(), "OPENAI_API_KEY=sk-x", "DATABASE_URL=postgres://a:b@c/d")
	for b.Loop() {
		ScrubEnv(env, []string{"TELEGRAM"})
	}
}
