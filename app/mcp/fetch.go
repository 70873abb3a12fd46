package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// fetchTimeout bounds one npm install.
const fetchTimeout = 3 * time.Minute

// Fetch makes a server that npx would download ready to run confined,
// with no network: it installs spec (npm's "pkg" or "pkg@version") into
// a folder of its own under dir, unless it is there already, with npm's
// --ignore-scripts, so that none of the package's code, nor its
// dependencies', runs before the sandbox holds it. It returns the path
// of the package's program bin. The install goes to a temporary folder
// renamed into place, so a half-done one is never used; a spec without
// a version is installed once and kept, where npx would look for a newer
// one each time.
func Fetch(ctx context.Context, dir, spec, bin string) (string, error) {
	if !validSpec(spec) {
		return "", fmt.Errorf("fetch %q: not an npm package and version agate installs", spec)
	}
	name := packageName(spec)
	folder := filepath.Join(dir, strings.NewReplacer("/", "+", "@", "=").Replace(strings.TrimPrefix(spec, "@")))
	if name == spec {
		folder += "=latest"
	}
	prog := filepath.Join(folder, "node_modules", ".bin", bin)
	if _, err := os.Stat(prog); err == nil {
		return prog, nil
	}
	// What is there without the program is a half-done install: again.
	if err := os.RemoveAll(folder); err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	tmp, err := os.MkdirTemp(dir, ".fetch-")
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	defer os.RemoveAll(tmp)
	// A package.json of its own: npm installs here, not in a project
	// above it, and reads no project's .npmrc.
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private":true}`+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--ignore-scripts", "--no-audit", "--no-fund",
		"--no-package-lock", "--loglevel=error", spec)
	cmd.Dir = tmp
	cmd.Env = append(npmEnv(os.Environ()), "npm_config_ignore_scripts=true", "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("fetch %s with npm: %w: %s", spec, err, strings.TrimSpace(lastLines(out.String(), 5)))
	}
	if err := checkBin(tmp, name, bin); err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	if err := os.Rename(tmp, folder); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(prog); serr != nil { // not made beside us meanwhile
			return "", fmt.Errorf("fetch %s: %w", spec, err)
		}
	}
	if _, err := os.Stat(prog); err != nil {
		return "", fmt.Errorf("fetch %s: %w", spec, err)
	}
	return prog, nil
}

// npmEnv is the environment npm installs with: the client's, without
// what would run code in npm itself or change where packages come from
// (NODE_OPTIONS and the other NODE_ variables, npm's own npm_config_
// settings), which a project's MCP config can set for its server. The
// extra certificates a TLS-inspecting proxy needs (NODE_EXTRA_CA_CERTS)
// stay: without them npm cannot reach the registry there at all, and
// they add trust roots, nothing that runs.
func npmEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if u == "NODE_EXTRA_CA_CERTS" {
			out = append(out, kv)
			continue
		}
		if strings.HasPrefix(u, "NODE_") || strings.HasPrefix(u, "NPM_CONFIG_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// validSpec reports whether spec is a registry package, with or without a
// version: "pkg", "pkg@1.2.3", "@scope/pkg@^1" (not a path, a URL, a git
// repository or a tarball).
func validSpec(spec string) bool {
	if spec == "" || strings.HasPrefix(spec, "-") || strings.ContainsAny(spec, " \t\n\\:") || strings.Contains(spec, "..") {
		return false
	}
	name := packageName(spec)
	if strings.HasPrefix(name, "@") {
		return strings.Count(spec, "/") == 1 && len(name) > 3 && !strings.HasSuffix(name, "/")
	}
	return !strings.Contains(spec, "/")
}

// checkBin makes sure the installed package name has a program bin.
func checkBin(prefix, name, bin string) error {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", name, "package.json"))
	if err != nil {
		return fmt.Errorf("the installed package: %w", err)
	}
	var pj struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return fmt.Errorf("the installed package's package.json: %w", err)
	}
	var one string
	var many map[string]string
	switch {
	case json.Unmarshal(pj.Bin, &many) == nil:
		if _, ok := many[bin]; ok {
			return nil
		}
	case json.Unmarshal(pj.Bin, &one) == nil:
		if base := name[strings.LastIndexByte(name, '/')+1:]; base == bin {
			return nil
		}
	}
	return fmt.Errorf("%s has no program %q", name, bin)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
