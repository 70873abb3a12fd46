package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "approvals",
		args:    "[--watch] [--json]",
		summary: "list the calls waiting for a person; --watch shows each as it comes and takes your answer",
		run:     cmdApprovals,
	})
	register(&command{
		name:    "approve",
		args:    "ID [ID...] --decision allow|deny [--scope once|this_run|session|session_any|always] [--reason TEXT]",
		summary: "answer one or more waiting calls",
		run:     cmdApprove,
	})
}

func cmdApprovals(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "approvals")
	var cf configFlags
	cf.add(fs)
	watch := fs.Bool("watch", false, "attach as an approver: show each waiting call and read answers from the terminal")
	asJSON := fs.Bool("json", false, "print as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	c := &api.Client{Socket: paths.Socket}
	if *watch {
		return watchApprovals(ctx, e, c)
	}
	list, err := c.Pending(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		b, _ := json.MarshalIndent(list, "", "  ")
		fmt.Fprintf(e.Stdout, "%s\n", b)
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(e.Stdout, "no calls are waiting")
		return nil
	}
	for _, a := range list {
		printApproval(e.Stdout, a)
	}
	return nil
}

// printApproval shows one waiting call in full.
func printApproval(w io.Writer, a api.Approval) {
	left := time.Until(a.Expires).Round(time.Second)
	fmt.Fprintf(w, "[%s] %s wants %s (%s), expires in %s\n", a.ID, a.Agent, a.Tool, a.Category, left)
	fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(a.Subject, "\n", "\n      "))
	fmt.Fprintf(w, "      cwd: %s", a.Cwd)
	if a.Session != "" {
		fmt.Fprintf(w, "  session: %s", a.Session)
	}
	fmt.Fprintln(w)
	if len(a.Risks) > 0 || a.Tainted {
		risks := a.Risks
		if a.Tainted {
			risks = append(append([]string(nil), risks...), "tainted")
		}
		fmt.Fprintf(w, "      risks: %s\n", strings.Join(risks, ", "))
	}
	why := a.Reason
	if a.Rule != "" {
		why += " [rule " + a.Rule + " at " + a.Source + "]"
	}
	fmt.Fprintf(w, "      why: %s (%s)\n", why, a.Layer)
	for i, r := range a.Runs {
		if i == 0 {
			fmt.Fprintf(w, "      runs: %s\n", r.Text)
		} else {
			fmt.Fprintf(w, "      or (allow %s [scope] %s): %s\n", a.ID, r.ID, r.Text)
		}
	}
}

// watchApprovals attaches this terminal as an approver: it prints each
// waiting call as it comes and reads answers typed here.
func watchApprovals(ctx context.Context, e *Env, c *api.Client) error {
	var mu sync.Mutex // guards shown
	shown := map[string]api.Approval{}
	fmt.Fprintln(e.Stdout, "agate: watching for calls that need a person (Ctrl-C to stop).")
	fmt.Fprintln(e.Stdout, "answer: y (allow all once), n (deny all), 1,3 (allow those once, deny the rest),")
	fmt.Fprintln(e.Stdout, "        s (allow all for the session), or `allow ID [scope] [confined|unconfined] [reason]` / `deny ID [reason]`")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(e.Stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		errc <- c.Events(ctx, true, func(ev api.Event) error {
			mu.Lock()
			defer mu.Unlock()
			switch ev.Type {
			case "approval.requested":
				shown[ev.Approval.ID] = *ev.Approval
				fmt.Fprintln(e.Stdout)
				printApproval(e.Stdout, *ev.Approval)
				fmt.Fprintf(e.Stdout, "approve? [%s] ", strings.Join(pendingIDs(shown), ","))
			case "approval.granted", "approval.denied", "approval.expired":
				if _, ok := shown[ev.Approval.ID]; ok {
					delete(shown, ev.Approval.ID)
					fmt.Fprintf(e.Stdout, "\n[%s] %s\n", ev.Approval.ID, strings.TrimPrefix(ev.Type, "approval."))
				}
			case "config":
				if ev.Error != "" {
					fmt.Fprintf(e.Stdout, "\nconfig error (the last good policy is in force): %s\n", ev.Error)
				}
			}
			return nil
		})
	}()
	for {
		select {
		case err := <-errc:
			if ctx.Err() != nil {
				return nil
			}
			return err
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			mu.Lock()
			ids := pendingIDs(shown)
			mu.Unlock()
			reqs, err := parseTerminalAnswer(line, ids)
			if err != nil {
				fmt.Fprintln(e.Stdout, err)
				continue
			}
			for _, r := range reqs {
				r.Via = "terminal"
				if _, err := c.Answer(ctx, r); err != nil && !errors.Is(err, api.ErrNotFound) {
					fmt.Fprintln(e.Stdout, err)
				}
			}
		}
	}
}

func pendingIDs(m map[string]api.Approval) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sortNumeric(ids)
	return ids
}

func sortNumeric(ids []string) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && lessID(ids[j], ids[j-1]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func lessID(a, b string) bool {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 == nil && err2 == nil {
		return x < y
	}
	return a < b
}

// parseTerminalAnswer reads one answer line against the waiting ids:
// eVi's batch answers (y, n, a subset like 1,3, s) or an explicit
// "allow ID [scope] [reason]" / "deny ID [reason]".
func parseTerminalAnswer(line string, pending []string) ([]*api.AnswerRequest, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, errors.New("nothing typed: the calls keep waiting (Enter alone never answers)")
	}
	if len(pending) == 0 && !strings.HasPrefix(line, "allow ") && !strings.HasPrefix(line, "deny ") {
		return nil, errors.New("no calls are waiting")
	}
	words := strings.Fields(line)
	switch strings.ToLower(words[0]) {
	case "y", "yes", "a", "all":
		return []*api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}}, nil
	case "n", "no", "none":
		return []*api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Deny}}}, nil
	case "s", "session":
		return []*api.AnswerRequest{{IDs: pending, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeSession}}}, nil
	case "allow":
		if len(words) < 2 {
			return nil, errors.New("allow which? `allow ID [scope] [reason]`")
		}
		r := &api.AnswerRequest{IDs: []string{words[1]}, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}
		rest := words[2:]
		if len(rest) > 0 {
			if sc, err := api.ParseScope(rest[0]); err == nil {
				r.Scope, rest = sc, rest[1:]
			}
		}
		if len(rest) > 0 && (rest[0] == api.RunConfined || rest[0] == api.RunUnconfined) {
			r.Runs, rest = rest[0], rest[1:]
		}
		r.Reason = strings.Join(rest, " ")
		return []*api.AnswerRequest{r}, nil
	case "deny":
		if len(words) < 2 {
			return nil, errors.New("deny which? `deny ID [reason]`")
		}
		return []*api.AnswerRequest{{IDs: []string{words[1]}, Answer: api.Answer{Decision: policy.Deny, Reason: strings.Join(words[2:], " ")}}}, nil
	}
	// A subset: "1,3" or "1 3" allows those once and denies the rest.
	var allow []string
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' }) {
		found := false
		for _, id := range pending {
			if id == f {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q is not a waiting call (waiting: %s)", f, strings.Join(pending, ", "))
		}
		allow = append(allow, f)
	}
	var deny []string
	for _, id := range pending {
		keep := false
		for _, a := range allow {
			keep = keep || a == id
		}
		if !keep {
			deny = append(deny, id)
		}
	}
	out := []*api.AnswerRequest{{IDs: allow, Answer: api.Answer{Decision: policy.Allow, Scope: api.ScopeOnce}}}
	if len(deny) > 0 {
		out = append(out, &api.AnswerRequest{IDs: deny, Answer: api.Answer{Decision: policy.Deny}})
	}
	return out, nil
}

func cmdApprove(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "approve")
	var cf configFlags
	cf.add(fs)
	decision := fs.String("decision", "", "allow or deny (required)")
	scope := fs.String("scope", "once", "for allow: once, this_run, session, session_any or always")
	reason := fs.String("reason", "", "why, for the audit log")
	runs := fs.String("runs", "", "for allow: how the call runs, "+api.RunConfined+" or "+api.RunUnconfined+" (default: the first `agate approvals` shows)")
	ids, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return usagef("which call? give one or more approval ids (see `agate approvals`)")
	}
	var v policy.Verdict
	switch *decision {
	case "allow", "approve":
		v = policy.Allow
	case "deny":
		v = policy.Deny
	default:
		return usagef("--decision must be allow or deny")
	}
	sc, err := api.ParseScope(*scope)
	if err != nil {
		return usageErr(err)
	}
	if *runs != "" && *runs != api.RunConfined && *runs != api.RunUnconfined {
		return usagef("--runs must be %s or %s", api.RunConfined, api.RunUnconfined)
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	res, err := (&api.Client{Socket: paths.Socket}).Answer(ctx, &api.AnswerRequest{IDs: ids, Answer: api.Answer{Decision: v, Scope: sc, Reason: *reason, Via: "terminal", Runs: *runs}})
	if err != nil {
		return err
	}
	for _, id := range res.Answered {
		fmt.Fprintf(e.Stdout, "[%s] %s\n", id, *decision)
	}
	for id, why := range res.Missing {
		fmt.Fprintf(e.Stderr, "[%s] %s\n", id, why)
	}
	if len(res.Missing) > 0 {
		return &exitError{code: exitFailure, err: errSilent}
	}
	return nil
}
