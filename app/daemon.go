package app

// Daemon is the running gate: the policy in force, the approvals waiting for
// a person, the audit log and the local API.
type Daemon struct{}
