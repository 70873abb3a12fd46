// Package hooks holds the words every agent's hook adapter shares: an
// Event (one hook call, normalized), the daemon's Answer, the Output the
// hook process prints and exits with, the agents by name, and the command
// line an agent's settings run agate's hook with. It is pure: it reads
// bytes and returns bytes, and never touches a file, the network or the
// environment.
//
// Below it, one folder a concern:
//
//	agents      the one table of the agents' adapters: Parse, Render, Neutral, Unreachable
//	claude      Claude Code's protocol
//	gemini      Gemini CLI's protocol
//	cursor      Cursor's protocol
//	codex       Codex CLI's protocol
//	qwen        Qwen Code's: Claude Code's protocol, a deny as exit 2
//	copilot     GitHub Copilot CLI's: every answer JSON, never silence
//	opencode    agate's OpenCode plugin's: it throws unless agate allows
//	confine     a shell call rewritten to run under agate sandbox, and read back
//	runner      one hook call: stdin, the daemon, stdout, exit 0 or 2, whatever happens
//	agate-hook  the lean binary agents run per call: the runner and nothing else
//	settings    agate's hooks in the agents' settings files, and the formats' editors
//	internal    hookjson: the JSON reading and writing the adapters share
//
// docs/hook-protocols.md records the protocols and where each fact comes
// from; testdata/hooks holds payloads recorded from the real agents.
package hooks
