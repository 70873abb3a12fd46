package mcp

import (
	_ "embed"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

//go:embed known.toml
var knownTOML string

// Known is what agate's catalog (known.toml) says of an MCP server it
// knows by the npm package it runs: what of the machine it needs, and so
// how `agate mcp run` confines it.
type Known struct {
	Package string `toml:"-"` // the npm package
	// Name is the name agate knows its tools by.
	Name string `toml:"name"`
	// Bins are its programs' names.
	Bins []string `toml:"bins"`
	// Network says it reaches the network to do its work.
	Network bool `toml:"network"`
	// Folders is "args" when the folders it serves are its operands.
	Folders string `toml:"folders"`
	// Writes name variables holding a file or folder it writes;
	// WritesPackage says it writes in its own package's folder when
	// they are unset.
	Writes        []string `toml:"writes"`
	WritesPackage bool     `toml:"writes_package"`
	// Env are variables it needs, passed in although their names say
	// they are credentials.
	Env []string `toml:"env"`
	// MinVersion is the oldest version the entry describes ("" for all):
	// an older one is not the server agate knows (its tools, or what its
	// paths mean, differ), and neither is a version npx resolves from a
	// range or a tag other than latest, which agate cannot compare.
	MinVersion string `toml:"min_version"`
}

// known is the catalog, read once.
var known = sync.OnceValues(func() (map[string]Known, error) {
	var doc struct {
		Server map[string]Known `toml:"server"`
	}
	md, err := toml.Decode(knownTOML, &doc)
	if err != nil {
		return nil, fmt.Errorf("known.toml: %w", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("known.toml: unknown key %s", un[0])
	}
	for pkg, k := range doc.Server {
		if ValidName(k.Name) != nil || len(k.Bins) == 0 || (k.Folders != "" && k.Folders != "args") {
			return nil, fmt.Errorf("known.toml: server %q: a valid name, its bins and folders \"args\" or none", pkg)
		}
		if _, ok := parseVersion(k.MinVersion); k.MinVersion != "" && !ok {
			return nil, fmt.Errorf("known.toml: server %q: min_version %q is not a version (numbers joined by dots)", pkg, k.MinVersion)
		}
		k.Package = pkg
		doc.Server[pkg] = k
	}
	return doc.Server, nil
})

// KnownName reports whether name is the name the catalog knows a server
// by (Known.Name).
func KnownName(name string) bool {
	servers, err := known()
	if err != nil {
		return false
	}
	for _, k := range servers {
		if k.Name == name {
			return true
		}
	}
	return false
}

// Launch is how a command starts a server the catalog knows.
type Launch struct {
	Known
	// Spec is the package as npx was given it ("pkg", "pkg@1.2.3");
	// "" when the command runs the server's program itself.
	Spec string
	// Bin is the program npx runs: the package's own, or the one named
	// after --package.
	Bin string
	// Args are the server's own arguments.
	Args []string
}

// KnownServer recognizes a command that starts a server the catalog knows:
// `npx [-y|--yes|-q|--quiet] PKG[@VERSION] ARGS...`, `npx -p PKG BIN
// ARGS...`, `npm exec [--yes] [--package=PKG] -- BIN ARGS...`, or one of
// its programs (by name, or `node PATH` to one under node_modules). Any
// other form, an npx option it does not know among them, is not
// recognized: such a server is not confined by default.
func KnownServer(command []string) (Launch, bool) {
	cat, err := known()
	if err != nil || len(command) == 0 {
		return Launch{}, false
	}
	prog := strings.TrimSuffix(filepath.Base(command[0]), ".exe")
	switch prog {
	case "npx":
		return npxLaunch(cat, command[1:], false)
	case "npm":
		if len(command) > 1 && (command[1] == "exec" || command[1] == "x") {
			return npxLaunch(cat, command[2:], true)
		}
		return Launch{}, false
	case "node":
		if len(command) > 1 && !strings.HasPrefix(command[1], "-") {
			for _, k := range cat {
				if strings.Contains(filepath.ToSlash(command[1]), "/node_modules/"+k.Package+"/") {
					return Launch{Known: k, Args: command[2:]}, true
				}
			}
		}
		return Launch{}, false
	}
	for _, k := range cat {
		if slices.Contains(k.Bins, prog) {
			return Launch{Known: k, Args: command[1:]}, true
		}
	}
	return Launch{}, false
}

// npxLaunch reads npx's (or npm exec's) arguments.
func npxLaunch(cat map[string]Known, args []string, npmExec bool) (Launch, bool) {
	l, ok := npxSpec(args, npmExec)
	if !ok {
		return Launch{}, false
	}
	k, ok := cat[packageName(l.Spec)]
	if !ok || !k.describes(specVersion(l.Spec)) {
		return Launch{}, false
	}
	if l.Bin == "" {
		l.Bin = k.Bins[0]
	} else if !slices.Contains(k.Bins, l.Bin) {
		return Launch{}, false
	}
	l.Known = k
	return l, true
}

// npxSpec reads npx's (or npm exec's) arguments: the package's spec, the
// program named after --package, the server's own arguments.
func npxSpec(args []string, npmExec bool) (Launch, bool) {
	pkg := ""
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet":
		case a == "-p" || a == "--package":
			if i+1 >= len(args) || pkg != "" {
				return Launch{}, false
			}
			i++
			pkg = args[i]
		case strings.HasPrefix(a, "--package="):
			if pkg != "" {
				return Launch{}, false
			}
			pkg = strings.TrimPrefix(a, "--package=")
		case a == "--":
			if !npmExec {
				return Launch{}, false
			}
			i++
			goto operands
		case strings.HasPrefix(a, "-"):
			return Launch{}, false
		default:
			goto operands
		}
	}
operands:
	if i >= len(args) || (npmExec && pkg == "") {
		return Launch{}, false
	}
	l := Launch{Args: args[i+1:]}
	if pkg != "" {
		l.Spec, l.Bin = pkg, args[i]
	} else {
		l.Spec = args[i]
	}
	return l, true
}

// registryPackage is the package an npm spec names from the registry;
// ok is false for a spec that names something else under the name (an
// alias, a git repository, a file, a URL).
func registryPackage(spec string) (string, bool) {
	name, version := spec, ""
	if at := strings.IndexByte(spec[min(1, len(spec)):], '@'); at >= 0 {
		name, version = spec[:at+1], spec[at+2:]
	}
	if name == "" || strings.ContainsAny(name, ":\\ ") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") || !fromRegistry(version) {
		return "", false
	}
	if strings.HasPrefix(name, "@") {
		scope, rest, ok := strings.Cut(name[1:], "/")
		if !ok || scope == "" || rest == "" || strings.Contains(rest, "/") {
			return "", false
		}
	} else if strings.Contains(name, "/") {
		return "", false // user/repo is GitHub's
	}
	return name, true
}

// packageRun is the package l runs: its own program (a program named
// after --package must be the package's own name: any other could be
// another package's, or bash).
func packageRun(l Launch) (string, bool) {
	pkg, ok := registryPackage(l.Spec)
	if !ok {
		return "", false
	}
	if l.Bin != "" && l.Bin != pkg[strings.LastIndexByte(pkg, '/')+1:] {
		return "", false
	}
	return pkg, true
}

// PackageOf returns the npm package a server's command runs: through
// npx or npm exec (in the forms KnownServer reads), or as `node PATH` to
// a file under node_modules/PKG/. ok is false for any other command.
func PackageOf(command []string) (pkg string, ok bool) {
	if len(command) == 0 {
		return "", false
	}
	switch strings.TrimSuffix(filepath.Base(command[0]), ".exe") {
	case "npx":
		if l, ok := npxSpec(command[1:], false); ok {
			return packageRun(l)
		}
	case "npm":
		if len(command) > 1 && (command[1] == "exec" || command[1] == "x") {
			if l, ok := npxSpec(command[2:], true); ok {
				return packageRun(l)
			}
		}
	case "node":
		if len(command) > 1 && !strings.HasPrefix(command[1], "-") {
			p := path.Clean(filepath.ToSlash(command[1]))
			if i := strings.LastIndex(p, "/node_modules/"); i >= 0 {
				parts := strings.SplitN(p[i+len("/node_modules/"):], "/", 3)
				if len(parts) >= 2 && strings.HasPrefix(parts[0], "@") {
					return parts[0] + "/" + parts[1], true
				}
				if len(parts) >= 2 && parts[0] != "" {
					return parts[0], true
				}
			}
		}
	}
	return "", false
}

// specVersion is an npm spec's version: "@scope/pkg@1.2" is "1.2", "pkg"
// is "".
func specVersion(spec string) string {
	if at := strings.LastIndexByte(spec, '@'); at > 0 {
		return spec[at+1:]
	}
	return ""
}

// describes reports whether the entry describes the version npx is
// given: none or latest (the newest, which the catalog follows), or one
// not older than MinVersion.
func (k Known) describes(version string) bool {
	if !fromRegistry(version) {
		return false // another package under this name (npm:), a git repository, a file
	}
	if k.MinVersion == "" || version == "" || version == "latest" {
		return true
	}
	v, ok := parseVersion(version)
	if !ok {
		return false // a range, a tag, a URL: not known until npx resolves it
	}
	min, _ := parseVersion(k.MinVersion)
	return slices.Compare(v, min) >= 0
}

// fromRegistry reports whether an npm spec's version part names a
// version of the package from the registry (an exact version, a range or
// a tag), not another package by alias ("npm:other"), a git repository
// ("github:u/r", "git+https://..."), a tarball's URL or a file.
func fromRegistry(version string) bool {
	return !strings.ContainsAny(version, ":/\\#") && !strings.HasPrefix(version, ".") && !strings.HasPrefix(version, "~/")
}

// parseVersion reads an exact version, numbers joined by dots ("1.2.3",
// "2025.7.1"); ok is false for anything else (a range, a tag, a
// prerelease).
func parseVersion(s string) (v []int, ok bool) {
	if s == "" {
		return nil, false
	}
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || part != strconv.Itoa(n) {
			return nil, false
		}
		v = append(v, n)
	}
	for len(v) < 3 {
		v = append(v, 0)
	}
	return v, true
}

// packageName is an npm spec's package: "@scope/pkg@1.2" is "@scope/pkg".
func packageName(spec string) string {
	at := strings.LastIndexByte(spec, '@')
	if at > 0 {
		return spec[:at]
	}
	return spec
}

// ServedFolders are the folders a server the catalog knows serves (for
// folders = "args": its operands that are not options), as given.
func (l Launch) ServedFolders() []string {
	if l.Folders != "args" {
		return nil
	}
	var out []string
	for _, a := range l.Args {
		if !strings.HasPrefix(a, "-") && a != "" {
			out = append(out, a)
		}
	}
	return out
}
