package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Categories are the tool categories agate reasons about. The first eleven
// are agate's; the rest are eVi's other [tools] toggles, accepted so an eVi
// config reads unchanged.
var Categories = []string{
	"fs", "code", "shell", "web", "mcp", "memory", "skills", "image", "subagent", "computer", "git",
	"voice", "transcripts", "pdf", "sqlite", "index", "federation", "ocr", "calendar",
}

// CategoryUnknown is the category of a tool the catalog does not know.
const CategoryUnknown = "unknown"

func knownCategory(c string) bool {
	for _, k := range Categories {
		if k == c {
			return true
		}
	}
	return false
}

// Permissions is Anymo's closed set of permissions a tool can declare.
var Permissions = []string{
	"FileRead", "FileWrite", "FileList", "NetworkFetch", "BrowserControl", "ShellExecute",
	"PythonExecute", "FinanceRead", "MemoryWrite", "SkillWrite", "ArtifactWrite",
}

// Level is a tool's declared risk level (Anymo).
type Level uint8

// The risk levels. Tools of risk high or critical ask unless something
// explicit allows them.
const (
	LevelNone Level = iota
	LevelLow
	LevelMedium
	LevelHigh
	LevelCritical
)

var levelNames = []string{"none", "low", "medium", "high", "critical"}

// String returns the level's name.
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

func parseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown risk level %q (want none, low, medium, high or critical)", s)
}

// ToolSpec declares what a tool needs, as Anymo's ToolSpec does. The
// built-in catalog (catalog.toml) holds one for every tool of Claude Code,
// Gemini CLI, Codex and agate's canonical names; [catalog.NAME] in the
// config adds tools or replaces a built-in spec whole.
type ToolSpec struct {
	Canonical        string   `toml:"canonical"`         // agate's name for the same tool ("bash" for Bash)
	Category         string   `toml:"category"`          // one of Categories
	Permissions      []string `toml:"permissions"`       // from the closed set
	Risk             string   `toml:"risk"`              // none | low | medium | high | critical
	ApprovalRequired bool     `toml:"approval_required"` // asks unless a rule or a person's grant allows
	ReadOnly         bool     `toml:"read_only"`         // never acts: allowed without asking
	Risks            []string `toml:"risks"`             // risks every call carries
	Command          string   `toml:"command"`           // argument holding a shell command
	Paths            []string `toml:"paths"`             // arguments holding file paths
	URLs             []string `toml:"urls"`              // arguments holding URLs (or text with URLs)
	Patch            string   `toml:"patch"`             // argument holding an apply_patch patch
	Language         string   `toml:"language"`          // argument naming a script's language
	Workdir          []string `toml:"workdir"`           // arguments naming a shell command's working folder
	Agent            string   `toml:"agent"`             // which agent ships the tool (documentation)
	// Overwrites says the tool replaces a whole file (Write), where an
	// edit tool changes part of it: overwriting what git cannot give back
	// asks.
	Overwrites bool `toml:"overwrites"`
}

// toolSpec is a checked ToolSpec.
type toolSpec struct {
	name       string // the catalog key, possibly a glob ("mcp__*")
	builtin    bool   // from agate's own catalog, not the config's
	canonical  string
	category   string
	level      Level
	approval   bool
	readOnly   bool
	risks      Risks
	command    string
	paths      []string
	writes     bool // the path arguments are written (FileWrite)
	urls       []string
	patch      string
	language   string
	workdir    []string
	overwrites bool
	lists      bool // FileList: a "pattern" argument is a path glob (Glob), not text
}

func (s ToolSpec) compile(name string) (*toolSpec, error) {
	t := &toolSpec{name: name, canonical: s.Canonical, category: s.Category, approval: s.ApprovalRequired,
		readOnly: s.ReadOnly, command: s.Command, paths: s.Paths, urls: s.URLs, patch: s.Patch, language: s.Language,
		workdir: s.Workdir, overwrites: s.Overwrites, lists: slices.Contains(s.Permissions, "FileList")}
	if name == "" {
		return nil, errors.New("empty tool name")
	}
	if _, err := compileGlob(name); err != nil {
		return nil, err
	}
	if !knownCategory(s.Category) {
		return nil, fmt.Errorf("unknown category %q (want one of %s)", s.Category, strings.Join(Categories, ", "))
	}
	risk := s.Risk
	if risk == "" {
		risk = "medium"
	}
	var err error
	if t.level, err = parseLevel(risk); err != nil {
		return nil, err
	}
	for _, p := range s.Permissions {
		ok := false
		for _, k := range Permissions {
			ok = ok || k == p
		}
		if !ok {
			return nil, fmt.Errorf("unknown permission %q (want one of %s)", p, strings.Join(Permissions, ", "))
		}
		switch p {
		case "FileWrite":
			t.writes = true
		case "NetworkFetch", "BrowserControl":
			t.risks = t.risks.With(Network)
		case "PythonExecute":
			t.risks = t.risks.With(InlineCode)
		}
	}
	for _, r := range s.Risks {
		risk, err := ParseRisk(r)
		if err != nil {
			return nil, err
		}
		t.risks = t.risks.With(risk)
	}
	if t.writes && t.risks&Risks(Deletes) == 0 {
		t.risks = t.risks.With(Writes)
	}
	if t.readOnly && (t.writes || t.command != "" || t.risks.Has(Deletes) || t.risks.Has(InlineCode)) {
		return nil, errors.New("a read-only tool cannot write, delete or run commands")
	}
	if t.canonical == "" {
		t.canonical = name
	}
	return t, nil
}

// Catalog is a checked set of tool specs.
type Catalog struct {
	exact map[string]*toolSpec
	globs []*toolSpec // most specific (longest) first
}

//go:embed catalog.toml
var catalogText []byte

// builtinSpecs reads the embedded catalog once, when a policy is first
// compiled: a hook that never compiles one never pays for it.
var builtinSpecs = sync.OnceValues(func() (map[string]ToolSpec, error) {
	var file struct {
		Tool map[string]ToolSpec `toml:"tool"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(catalogText)).Decode(&file)
	if err != nil {
		return nil, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("unknown key %s", u[0])
	}
	return file.Tool, nil
})

// builtinCatalog is the embedded catalog alone, compiled once.
var builtinCatalog = sync.OnceValue(func() *Catalog {
	c, err := newCatalog(nil)
	if err != nil {
		panic("policy: built-in catalog: " + err.Error())
	}
	return c
})

// newCatalog compiles the built-in specs with the config's additions.
func newCatalog(extra map[string]ToolSpec) (*Catalog, error) {
	builtin, err := builtinSpecs()
	if err != nil {
		return nil, fmt.Errorf("built-in catalog: %w", err)
	}
	specs := make(map[string]ToolSpec, len(builtin)+len(extra))
	for k, v := range builtin {
		specs[k] = v
	}
	for k, v := range extra {
		specs[k] = v
	}
	c := &Catalog{exact: map[string]*toolSpec{}}
	for _, name := range sortedKeys(specs) {
		t, err := specs[name].compile(name)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", name, err)
		}
		_, overridden := extra[name]
		t.builtin = !overridden
		if strings.ContainsAny(name, "*?[") {
			c.globs = append(c.globs, t)
		} else {
			c.exact[name] = t
		}
	}
	sort.SliceStable(c.globs, func(i, j int) bool { return len(c.globs[i].name) > len(c.globs[j].name) })
	return c, nil
}

// unknownTool is the spec of a tool nobody declared: it asks.
var unknownTool = &toolSpec{category: CategoryUnknown, level: LevelHigh}

// toolInfo is a request's tool: its name and its spec.
type toolInfo struct {
	name string
	*toolSpec
	known bool
}

// Lookup returns the spec for a tool name.
func (c *Catalog) Lookup(name string) toolInfo {
	if t, ok := c.exact[name]; ok {
		return toolInfo{name: name, toolSpec: t, known: true}
	}
	for _, t := range c.globs {
		if wildMatch(t.name, name) {
			return toolInfo{name: name, toolSpec: t, known: true}
		}
	}
	return toolInfo{name: name, toolSpec: unknownTool}
}

// LookupMCP returns the spec for a tool of an MCP server the proxy
// started (Request.MCP): the catalog's entry for the tool of the server
// known names (mcp__KNOWN__TOOL) where the command is one the catalog
// knows, under the name the call gave. A built-in entry for a server the
// command does not show it to be (one named "filesystem" that runs
// something else) does not apply: the tool is judged as any server's.
func (c *Catalog) LookupMCP(name, known string) toolInfo {
	server, tool, ok := splitMCPName(name)
	if !ok {
		return c.Lookup(name)
	}
	if known != "" {
		if t, ok := c.exact["mcp__"+known+"__"+tool]; ok {
			return toolInfo{name: name, toolSpec: t, known: true}
		}
	}
	if t, ok := c.exact[name]; ok && (!t.builtin || server == known) {
		return toolInfo{name: name, toolSpec: t, known: true}
	}
	for _, t := range c.globs {
		if wildMatch(t.name, name) && (!t.builtin || !strings.HasPrefix(t.name, "mcp__"+server+"__") || server == known) {
			return toolInfo{name: name, toolSpec: t, known: true}
		}
	}
	return toolInfo{name: name, toolSpec: unknownTool}
}

// splitMCPName splits mcp__SERVER__TOOL.
func splitMCPName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

// matchGlob reports whether g matches the tool's name, canonical name or
// category.
func (t *toolInfo) matchGlob(g glob) bool {
	return g.match(t.name) || (t.canonical != "" && g.match(t.canonical)) || g.match(t.category)
}

// matches is matchGlob for a pattern not compiled yet.
func (t *toolInfo) matches(pattern string) bool {
	g, err := compileGlob(pattern)
	return err == nil && t.matchGlob(g)
}

// Info describes a tool for people: what the approval popup and `agate
// check` show.
type Info struct {
	Name             string
	Canonical        string
	Category         string
	Risk             string
	ReadOnly         bool
	ApprovalRequired bool
	Known            bool
}

// Describe returns what the catalog says about a tool.
func (c *Catalog) Describe(name string) Info {
	t := c.Lookup(name)
	return Info{Name: name, Canonical: t.canonical, Category: t.category, Risk: t.level.String(),
		ReadOnly: t.readOnly, ApprovalRequired: t.approval, Known: t.known}
}
