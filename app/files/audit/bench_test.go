package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/osutil"
)

// BenchmarkAppend is one decision's audit line, written and synced to
// disk before Append returns, as the daemon answers only after it.
// BenchmarkAppendFloor is the floor under it: the same bytes appended to a
// plain file and synced (write and fdatasync alone). The ratio of the two
// is what the log's own work (the hash chain, the encoding, the writer's
// goroutine) adds to the sync every decision must pay.
func BenchmarkAppend(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := benchRecord()
	ctx := context.Background()
	for b.Loop() {
		r := *rec
		if err := l.Append(ctx, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendFloor(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "floor.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := []byte(`{"seq":1,"time":"2026-12-03T14:00:00.000000Z","event":"decision","agent":"claude-code","session":"s","tool":"Bash","category":"shell","subject":"git status --short","cwd":"/home/me/project","decision":"allow","layer":"risk","reason":"it only reads, with programs agate knows","by":"policy","prev":"` + strings.Repeat("a", 64) + `"}` + "\n")
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := osutil.SyncData(f); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRecord() *Record {
	return &Record{Event: "decision", Agent: "claude-code", Session: "s", Tool: "Bash", Category: "shell",
		Subject: "git status --short", Cwd: "/home/me/project", Decision: "allow", Layer: "risk",
		Reason: "it only reads, with programs agate knows", By: "policy"}
}
