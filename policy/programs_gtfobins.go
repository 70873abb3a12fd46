package policy

import (
	"strings"
)

// The handlers of the programs GTFOBins lists whose entries need more than data: fzf, Nagios plugins, names spliced into code (policy/programs/gtfobins.toml).

// identArgHandler: xdg-user-dir splices its operand into shell code it
// evaluates: anything but a plain name is code.
func identArgHandler(c *cmdRun) {
	for _, op := range c.ops {
		if !op.lit || !identWord().MatchString(op.word) {
			c.add(Effect{Kind: EffExec, What: c.prog + " evaluates " + op.word + " as shell code"})
		}
	}
}

// --- Nagios plugins ---

// nagiosHandler: --extra-opts=[SECTION][@FILE] reads the plugin's options
// from FILE.
func nagiosHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "--extra-opts" || !o.hasVal {
			continue
		}
		if _, f, ok := strings.Cut(o.val, "@"); ok && f != "" {
			c.pathEffect(EffRead, f, o.lit, Effect{What: c.prog + " reads its options from " + f})
		}
	}
}

// --- fzf ---

// fzfActions are fzf --bind actions that run a command.
var fzfActions = lazyRegexp(`(?i)(execute|execute-silent|become|reload|reload-sync|preview|change-preview|transform[a-z-]*|bg-transform[a-z-]*)\(|(execute|become|reload|preview|transform)[:~]`)

// fzfHandler: --bind KEY:execute(CMD) (and become, reload, preview,
// transform) runs a command.
func fzfHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name == "--bind" && (!o.lit || fzfActions().MatchString(o.val)) {
			c.add(Effect{Kind: EffExec, What: "fzf --bind runs a command when a key is pressed"})
		}
	}
}
