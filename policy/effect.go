package policy

import (
	"fmt"
)

// EffectKind is one kind of thing a command does. A shell command's
// effects come from agate's catalog of programs: what each program, its
// subcommands, options and operands do. A command runs unasked only when
// every effect of every simple command in it is known and free (see
// Decide).
type EffectKind uint8

// The effects. The set is closed: a catalog entry naming any other is an
// error for the whole catalog.
const (
	EffNone     EffectKind = iota
	EffRead                // reads a path
	EffWrite               // creates or changes a path
	EffDelete              // removes a path
	EffNetwork             // reaches a host: connects, downloads
	EffUpload              // sends data to a host
	EffExec                // runs code agate cannot read: inline code, a fetched package, a script from elsewhere
	EffProject             // runs the project's own code: make, go test, pytest, python3 x.py
	EffSecret              // reads a secret: the environment, a credential store, a token
	EffSystem              // changes the system: services, processes, mounts, users, packages
	EffElevated            // runs with more privilege: sudo, doas
	EffPersist             // sets something up to run later or elsewhere: cron, services, git hooks, agents' settings
	EffUnknown             // agate does not know what it does: a program, option or subcommand it does not know
)

var effectNames = [...]string{
	EffNone: "none", EffRead: "read", EffWrite: "write", EffDelete: "delete", EffNetwork: "network",
	EffUpload: "upload", EffExec: "exec", EffProject: "project", EffSecret: "secret", EffSystem: "system",
	EffElevated: "elevated", EffPersist: "persist", EffUnknown: "unknown",
}

// String returns the effect's name as the catalog writes it.
func (k EffectKind) String() string {
	if int(k) < len(effectNames) {
		return effectNames[k]
	}
	return fmt.Sprintf("effect(%d)", uint8(k))
}

// parseEffectKind returns the effect named s.
func parseEffectKind(s string) (EffectKind, bool) {
	for i, n := range effectNames {
		if n == s {
			return EffectKind(i), true
		}
	}
	return 0, false
}

// Effect is one thing a simple command does.
type Effect struct {
	Kind EffectKind
	// Path is the path read, written or deleted, absolute; "" when it is
	// not known until the command runs (a variable, a glob into a folder
	// not known).
	Path string
	// Host is the host reached or sent to; "" when not known.
	Host string
	// What says it in a few words, for the reason and the popup: "option
	// -Z of cat", "git config core.fsmonitor", "inline python code".
	What string
	// Append is set for a write that only adds to a file (>>, tee -a):
	// nothing that was there is lost.
	Append bool
	// Create is set for a write that only makes a new folder (mkdir).
	Create bool
	// Edit is set for a write that changes a file in place (sed -i,
	// gofmt -w, chmod): an edit, not a file replaced.
	Edit bool
	// Names is set for a read of names and metadata only (ls, stat, the
	// folder a program works in): what a file holds is not read, so a
	// secret in it is not either.
	Names bool
	// Local is set for a network effect that is a plain GET or HEAD of a
	// server on this machine's loopback (localGetHandler): a development
	// server's page, read.
	Local bool
	// Service is set for a network effect that only reads the service
	// the tool is set up for, with the person's own login, and sends
	// nothing of the machine's but the request (kubectl get, helm status,
	// terraform plan): What says which.
	Service bool
}

// String is the effect as a catalog example writes it: "read:/w/a",
// "network:example.com", "exec".
func (e Effect) String() string {
	switch {
	case e.Names && e.Kind == EffRead && e.Path != "":
		return "list:" + e.Path
	case e.Names && e.Kind == EffRead:
		return "list"
	case e.Path != "":
		return e.Kind.String() + ":" + e.Path
	case e.Host != "":
		return e.Kind.String() + ":" + e.Host
	}
	return e.Kind.String()
}

// risk is the effect in the coarse terms of Pepe's grants and the
// reasons: deletes, writes, network, elevated, inline code, secret,
// system, unknown.
func (e Effect) risk() Risks {
	switch e.Kind {
	case EffWrite, EffPersist:
		return Risks(Writes)
	case EffDelete:
		return Risks(Deletes)
	case EffNetwork, EffUpload:
		return Risks(Network)
	case EffExec:
		return Risks(InlineCode)
	case EffSecret:
		return Risks(Secret)
	case EffSystem:
		return Risks(System)
	case EffElevated:
		return Risks(Elevated)
	case EffUnknown:
		return Risks(Unknown)
	}
	return 0
}

// Describe says what an effect does in words a person reads: "deletes
// /home/me/proj/build", "connects to mini10v".
func (e Effect) Describe() string { return e.describe() }

// describe says what an effect does in words a person reads.
func (e Effect) describe() string {
	what := e.What
	target := e.Path
	if target == "" {
		target = e.Host
	}
	var s string
	switch e.Kind {
	case EffRead:
		if e.Names {
			s = "lists " + orUnknownPath(target)
		} else {
			s = "reads " + orUnknownPath(target)
		}
	case EffWrite:
		switch {
		case e.Append:
			s = "appends to " + orUnknownPath(target)
		case e.Create:
			s = "creates " + orUnknownPath(target)
		case e.Edit:
			s = "edits " + orUnknownPath(target)
		default:
			s = "writes " + orUnknownPath(target)
		}
	case EffDelete:
		s = "deletes " + orUnknownPath(target)
	case EffNetwork:
		if target == "" {
			s = "reaches the network"
		} else {
			s = "connects to " + target
		}
	case EffUpload:
		if target == "" {
			s = "sends data over the network"
		} else {
			s = "sends data to " + target
		}
	case EffExec:
		s = "runs code agate cannot read"
	case EffProject:
		s = "runs the project's own code"
	case EffSecret:
		s = "reads a secret"
	case EffSystem:
		s = "changes the system"
	case EffElevated:
		s = "runs with elevated privileges"
	case EffPersist:
		s = "sets up something that runs later"
	case EffUnknown:
		s = "does what agate does not know"
	default:
		s = "does nothing that matters"
	}
	if what != "" {
		s += " (" + what + ")"
	}
	return s
}

func orUnknownPath(p string) string {
	if p == "" {
		return "a path not known until it runs"
	}
	return p
}

// effectSet is the effects of a call, with the questions the layers ask
// of them.
type effectSet []Effect

// has reports whether any effect is of kind k.
func (s effectSet) has(k EffectKind) bool {
	for i := range s {
		if s[i].Kind == k {
			return true
		}
	}
	return false
}

// first returns the first effect of kind k.
func (s effectSet) first(k EffectKind) (Effect, bool) {
	for i := range s {
		if s[i].Kind == k {
			return s[i], true
		}
	}
	return Effect{}, false
}

// risks is the union of the effects' coarse risks.
func (s effectSet) risks() Risks {
	var r Risks
	for i := range s {
		r |= s[i].risk()
	}
	return r
}
