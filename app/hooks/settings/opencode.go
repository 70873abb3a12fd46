package settings

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

	"github.com/agatehq/agate/app/hooks"
	"github.com/agatehq/agate/app/hooks/settings/settingsjson"
	"github.com/agatehq/agate/app/osutil"
)

// openCodeMark is the first line of agate's OpenCode plugin: uninstall
// and status know the file by it.
const openCodeMark = "// agate: written by `agate hooks install opencode`; `agate hooks uninstall opencode` removes it."

// openCodePlugin is agate's OpenCode plugin. It imports nothing but
// node:child_process (a plugin whose import fails is skipped by OpenCode
// without a word), runs agate's hook for every tool call with the call on
// stdin, and throws, which blocks the call, unless the hook answered
// allow within the timeout. OpenCode has no timeout of its own for a
// plugin: the plugin's is the only one.
const openCodePlugin = openCodeMark + `
//
// Every tool call OpenCode makes is decided by agate first: this plugin
// runs agate's hook and blocks the call unless agate allows it. It blocks
// when the hook cannot run, does not answer in time, or answers anything
// but allow. Edit nothing here: ` + "`agate hooks install opencode`" + ` writes it again.
import { spawn } from "node:child_process";

const HOOK = %s;
const TIMEOUT_MS = %d;
const MAX_ANSWER = 1 << 20;

function hook(payload) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    let timer;
    const finish = (a) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(a);
    };
    const deny = (why) => finish({ decision: "deny", reason: "agate: " + why + "; the call was blocked" });
    let child;
    try {
      child = spawn(HOOK[0], HOOK.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    } catch (e) {
      return deny("its hook could not run (" + e.message + ")");
    }
    timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch {}
      deny("its hook did not answer within " + TIMEOUT_MS / 1000 + " s");
    }, TIMEOUT_MS);
    child.on("error", (e) => deny("its hook could not run (" + e.message + ")"));
    child.stdout.on("data", (d) => {
      out += d;
      if (out.length > MAX_ANSWER) {
        try { child.kill("SIGKILL"); } catch {}
        deny("its hook's answer is too long");
      }
    });
    child.on("close", (code) => {
      let a;
      try {
        a = JSON.parse(out);
      } catch {
        return deny("its hook gave no answer (exit " + code + ")");
      }
      if (!a || typeof a !== "object" || typeof a.decision !== "string") return deny("its hook's answer is not one");
      finish(a);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const AgateGate = async (ctx) => ({
  "tool.execute.before": async (input, output) => {
    const a = await hook({
      event: "tool.execute.before", tool: input.tool, sessionID: input.sessionID, callID: input.callID,
      args: output.args, directory: ctx.directory, worktree: ctx.worktree,
    });
    if (a.decision !== "allow") throw new Error(a.reason || "agate: the call was blocked");
    if (a.args !== undefined) {
      // Confined: OpenCode runs the object it handed us, so its members
      // are replaced in place. Anything but an object is no answer.
      if (!a.args || typeof a.args !== "object" || Array.isArray(a.args) || !output.args || typeof output.args !== "object") {
        throw new Error("agate: its hook's rewritten call is not one; the call was blocked");
      }
      for (const k of Object.keys(output.args)) delete output.args[k];
      Object.assign(output.args, a.args);
    }
  },
  "tool.execute.after": async (input, output) => {
    const exit = output && output.metadata && typeof output.metadata.exit === "number" ? output.metadata.exit : undefined;
    const a = await hook({
      event: "tool.execute.after", tool: input.tool, sessionID: input.sessionID, callID: input.callID,
      args: input.args, exit, directory: ctx.directory, worktree: ctx.worktree,
    });
    if (typeof a.context === "string" && a.context !== "" && output && typeof output.output === "string") {
      output.output += "\n\n" + a.context;
    }
  },
});
`

// OpenCodePlugin returns agate's plugin running the hook command argv,
// waiting at most timeout for it.
func OpenCodePlugin(argv []string, timeout time.Duration) ([]byte, error) {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return nil, errors.New("opencode plugin: the hook's binary must be an absolute path")
	}
	js, err := json.Marshal(argv) // (a JSON array is a JS array literal)
	if err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf(openCodePlugin, js, timeout.Milliseconds())), nil
}

// openCodeArgv is the hook's command line in agate's plugin.
func openCodeArgv(bin string, timeout time.Duration) []string {
	return []string{bin, "hook", hooks.OpenCode, "--agent-timeout", fmt.Sprintf("%ds", int((timeout+time.Second-1)/time.Second))}
}

// installOpenCode writes agate's plugin to path (a file of agate's own
// in OpenCode's plugin folder), replacing only a plugin agate wrote.
func installOpenCode(path, bin string, timeout time.Duration) (Edit, error) {
	edit := Edit{File: path}
	data, err := OpenCodePlugin(openCodeArgv(bin, timeout), timeout)
	if err != nil {
		return edit, err
	}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return edit, nil
	case err == nil && !bytes.HasPrefix(old, []byte(openCodeMark+"\n")):
		return edit, fmt.Errorf("%s is not agate's plugin: move it away first", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return edit, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return edit, err
	}
	if err := osutil.WriteFile(path, data, 0o644); err != nil {
		return edit, err
	}
	edit.Changed = true
	return edit, nil
}

// uninstallOpenCode removes agate's plugin, and nothing that is not it.
func uninstallOpenCode(path string) (Edit, error) {
	edit := Edit{File: path}
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return edit, nil
	}
	if err != nil {
		return edit, err
	}
	if !bytes.HasPrefix(old, []byte(openCodeMark+"\n")) {
		return edit, fmt.Errorf("%s is not agate's plugin: it was left alone", path)
	}
	if err := os.Remove(path); err != nil {
		return edit, err
	}
	edit.Changed = true
	return edit, nil
}

// statusOpenCode reads agate's plugin at path: the hook it runs, and
// whether it loads. A plugin that does not parse is skipped by OpenCode
// without a word, and every call then runs unchecked: that is HooksOff.
func statusOpenCode(path string) FileStatus {
	st := FileStatus{Agent: hooks.OpenCode, File: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		st.Missing = settingsjson.Hooks(hooks.OpenCode)
		return st
	}
	if err != nil {
		st.Err = err
		return st
	}
	st.Exists = true
	if !bytes.HasPrefix(data, []byte(openCodeMark+"\n")) {
		st.Err = fmt.Errorf("%s is not agate's plugin", path)
		return st
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "const HOOK = ")
		if !ok {
			continue
		}
		var argv []string
		if json.Unmarshal([]byte(strings.TrimSuffix(rest, ";")), &argv) == nil && len(argv) > 0 {
			for _, h := range settingsjson.Hooks(hooks.OpenCode) {
				e := settingsjson.Entry{Event: h.Event, Command: strings.Join(argv, " "), Bin: argv[0]}
				if len(argv) == 5 {
					e.Timeout = argv[4]
				}
				st.Entries = append(st.Entries, Entry{Entry: e, BinProblem: binProblem(argv[0])})
			}
		}
	}
	if len(st.Entries) == 0 {
		st.Err = fmt.Errorf("%s names no hook to run", path)
	}
	st.HooksOff = openCodeOff(path)
	return st
}

// openCodeOff says why OpenCode would not run agate's plugin: it does not
// parse (node --check, where node is), or OPENCODE_PURE is set.
func openCodeOff(path string) string {
	var why []string
	if v := os.Getenv("OPENCODE_PURE"); v != "" && v != "0" && v != "false" {
		why = append(why, "OPENCODE_PURE is set: no plugin loads")
	}
	if node, err := exec.LookPath("node"); err == nil {
		if msg := checkModule(node, path); msg != "" {
			why = append(why, "the plugin does not parse, so OpenCode skips it: "+msg)
		}
	}
	return strings.Join(why, "; ")
}

// checkModule checks the syntax of the ES module at path with node, as a
// .mjs copy (node --check of a .js file outside a "type": "module"
// package checks nothing), and returns node's complaint, "" for none.
func checkModule(node, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	dir, err := os.MkdirTemp("", "agate-plugin-check-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "plugin.mjs")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--check", tmp).CombinedOutput()
	if err == nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "Error") {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(string(out))
}
