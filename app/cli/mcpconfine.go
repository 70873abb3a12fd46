package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/app/mcp"
	"github.com/agatehq/agate/policy"
	"github.com/agatehq/agate/sandbox"
)

// serverProfile is how `agate mcp run` starts a server: confined or not,
// and in the sandbox with what.
type serverProfile struct {
	confine  bool
	explicit bool   // [mcp.servers.NAME] confine = true: never unconfined
	why      string // why it is confined, for the note on stderr
	net      bool
	writable []string // folders it may write
	files    []string // files it may write (what its variables name)
	keepEnv  []string
	launch   mcp.Launch // the catalog's entry, when it knows the server
	known    bool
}

// mcpProfile works out a server's profile from the config, agate's
// catalog of servers (mcp.KnownServer) and where its program lives. A
// server is confined when [mcp.servers.NAME] confine says so; unset, when
// the catalog knows it, or when its program (or the script an
// interpreter runs) lies in the project, which makes it the project's own
// code: then the project is writable to it, as to the project's code an
// agent runs. passEnv are the --pass-env names.
func mcpProfile(cfg *policy.Config, name string, command []string, cwd, home string, passEnv []string) serverProfile {
	var sc policy.MCPServer
	if cfg != nil {
		sc = cfg.MCP.Servers[name]
	}
	p := serverProfile{net: sc.Network}
	p.launch, p.known = mcp.KnownServer(command)
	project := projectRoot(cwd, home)
	fromProject := project != "" && serverInProject(command, cwd, project)
	if fromProject && p.launch.Spec == "" {
		// A program of the project named as a server agate knows is the
		// project's code, with none of the catalog's rights.
		p.known = false
	}
	switch {
	case sc.Confine != nil:
		p.confine, p.explicit = *sc.Confine, *sc.Confine
		p.why = "[mcp.servers." + name + "] confine = true"
	case p.known:
		p.confine, p.why = true, "agate's catalog knows "+p.launch.Package
	case fromProject:
		p.confine, p.why = true, "it runs from the project ("+project+"): the project's own code"
	}
	if !p.confine {
		return p
	}
	if p.known {
		p.net = p.net || p.launch.Network
		for _, f := range p.launch.ServedFolders() {
			p.writable = append(p.writable, absFrom(cwd, home, f))
		}
		for _, v := range p.launch.Writes {
			if f := os.Getenv(v); f != "" {
				p.files = append(p.files, absFrom(cwd, home, f))
			}
		}
		p.keepEnv = append(p.keepEnv, p.launch.Env...)
	}
	if fromProject {
		p.writable = append(p.writable, project)
	}
	for _, w := range sc.Writable {
		p.writable = append(p.writable, absFrom(cwd, home, w))
	}
	p.keepEnv = append(append(p.keepEnv, sc.PassEnv...), passEnv...)
	p.keepEnv = slices.DeleteFunc(p.keepEnv, func(k string) bool { return strings.HasPrefix(strings.ToUpper(k), "AGATE_") })
	return p
}

// absFrom makes a path a server was given absolute: "~/" from home, a
// relative one from the folder the server starts in.
func absFrom(cwd, home, p string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/") && home != "":
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// projectRoot is the project a server starts in: the git work tree that
// holds cwd, else cwd itself, but never the home folder or / (a client
// started there has no project).
func projectRoot(cwd, home string) string {
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			if d == home || d == "/" {
				return ""
			}
			return d
		}
		if d == filepath.Dir(d) || d == home {
			break
		}
	}
	if cwd == home || cwd == "/" {
		return ""
	}
	return cwd
}

// interpreters run the script named by their first operand.
var interpreters = map[string]bool{"node": true, "python": true, "python3": true, "deno": true, "bun": true,
	"sh": true, "bash": true, "ruby": true, "perl": true, "tsx": true, "ts-node": true}

// serverInProject reports whether the server's program, or the script an
// interpreter is given, lies in the project.
func serverInProject(command []string, cwd, project string) bool {
	if len(command) == 0 {
		return false
	}
	paths := []string{command[0]}
	if interpreters[strings.TrimSuffix(filepath.Base(command[0]), ".exe")] {
		for _, a := range command[1:] {
			if !strings.HasPrefix(a, "-") {
				paths = append(paths, a)
				break
			}
		}
	}
	for _, p := range paths {
		abs := absFrom(cwd, "", p)
		if !strings.ContainsRune(p, filepath.Separator) {
			// Found on the PATH, which may hold a folder of the project
			// (its node_modules/.bin).
			found, err := exec.LookPath(p)
			if err != nil {
				continue
			}
			if abs, err = filepath.Abs(found); err != nil {
				continue
			}
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		if r, err := filepath.EvalSymlinks(project); err == nil && pathUnder(abs, r) {
			return true
		}
		if pathUnder(abs, project) {
			return true
		}
	}
	return false
}

// pathUnder reports whether path is dir or below it.
func pathUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// errNotConfinable is why a server that must be confined is not started.
var errNotConfinable = errors.New("the server must run confined, and agate's sandbox cannot run here")

// errBadProfile is why a server whose confinement agate cannot cut as its
// command asks is not started: never started unconfined instead.
var errBadProfile = errors.New("agate will not start this server")

// confinedServer prepares the server's command inside the sandbox: the
// folder the client starts it in read-only (its start), the profile's
// folders writable, the network only when the profile has it, of home
// only the toolchains and git's config (without credentials), the secret
// stores and agate's state hidden, the environment scrubbed but for the
// variables the profile keeps. A server npx would download is installed
// first, unconfined but running none of its code (mcp.Fetch). It returns
// nil, and says why on stderr, when the server runs unconfined instead:
// only where the profile is not explicit.
func confinedServer(ctx context.Context, cfg *policy.Config, paths api.Paths, prof serverProfile, command []string,
	cwd, home string, env []string, stderr io.Writer) (*exec.Cmd, error) {
	// Only where the OS's own sandbox is missing does a server confined
	// by default run as before; a profile agate will not cut (a folder
	// that is all of home, a protected file, a package it could not
	// fetch) refuses, whatever asked for it.
	fallback := func(err error) (*exec.Cmd, error) {
		if prof.explicit {
			return nil, fmt.Errorf("%w: %v", errNotConfinable, err)
		}
		fmt.Fprintf(stderr, "agate mcp run: not confined: %v; the server runs with all your rights (as before agate confined servers)\n", err)
		return nil, nil
	}
	refuse := func(format string, args ...any) (*exec.Cmd, error) {
		return nil, fmt.Errorf("%w: %s; [mcp.servers.NAME] confine = false runs it with all your rights", errBadProfile, fmt.Sprintf(format, args...))
	}
	if runtime.GOOS != "linux" || cfg == nil {
		return fallback(errors.New("agate confines MCP servers only on Linux for now"))
	}
	argv := command
	if prof.known && prof.launch.Spec != "" {
		// The person's own cache, not one the client's environment for
		// the server names (XDG_CACHE_HOME, HOME from a project's
		// .mcp.json).
		u, err := user.Current()
		if err != nil || !filepath.IsAbs(u.HomeDir) {
			return refuse("no home folder to keep the server's package in: %v", err)
		}
		bin, err := mcp.Fetch(ctx, filepath.Join(u.HomeDir, ".cache", "agate", "mcp"), prof.launch.Spec, prof.launch.Bin)
		if err != nil {
			return refuse("its package could not be made ready to run confined: %v", err)
		}
		argv = append([]string{bin}, prof.launch.Args...)
		if prof.launch.WritesPackage && !writesSet(prof.launch) {
			prof.writable = append(prof.writable, filepath.Join(filepath.Dir(filepath.Dir(bin)), filepath.FromSlash(prof.launch.Package)))
		}
	}
	pol, err := policy.Compile(cfg, machine.PolicyOptions(paths))
	if err != nil {
		return refuse("the config: %v", err)
	}
	o := machine.KernelOptions(machine.SandboxOptions(cfg, paths, cwd))
	o.ReadOnlyWork, o.Dir, o.Net, o.Env, o.KeepEnv = true, cwd, prof.net, env, prof.keepEnv
	for _, w := range prof.writable {
		if w == "/" || home != "" && pathUnder(home, w) {
			return refuse("it would write all of your home folder (%s): a confined server serves folders inside it", w)
		}
		if ref, ok := pol.ProtectedWrite(w); ok {
			return refuse("it would write %s, whose writes ask (%s)", w, ref.Text)
		}
		if fi, err := os.Stat(w); err == nil && fi.IsDir() {
			o.Writable = append(o.Writable, w)
		}
	}
	// A file it writes (its memory) is writable alone, made empty first
	// when it is not there yet; never one whose writes ask.
	for _, f := range prof.files {
		if ref, ok := pol.ProtectedWrite(f); ok {
			return refuse("it would write %s, whose writes ask (%s)", f, ref.Text)
		}
		if fh, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fh.Close()
		}
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			o.Writable = append(o.Writable, f)
		} else {
			return refuse("it would write %s, which is not a file agate can give it", f)
		}
	}
	// What the server serves it sees whole (a filesystem server given ~
	// reads ~/Documents), but for the credential stores; the rest of home
	// but the toolchains is out of sight. In what it may write, the paths
	// whose writes ask (rc files, hooks, agents' settings) stay read-only.
	protect := append(policy.ProtectedPaths(), cfg.ProtectedPaths()...)
	protectHome := "" // home's rc files and the like, where home is writable
	if home != "" && slices.ContainsFunc(o.Writable, func(w string) bool { return pathUnder(home, w) }) {
		protectHome = home
	}
	for _, w := range o.Writable {
		o.Protected = append(o.Protected, sandbox.DefaultProtected(w, protectHome, protect)...)
	}
	o.JudgedHome(home, "", o.Writable, os.Getenv)
	// The server's own code shows, read-only, wherever it lives: in the
	// private /tmp, or in a folder of home the sandbox hides (~/bin, a
	// checkout of the server's source).
	o.ReadOnly = append(o.ReadOnly, serverCode(argv, cwd, home)...)
	p, err := sandbox.Prepare(ctx, o, argv)
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return fallback(err)
	case err != nil:
		return refuse("%v", err)
	}
	note := "no network"
	if prof.net {
		note = "with the network"
	}
	if len(o.Writable) > 0 {
		note += ", writable: " + strings.Join(o.Writable, ", ")
	} else {
		note += ", nothing writable"
	}
	fmt.Fprintf(stderr, "agate mcp run: the server runs in agate's sandbox (%s: %s; %s, the credential stores hidden)\n", p.Launcher, prof.why, note)
	return p.Cmd, nil
}

// writesSet reports whether a variable naming what the server writes is set.
func writesSet(l mcp.Launch) bool {
	for _, v := range l.Writes {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// serverCode is what of the server's program must show inside the
// sandbox, read-only: the folder of node packages it comes from (where
// its dependencies are), else its own folder; the program alone where
// that folder is /tmp itself, and nothing where it is / or holds home.
// The program is argv's first word, and for an interpreter the script it
// runs.
func serverCode(argv []string, cwd, home string) []string {
	progs := []string{argv[0]}
	if interpreters[strings.TrimSuffix(filepath.Base(argv[0]), ".exe")] {
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") {
				progs = append(progs, a)
				break
			}
		}
	}
	var out []string
	for i, p := range progs {
		exe := absFrom(cwd, home, p)
		if i == 0 && !strings.ContainsRune(p, filepath.Separator) {
			found, err := exec.LookPath(p)
			if err != nil {
				continue
			}
			exe = found
		}
		real, err := filepath.EvalSymlinks(exe)
		if err != nil || !filepath.IsAbs(real) {
			continue
		}
		dir := filepath.Dir(real)
		if i := strings.LastIndex(real, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
			dir = real[:i+len("/node_modules")]
		}
		switch {
		case dir == "/tmp":
			out = append(out, real) // the program alone, not what lies beside it
		case dir == "/" || home != "" && pathUnder(home, dir):
		default:
			out = append(out, dir)
		}
		if exe != real && filepath.Dir(exe) != "/tmp" {
			// The link it was named by (node_modules/.bin/NAME).
			out = append(out, filepath.Dir(exe))
		}
	}
	return out
}
