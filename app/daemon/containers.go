package daemon

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Agents in dev containers (`agate container add NAME --project DIR`)
// reach the daemon on a socket of their own, in the container's folder
// (tokens.ContainerDir) that the person mounts into the container, with
// the container's token beside it. Such a call is a token's call (the
// routes an agent needs, no agent's prompt, its own grants as agent
// "container:NAME") and more:
//   - it is decided for the container's project only, the paths it names
//     moved from where the container sees the project to where the host
//     does (so the policy judges what the call does to the host's files,
//     and what it destroys is kept on the host's disk); a call whose
//     folder is not the project is denied;
//   - it is never rewritten into the host's sandbox (its agent is none
//     agate can rewrite, and the answer never says to confine);
//   - the answer's reason names the project as the container sees it.
// The daemon opens and closes the containers' sockets as tokens.json
// changes (every second); a removed container's token is refused from
// its next request, whether or not its socket is closed yet.

// containerTick is how often the containers' sockets follow tokens.json.
const containerTick = time.Second

// serveContainers keeps a socket open for every container's token until
// ctx ends.
func (d *Daemon) serveContainers(ctx context.Context) {
	open := map[string]context.CancelFunc{}
	failed := map[string]string{}
	t := time.NewTicker(containerTick)
	defer t.Stop()
	for {
		list, err := d.tokens.load()
		if err == nil {
			want := map[string]bool{}
			for _, tok := range list {
				if !tok.Container {
					continue
				}
				want[tok.Name] = true
				if open[tok.Name] != nil {
					continue
				}
				l, err := d.listenContainer(tok.Name)
				if err != nil {
					if msg := err.Error(); failed[tok.Name] != msg {
						d.logger.Printf("container %s: %v (its agents cannot reach agate)", tok.Name, err)
						failed[tok.Name] = msg
					}
					continue
				}
				delete(failed, tok.Name)
				cctx, cancel := context.WithCancel(ctx)
				open[tok.Name] = cancel
				go func(name string) {
					if err := d.serveHTTP(cctx, l, d.TokenHandler(name), nil); err != nil {
						d.logger.Printf("container %s: %v", name, err)
					}
				}(tok.Name)
			}
			for name, cancel := range open {
				if !want[name] {
					cancel()
					delete(open, name)
				}
			}
			var st []api.ContainerStatus
			for _, tok := range list {
				if tok.Container {
					st = append(st, api.ContainerStatus{Name: tok.Name, Project: tok.Project, Inside: tok.Inside, Open: open[tok.Name] != nil, Error: failed[tok.Name]})
				}
			}
			d.containers.Store(&st)
		}
		select {
		case <-ctx.Done():
			for _, cancel := range open {
				cancel()
			}
			return
		case <-t.C:
		}
	}
}

// listenContainer opens the socket in container name's folder: the
// folder the person's (made by `agate container add`), writable by
// nobody else, the socket open to every uid (the container's users are
// not the host's: the folder's place in the private state folder keeps
// the host's other users out, and each request needs the token).
func (d *Daemon) listenContainer(name string) (net.Listener, error) {
	// The containers' folder is the person's alone: it is what keeps the
	// host's other users from the tokens and the sockets.
	if err := osutil.CheckDir(tokens.ContainersDir(d.paths.State), true); err != nil {
		return nil, fmt.Errorf("the containers' folder: %w", err)
	}
	dir := tokens.ContainerDir(d.paths.State, name)
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("its folder: %w (agate container remove %s, then add it again)", err, name)
	}
	if !fi.IsDir() || owner(fi) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("its folder %s: want a folder of yours that others cannot write (it is %s, uid %d)", dir, fi.Mode(), owner(fi))
	}
	l, err := listenShared(filepath.Join(dir, tokens.ContainerSocket))
	if err != nil {
		return nil, err
	}
	pl := newPeerListener(l)
	pl.allow = func(int) bool { return true }
	return pl, nil
}

// hostArgs is a container's call's arguments with the paths the
// container sees moved to the host's (tokens.Token.HostText on every
// string, keys included); other tokens' arguments are returned as they
// are.
func hostArgs(t *tokens.Token, args map[string]any) map[string]any {
	if !t.Container || args == nil {
		return args
	}
	out, _ := hostValue(t, args).(map[string]any)
	return out
}

func hostValue(t *tokens.Token, v any) any {
	switch v := v.(type) {
	case string:
		return t.HostText(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[t.HostText(k)] = hostValue(t, x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = hostValue(t, x)
		}
		return out
	}
	return v
}

// insideAnswer is resp as a container's agent is told it: the project's
// paths as the container sees them, and never an answer to confine (an
// allow that holds only confined is a deny: the container's calls run
// in the container, not in the host's sandbox).
func insideAnswer(t *tokens.Token, resp *api.DecideResponse) *api.DecideResponse {
	out := *resp
	if out.Layer != policy.LayerToken { // the token's own reasons speak the container's paths already
		out.Reason = t.InsideText(resp.Reason)
	}
	if out.Sandbox || out.Confine != nil {
		if out.Decision == policy.Allow {
			out.Decision = policy.Deny
			out.Reason = "agate would let it run only in its sandbox, and a container's calls never run in the host's: " + out.Reason
		}
		out.Sandbox, out.Confine = false, nil
	}
	if resp.Kept != nil {
		k := *resp.Kept
		k.Paths = make([]string, len(resp.Kept.Paths))
		for i, p := range resp.Kept.Paths {
			k.Paths[i] = t.InsidePath(p)
		}
		out.Kept = &k
	}
	return &out
}

// containerFacts makes what preq learns of the disk a container's: the
// policy reads the container's paths, however spelt, and every path it
// derives (a word unquoted and cleaned, a cd followed, a glob) reaches
// the host's disk only through these. A path under where the container
// sees its project is the host project's; one under the container's
// mount of agate's folder is that folder (agate's own, so protected);
// the host's project as the call's words were moved to it is itself.
// Anything else is the container's own filesystem, which the host cannot
// see: a link there is not followed, a glob there names what it may (an
// incomplete expansion), a file there is unknown (destroying it asks),
// git there runs what agate did not read, and nothing there is kept.
func (d *Daemon) containerFacts(t *tokens.Token, preq *policy.Request) {
	folder := tokens.ContainerDir(d.paths.State, t.Name)
	toHost := func(p string) (string, bool) {
		p = filepath.Clean(p)
		if h, ok := t.HostPath(p); ok {
			return h, true
		}
		if t.Within(p) {
			return p, true
		}
		if rest, ok := strings.CutPrefix(p, tokens.DefaultMount); ok && (rest == "" || rest[0] == '/') {
			return folder + rest, true
		}
		return "", false
	}
	if resolve := preq.Resolve; resolve != nil {
		preq.Resolve = func(p string) string {
			if h, ok := toHost(p); ok {
				return resolve(h)
			}
			return p
		}
	}
	if glob := preq.Glob; glob != nil {
		preq.Glob = func(pattern string) ([]string, bool) {
			if h, ok := toHost(pattern); ok {
				return glob(h)
			}
			return nil, false
		}
	}
	if files := preq.Files; files != nil {
		preq.Files = func(p string) policy.FileState {
			if h, ok := toHost(p); ok {
				return files(h)
			}
			return policy.FileUnknown
		}
	}
	if repo := preq.Repo; repo != nil {
		preq.Repo = func(dir string) policy.RepoFacts {
			if h, ok := toHost(dir); ok {
				return repo(h)
			}
			return policy.RepoFacts{Foreign: dir}
		}
	}
	if read := preq.ReadPatch; read != nil {
		preq.ReadPatch = func(p string) (string, bool) {
			if h, ok := toHost(p); ok {
				return read(h)
			}
			return "", false
		}
	}
	if keep := preq.Keep; keep != nil {
		preq.Keep = func(p, root string) policy.KeepAnswer {
			if !t.Within(p) {
				return policy.KeepAnswer{Why: "it is not where the host has the container's project"}
			}
			return keep(p, root)
		}
	}
}
