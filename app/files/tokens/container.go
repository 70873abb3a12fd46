package tokens

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/app/osutil"
)

// A dev container's token is kept, with what its agents need, in a
// folder of its own that the person mounts into the container read-only:
//
//	STATE/containers/NAME/token       the secret (0644: the container's uid reads it)
//	STATE/containers/NAME/agate-hook  a copy of the static hook binary
//	STATE/containers/NAME/agate.sock  the daemon's socket for this container
//
// STATE/containers is 0700, so no other user of the host reaches any of
// it; inside the container, only that container's folder is mounted.

// Names of the files in a container's folder.
const (
	ContainerSocket = "agate.sock"
	ContainerToken  = "token"
	ContainerHook   = "agate-hook"
)

// DefaultMount is where `agate container add` suggests mounting the
// container's folder.
const DefaultMount = "/run/agate"

// maxSocketPath is the longest socket path every platform takes.
const maxSocketPath = 104

// ContainersDir is the folder of every container's folder.
func ContainersDir(state string) string { return filepath.Join(state, "containers") }

// ContainerDir is the folder mounted into the container named name.
func ContainerDir(state, name string) string { return filepath.Join(ContainersDir(state), name) }

// checkContainer checks a container's token: a project and the path the
// container sees it at, both absolute and neither the root.
func (t *Token) checkContainer() error {
	if !t.Container {
		if t.Inside != "" {
			return errors.New("inside is set on a token that is not a container's")
		}
		return nil
	}
	for _, p := range []struct{ name, path string }{{"project", t.Project}, {"inside", t.Inside}} {
		if !filepath.IsAbs(p.path) || filepath.Clean(p.path) != p.path || p.path == "/" {
			return fmt.Errorf("a container's %s must be an absolute, clean path other than /, not %q", p.name, p.path)
		}
	}
	for i := range len(t.Inside) {
		if isPathBreak(t.Inside[i]) || t.Inside[i] < ' ' {
			return fmt.Errorf("the path a container sees its project at, %q, holds %q: it must be found whole in a command line", t.Inside, t.Inside[i])
		}
	}
	return nil
}

// HostPath is p, a path the container sees, as the host sees it: under
// Inside it is under Project; anything else is not the project's, and ok
// is false. A token that is not a container's returns p unchanged.
func (t *Token) HostPath(p string) (string, bool) {
	if !t.Container {
		return p, true
	}
	return movePath(filepath.Clean(p), t.Inside, t.Project)
}

// InsidePath is p, a host path, as the container sees it; a path outside
// Project is returned as it is.
func (t *Token) InsidePath(p string) string {
	if !t.Container {
		return p
	}
	if q, ok := movePath(filepath.Clean(p), t.Project, t.Inside); ok {
		return q
	}
	return p
}

func movePath(p, from, to string) (string, bool) {
	if p == from {
		return to, true
	}
	if rest, ok := strings.CutPrefix(p, from+"/"); ok {
		return to + "/" + rest, true
	}
	return p, false
}

// HostText is s (a command line, an argument) with every path the
// container sees under Inside written as the host's, so that the policy
// judges what the call does to the host's files. Inside counts only as a
// whole path: "/work" is not moved in "/workspace" or "x/work".
func (t *Token) HostText(s string) string {
	if !t.Container {
		return s
	}
	return replacePath(s, t.Inside, t.Project)
}

// InsideText is s (a reason) with the host's project written as the
// container sees it.
func (t *Token) InsideText(s string) string {
	if !t.Container {
		return s
	}
	return replacePath(s, t.Project, t.Inside)
}

// replacePath replaces from by to where from is a whole path: preceded by
// the start or a character that cannot be in a path's name before it
// (space, quote, '=', ':', ';', '&', '|', '(', '<', '>', '`'), followed by
// the end, '/', or such a character.
func replacePath(s, from, to string) string {
	if !strings.Contains(s, from) {
		return s
	}
	var b strings.Builder
	for at := 0; ; {
		i := strings.Index(s[at:], from)
		if i < 0 {
			b.WriteString(s[at:])
			return b.String()
		}
		i += at
		end := i + len(from)
		before := i == 0 || isPathBreak(s[i-1])
		after := end == len(s) || s[end] == '/' || isPathBreak(s[end])
		b.WriteString(s[at:i])
		if before && after {
			b.WriteString(to)
			at = end
		} else {
			// Not a whole path here; a later one may start inside it.
			b.WriteByte(s[i])
			at = i + 1
		}
	}
}

func isPathBreak(c byte) bool {
	return strings.IndexByte(" \t\n\r'\"=:;&|()<>`,", c) >= 0
}

// WriteContainerDir makes the container's folder: the secret, readable
// by the container's uid, and a copy of the hook binary at hook. It
// refuses a containers folder others may enter, and a socket path the
// kernel would not take.
func WriteContainerDir(state, name, secret, hook string) (string, error) {
	base := ContainersDir(state)
	if err := osutil.MakeDir(base, true); err != nil {
		return "", fmt.Errorf("containers' folder: %w", err)
	}
	dir := ContainerDir(state, name)
	if n := len(filepath.Join(dir, ContainerSocket)); n > maxSocketPath {
		return "", fmt.Errorf("the container's socket would be %d bytes long, over the %d a socket path may have (set AGATE_STATE_DIR to a shorter folder, or use a shorter name)", n, maxSocketPath)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("container %s: %w", name, err)
	}
	os.Chmod(dir, 0o755) // the container's uid enters it; the umask may not allow it
	if err := osutil.WriteFile(filepath.Join(dir, ContainerToken), []byte(secret+"\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := CopyInto(dir, hook, ContainerHook); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// CopyInto copies the program from into dir as name, executable by all.
func CopyInto(dir, from, name string) error {
	if err := copyFile(from, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return nil
}

// RemoveContainerDir removes the container's folder (its socket with it).
func RemoveContainerDir(state, name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	return os.RemoveAll(ContainerDir(state, name))
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := to + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	os.Chmod(tmp, 0o755)
	return os.Rename(tmp, to)
}
