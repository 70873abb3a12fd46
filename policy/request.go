package policy

// Request is one tool call to decide, with what the caller knows about
// where it comes from. Everything policy needs from the world is here: it
// reads no clock, no environment and no file.
//
// The zero value of each field is the careful one: a request that does not
// say a person can be asked is unattended, and its asks become denies.
type Request struct {
	Tool  string         // the tool's name as the agent calls it ("Bash", "write_file", "mcp__github__create_issue")
	Args  map[string]any // the call's arguments, decoded from JSON
	Agent string         // the agent, as [agents.NAME] names it ("claude-code")

	// Cwd is the folder the call runs in, absolute. Relative paths in the
	// arguments are taken from it.
	Cwd string
	// Workspace is the project's root folder, absolute; "" means Cwd. Writes
	// inside it are in-project edits.
	Workspace string

	// Interactive says a person can be asked now. When false every ask is
	// a deny, and the shell free pass does not apply.
	Interactive bool
	// Tainted says the run has taken in content from outside (a web page, a
	// fetched document): pre-approvals stop applying to it.
	Tainted bool

	// Grants are the agent's saved grants and this session's; they stop
	// applying while the run is tainted.
	Grants []Grant
	// RunGrants are this run's grants (the "this_run" answer): they apply
	// even while the run is tainted.
	RunGrants []Grant

	// Resolve turns an absolute path into its real path, following
	// symlinks. It is the caller's I/O; nil means paths are only cleaned.
	Resolve func(path string) string
	// Secrets tells whether a string holds the value of a secret agate
	// keeps; nil means agate holds none.
	Secrets KnownSecrets
	// Glob expands a shell glob (an absolute pattern) to the paths it
	// names now, as the shell would, and reports whether that is all of
	// them; it is the caller's I/O. Two forms stand for what a program
	// finds rather than what the shell expands: "DIR/**/NAME" (files named
	// NAME, matched as find's -name matches, in DIR or any folder below)
	// and "DIR/**" (DIR and everything below it). nil, or an answer that
	// is not complete (too many paths, an error), means the glob is
	// judged by the names it could match: one that could name a secret
	// file is a secret read.
	Glob func(pattern string) (paths []string, complete bool)

	// Files tells what is at a path a call would overwrite or delete: is
	// it there, and could git give it back? It is the caller's I/O. nil
	// means nothing is known, and such a call asks.
	Files func(path string) FileState
	// Keep says whether agate can keep a copy of what is at path, which
	// lies in root (the project or a trusted dir), before a call deletes
	// or overwrites it: the caller's I/O, which measures it against its
	// limits. nil means nothing is kept, and a call that loses what git
	// cannot give back asks. What it agrees to keep comes back in
	// Decision.Keep, and the caller keeps it before it answers allow; if
	// it then cannot, it decides again with Keep nil.
	Keep func(path, root string) KeepAnswer
	// Repo tells what the git repository holding dir runs: config that
	// makes git run programs (a pager, an fsmonitor, textconv), hooks.
	// It is the caller's I/O; nil means a repository runs nothing.
	Repo func(dir string) RepoFacts
	// ReadPatch returns the text of a patch file a command applies
	// (patch < fix.patch, git apply fix.patch), so that the files it
	// writes are known; it is the caller's I/O, bounded. ok false, or
	// nil, means agate has not seen the patch: what it writes is
	// unknown, and the call asks.
	ReadPatch func(path string) (text string, ok bool)
	// Sandbox says the project's own code may run unasked inside the
	// sandbox: the agent lets agate rewrite the command, the sandbox
	// works here, and the person switched the mode on. An allowed call
	// then comes with Decision.Sandbox set.
	Sandbox bool
	// FailedConfined says the same command ran in the sandbox, cut to its
	// judgment, a moment ago in this session and failed there: it likely
	// needs what the sandbox cut (the network, a secret, a write outside
	// the project). A call agate would let through confined then asks,
	// saying so, rather than run confined again only to fail.
	FailedConfined bool

	// MCP is what agate's MCP proxy knows of the tool called, when the
	// call comes through it (nil for a hook's call).
	MCP *MCPTool
}

// MCPTool is what agate's MCP proxy knows of a server's tool: whether
// its definition is the one pinned, and what its server says of it.
// What the server says may only raise a call's risk.
type MCPTool struct {
	// Changed names what changed in the tool's definition since it was
	// pinned ("description", "inputSchema"): such a call asks, naming
	// it, whatever a rule or a grant says (only hard_deny, plan mode and
	// a switched-off category come first).
	Changed []string
	// Destructive and OpenWorld are the server's destructiveHint and
	// openWorldHint: the call deletes (risk deletes) or reaches outside
	// the machine (risk network), and nothing but a rule or a grant
	// allows it unasked.
	Destructive, OpenWorld bool
	// Base is the folder the server resolves a relative path against, as
	// the proxy learnt it (the first root the client gave the server),
	// "" when it does not know. A relative path of a call with no Base,
	// or one with a ".." in it, names a file agate cannot tell: the call
	// is one that does what agate cannot tell (only a rule or a grant
	// allows it).
	Base string
	// Known is the name agate's catalog knows the server by, known from
	// the command the proxy started it with (its npm package); "" when
	// the command is not one the catalog knows. The catalog's entries for
	// a server's tools (mcp__filesystem__read_file) apply to the server
	// Known names, whatever the person called it, and never to a server
	// that only bears the name.
	Known string
}

// FileState is what the caller knows of a path a call would overwrite or
// delete.
type FileState uint8

// The states of a path.
const (
	FileUnknown       FileState = iota // not looked at: overwriting or deleting it asks
	FileAbsent                         // nothing is there: writing it loses nothing
	FileRecoverable                    // git can give it back as it is now: tracked and unchanged
	FileUnrecoverable                  // it is there and git cannot give it back
	// FileBuildOutput is a build's output (stores.BuildOutput) that git
	// ignores, in the project, holding no link out of it: a build makes
	// it again, so deleting or overwriting it loses nothing.
	FileBuildOutput
)

// KeepAnswer is the caller's word on keeping one path (Request.Keep).
type KeepAnswer struct {
	// OK says a copy can be kept within the limits (or, with Owned, that
	// none is needed).
	OK bool
	// Owned says the path is one the session made itself, unchanged
	// since: destroying it loses nothing the person had, and nothing is
	// kept.
	Owned bool
	// Why, when OK is false, says why no copy can be kept ("it holds
	// .env, a secret"; "it is 3.1 GiB, more than [undo] max_call_mb").
	Why string
}

// KeepTarget is one path the caller keeps a copy of before it answers
// allow (Decision.Keep).
type KeepTarget struct {
	Path string // what is kept, absolute: a file, a folder and all it holds, or a link
	Root string // the project or trusted dir it lies in: a restore writes nothing outside it
	// InPlace says the call may write the file in place (>, cp over it,
	// truncate, an edit tool) rather than only unlink it: a hard link
	// would change with it, so the copy must be a real one.
	InPlace bool
}

// RepoFacts is what a git repository runs on its own.
type RepoFacts struct {
	// RunsCode names the config that makes read-only git commands run a
	// program (core.fsmonitor, core.pager, diff.*.textconv, filters), ""
	// when there is none.
	RunsCode string
	// Foreign is set when the folder git runs in, or one above it below
	// the repository's root, is a repository of its own (a bare one: its
	// HEAD, objects and refs), whose config and hooks git obeys there:
	// the folder. agate reads none of them, so every git command there
	// runs code agate did not read.
	Foreign string
	// HooksDir is the folder git takes the repository's hooks from when
	// its config names one (core.hooksPath), absolute; "" for .git/hooks.
	// A file written there runs at the next commit, merge or checkout:
	// such a write is a protected path's.
	HooksDir string
	// Hooks are the hooks the repository has.
	Hooks []string
	// Credentials are the config keys, in any of git's scopes, whose
	// value holds a credential (a password or token in a remote's URL, an
	// Authorization header): git config --list and git remote -v print
	// them.
	Credentials []string
}

func (f RepoFacts) hasHook(name string) bool {
	for _, h := range f.Hooks {
		if h == name {
			return true
		}
	}
	return false
}

// KnownSecrets reports whether s contains the value of a secret agate holds.
type KnownSecrets interface {
	Contains(s string) bool
}
