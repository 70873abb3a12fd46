package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/app/mcp/clients"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "mcp",
		args:    "run [--name NAME] -- COMMAND [ARGS...] | run --name NAME (--url URL | --url-env VAR) [--sse] [--header \"Name: value\"]... [--header-env Name=VAR]... | install CLIENT [--project DIR] | uninstall CLIENT [--project DIR]",
		summary: "gate an MCP server's tool calls: run it through agate, or rewrite a client's servers to run through it (and back)",
		run:     runMCP,
	})
}

func runMCP(ctx context.Context, e *Env, args []string) error {
	if len(args) == 0 {
		return usagef("name a subcommand: run, install or uninstall")
	}
	switch args[0] {
	case "run":
		return mcpRun(ctx, e, args[1:])
	case "install":
		return mcpInstall(ctx, e, args[1:], false)
	case "uninstall":
		return mcpInstall(ctx, e, args[1:], true)
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(e.Stderr, "usage: agate mcp %s\n", commands["mcp"].args)
		return nil
	}
	return usagef("unknown subcommand %q (want run, install or uninstall)", args[0])
}

// splitCommand parses `run`'s flags, which come before the server's
// command: everything after "--", or from the first argument that is
// not a flag, is the command, untouched.
func splitCommand(args []string) (flags, command []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[:i], args[i+1:]
		case !strings.HasPrefix(a, "-"):
			return args[:i], args[i:]
		case !strings.Contains(a, "=") && i+1 < len(args) && takesValue(a):
			i++
		}
	}
	return args, nil
}

// takesValue reports whether a flag of `mcp run` takes the next
// argument as its value.
func takesValue(flag string) bool {
	switch strings.TrimLeft(flag, "-") {
	case "name", "config", "socket", "pass-env", "url", "url-env", "header", "header-env":
		return true
	}
	return false
}

func mcpRun(ctx context.Context, e *Env, args []string) error {
	fs := newFlags(e, "mcp")
	name := fs.String("name", "", "the server's name in agate's policy (mcp__NAME__TOOL); default: from the command")
	var passEnv stringList
	fs.Var(&passEnv, "pass-env", "a `variable` the client sets for the server, passed in when the server runs confined although its name says it is a credential; repeat for more")
	remote := fs.String("url", "", "a remote server's MCP endpoint (Streamable HTTP), in place of a command")
	sse := fs.Bool("sse", false, "the remote server speaks MCP's older HTTP+SSE transport: --url is its event stream")
	var headers stringList
	fs.Var(&headers, "header", "a `header` sent to the remote server, \"Name: value\", with ${VAR} taken from the environment; repeat for more")
	urlEnv := fs.String("url-env", "", "the `variable` that holds the remote server's URL, in place of --url (out of the command line, which any process can read)")
	var headerEnv stringList
	fs.Var(&headerEnv, "header-env", "a header sent to the remote server whose value is a variable's, `Name=VAR`; repeat for more")
	var cf configFlags
	cf.add(fs)
	flagArgs, command := splitCommand(args)
	if err := fs.Parse(flagArgs); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usagef("run: unexpected %q before the server's command", fs.Arg(0))
	}
	if *remote != "" || *urlEnv != "" || len(headers) > 0 || len(headerEnv) > 0 || *sse {
		if len(command) > 0 {
			return usagef("run: --url or a command, not both")
		}
		for i, kv := range headerEnv {
			// Name=VAR is "Name: ${VAR}": the variable's value whole,
			// itself never expanded again.
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(k, ": \t\r\n") || !policy.ValidEnvName(v) {
				return usagef("run: --header-env number %d: want Name=VAR", i+1)
			}
			headers = append(headers, k+": ${"+v+"}")
		}
		return mcpRunRemote(ctx, e, &cf, *name, remoteURL{raw: *remote, env: *urlEnv}, headers, passEnv, *sse)
	}
	if len(command) == 0 {
		return usagef("run: no server command (agate mcp run [--name NAME] -- COMMAND [ARGS...])")
	}
	if *name == "" {
		*name = mcp.DefaultName(command)
	}
	if err := mcp.ValidName(*name); err != nil {
		return usageErr(err)
	}
	paths, cwd, err := proxyPlace(&cf)
	if err != nil {
		return err
	}
	server := mcpServerConfig(paths, *name, e.Stderr)
	if err := managedAllows(server.cfg, serverIdentities(command)...); err != nil {
		fmt.Fprintf(e.Stderr, "agate mcp run: %v\n", err)
		return &exitError{code: 126, err: errSilent}
	}
	env := serverEnv(os.Environ(), server.scrub)
	if _, listed := server.cfg.ManagedLayer().MCPServers(); listed {
		env = withoutInjection(env)
	}
	home, _ := os.UserHomeDir()
	var cmd *exec.Cmd
	if prof := mcpProfile(server.cfg, *name, command, cwd, home, passEnv); prof.confine {
		if cmd, err = confinedServer(ctx, server.cfg, paths, prof, command, cwd, home, env, e.Stderr); err != nil {
			fmt.Fprintf(e.Stderr, "agate mcp run: %v\n", err)
			return &exitError{code: 127, err: errSilent}
		}
	}
	gate := newDaemonGate(&api.Client{Socket: paths.Socket}, cwd, e.Stderr)
	server.secrets = &resultSecrets{g: gate}
	defer keepPipe()()
	code, err := mcp.Run(ctx, mcp.Options{
		Name:    *name,
		Command: command,
		Env:     env,
		Cmd:     cmd,
		Stdin:   e.Stdin,
		Stdout:  e.Stdout,
		Stderr:  e.Stderr,
		Gate:    gate,
		Secrets: server.secrets,
		PII:     server.pii,
	})
	return proxyEnded(e, code, err)
}

// proxyPlace is where a proxy runs: agate's paths and the working
// folder.
func proxyPlace(cf *configFlags) (api.Paths, string, error) {
	paths, err := cf.paths()
	if err != nil {
		return api.Paths{}, "", usageErr(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return api.Paths{}, "", fmt.Errorf("run: the working folder: %w", err)
	}
	return paths, cwd, nil
}

// keepPipe makes a client that closes its end fail the proxy's writes to
// stdout with EPIPE, not kill it with SIGPIPE (which would leave a server
// running): the proxy then ends the server. It returns the undo.
func keepPipe() func() {
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return func() { signal.Stop(pipe) }
}

// proxyEnded reports how a proxy ended: its error on stderr (a
// cancellation is no error), its status as the command's.
func proxyEnded(e *Env, code int, err error) error {
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(e.Stderr, "agate mcp run: %v\n", err)
	}
	if code != 0 {
		return &exitError{code: code, err: errSilent}
	}
	return nil
}

// mcpRunRemote is `agate mcp run --url URL`: the proxy in front of a
// remote server, gated as a stdio one is.
func mcpRunRemote(ctx context.Context, e *Env, cf *configFlags, name string, where remoteURL, headers, passEnv []string, sse bool) error {
	switch {
	case where.raw == "" && where.env == "":
		return usagef("run: --header and --sse need --url")
	case where.raw != "" && where.env != "":
		return usagef("run: --url or --url-env, not both")
	}
	if name == "" {
		return usagef("run: a remote server needs --name NAME (its tools are mcp__NAME__TOOL)")
	}
	if err := mcp.ValidName(name); err != nil {
		return usageErr(err)
	}
	paths, cwd, err := proxyPlace(cf)
	if err != nil {
		return err
	}
	server := mcpServerConfig(paths, name, e.Stderr)
	lookup := headerLookup(server.scrub, passEnv, os.LookupEnv)
	rawURL, flagName := where.raw, "--url"
	if where.env != "" {
		flagName = "--url-env " + where.env
		if !policy.ValidEnvName(where.env) {
			return usagef("run: --url-env: %q is not a variable's name", where.env)
		}
		if rawURL, err = lookup(where.env); err != nil {
			return usagef("run: --url-env: %v", err)
		}
	}
	// (Neither the URL nor a header is echoed: either may hold a key.)
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return usagef("run: %s: want an http:// or https:// URL", flagName)
	}
	if err := managedAllows(server.cfg, u.String()); err != nil {
		fmt.Fprintf(e.Stderr, "agate mcp run: %v\n", err)
		return &exitError{code: 126, err: errSilent}
	}
	h := http.Header{}
	for i, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
			return usagef("run: --header number %d: want \"Name: value\"", i+1)
		}
		val, err := mcp.ExpandHeader(strings.TrimSpace(v), lookup)
		if err != nil {
			return usagef("run: --header %s: %v", k, err)
		}
		h.Add(k, val)
	}
	gate := newDaemonGate(&api.Client{Socket: paths.Socket}, cwd, e.Stderr)
	server.secrets = &resultSecrets{g: gate}
	defer keepPipe()()
	code, err := mcp.RunRemote(ctx, mcp.Options{
		Name:    name,
		Stdin:   e.Stdin,
		Stdout:  e.Stdout,
		Stderr:  e.Stderr,
		Gate:    gate,
		Secrets: server.secrets,
		PII:     server.pii,
	}, mcp.Remote{URL: u, Header: h, SSE: sse})
	return proxyEnded(e, code, err)
}

// managedAllows says why the managed policy does not let the server that
// ids say it is run (its npm package, its program's path, its URL), nil
// when it does. (The URL is not echoed: it may hold a key.)
func managedAllows(cfg *policy.Config, ids ...string) error {
	m := cfg.ManagedLayer()
	if m.AllowsMCPServer(ids...) {
		return nil
	}
	list, _ := m.MCPServers()
	allowed := strings.Join(list, ", ")
	if allowed == "" {
		allowed = "none"
	}
	return fmt.Errorf("the managed policy (%s) does not allow this MCP server; it allows %s", m.Source, allowed)
}

// serverIdentities are what a server's command runs, as the managed
// policy's mcp_servers name servers: its npm package, and the absolute
// path of the program it starts when that is not npx, npm or node.
func serverIdentities(command []string) []string {
	if pkg, ok := mcp.PackageOf(command); ok {
		// The runner (npx, npm, node) must be one the person cannot have
		// replaced: a program of that name in a folder of theirs could run
		// anything.
		if !rootRunner(command[0]) {
			return nil
		}
		return []string{pkg}
	}
	switch strings.TrimSuffix(filepath.Base(command[0]), ".exe") {
	case "npx", "npm", "node", "uvx", "uv", "python", "python3", "pipx", "docker", "podman", "sh", "bash", "env":
		return nil // a runner of something else: not the server
	}
	if p, err := exec.LookPath(command[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil {
				return []string{abs, r}
			}
			return []string{abs}
		}
	}
	return nil
}

// rootRunner reports whether prog, found on PATH and its links followed,
// is a file root owns that no one else may write.
func rootRunner(prog string) bool {
	p, err := exec.LookPath(prog)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	fi, err := os.Stat(real)
	return err == nil && ownedByRoot(fi) && fi.Mode().Perm()&0o022 == 0
}

// remoteURL is where a remote server is: the URL as given (--url), or
// the variable that holds it (--url-env).
type remoteURL struct{ raw, env string }

// headerLookup is the variables a remote server's --header may name: any
// the client set, but agate's own (AGATE_*: the key store's passphrase,
// the socket) never, and the config's secrets (scrub) only when passEnv
// names them, as for a confined server's environment.
func headerLookup(scrub, passEnv []string, getenv func(string) (string, bool)) func(string) (string, error) {
	// Names are compared in upper case: Windows reads ${agate_x} as
	// AGATE_X.
	pass := make(map[string]bool, len(passEnv))
	for _, p := range passEnv {
		pass[strings.ToUpper(p)] = true
	}
	secret := make(map[string]bool, len(scrub))
	for _, s := range scrub {
		secret[strings.ToUpper(s)] = true
	}
	return func(name string) (string, error) {
		up := strings.ToUpper(name)
		switch {
		case strings.HasPrefix(up, "AGATE_"):
			return "", fmt.Errorf("${%s} is agate's own, never sent to a server", name)
		case secret[up] && !pass[up]:
			return "", fmt.Errorf("${%s} is a secret of agate's config; name it with --pass-env %s if this server is to have it", name, name)
		}
		v, ok := getenv(name)
		if !ok {
			return "", fmt.Errorf("${%s} is not set", name)
		}
		return v, nil
	}
}

// serverEnv is the proxy's environment without agate's own variables
// (AGATE_*: the key store's passphrase, the socket, the state folder)
// and without scrub (the config's secrets and vault credentials): the
// server is not agate's to trust with them. What the client sets for
// the server itself (its config's "env") stays.
func serverEnv(env, scrub []string) []string {
	drop := make(map[string]bool, len(scrub))
	for _, s := range scrub {
		drop[s] = true
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(k), "AGATE_") || drop[k] {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// mcpInstall is `agate mcp install` and `agate mcp uninstall`.
func mcpInstall(ctx context.Context, e *Env, args []string, undo bool) error {
	verb := "install"
	if undo {
		verb = "uninstall"
	}
	fs := newFlags(e, "mcp")
	project := fs.String("project", "", "the project folder whose config to edit (default: the user's)")
	withRemote := fs.Bool("remote", true, "run remote (HTTP and SSE) servers through agate's bridge too; -remote=false leaves them as they are")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s: name one client (%s)", verb, strings.Join(clients.Clients(), ", "))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	proj := *project
	if proj != "" {
		if proj, err = filepath.Abs(proj); err != nil {
			return usageErr(err)
		}
	}
	targets, err := clients.Targets(pos[0], home, proj, nil)
	if err != nil {
		return usageErr(err)
	}
	var opts clients.Options
	if !undo {
		if opts.Agate, err = agateBinary(); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	var remote []clients.Server
	failed, changed := false, false
	for _, t := range targets {
		var res clients.Result
		if undo {
			res, err = clients.Uninstall(t)
		} else {
			opts.Leave = leaveRemote(ctx, e, t, *withRemote)
			res, err = clients.Install(t, opts)
		}
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s: %v\n", t.File, err)
			failed = true
			continue
		}
		printInstall(e, res, undo)
		remote = append(remote, res.Remote...)
		changed = changed || res.Changed
	}
	if len(remote) > 0 {
		fmt.Fprintln(e.Stdout, "\nNot gated by agate (remote servers left as they are):")
		for _, s := range remote {
			why := s.Why
			if why == "" {
				why = "it does not run through agate"
			}
			fmt.Fprintf(e.Stdout, "  %s: %s: %s\n", s.Key, shownURL(s.URL), why)
		}
	}
	if failed {
		return &exitError{code: exitFailure, err: errSilent}
	}
	if changed {
		other := "uninstall"
		if undo {
			other = "install"
		}
		fmt.Fprintf(e.Stdout, "\nRestart %s for its servers to start as they are now. `agate mcp %s %s` undoes it.\n", pos[0], other, pos[0])
	}
	return nil
}

// probeTimeout bounds how long install waits for a remote server to
// answer its probe.
const probeTimeout = 10 * time.Second

// leaveRemote is Install's Leave for t: why each remote server is to
// stay as it is. A server sent no headers may sign in with OAuth, which
// only its client can do: it is asked first (an initialize, or its SSE
// stream opened), and left as it is when it wants a sign-in or cannot
// be reached. One sent a header has its token in the config: it runs
// through agate's bridge with it.
func leaveRemote(ctx context.Context, e *Env, t clients.Target, with bool) func(clients.Server) string {
	if !with {
		return func(clients.Server) string { return "left as it is (-remote=false)" }
	}
	verdict := map[string]string{}
	ins, err := clients.Inspect(t)
	if err != nil {
		return nil // Install reports the file's error
	}
	for _, s := range ins.Remote {
		if s.Why != "" || len(s.Headers) > 0 || strings.ContainsAny(s.URL, "${") {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		fmt.Fprintf(e.Stderr, "asking %s (%s) whether it signs in...\n", s.Key, shownURL(s.URL))
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err = mcp.ProbeRemote(pctx, mcp.Remote{URL: u, SSE: s.SSE})
		cancel()
		switch {
		case errors.Is(err, mcp.ErrSignIn):
			verdict[s.Where+"\x00"+s.Key] = "it signs in (OAuth), which only the client can do: its tools are not gated"
		case err != nil:
			verdict[s.Where+"\x00"+s.Key] = fmt.Sprintf("agate could not ask it whether it signs in (%v): run the install again once it answers", err)
		}
	}
	return func(s clients.Server) string { return verdict[s.Where+"\x00"+s.Key] }
}

// shownURL is a URL without its query, which may hold a key.
func shownURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}

// printInstall says what one file's edit did.
func printInstall(e *Env, res clients.Result, undo bool) {
	switch {
	case !res.Exists:
		fmt.Fprintf(e.Stdout, "%s: not there, nothing to do\n", res.File)
		return
	case res.Changed:
		fmt.Fprintf(e.Stdout, "%s (backup: %s)\n", res.File, res.Backup)
	default:
		fmt.Fprintf(e.Stdout, "%s: unchanged\n", res.File)
	}
	for _, s := range res.Rewritten {
		if undo {
			fmt.Fprintf(e.Stdout, "  %s: runs %s again, not through agate\n", s.Key, strings.Join(s.Now, " "))
		} else if s.URL != "" {
			fmt.Fprintf(e.Stdout, "  %s: now reached through agate's bridge as %s (mcp__%s__*)\n", s.Key, s.Name, s.Name)
		} else {
			fmt.Fprintf(e.Stdout, "  %s: now runs through agate as %s (mcp__%s__*)\n", s.Key, s.Name, s.Name)
		}
	}
	for _, s := range res.Proxied {
		if undo {
			fmt.Fprintf(e.Stdout, "  %s: does not run through agate\n", s.Key)
		} else {
			fmt.Fprintf(e.Stdout, "  %s: already runs through agate\n", s.Key)
		}
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(e.Stdout, "  %s: left as it is: %s\n", s.Key, s.Why)
	}
}

// agateBinary is the path of the running agate, links resolved: what
// the clients are to start.
func agateBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the agate binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// withoutInjection is env without the variables that load other code
// into a server agate let run by what it is (NODE_OPTIONS, npm's config,
// the dynamic loader's preloads).
func withoutInjection(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if u == "NODE_OPTIONS" || u == "NODE_PATH" || strings.HasPrefix(u, "NPM_CONFIG_") || strings.HasPrefix(u, "LD_") || strings.HasPrefix(u, "DYLD_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
