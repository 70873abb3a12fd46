// Package mcp is agate's MCP proxy: it stands between an MCP client and
// a stdio server it starts, forwards what they say to each other, and
// gates every tool call.
//
// `agate mcp run [--name NAME] -- COMMAND [ARGS...]` is Run: the client
// speaks to the proxy's stdin and stdout, COMMAND is the real server.
// `agate mcp run --name NAME --url URL [--sse]` is RunRemote: the real
// server is reached over Streamable HTTP (Remote), each message one POST,
// or over the older HTTP+SSE transport (Remote.SSE), and is gated line
// for line as a stdio one.
// Messages are JSON-RPC 2.0, one per line, of up to Options.MaxLine bytes
// (64 MiB by default; lines are read with a bounded reader, not
// bufio.Scanner, and a longer one is dropped whole).
//
// # What the proxy changes
//
// Everything is forwarded as it came, but:
//
//   - A tools/call is decided by the Gate first, as the tool
//     "mcp__NAME__TOOL" (PolicyToolName), with its arguments decoded with
//     duplicate keys refused (app/internal/strictjson) and numbers kept whole.
//     Allowed, the call is forwarded encoded again from that decoded
//     value, with the client's id as it wrote it: never the client's
//     bytes, so the server cannot read anything the gate did not. Denied,
//     or when the gate fails, times out or cannot be reached, the client
//     is answered at once with a CallToolResult {"content":[{"type":
//     "text","text":"agate denied this call: REASON"}],"isError":true},
//     which a client takes even from a tool with an output schema. Calls
//     are decided concurrently and each is forwarded as soon as it is
//     decided, so a call may reach the server after a message the client
//     sent later. A cancellation of a call still being decided ends the
//     decision, and neither reaches the server.
//   - Each tools/list result (each page, when the server pages with
//     nextCursor) is pinned through Gate.Pin before the client sees it:
//     a ToolDef per tool, with a SHA-256 over the canonical JSON of its
//     name, title, description, schemas, annotations and execution. A
//     tool whose definition is not the one pinned is passed to every
//     Decide of that tool as Call.Changed, so the daemon asks again,
//     naming what changed, whatever a rule or a grant says (the "rug
//     pull"). notifications/tools/list_changed passes through; the
//     client lists again and the new listing is pinned in turn.
//   - Descriptions and titles in tool definitions, and every string in
//     a tools/call result's content and structuredContent (and in an
//     error's message and data, a task's result, a resource read or a
//     prompt got) are cleaned before the client sees them: Clean takes
//     out model control tokens and invisible characters, known secret
//     values (Options.Secrets) are cut out, and with Options.PII personal
//     data is replaced by numbered placeholders (RedactPII). Base64 data,
//     URIs, MIME types and _meta are left as they are.
//   - Every answer to a forwarded call taints the run (Gate.Taint) before
//     the client sees it; when that fails the answer is withheld and the
//     client gets a denial instead.
//
// Notifications (progress and cancellation among them), the server's
// requests to the client (sampling, elicitation, roots/list) and the
// client's answers to them pass through unchanged.
//
// # What the proxy refuses
//
// It fails closed on anything it cannot read one way only:
//
//   - from the client, a line that is not one JSON value is answered
//     with a parse error (-32700); a message that names a member twice,
//     or twice but for case, at any depth, with -32600; a tools/call
//     without an id, a request whose id is neither a string nor a
//     number, or whose id is that of a request still unanswered (their
//     answers could not be told apart), with -32600; a tools/call without
//     a name or with arguments that are not an object with -32602. None
//     is forwarded. A batch (a JSON array, which MCP 2025-06-18 removed)
//     is answered with an error for each request in it and nothing of it
//     is forwarded.
//   - from the server, a line that is not valid JSON or names a member
//     twice, a message that is both a request and an answer, and an
//     answer to no request in flight (a second answer to one call, an
//     answer to a call not yet forwarded) are dropped and reported on
//     stderr. A batch from the server is taken apart and each message
//     handled alone.
//   - a tool name with a control or invisible character is denied.
//
// # The server's life
//
// The server runs in a process group of its own. When it exits, Run
// passes on what it wrote and returns its status (128+N for a signal N).
// When the client closes stdin, the server's stdin is closed, and it is
// given Options.StopGrace to exit, then SIGTERM, then SIGKILL. When the
// context ends it is stopped the same way from SIGTERM. Calls still being
// decided when either side goes are dropped.
//
// # The servers agate knows
//
// known.toml is the catalog of servers agate knows by the npm package they
// run: what of the machine each needs (the folders it serves, the network,
// the variables it must be given). KnownServer recognizes a command that
// starts one (npx, npm exec, its program, node and its script); Fetch
// installs a package npx would download, running none of its scripts, so
// that `agate mcp run` can start it inside the sandbox with no network.
// The proxy starts whatever Options.Cmd holds: the sandbox's launcher
// around the server, when it is confined.
//
// # Why raw messages and not the Go SDK
//
// The proxy works on json.RawMessage with encoding/json, not on
// github.com/modelcontextprotocol/go-sdk's jsonrpc types: it must pass
// on unknown members and ids exactly as they were written (the SDK
// decodes ids into int64 or string and messages into fixed structs), it
// must refuse duplicate keys before anything is decoded (strictjson), and
// it re-encodes only what it decides on or cleans. A proxy of raw lines
// is also smaller than one that builds two SDK sessions.
package mcp
