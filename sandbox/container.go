package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// container runs the command in a docker or podman container that sees
// only the work dir (and the writable and read-only paths), with a
// read-only root, no capabilities, no new privileges, no network unless
// asked, and the engine's own pid, ipc and uts namespaces.
type container struct {
	engine string // "docker" or "podman"
}

var _ launcher = (*container)(nil)

func (c *container) name() string { return c.engine }

func (c *container) check(o Options) error {
	if _, err := exec.LookPath(c.engine); err != nil {
		return fmt.Errorf("%s is not installed", c.engine)
	}
	if c.engine == LauncherDocker && os.Getenv("DOCKER_HOST") == "" && os.Getenv("DOCKER_CONTEXT") == "" {
		home, _ := os.UserHomeDir()
		socks := []string{"/var/run/docker.sock", "/run/docker.sock"}
		if home != "" {
			socks = append(socks, filepath.Join(home, ".docker", "run", "docker.sock"),
				filepath.Join(home, ".docker", "desktop", "docker.sock"))
		}
		if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
			socks = append(socks, filepath.Join(rt, "docker.sock"))
		}
		found := false
		for _, s := range socks {
			if _, err := os.Stat(s); err == nil {
				found = true
				break
			}
		}
		if !found {
			return errors.New("docker has no engine here (no docker.sock, no DOCKER_HOST)")
		}
	}
	// The image must be on this machine: a confined run never pulls one
	// (--pull never), so a missing image is a launcher that cannot run,
	// not a command that failed.
	img := o.Image
	if filepath.IsAbs(img) {
		if fi, err := os.Stat(img); err != nil || !fi.IsDir() {
			return fmt.Errorf("the root folder %s ([sandbox] image) is not there", img)
		}
		return nil
	}
	if img == "" {
		img = DefaultImage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := []string{"image", "exists", img}
	if c.engine == LauncherDocker {
		args = []string{"image", "inspect", "--format", "{{.Id}}", img}
	}
	if err := exec.CommandContext(ctx, c.engine, args...).Run(); err != nil {
		return fmt.Errorf("the image %s is not on this machine, and agate never pulls one (%s pull %s, or [sandbox] image = a root folder)", img, c.engine, img)
	}
	return nil
}

// containerEnvSkip are host variables that make no sense inside an image.
var containerEnvSkip = map[string]bool{
	"PATH": true, "HOME": true, "PWD": true, "OLDPWD": true, "SHELL": true, "TMPDIR": true,
	"USER": true, "LOGNAME": true, "HOSTNAME": true, "MAIL": true, "SHLVL": true, "_": true,
	"LD_LIBRARY_PATH": true, "LD_PRELOAD": true,
}

// args returns the engine's arguments for p, after the engine's name.
func (c *container) args(p *plan) []string {
	o := p.opts
	a := []string{"run", "--rm", "-i", "--pull", "never",
		"--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--pids-limit", "4096"}
	if c.engine == LauncherDocker {
		a = append(a, "--tmpfs", "/tmp") // podman's --read-only adds it itself
	}
	if c.engine == LauncherPodman {
		// Podman asks for RLIMIT_NOFILE and RLIMIT_NPROC above what a
		// process without CAP_SYS_RESOURCE may set, unless told lower.
		a = append(a, "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096")
	}
	network := "none"
	if p.net {
		network = o.Network // the config may keep containers offline even then
		if network == "" {
			network = "bridge"
		}
	}
	a = append(a, "--network", network)
	if o.Memory != "" {
		a = append(a, "--memory", o.Memory)
	}
	if o.CPUs != "" {
		a = append(a, "--cpus", o.CPUs)
	}
	if o.Runtime != "" {
		a = append(a, "--runtime", o.Runtime)
	}
	if uid := os.Getuid(); uid > 0 {
		if c.engine == LauncherPodman {
			a = append(a, "--userns", "keep-id")
		} else {
			a = append(a, "--user", strconv.Itoa(uid)+":"+strconv.Itoa(os.Getgid()))
		}
	}
	for _, m := range p.mounts {
		switch m.kind {
		case mountBindRW, mountPin:
			a = append(a, "-v", volume(m.path, ""))
		case mountBindRO, mountProtect:
			a = append(a, "-v", volume(m.path, "ro"))
		case mountHideDir:
			// (A hidden path outside the mounts is not in the container at
			// all.) In them, it reads as "permission denied", never empty.
			if under(m.path, p.bound()) {
				a = append(a, "--tmpfs", m.path+":ro,mode=0000")
			}
		case mountEmptyDir:
			if under(m.path, p.bound()) {
				a = append(a, "--tmpfs", m.path)
			}
		case mountHideFile:
			// An empty file of mode 0000, read-only (hidden, not empty:
			// /dev/null would read as an empty file).
			if under(m.path, p.bound()) {
				a = append(a, "-v", p.hiddenFile+":"+m.path+":ro")
			}
		}
	}
	a = append(a, "-w", p.start())
	for _, kv := range p.env {
		name, _, _ := strings.Cut(kv, "=")
		if !containerEnvSkip[name] {
			a = append(a, "-e", name) // the value comes from the engine's environment, not argv
		}
	}
	if img := o.Image; filepath.IsAbs(img) {
		a = append(a, "--rootfs", img)
	} else {
		if img == "" {
			img = DefaultImage
		}
		a = append(a, img)
	}
	return append(a, p.argv...)
}

// hiddenFile is the empty file of mode 0000 the container launchers
// bind over a hidden file: <temp dir>/agate-hidden-UID/hidden, in a
// folder of this user's that nobody else may enter, made when missing
// and refused when it is not exactly that (another user's, a link, not
// empty, readable).
func hiddenFile() (string, error) {
	dir := filepath.Join(os.TempDir(), "agate-hidden-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !closedToOthers(fi) {
		return "", fmt.Errorf("%s is not a folder of yours closed to others: agate will not use it", dir)
	}
	path := filepath.Join(dir, "hidden")
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
		if err != nil {
			return "", err
		}
		f.Close()
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || !unreadable(fi) {
		return "", fmt.Errorf("%s is not an empty file of yours of mode 0000: agate will not use it", path)
	}
	return path, nil
}

// volume is a -v argument binding path onto itself.
func volume(path, mode string) string {
	v := path + ":" + path
	if mode != "" {
		v += ":" + mode
	}
	return v
}

func (c *container) command(ctx context.Context, p *plan) (*exec.Cmd, error) {
	for _, m := range p.mounts {
		if strings.Contains(m.path, ":") {
			return nil, fmt.Errorf("%s cannot mount %q: the path has a colon", c.engine, m.path)
		}
		if m.kind == mountHideFile && p.hiddenFile == "" {
			f, err := hiddenFile()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.engine, err)
			}
			p.hiddenFile = f
		}
	}
	cmd := exec.CommandContext(ctx, c.engine, c.args(p)...)
	cmd.Env = p.env
	cmd.Dir = p.start()
	return cmd, nil
}

func (c *container) version(ctx context.Context, o Options) string {
	if c.engine == LauncherDocker {
		if v := firstLine(ctx, "docker", "version", "--format", "{{.Server.Version}}"); v != "" {
			return "docker " + v
		}
		return ""
	}
	return firstLine(ctx, c.engine, "--version")
}

// firstLine runs a program and returns the first line of its output, ""
// on any error.
func firstLine(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
