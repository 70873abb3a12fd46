package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/agatehq/agate/app/files/undo"
)

// What agate keeps before it lets a call delete or overwrite what git
// cannot give back (app/files/undo) is listed, put back and dropped here.
// The store is a folder of the state dir that the daemon and this command
// share; neither needs the other running.

func init() {
	register(&command{
		name:    "undo",
		args:    "[ID] [--drop ID] [--json]",
		summary: "list the copies agate kept of what agents deleted or overwrote, put one back, or drop it",
		run:     cmdUndo,
	})
}

func cmdUndo(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "undo")
	var cf configFlags
	cf.add(fs)
	drop := fs.String("drop", "", "remove the kept copy `ID` for good")
	asJSON := fs.Bool("json", false, "list the entries as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	if len(pos) > 1 || len(pos) == 1 && *drop != "" {
		return usagef("usage: agate undo [ID] [--drop ID] [--json]")
	}
	// Listing, restoring and dropping need no limits: those are the
	// daemon's, for keeping.
	s, err := undo.Open(filepath.Join(paths.State, undo.Dir), undo.Limits{})
	if err != nil {
		return err
	}
	switch {
	case *drop != "":
		if err := s.Drop(*drop); err != nil {
			return undoErr(*drop, err)
		}
		fmt.Fprintf(e.Stdout, "dropped %s\n", *drop)
		return nil
	case len(pos) == 1:
		return restore(ctx, e.Stdout, s, pos[0])
	}
	entries, err := s.List()
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if entries == nil {
			entries = []*undo.Entry{}
		}
		return enc.Encode(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(e.Stdout, "agate has kept no copies.")
		return nil
	}
	printEntries(e.Stdout, entries, time.Now())
	fmt.Fprintf(e.Stdout, "\n%s in all. `agate undo ID` puts one back; `agate undo --drop ID` removes it.\n", undo.Size(s.Used()))
	return nil
}

// printEntries lists the kept copies, newest first: one line each, and
// the paths beneath.
func printEntries(w io.Writer, entries []*undo.Entry, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tAGENT\tSESSION\tCALL\tFILES\tSIZE")
	for _, en := range entries {
		call := en.Subject
		if call == "" {
			call = en.Tool
		} else if en.Tool != "" && en.Tool != "Bash" {
			call = en.Tool + " " + call
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", en.ID, when(en.Time, now), dash(en.Agent), dash(shortSession(en.Session)),
			oneLine(call, 60), en.Files, undo.Size(en.Bytes))
	}
	tw.Flush()
}

// restore puts entry id back and says, path by path, what it did.
func restore(ctx context.Context, w io.Writer, s *undo.Store, id string) error {
	res, err := s.Restore(ctx, id)
	if err != nil {
		return undoErr(id, err)
	}
	for _, l := range res.Lines() {
		fmt.Fprintln(w, l)
	}
	if len(res.Failed) > 0 {
		return fmt.Errorf("%d of what %s kept could not be put back", len(res.Failed), id)
	}
	return nil
}

// undoErr names the id an error is about, and says how to find one.
func undoErr(id string, err error) error {
	if errors.Is(err, undo.ErrNotFound) {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s: %w (`agate undo` lists what is kept)", id, err)}
	}
	return fmt.Errorf("%s: %w", id, err)
}

// when says a time as a person reads it in a list: how long ago, and
// the date once it is more than a day.
func when(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return t.Local().Format("2006-01-02 15:04")
}

func shortSession(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
