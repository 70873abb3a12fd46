package policy

import (
	"slices"
	"strings"
)

// Confinement is how an allowed shell call may run inside agate's
// sandbox, cut to what was judged of it: nothing writable but a private
// /tmp when it only reads, the project writable (its protected paths not)
// when it edits the project or runs the project's code; in every case no
// network, the secret stores hidden. Decide sets it on every allowed
// shell call whose judgment the sandbox can hold; the caller (the daemon)
// decides whether to confine.
type Confinement struct {
	// Possible is false when the judgment needs what the sandbox cuts
	// (the network, a secret, a write outside the project, the system)
	// or cannot be held to a prediction (code agate cannot read): the
	// call then runs as judged, or asks.
	Possible bool
	// Writable are the folders the call may write, absolute: the project
	// when it edits the project or runs its code; none when it only
	// reads.
	Writable []string
	// Why says what was judged, in a few words: "it only reads", "it
	// edits the project", "it runs the project's code".
	Why string
	// RunsCode says it runs the project's code (a build, its tests): its
	// toolchains want a cache they can write.
	RunsCode bool
	// Net says the network is open: only a call a person allows
	// (Decision.Approved) runs confined with it, never what runs unasked.
	// Hosts are the ones it was judged to reach, for the person to read;
	// the sandbox opens the network whole.
	Net   bool
	Hosts []string
}

// Judged reports whether agate's own judgment let the call through (the
// free passes: it only reads, edits the project, runs its code), not a
// person's standing word (a rule, a grant, a mode, a trusted scope): the
// calls the daemon confines to that judgment.
func (d Decision) Judged() bool {
	if d.Verdict != Allow {
		return false
	}
	switch d.Layer {
	case LayerRisk, LayerAutoApprove, LayerAcceptEdits:
		return true
	}
	return false
}

// ReadOnly reports whether nothing but a private /tmp is writable.
func (c Confinement) ReadOnly() bool { return len(c.Writable) == 0 }

// confinedProject is the folder a confined call may have writable: the
// workspace, else the call's folder; none when that is unknown or /.
func (c *call) confinedProject() (string, bool) {
	project := c.req.Workspace
	if project == "" {
		project = c.req.Cwd
	}
	return project, project != "" && project != "/"
}

// confinement works out how a shell call may run confined to its
// effects, from the call's simple commands.
func (c *call) confinement() Confinement {
	if c.shell == nil || len(c.shell.cmds) == 0 {
		return Confinement{}
	}
	project, ok := c.confinedProject()
	if !ok {
		return Confinement{}
	}
	writes, runs, unknown := false, false, false
	for _, e := range c.effects {
		switch e.Kind {
		case EffNone:
		case EffRead:
			unknown = unknown || e.Path == "" // a read agate cannot name: the sandbox hides the secrets
		case EffUnknown:
			unknown = true // what agate cannot tell: read-only, it meets the sandbox
		case EffWrite, EffDelete:
			if e.Path == "" || !within(e.Path, project) {
				return Confinement{}
			}
			writes = true
		case EffProject:
			runs = true
		default:
			// The network, an upload, a secret, the system, privilege,
			// something set up to run later, code agate cannot read, an
			// unknown: the sandbox would cut what the call was judged to
			// do, or there is no judgment to hold it to.
			return Confinement{}
		}
	}
	switch {
	case unknown && (runs || writes):
		// With the project writable, what agate cannot tell could destroy
		// it: no confinement holds that to a judgment.
		return Confinement{}
	case unknown:
		return Confinement{Possible: true, Why: "agate cannot tell all it does"}
	case runs:
		return Confinement{Possible: true, Writable: []string{project}, Why: "it runs the project's code", RunsCode: true}
	case writes:
		return Confinement{Possible: true, Writable: []string{project}, Why: "it edits the project"}
	}
	return Confinement{Possible: true, Why: "it only reads"}
}

// approvedConfinement works out how a shell call that asks may run
// confined once a person allows it: with what it was judged to need that
// the sandbox can give (the network; the paths it writes, in the project
// or outside; the project's code) and nothing else, the secret stores
// still hidden. A call whose judgment needs a secret, the system, more
// privilege or something set up to run later, that reads or writes what
// the protected layer guards (a credential store, a protected path), or
// that writes where agate cannot name, cannot: the sandbox would cut what
// the person allowed.
func (p *Policy) approvedConfinement(c *call) Confinement {
	if c.shell == nil || len(c.shell.cmds) == 0 {
		return Confinement{}
	}
	if _, guarded := p.protectedLayer(c); guarded {
		return Confinement{}
	}
	project, ok := c.confinedProject()
	if !ok {
		return Confinement{}
	}
	var out Confinement
	writesProject, runs := false, false
	seen := map[string]bool{}
	for _, e := range c.effects {
		switch e.Kind {
		case EffNone, EffRead, EffUnknown, EffExec:
			// Reads (the secret stores stay hidden), and what agate cannot
			// read or tell: held to the paths below.
		case EffWrite, EffDelete:
			switch {
			case e.Path == "":
				return Confinement{}
			case within(e.Path, project):
				writesProject = true
			case !seen[e.Path]:
				seen[e.Path] = true
				out.Writable = append(out.Writable, e.Path)
			}
		case EffProject:
			runs = true
		case EffNetwork, EffUpload:
			out.Net = true
			if e.Host != "" && !slices.Contains(out.Hosts, e.Host) {
				out.Hosts = append(out.Hosts, e.Host)
			}
		default:
			return Confinement{}
		}
	}
	if writesProject || runs {
		out.Writable = append([]string{project}, out.Writable...)
	}
	out.Possible, out.RunsCode = true, runs
	var why []string
	switch {
	case runs:
		why = append(why, "it runs the project's code")
	case writesProject:
		why = append(why, "it edits the project")
	}
	if len(out.Writable) > 0 && !(len(out.Writable) == 1 && out.Writable[0] == project) {
		why = append(why, "it writes outside the project")
	}
	if out.Net {
		why = append(why, "it reaches the network")
	}
	if len(why) == 0 {
		why = append(why, "it only reads")
	}
	out.Why = strings.Join(why, ", ")
	return out
}
