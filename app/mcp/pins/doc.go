// Package pins owns the pins of MCP tool definitions: for each server
// name, the definition of each of its tools that agate first saw or a
// person last approved.
//
// The pins live in the state folder, one file per server
// (STATE/mcp-pins/NAME.json, mode 0600, in a folder private to this
// user), written whole to a temp file and renamed. Only the daemon
// writes them; it is the one owner. A definition handed to the store is
// checked against its hash first: a ToolDef whose Hash is not that of its
// fields is refused (ErrBadDefinition), so a pin always says what it
// hashes.
//
// A tool never seen is pinned as it is. A tool whose definition is not
// the pinned one keeps its old pin, and each Check reports the change,
// until Approve pins the new definition (a person allowed a call of it,
// having been told what changed).
package pins
