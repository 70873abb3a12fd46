package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/policy"
)

// rulesTab edits the first-match rules, hard deny, the protected and
// secret paths, and tries a call against the live policy.
type rulesTab struct {
	s                             *Settings
	rules, hardDeny, prot, secret *listEditor
	tool, args, cwd               *widget.Entry
	result                        *widget.Label
	content                       fyne.CanvasObject
}

func newRulesTab(s *Settings) *rulesTab {
	t := &rulesTab{s: s}
	t.rules = newListEditor(s, "Rules", `First match wins: "<allow|deny|ask> <tool or category glob> [argument glob]", e.g. "deny shell rm*", "allow bash git status*", "ask web *".`,
		"auto", "rules", true)
	t.hardDeny = newListEditor(s, "Hard deny", `Denied before everything, in every mode: "[deny] <tool glob> [argument glob]".`,
		"auto", "hard_deny", false)
	t.prot = newListEditor(s, "Protected paths", "Writes here ask (added to the built-in list: .env, .ssh/, .claude/, .git/hooks/, ...).",
		"auto", "protected_paths", false)
	t.secret = newListEditor(s, "Secret paths", "Reads here ask (added to the built-in list: .env, SSH private keys, *.pem, ...).",
		"auto", "secret_paths", false)

	t.tool = widget.NewEntry()
	t.tool.SetPlaceHolder("tool, e.g. Bash, Write, WebFetch, mcp__github__create_issue")
	t.args = widget.NewMultiLineEntry()
	t.args.SetPlaceHolder(`arguments as JSON, e.g. {"command": "rm -rf build"}`)
	t.args.SetMinRowsVisible(3)
	t.cwd = widget.NewEntry()
	if home, err := os.UserHomeDir(); err == nil {
		t.cwd.SetText(home)
	}
	t.result = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	t.result.Wrapping = fyne.TextWrapWord
	tryHelp := widget.NewLabel("The decision the policy in force gives, as if a person could be asked. Nothing runs.")
	tryHelp.Wrapping = fyne.TextWrapWord
	tryHelp.Importance = widget.LowImportance
	try := widget.NewCard("Try a call", "",
		container.NewVBox(tryHelp,
			widget.NewForm(widget.NewFormItem("Tool", t.tool), widget.NewFormItem("Arguments", t.args), widget.NewFormItem("Folder", t.cwd)),
			widget.NewButton("Decide", t.try),
			t.result))
	t.content = container.NewVScroll(container.NewVBox(
		container.NewGridWithColumns(2, t.rules.content, try),
		container.NewGridWithColumns(3, t.hardDeny.content, t.prot.content, t.secret.content)))
	return t
}

func (t *rulesTab) load(cfg *policy.Config) {
	t.rules.load(cfg.Auto.Rules)
	t.hardDeny.load(cfg.Auto.HardDeny)
	t.prot.load(cfg.Auto.ProtectedPaths)
	t.secret.load(cfg.Auto.SecretPaths)
}

// try decides the typed call with the live policy.
func (t *rulesTab) try() {
	t.result.SetText(tryCall(t.s.d.Policy(), t.tool.Text, t.args.Text, t.cwd.Text))
}

// tryCall decides a call typed in the Rules tab and says why.
func tryCall(pol *policy.Policy, tool, argsJSON, cwd string) string {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		return "type a tool name"
	}
	args := map[string]any{}
	if s := strings.TrimSpace(argsJSON); s != "" {
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			return "the arguments are not a JSON object: " + err.Error()
		}
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "the folder must be an absolute path"
	}
	dec := pol.Decide(&policy.Request{Tool: tool, Args: args, Cwd: filepath.Clean(cwd), Interactive: true})
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nlayer:    %s\n", dec.Verdict, dec.Layer)
	if dec.Rule != nil {
		fmt.Fprintf(&b, "rule:     %s (%s)\n", dec.Rule.Text, dec.Rule.Source)
	}
	fmt.Fprintf(&b, "category: %s\n", dec.Category)
	if r := dec.Risks.List(); len(r) > 0 {
		fmt.Fprintf(&b, "risks:    %s\n", strings.Join(r, ", "))
	}
	fmt.Fprintf(&b, "reason:   %s", dec.Reason)
	return b.String()
}

// trustedTab edits the trusted folders (with a folder picker) and domains.
type trustedTab struct {
	s             *Settings
	dirs, domains *listEditor
	content       fyne.CanvasObject
}

func newTrustedTab(s *Settings) *trustedTab {
	t := &trustedTab{s: s}
	pick := widget.NewButton("Choose folder...", nil)
	t.dirs = newListEditor(s, "Trusted folders", "File and code calls whose paths all resolve under these allow (~ is expanded, symlinks resolved).",
		"auto", "trusted_dirs", false, pick)
	pick.OnTapped = func() {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err != nil || u == nil {
				return
			}
			t.dirs.entry.SetText(u.Path())
		}, s.win)
	}
	t.domains = newListEditor(s, "Trusted domains", "Web calls to these hosts, or any subdomain of them, allow: write just the host, e.g. docs.python.org.",
		"auto", "trusted_domains", false)
	t.content = container.NewVScroll(container.NewVBox(t.dirs.content, t.domains.content))
	return t
}

func (t *trustedTab) load(cfg *policy.Config) {
	t.dirs.load(cfg.Auto.TrustedDirs)
	t.domains.load(cfg.Auto.TrustedDomains)
}
