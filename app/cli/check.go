package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/files/config"
	"github.com/agatehq/agate/app/files/grants"
	"github.com/agatehq/agate/app/files/undo"
	"github.com/agatehq/agate/app/internal/strictjson"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "check",
		args:    "[--config FILE] [--cwd DIR] [--agent NAME] [--unattended] [--tainted] [--json] TOOL [ARGS_JSON]",
		summary: "print the decision for a tool call and why, changing nothing",
		run:     cmdCheck,
	})
}

func cmdCheck(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "check")
	var cf configFlags
	cf.add(fs)
	cwd := fs.String("cwd", "", "the call's working folder (default: the current folder)")
	agent := fs.String("agent", "", "the agent making the call, as [agents.NAME] names it")
	unattended := fs.Bool("unattended", false, "nobody can be asked: asks become denies")
	tainted := fs.Bool("tainted", false, "the run has taken in outside content")
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		fs.Usage()
		return usagef("want a tool name and, optionally, its arguments as a JSON object")
	}
	tool := pos[0]
	var callArgs map[string]any
	if len(pos) == 2 {
		if callArgs, err = decodeArgs([]byte(pos[1])); err != nil {
			return usageErr(err)
		}
	}
	if *cwd == "" {
		if *cwd, err = os.Getwd(); err != nil {
			return fmt.Errorf("working folder: %w", err)
		}
	}
	if *cwd, err = filepath.Abs(*cwd); err != nil {
		return usagef("--cwd: %v", err)
	}
	paths, pol, err := cf.policy()
	if err != nil {
		return err
	}
	pol = config.WithOverlay(pol, *cwd)
	grants, err := grants.Load(paths.Grants)
	if err != nil {
		return usageErr(err)
	}
	facts := machine.NewFacts() // what the daemon would learn of the files named
	r := &policy.Request{
		Tool: tool, Args: callArgs, Agent: *agent, Cwd: *cwd,
		Interactive: !*unattended, Tainted: *tainted,
		Grants: grants.For(*agent), Resolve: machine.ResolvePath, Glob: machine.Glob,
		Files: facts.Files, Repo: facts.Repo, ReadPatch: facts.ReadPatch,
	}
	// What the daemon would keep a copy of is measured as it would be,
	// and nothing is kept.
	if cfg := pol.Config(); cfg.Undo.Keep {
		if s, err := undo.Open(filepath.Join(paths.State, undo.Dir), machine.UndoLimits(cfg)); err == nil {
			s.Secret = machine.UndoSecret(cfg)
			budget := s.Budget(context.Background())
			r.Keep = func(path, root string) policy.KeepAnswer {
				if err := budget.Take(path, root); err != nil {
					return policy.KeepAnswer{Why: undo.Why(err)}
				}
				return policy.KeepAnswer{OK: true}
			}
		}
	}
	d := pol.Decide(r)
	if *asJSON {
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintln(e.Stdout, d.Verdict)
	fmt.Fprintf(e.Stdout, "  tool:     %s (%s)\n", tool, d.Category)
	fmt.Fprintf(e.Stdout, "  layer:    %s\n", d.Layer)
	if d.Rule != nil {
		fmt.Fprintf(e.Stdout, "  rule:     %s\n", d.Rule)
	}
	fmt.Fprintf(e.Stdout, "  risks:    %s\n", strings.Join(orNone(d.Risks.List()), ", "))
	fmt.Fprintf(e.Stdout, "  reason:   %s\n", d.Reason)
	for _, k := range d.Keep {
		fmt.Fprintf(e.Stdout, "  keeps:    %s (this is a check: nothing was kept)\n", k.Path)
	}
	for _, p := range pol.Problems() {
		fmt.Fprintf(e.Stdout, "  overlay:  %v\n", p)
	}
	return nil
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// maxArgsSize bounds a call's arguments.
const maxArgsSize = 4 << 20

// decodeArgs decodes a call's arguments: a JSON object (or null).
func decodeArgs(b []byte) (map[string]any, error) {
	if len(b) > maxArgsSize {
		return nil, fmt.Errorf("arguments are %d bytes, more than the %d allowed", len(b), maxArgsSize)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := (strictjson.Options{UseNumber: true}).Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("arguments: want one JSON object: %v", err)
	}
	return m, nil
}
