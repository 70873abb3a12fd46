package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agatehq/agate/app/osutil"
)

func writeRecords(t *testing.T, l *Log, n int, from int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := l.Append(context.Background(), &Record{Event: "decision", Tool: "Bash", Subject: fmt.Sprintf("echo %d %s", from+i, strings.Repeat("x", 200))}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuditRotationKeepsTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path, 4096, 3)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, l, 60, 0)
	l.Close()
	files := files(path)
	if len(files) != 4 {
		t.Fatalf("files %v, want the current and 3 rotated", files)
	}
	vr, err := Verify(path)
	if err != nil || vr.Problem != "" {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	if vr.LastSeq != 60 {
		t.Fatalf("last seq %d", vr.LastSeq)
	}
	// Reopening continues the sequence and the chain.
	l, err = Open(path, 4096, 3)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, l, 5, 60)
	l.Close()
	vr, err = Verify(path)
	if err != nil || vr.Problem != "" || vr.LastSeq != 65 {
		t.Fatalf("verify after reopen: %+v %v", vr, err)
	}
}

func TestAuditVerifyCatchesTampering(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(lines []string) []string
		want   string
	}{
		{"line removed", func(l []string) []string { return append(l[:3], l[4:]...) }, "removed or edited"},
		{"line edited", func(l []string) []string {
			l[5] = strings.Replace(l[5], `"decision"`, `"decisioN"`, 1)
			return l
		}, "removed or edited"},
		{"lines swapped", func(l []string) []string { l[2], l[3] = l[3], l[2]; return l }, "removed or edited"},
		{"garbage line", func(l []string) []string { l[4] = "{not json"; return l }, "not a log record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l, err := Open(path, 10<<20, 3)
			if err != nil {
				t.Fatal(err)
			}
			writeRecords(t, l, 10, 0)
			l.Close()
			b, _ := os.ReadFile(path)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			lines = tt.tamper(lines)
			os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
			vr, err := Verify(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(vr.Problem, tt.want) {
				t.Fatalf("problem %q, want %q", vr.Problem, tt.want)
			}
		})
	}
}

func TestAuditTornLineIsCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, _ := Open(path, 10<<20, 3)
	writeRecords(t, l, 3, 0)
	l.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":4,"time":"2026`)
	f.Close()
	l, err := Open(path, 10<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, l, 1, 3)
	l.Close()
	vr, err := Verify(path)
	if err != nil || vr.Problem != "" || vr.Lines != 4 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
}

// TestAuditFullDiskLeavesNoTornLine fills a small tmpfs: the write that
// fails is cut back, so the log keeps its chain and every line it holds
// was acknowledged.
func TestAuditFullDiskLeavesNoTornLine(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "audit.jsonl")
	l, err := Open(path, 10<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	acked := 0
	for i := 0; i < 10000; i++ {
		err := l.Append(context.Background(), &Record{Event: "decision", Subject: fmt.Sprintf("%d %s", i, strings.Repeat("x", 700))})
		if err != nil {
			break
		}
		acked++
	}
	l.Close()
	if acked == 0 || acked == 10000 {
		t.Fatalf("%d appends acknowledged: the disk never filled", acked)
	}
	vr, err := Verify(path)
	if err != nil || vr.Problem != "" || vr.Lines != acked {
		t.Fatalf("after a full disk: %+v %v; %d acknowledged", vr, err, acked)
	}
}

// TestReadChecksTheFolder: the log is read only from a folder private to
// this user: in one someone else could change, it could be rewritten,
// chain and all, so Read, Verify and Follow refuse it.
func TestReadChecksTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "audit.jsonl")
	if err := Read(path, func(*Record) error { return nil }); err != nil {
		t.Fatalf("no folder, no log: %v", err)
	}
	l, err := Open(path, 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, l, 3, 0)
	l.Close()
	os.Chmod(dir, 0o777)
	if err := Read(path, func(*Record) error { return nil }); !errors.Is(err, osutil.ErrNotPrivate) {
		t.Errorf("Read: %v", err)
	}
	if _, err := Verify(path); !errors.Is(err, osutil.ErrNotPrivate) {
		t.Errorf("Verify: %v", err)
	}
	if err := Follow(t.Context(), path, func(*Record) error { return nil }); !errors.Is(err, osutil.ErrNotPrivate) {
		t.Errorf("Follow: %v", err)
	}
}
