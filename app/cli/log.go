package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit"
)

func init() {
	register(&command{
		name:    "log",
		args:    "[--follow] [--json] [--verify]",
		summary: "show the audit log, follow it, or verify its hash chain",
		run:     cmdLog,
	})
}

func cmdLog(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "log")
	var cf configFlags
	cf.add(fs)
	follow := fs.Bool("follow", false, "keep printing new lines as they are written")
	asJSON := fs.Bool("json", false, "print the raw JSON lines")
	verify := fs.Bool("verify", false, "check that no line was removed or edited")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	path := paths.AuditLog()
	if *verify {
		res, err := audit.Verify(path)
		if err != nil {
			return err
		}
		if res.Problem != "" {
			fmt.Fprintf(e.Stdout, "BROKEN: %s\n", res.Problem)
			return &exitError{code: exitFailure, err: errSilent}
		}
		fmt.Fprintf(e.Stdout, "ok: %d lines in %d files, seq %d to %d, the hash chain holds\n", res.Lines, len(res.Files), res.FirstSeq, res.LastSeq)
		return nil
	}
	print := func(rec *audit.Record) error {
		if *asJSON {
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.Stdout, "%s\n", b)
			return err
		}
		_, err := fmt.Fprintln(e.Stdout, formatRecord(rec))
		return err
	}
	if err := audit.Read(path, print); err != nil && !os.IsNotExist(err) {
		return err
	}
	if !*follow {
		return nil
	}
	return audit.Follow(ctx, path, print)
}

// formatRecord is one readable line for a record.
func formatRecord(r *audit.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-5s %-18s %-12s %s", r.Time.Local().Format("2006-01-02 15:04:05"), r.Decision, r.Event, r.Agent, r.Tool)
	if r.Subject != "" {
		s := strings.ReplaceAll(r.Subject, "\n", "⏎")
		fmt.Fprintf(&b, " %q", truncate(s, 120))
	}
	if strings.HasPrefix(r.Event, "secret.") { // a leak or its rotation: no decision, no layer
		fmt.Fprintf(&b, " [%s]", r.Reason)
		return b.String()
	}
	fmt.Fprintf(&b, " [%s", r.Layer)
	if r.Rule != "" {
		fmt.Fprintf(&b, " %q", r.Rule)
	}
	if r.By != "" {
		fmt.Fprintf(&b, ", by %s", r.By)
		if r.Via != "" {
			fmt.Fprintf(&b, " via %s", r.Via)
		}
	}
	if r.Scope != "" && r.Scope != api.ScopeDeny {
		fmt.Fprintf(&b, ", %s", r.Scope)
	}
	b.WriteString("]")
	if r.ApprovalID != "" {
		fmt.Fprintf(&b, " #%s", r.ApprovalID)
	}
	return b.String()
}

// truncate cuts s to n bytes, saying how much was cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}
