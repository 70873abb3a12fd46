// Package clients rewrites the MCP servers an MCP client starts so
// that each runs through agate's proxy, and puts them back.
//
// A stdio server {"command": C, "args": [A...]} becomes {"command":
// AGATE, "args": ["mcp", "run", "--name", KEY, "--", C, A...]}: KEY is
// the client's own name for the server (so the policy's
// mcp__KEY__TOOL is the name the client's hooks see), made a valid
// server name where it is not. The original is the tail of the
// rewritten args, its command as it was written (its quotes and
// escapes), so Uninstall gives the file back byte for byte: a server
// with no args gets none back, one with an empty array (Claude Code
// writes "args": []) gets it back, told apart by the space agate puts
// after the '[' of the latter. Nothing else in the file changes:
// JSON files (with comments where the client allows them) are edited
// with package jsonc, value by value; Codex's config.toml is edited at
// the byte offsets of the two values package tomledit finds. A server already rewritten is left as it
// is, so Install can run twice; one rewritten for another agate binary
// (a program named agate... run as "mcp run ... --") is pointed at this
// one, never wrapped twice.
//
// Servers reached over HTTP or SSE (a "url", "httpUrl" or "serverUrl",
// a type other than stdio or local) become stdio servers running agate's
// bridge (`agate mcp run --url-env`), their URL and headers in the
// environment and the entry as written kept there for Uninstall (see
// remote.go); those that sign in through the client (headersHelper,
// oauth, authProviderType), that Options.Leave says to leave, and
// Codex's are listed as remote, with why. OpenCode's servers ("command" one array: ArgvCommand) get
// agate's words in front of the array. Servers it cannot read (an
// inline table in TOML, a command that is not a string) are listed as
// skipped, with why.
//
// Each file is read through its link (a symlinked file is edited where
// it points), backed up beside itself before it is replaced
// (FILE.agate-backup-...), and replaced whole by a rename. A file that
// changes while it is edited is read again.
package clients
