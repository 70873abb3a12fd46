package cli

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "tokens",
		args:    "[add NAME [--user USER|UID] [--project DIR] [--mode MODE] [--expires DURATION|DATE] | remove NAME]",
		summary: "scoped tokens for callers that are not you (a CI runner's user, a service): list, add (shown once) or revoke",
		run:     cmdTokens,
	})
}

func cmdTokens(ctx context.Context, e *Env, args []string) error {
	verb := ""
	if len(args) > 0 && (args[0] == "add" || args[0] == "remove" || args[0] == "list") {
		verb, args = args[0], args[1:]
	}
	fs := newFlags(e, "tokens")
	var cf configFlags
	cf.add(fs)
	who := fs.String("user", "", "the user (name or uid) that may present the token (default: you)")
	project := fs.String("project", "", "the only folder the token's calls are decided in")
	mode := fs.String("mode", "", "a floor on the mode its calls are decided in (ask, accept_edits, manual, plan)")
	expires := fs.String("expires", "", "when it stops working: a duration (24h, 30d) or a date (2027-01-31)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	path := tokens.Path(paths.State)
	switch verb {
	case "", "list":
		if len(pos) > 0 {
			return usagef("usage: agate tokens [add NAME ... | remove NAME]")
		}
		list, err := tokens.Load(path)
		if err != nil {
			return err
		}
		containers := 0
		list = slices.DeleteFunc(list, func(t tokens.Token) bool {
			if t.Container {
				containers++
			}
			return t.Container
		})
		if containers > 0 {
			defer fmt.Fprintf(e.Stdout, "(and %d dev containers' tokens: agate container)\n", containers)
		}
		if len(list) == 0 {
			fmt.Fprintln(e.Stdout, "no tokens (agate tokens add NAME makes one)")
			return nil
		}
		tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tUID\tPROJECT\tMODE\tCREATED\tEXPIRES")
		for _, t := range list {
			exp := "never"
			if !t.Expires.IsZero() {
				exp = t.Expires.Local().Format(time.DateTime)
				if !time.Now().Before(t.Expires) {
					exp += " (expired)"
				}
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", t.Name, t.UID, orDash(t.Project), orDash(t.Mode), t.Created.Local().Format(time.DateTime), exp)
		}
		tw.Flush()
		fmt.Fprintf(e.Stdout, "\nsocket: %s\n", paths.TokenSocket)
		return nil
	case "remove":
		if len(pos) != 1 {
			return usagef("usage: agate tokens remove NAME")
		}
		list, err := tokens.Load(path)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(list, func(t tokens.Token) bool { return t.Name == pos[0] && t.Container }) {
			return fmt.Errorf("%s is a dev container's token: agate container remove %s", pos[0], pos[0])
		}
		if err := tokens.Remove(ctx, path, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "revoked %s: the daemon refuses it from its next request\n", pos[0])
		return nil
	}
	if len(pos) != 1 {
		return usagef("usage: agate tokens add NAME [--user USER|UID] [--project DIR] [--mode MODE] [--expires DURATION|DATE]")
	}
	t := tokens.Token{Name: pos[0], UID: selfUID()}
	if *who != "" {
		if t.UID, err = lookupUID(*who); err != nil {
			return usageErr(err)
		}
	}
	if *project != "" {
		if t.Project, err = filepath.Abs(*project); err != nil {
			return usageErr(err)
		}
	}
	if *mode != "" {
		m, err := policy.ParseMode(*mode)
		if err != nil || m == policy.ModeYolo {
			return usagef("--mode: want ask, accept_edits, manual or plan (a token's mode only tightens)")
		}
		t.Mode = *mode
	}
	now := time.Now()
	if *expires != "" {
		if t.Expires, err = parseExpiry(*expires, now); err != nil {
			return usageErr(err)
		}
	}
	secret, err := tokens.Add(ctx, path, t, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "token %s, for uid %d: shown this once, stored only as its hash:\n\n  %s\n\n", t.Name, t.UID, secret)
	fmt.Fprintf(e.Stdout, "The caller reaches the daemon on its tokens' socket with it:\n\n  AGATE_SOCKET=%s AGATE_TOKEN=%s agate-hook hook claude-code\n\n", paths.TokenSocket, secret)
	fmt.Fprintln(e.Stdout, "It may decide calls and report their outcomes, never answer approvals, change grants or reload the config;")
	fmt.Fprintln(e.Stdout, "with nobody at agate's popup, what asks is denied. `agate tokens remove "+t.Name+"` revokes it.")
	return nil
}

// parseExpiry reads --expires: a duration ("24h", "30d") from now, or a
// date or time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if n, ok := cutSuffixInt(s, "d"); ok && n > 0 {
		return now.Add(time.Duration(n) * 24 * time.Hour), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			if !t.After(now) {
				return time.Time{}, fmt.Errorf("--expires %s is in the past", s)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--expires %q: want a duration (24h, 30d) or a date (2027-01-31)", s)
}

func cutSuffixInt(s, suffix string) (int, bool) {
	if len(s) <= len(suffix) || s[len(s)-len(suffix):] != suffix {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-len(suffix)])
	return n, err == nil
}

// lookupUID is a user's uid, by name or number.
func lookupUID(who string) (int, error) {
	if n, err := strconv.Atoi(who); err == nil && n >= 0 {
		return n, nil
	}
	u, err := user.Lookup(who)
	if err != nil {
		return 0, fmt.Errorf("--user %s: %w", who, err)
	}
	return strconv.Atoi(u.Uid)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// selfUID is the running user's uid (-1 where there is none: Windows).
func selfUID() int { return os.Getuid() }
