package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
)

func init() {
	register(&command{
		name:    "status",
		args:    "[--json]",
		summary: "show the daemon's state: mode, config and its last error, who can be asked, counts",
		run:     cmdStatus,
	})
}

func cmdStatus(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "status")
	var cf configFlags
	cf.add(fs)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	paths, err := cf.paths()
	if err != nil {
		return usageErr(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := (&api.Client{Socket: paths.Socket}).Status(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintf(e.Stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintf(e.Stdout, "agate %s, pid %d, up %s\n", st.Version, st.PID, time.Since(st.Started).Round(time.Second))
	fmt.Fprintf(e.Stdout, "  socket:     %s\n", st.Socket)
	fmt.Fprintf(e.Stdout, "  mode:       %s\n", st.Mode)
	fmt.Fprintf(e.Stdout, "  config:     %s (loaded %s)\n", st.PolicySource, st.LoadedAt.Local().Format(time.TimeOnly))
	if st.ConfigError != "" {
		fmt.Fprintf(e.Stdout, "  CONFIG ERROR (the last good policy is in force):\n    %s\n", strings.ReplaceAll(st.ConfigError, "\n", "\n    "))
	}
	printManaged(e.Stdout, "  managed:    ", st.Managed)
	printExport(e.Stdout, "  export:     ", st.Export)
	printContainers(e.Stdout, "  container:  ", st.Containers)
	who := "nobody (asks go to the agent's own prompt, or are denied)"
	if len(st.Prompters) > 0 {
		who = strings.Join(st.Prompters, ", ")
	}
	fmt.Fprintf(e.Stdout, "  asks:       %s\n", who)
	fmt.Fprintf(e.Stdout, "  pending:    %d\n", st.Pending)
	fmt.Fprintf(e.Stdout, "  sessions:   %d\n", st.Sessions)
	keys := make([]string, 0, len(st.Counts))
	for k := range st.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, st.Counts[k]))
	}
	fmt.Fprintf(e.Stdout, "  decisions:  %s\n", strings.Join(orNone(parts), " "))
	fmt.Fprintf(e.Stdout, "  audit log:  %s\n", st.AuditLog)
	if st.Sandbox != nil {
		b, _ := json.Marshal(st.Sandbox)
		fmt.Fprintf(e.Stdout, "  sandbox:    %s\n", b)
	}
	if st.ConfineUnasked != "" {
		fmt.Fprintf(e.Stdout, "  unasked:    %s\n", st.ConfineUnasked)
	}
	if st.LeaksError != "" {
		fmt.Fprintf(e.Stdout, "  LEAKS:      the record cannot be read: %s\n", st.LeaksError)
	}
	for _, l := range st.Leaks {
		fmt.Fprintf(e.Stdout, "  LEAKED:     %s: rotate it (agate doctor says how)\n", leakLine(&l))
	}
	for _, p := range st.Proxies {
		fmt.Fprintf(e.Stdout, "  mcp proxy:  %s for %s (pid %d, started by pid %d, %d tools, since %s)\n",
			p.Server, cmp.Or(p.Client, "an MCP client"), p.PID, p.ClientPID, p.Tools, p.Since.Local().Format(time.TimeOnly))
	}
	return nil
}

// printExport says how the audit export stands, after head; nothing
// when none is configured.
func printExport(w io.Writer, head string, x *api.ExportStatus) {
	if x == nil {
		return
	}
	sent := "nothing sent yet"
	if !x.LastSent.IsZero() {
		sent = "last sent " + x.LastSent.Local().Format(time.DateTime)
	}
	fmt.Fprintf(w, "%sto %s: delivered to record %d, %s", head, x.Endpoint, x.Delivered, sent)
	if x.Waiting > 0 {
		fmt.Fprintf(w, ", %d waiting", x.Waiting)
	}
	fmt.Fprintln(w)
	if x.LastError != "" {
		fmt.Fprintf(w, "%s  FAILING since %s (the records wait in the log): %s\n", strings.Repeat(" ", len(head)), x.LastErrorAt.Local().Format(time.DateTime), firstLine(x.LastError))
	}
}

// printContainers lists the dev containers' sockets, after head.
func printContainers(w io.Writer, head string, cs []api.ContainerStatus) {
	for _, c := range cs {
		state := "socket open"
		if !c.Open {
			state = "SOCKET NOT OPEN: " + cmp.Or(c.Error, "not yet")
		}
		fmt.Fprintf(w, "%s%s: %s, seen inside at %s (%s)\n", head, c.Name, c.Project, c.Inside, state)
	}
}

// printManaged says what the managed policy does, after head; nothing
// when there is none.
func printManaged(w io.Writer, head string, m *api.ManagedStatus) {
	if m == nil {
		return
	}
	pad := strings.Repeat(" ", len(head))
	if !m.InForce {
		fmt.Fprintf(w, "%s%s is NOT in force, so agate fails closed (manual mode, yolo off):\n%s  %s\n", head, m.File, pad, strings.ReplaceAll(m.Error, "\n", "\n  "+pad))
		return
	}
	fmt.Fprintf(w, "%s%s is in force (set by your organization): %d key(s) locked\n", head, m.File, len(m.Locked))
	for _, r := range m.Refused {
		fmt.Fprintf(w, "%s  %s\n", pad, r)
	}
}
