//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agatehq/agate/app/api"
)

// otelcol builds the OpenTelemetry Collector of testdata/otelcol (the
// collector's own modules at one release: the OTLP receiver and the file
// exporter).
func otelcol(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "otelcol")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join("..", "..", "testdata", "otelcol")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("the test collector does not build here (its modules come from the Go module proxy): %v\n%s", err, b)
	}
	return out
}

// collectorRun is one run of the collector.
type collectorRun struct {
	cmd *exec.Cmd
	out string
}

func startCollector(t *testing.T, bin, addr, out string) *collectorRun {
	t.Helper()
	cmd := exec.Command(bin, "--config", filepath.Join("..", "..", "testdata", "otelcol", "config.yaml"))
	cmd.Env = append(os.Environ(), "OTLP_ENDPOINT="+addr, "OUT_FILE="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the collector to listen", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return &collectorRun{cmd: cmd, out: out}
}

func (c *collectorRun) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.cmd.Wait()
}

// exportedRecord is one record as the collector wrote it.
type exportedRecord struct {
	id, prev, hash string
	seq            int64
}

// collected reads every record the collector runs wrote, in order.
func collected(t *testing.T, files ...string) []exportedRecord {
	t.Helper()
	var out []exportedRecord
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			var req struct {
				ResourceLogs []struct {
					ScopeLogs []struct {
						LogRecords []struct {
							Attributes []struct {
								Key   string
								Value struct {
									StringValue string
									IntValue    string
								}
							}
						}
					}
				}
			}
			if json.Unmarshal(sc.Bytes(), &req) != nil {
				continue
			}
			for _, rl := range req.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					for _, lr := range sl.LogRecords {
						var r exportedRecord
						for _, a := range lr.Attributes {
							switch a.Key {
							case "agate.record.id":
								r.id = a.Value.StringValue
							case "agate.seq":
								r.seq, _ = strconv.ParseInt(a.Value.IntValue, 10, 64)
							case "agate.export.prev":
								r.prev = a.Value.StringValue
							case "agate.export.hash":
								r.hash = a.Value.StringValue
							}
						}
						out = append(out, r)
					}
				}
			}
		}
		fh.Close()
	}
	return out
}

// TestAuditExportToRealCollector runs the real daemon exporting its audit
// log to a real OpenTelemetry Collector, which goes down for a minute
// while decisions go on, comes back, and the daemon is killed in the
// middle of sending what waited: once it starts again, every record has
// arrived, none twice after the receiver drops duplicates by id, in
// order, the chain unbroken.
func TestAuditExportToRealCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute with the collector down")
	}
	col := otelcol(t)
	cli := buildCLI(t)
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	state, sock := filepath.Join(dir, "state"), filepath.Join(dir, "run", "agate.sock")
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[audit.export]\nendpoint = \"http://"+addr+"\"\n[audit.export.resource]\n\"team.name\" = \"core\"\n"), 0o600)
	env := append(os.Environ(), "AGATE_STATE_DIR="+state, "AGATE_CONFIG="+cfg, "AGATE_SOCKET="+sock, "AGATE_TOKEN_SOCKET="+filepath.Join(dir, "tok", "t.sock"))
	startDaemon := func() *exec.Cmd {
		d := exec.Command(cli, "serve")
		d.Env = env
		if err := d.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the daemon", func() bool {
			c, err := net.Dial("unix", sock)
			if err == nil {
				c.Close()
			}
			return err == nil
		})
		return d
	}
	decisions := 0
	decide := func(n int) {
		t.Helper()
		c := &api.Client{Socket: sock}
		for i := 0; i < n; i++ {
			if _, err := c.Decide(context.Background(), &api.DecideRequest{Tool: "Bash", Args: map[string]any{"command": fmt.Sprintf("ls -la dir%d", i)},
				Agent: "claude-code", Session: "s", Cwd: dir}); err != nil {
				t.Fatal(err)
			}
			decisions++
		}
	}
	outs := []string{filepath.Join(dir, "out1.jsonl")}
	c := startCollector(t, col, addr, outs[0])
	daemon := startDaemon()
	defer func() { daemon.Process.Kill(); daemon.Wait() }()
	decide(20)
	waitFor(t, "20 records at the collector", func() bool { return len(collected(t, outs...)) >= 20 })

	// Down for a minute: the decisions go on, the records wait.
	c.stop()
	decide(400)
	time.Sleep(time.Minute)
	// The status says so: failing, what waits.
	st, err := (&api.Client{Socket: sock}).Status(context.Background())
	if err != nil || st.Export == nil || st.Export.LastError == "" || st.Export.Waiting == 0 || st.Export.Delivered < 20 {
		t.Errorf("the status with the collector down: %+v %v", st.Export, err)
	}
	status := exec.Command(cli, "status")
	status.Env = env
	if out, _ := status.CombinedOutput(); !strings.Contains(string(out), "FAILING since") {
		t.Errorf("agate status with the collector down:\n%s", out)
	}
	outs = append(outs, filepath.Join(dir, "out2.jsonl"))
	c = startCollector(t, col, addr, outs[1])
	defer c.stop()
	// Killed as the first of what waited arrives.
	deadline := time.Now().Add(3 * time.Minute)
	for len(collected(t, outs[1])) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("nothing arrived after the collector came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	daemon.Process.Kill()
	daemon.Wait()
	daemon = startDaemon()
	decide(5)
	// (A new daemon starts with the config event of its own, if any: every
	// line of the log counts.)
	waitFor2 := func() bool {
		recs := collected(t, outs...)
		seen := map[int64]bool{}
		for _, r := range recs {
			seen[r.seq] = true
		}
		return len(seen) >= decisions
	}
	deadline = time.Now().Add(3 * time.Minute)
	for !waitFor2() {
		if time.Now().After(deadline) {
			t.Fatalf("not every record arrived: %d of %d", len(collected(t, outs...)), decisions)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitFor(t, "the status to say it is caught up", func() bool {
		st, err := (&api.Client{Socket: sock}).Status(context.Background())
		return err == nil && st.Export != nil && st.Export.LastError == "" && st.Export.Waiting == 0 && !st.Export.LastSent.IsZero()
	})
	c.stop()
	recs := collected(t, outs...)
	ids := map[string]bool{}
	var unique []exportedRecord
	for _, r := range recs {
		if r.id == "" || ids[r.id] {
			continue
		}
		ids[r.id] = true
		unique = append(unique, r)
	}
	seqs := make([]int64, 0, len(unique))
	for i, r := range unique {
		seqs = append(seqs, r.seq)
		if i > 0 && r.seq <= unique[i-1].seq {
			t.Fatalf("out of order after de-duplication: %d then %d", unique[i-1].seq, r.seq)
		}
		if i > 0 && r.prev != unique[i-1].hash {
			t.Fatalf("the chain breaks at seq %d", r.seq)
		}
	}
	if !sort.SliceIsSorted(seqs, func(i, j int) bool { return seqs[i] < seqs[j] }) || int(seqs[len(seqs)-1]) != len(seqs) || len(seqs) < decisions {
		t.Fatalf("%d unique records (of %d received), %d decisions, last seq %d", len(unique), len(recs), decisions, seqs[len(seqs)-1])
	}
	t.Logf("%d decisions, %d records received, %d after de-duplication", decisions, len(recs), len(unique))
	if b, _ := os.ReadFile(outs[0]); !strings.Contains(string(b), `"team.name"`) || !strings.Contains(string(b), `"service.name"`) {
		t.Errorf("the resource's attributes are not there")
	}
}
