package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func testWrapper(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the test wrapper is a shell script")
	}
	p, err := filepath.Abs(filepath.Join("testdata", "wrapper.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMayRunUnconfined(t *testing.T) {
	tests := []struct {
		o    Options
		want bool
	}{
		{Options{}, false},
		{Options{FailClosed: false, Launcher: ""}, false}, // the zero value fails closed
		{Options{FailClosed: true, Launcher: LauncherAuto}, false},
		{Options{FailClosed: false, Launcher: LauncherAuto}, true},
		{Options{FailClosed: false, Launcher: LauncherNone}, true},
		{Options{FailClosed: true, Launcher: LauncherNone}, false},
	}
	for _, tt := range tests {
		if got := tt.o.mayRunUnconfined(); got != tt.want {
			t.Errorf("%+v: mayRunUnconfined = %v, want %v", tt.o, got, tt.want)
		}
	}
}

// TestPrepareFailsClosed covers every way of finding no launcher: it never
// runs the command unless the options explicitly allow it.
func TestPrepareFailsClosed(t *testing.T) {
	work := t.TempDir()
	tests := []struct {
		name         string
		o            Options
		wantErr      error // nil: prepared
		wantConfined bool
		wantIn       string // in the error or the note
	}{
		{"none, fail closed", Options{Launcher: LauncherNone, FailClosed: true}, ErrUnavailable, false, `launcher is "none"`},
		{"none, fail open", Options{Launcher: LauncherNone}, nil, false, UnconfinedNote},
		{"missing wrapper, fail closed", Options{Launcher: LauncherWrapper, Wrapper: "/nonexistent/wrap", FailClosed: true}, ErrUnavailable, false, "/nonexistent/wrap"},
		{"missing wrapper, fail open", Options{Launcher: LauncherWrapper, Wrapper: "/nonexistent/wrap"}, nil, false, UnconfinedNote},
		{"no wrapper set", Options{Launcher: LauncherWrapper, FailClosed: true}, ErrUnavailable, false, "no wrapper set"},
		{"launcher of another OS", Options{Launcher: otherOSLauncher(), FailClosed: true}, ErrUnavailable, false, "does not exist on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.WorkDir = work
			p, err := Prepare(context.Background(), tt.o, []string{"true"})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantIn) || !strings.Contains(err.Error(), installHint) {
					t.Errorf("err %q, want it to say %q and what to install", err, tt.wantIn)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Confined != tt.wantConfined || p.Note != tt.wantIn {
				t.Errorf("confined %v, note %q; want %v, %q", p.Confined, p.Note, tt.wantConfined, tt.wantIn)
			}
		})
	}
}

func otherOSLauncher() string {
	if runtime.GOOS == "darwin" {
		return LauncherBwrap
	}
	return LauncherSandboxExec
}

func TestPrepareRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		argv []string
	}{
		{"unknown launcher", Options{Launcher: "chroot"}, []string{"true"}},
		{"no command", Options{Launcher: LauncherNone}, nil},
		{"work dir missing", Options{Launcher: LauncherNone, WorkDir: "/nonexistent/agate"}, []string{"true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// FailClosed false: bad options are errors even when running
			// unconfined is allowed.
			if tt.o.WorkDir == "" {
				tt.o.WorkDir = t.TempDir()
			}
			_, err := Prepare(context.Background(), tt.o, tt.argv)
			if err == nil || errors.Is(err, ErrUnavailable) {
				t.Errorf("err %v, want a plain error", err)
			}
		})
	}
}

func TestRunUnconfinedPrintsNote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	var stdout, stderr bytes.Buffer
	o := Options{Launcher: LauncherNone, WorkDir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH"), "X_TOKEN=s3cret"}}
	code, err := Run(context.Background(), o, []string{"sh", "-c", `echo "[$X_TOKEN]"; exit 5`}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if code != 5 || stdout.String() != "[]\n" || stderr.String() != UnconfinedNote+"\n" {
		t.Errorf("status %d, stdout %q, stderr %q; want 5, the credential scrubbed, the note", code, stdout.String(), stderr.String())
	}
}

// TestWrapperContract runs a command through a wrapper as Pepe would have
// it: the wrapper gets the command as its arguments, runs in the work dir
// and finds the work dir in AGATE_SANDBOX_CWD and PEPE_SANDBOX_CWD.
func TestWrapperContract(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Launcher: LauncherWrapper, Wrapper: testWrapper(t), FailClosed: true, WorkDir: work,
		Env: []string{"PATH=" + os.Getenv("PATH"), "A_SECRET=s3cret"}}
	var stdout, stderr bytes.Buffer
	code, err := Run(context.Background(), o, []string{"sh", "-c", `echo "out [$A_SECRET]"; echo err >&2; exit 3`}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || stdout.String() != "out []\n" || stderr.String() != "err\n" {
		t.Errorf("status %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	log, err := os.ReadFile(filepath.Join(work, "wrapper.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := work + "\n" + work + "\n" + work + "\n"; string(log) != want {
		t.Errorf("the wrapper saw %q, want the work dir three times", log)
	}
}

func TestCommandReturnsPreparedCmd(t *testing.T) {
	o := Options{Launcher: LauncherWrapper, Wrapper: testWrapper(t), FailClosed: true, WorkDir: t.TempDir()}
	cmd, err := Command(context.Background(), o, []string{"true", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Path != o.Wrapper || len(cmd.Args) != 3 || cmd.Args[1] != "true" || cmd.Stdout != nil {
		t.Errorf("cmd %q %q, stdout %v", cmd.Path, cmd.Args, cmd.Stdout)
	}
	if _, err := Command(context.Background(), Options{Launcher: LauncherNone, FailClosed: true}, []string{"true"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("err %v, want ErrUnavailable", err)
	}
}
