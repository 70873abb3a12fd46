// Package agenttest runs the real agent command-line programs (Claude
// Code, Gemini CLI, Codex) in tests, offline, against a fake model server,
// so that end-to-end tests can drive them through agate's hooks and see
// what the model was told.
//
// The contract:
//
//   - Server is a scripted model bound to 127.0.0.1 on a free port. It
//     speaks the three wire protocols the agents use: Anthropic's Messages
//     API as Claude Code calls it (HEAD /, streaming POST /v1/messages),
//     the Gemini API as Gemini CLI calls it (streamGenerateContent with
//     alt=sse, generateContent, countTokens) and OpenAI's Responses API as
//     Codex calls it (streaming POST /v1/responses). A test gives it the
//     model's turns: each conversation request (one that offers the model
//     tools) takes the next Turn, a tool call with its name and arguments
//     or a final text; past the last turn the model says "done". Requests
//     that offer no tools (titles, routing, checks the agents make on the
//     side) get a short text and take no turn. Every request is recorded:
//     a test reads the tools the agent offered the model and the tool
//     results it sent back (a denial and its reason among them). It sends
//     nothing anywhere else.
//   - Install puts a pinned version of an agent (an npm package) into a
//     cache folder shared between runs ($AGATE_AGENTS_CACHE, else
//     <user cache dir>/agate/agents), only when it is missing, under a file
//     lock so parallel tests do not race, and returns the path of its
//     program. When npm or the registry cannot be reached it skips the
//     test with the reason; it never fails for that and never passes
//     without running.
//   - Home is a scratch home folder with its own XDG folders; Env is the
//     environment an agent runs with there: the fake server's address, a
//     dummy key, telemetry, update checks and error reports off, and
//     nothing from the test's own environment but PATH and the locale.
//     Run runs a program with a deadline and returns its status, stdout
//     and stderr.
//   - StartTUI runs an agent's terminal UI in a detached tmux session on
//     a private server (skipping the test when tmux is missing): Keys and
//     Type type into it, Screen and WaitFor read it, as a person would.
//   - GeminiSettings, ClaudeState and WriteCodexConfig write what each
//     agent needs to start in the scratch home without a first-run
//     dialog (auth, a trusted work folder, onboarding done), pointed at
//     the fake server.
//   - InstallHooks writes agate's hooks into the agent's settings in the
//     scratch home with agate's own installer (`agate-cli hooks install
//     AGENT --bin agate-hook`), so a test exercises exactly what a person
//     gets.
//
// The tests that use it run real programs and take seconds each; they run
// only when AGATE_AGENT_TESTS=1 (make test-agents sets it, with the
// binaries built into bin/) and skip with the reason otherwise.
package agenttest
