package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/tokens"
	"github.com/agatehq/agate/policy"
)

func init() {
	register(&command{
		name:    "container",
		args:    "[add NAME --project DIR [--inside PATH] [--mode MODE] [--hook FILE] | remove NAME]",
		summary: "agents in dev containers: list, add (a folder to mount, with a token bound to the container and its project) or revoke",
		run:     cmdContainer,
	})
}

func cmdContainer(ctx context.Context, e *Env, args []string) error {
	verb := ""
	if len(args) > 0 && (args[0] == "add" || args[0] == "remove" || args[0] == "list") {
		verb, args = args[0], args[1:]
	}
	fs := newFlags(e, "container")
	var cf configFlags
	cf.add(fs)
	project := fs.String("project", "", "with add: the project folder mounted into the container, the only one its calls are decided in")
	inside := fs.String("inside", "", "with add: where the container sees the project (default /workspaces/BASENAME, as dev containers mount it)")
	mode := fs.String("mode", "", "with add: a floor on the mode its calls are decided in (ask, accept_edits, manual, plan)")
	hook := fs.String("hook", "", "with add: the agate-hook binary to copy into the container's folder (default: the one beside this binary)")
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
			return usagef("usage: agate container [add NAME ... | remove NAME]")
		}
		return listContainers(e, paths, path)
	case "remove":
		if len(pos) != 1 {
			return usagef("usage: agate container remove NAME")
		}
		return removeContainer(ctx, e, paths, path, pos[0])
	}
	if len(pos) != 1 {
		return usagef("usage: agate container add NAME --project DIR [--inside PATH] [--mode MODE] [--hook FILE]")
	}
	name := pos[0]
	if err := tokens.ValidName(name); err != nil {
		return usageErr(err)
	}
	if *project == "" {
		return usagef("agate container add %s: --project DIR is needed (the folder the container mounts)", name)
	}
	proj, err := realDir(*project)
	if err != nil {
		return usageErr(fmt.Errorf("--project: %w", err))
	}
	in := *inside
	if in == "" {
		in = "/workspaces/" + filepath.Base(proj)
	}
	if !filepath.IsAbs(in) || filepath.Clean(in) != in || in == "/" {
		return usagef("--inside %q: want an absolute, clean path other than /", in)
	}
	t := tokens.Token{Name: name, UID: selfUID(), Project: proj, Container: true, Inside: in}
	if *mode != "" {
		m, err := policy.ParseMode(*mode)
		if err != nil || m == policy.ModeYolo {
			return usagef("--mode: want ask, accept_edits, manual or plan (a container's mode only tightens)")
		}
		t.Mode = *mode
	}
	hookBin := *hook
	if hookBin == "" {
		var ok bool
		if hookBin, ok = api.SiblingBinary("agate-hook"); !ok {
			return usagef("agate-hook is not beside this binary: name it with --hook FILE (a static build: make cli)")
		}
	}
	if _, err := os.Stat(filepath.Join(tokens.ContainerDir(paths.State, name))); err == nil {
		return fmt.Errorf("container %s: its folder %s is there already (agate container remove %s first)", name, tokens.ContainerDir(paths.State, name), name)
	}
	secret, err := tokens.Add(ctx, path, t, time.Now())
	if err != nil {
		return err
	}
	dir, err := tokens.WriteContainerDir(paths.State, name, secret, hookBin)
	if err == nil {
		// agate-cli beside it lets the container install the hooks itself.
		if cli, ok := api.SiblingBinary("agate-cli"); ok {
			err = tokens.CopyInto(dir, cli, "agate-cli")
		}
	}
	if err != nil {
		tokens.Remove(ctx, path, name)
		tokens.RemoveContainerDir(paths.State, name)
		return fmt.Errorf("container %s: %w", name, err)
	}
	m := tokens.DefaultMount
	fmt.Fprintf(e.Stdout, "container %s: its agents may ask agate about %s, which they see at %s.\n\n", name, proj, in)
	fmt.Fprintf(e.Stdout, "Mount its folder into the container read-only, and tell agate-hook where it is:\n\n")
	fmt.Fprintf(e.Stdout, "  docker run -v %s:%s:ro -e AGATE_SOCKET=%s/%s -e AGATE_TOKEN_FILE=%s/%s -v %s:%s ...\n\n",
		dir, m, m, tokens.ContainerSocket, m, tokens.ContainerToken, proj, in)
	fmt.Fprintf(e.Stdout, "or, in .devcontainer/devcontainer.json:\n\n")
	fmt.Fprintf(e.Stdout, "  \"mounts\": [\"source=%s,target=%s,type=bind,readonly\"],\n", dir, m)
	fmt.Fprintf(e.Stdout, "  \"containerEnv\": {\"AGATE_SOCKET\": \"%s/%s\", \"AGATE_TOKEN_FILE\": \"%s/%s\"}\n\n", m, tokens.ContainerSocket, m, tokens.ContainerToken)
	fmt.Fprintf(e.Stdout, "Then, in the container, install agate's hooks for its agent:\n\n")
	fmt.Fprintf(e.Stdout, "  %s/agate-cli hooks install claude-code --bin %s/%s\n\n", m, m, tokens.ContainerHook)
	fmt.Fprintln(e.Stdout, "Its calls are decided for that project only, labelled with the container's name, with grants of their own,")
	fmt.Fprintln(e.Stdout, "and never run in the host's sandbox. `agate container remove "+name+"` revokes it.")
	return nil
}

// realDir is dir absolute with its links resolved: the folder the
// container mounts.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	if real == "/" {
		return "", errors.New("the whole disk is not a project")
	}
	return real, nil
}

func listContainers(e *Env, paths api.Paths, path string) error {
	list, err := tokens.Load(path)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	n := 0
	for _, t := range list {
		if !t.Container {
			continue
		}
		if n == 0 {
			fmt.Fprintln(tw, "NAME\tPROJECT\tINSIDE\tMODE\tFOLDER\tSOCKET")
		}
		n++
		dir := tokens.ContainerDir(paths.State, t.Name)
		sock := "not open (is the daemon running?)"
		if fi, err := os.Lstat(filepath.Join(dir, tokens.ContainerSocket)); err == nil && fi.Mode()&os.ModeSocket != 0 {
			sock = "open"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Project, t.Inside, orDash(t.Mode), dir, sock)
	}
	tw.Flush()
	if n == 0 {
		fmt.Fprintln(e.Stdout, "no containers (agate container add NAME --project DIR makes one)")
	}
	return nil
}

func removeContainer(ctx context.Context, e *Env, paths api.Paths, path, name string) error {
	list, err := tokens.Load(path)
	if err != nil {
		return err
	}
	found := false
	for _, t := range list {
		if t.Name == name {
			if !t.Container {
				return fmt.Errorf("%s is a scoped token, not a container's: agate tokens remove %s", name, name)
			}
			found = true
		}
	}
	if found {
		if err := tokens.Remove(ctx, path, name); err != nil {
			return err
		}
	}
	_, statErr := os.Stat(tokens.ContainerDir(paths.State, name))
	if err := tokens.RemoveContainerDir(paths.State, name); err != nil {
		return err
	}
	if !found && statErr != nil {
		return fmt.Errorf("%w: %q", tokens.ErrNotFound, name)
	}
	fmt.Fprintf(e.Stdout, "revoked container %s: the daemon refuses its token from its next request, and its folder is gone\n", name)
	return nil
}
