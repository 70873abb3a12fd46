package config

import (
	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/managed"
	"github.com/agatehq/agate/policy"
)

// Managed reads the managed policy an administrator installed
// (managed.Path): nil when there is none. A file that cannot be trusted
// (another than root may write it) or that does not parse is the managed
// layer of policy.FailedManaged, which fails closed on what it would
// have said.
func Managed() *policy.Managed {
	data, ok, err := managed.Read()
	switch {
	case !ok:
		return nil
	case err != nil:
		return policy.FailedManaged(managed.Path, err)
	}
	m, err := policy.ParseManaged(managed.Path, data)
	if err != nil {
		return policy.FailedManaged(managed.Path, err)
	}
	return m
}

// UnderManaged is cfg with the managed policy over it, as every reader of
// the config puts it in force; cfg itself when there is none.
func UnderManaged(cfg *policy.Config) *policy.Config {
	m := Managed()
	if m == nil {
		return cfg
	}
	out, _ := m.Apply(cfg) // (what it refused is in out's policy's Problems)
	return out
}

// Parse parses a config's text and puts it under the managed policy.
func Parse(ct Text) (*policy.Config, error) {
	cfg, err := policy.Parse(ct.Source, ct.Data)
	if err != nil {
		return nil, err
	}
	return UnderManaged(cfg), nil
}

// ManagedStatus says what the managed layer cfg was put under does: nil
// when there is none.
func ManagedStatus(cfg *policy.Config) *api.ManagedStatus {
	m := cfg.ManagedLayer()
	if m == nil {
		return nil
	}
	s := &api.ManagedStatus{File: m.Source, InForce: m.Failed() == nil}
	if err := m.Failed(); err != nil {
		s.Error = err.Error()
	}
	for _, p := range cfg.ManagedProblems() {
		if m.Failed() == nil {
			s.Refused = append(s.Refused, p.Error())
		}
	}
	s.Locked = m.LockedKeys()
	return s
}
