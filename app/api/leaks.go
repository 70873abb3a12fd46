package api

import (
	"context"
	"time"
)

// Leak is a secret agate saw where it must not be: pasted into an agent's
// chat, where the agent's provider and its logs have it now. It names the
// secret by kind, name and fingerprint, and never holds the value or a
// part of it.
type Leak struct {
	// Fingerprint is the first 12 hex digits of the value's SHA-256.
	Fingerprint string `json:"fingerprint"`
	// Kind is what the value looks like: "Anthropic API key", "GitHub
	// token", "private key", or "known secret" for a value agate keeps
	// that has no telling shape.
	Kind string `json:"kind"`
	// Name is the known secret's label when agate keeps the value:
	// "keystore:NAME" for the key store, the variable for a [secrets.env]
	// reference. Empty for a credential agate does not keep.
	Name string `json:"name,omitempty"`
	// Where says where it was seen last: "pasted into claude-code's chat,
	// session S".
	Where   string    `json:"where"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	First   time.Time `json:"first"` // first seen since it was last cleared
	Last    time.Time `json:"last"`  // last seen
	Count   int       `json:"count"` // prompts it was seen in
}

// Label is how agate names a leak to a person: its name, or its kind and
// fingerprint.
func (l *Leak) Label() string {
	if l.Name != "" {
		return l.Name + " (" + l.Kind + ", " + l.Fingerprint + ")"
	}
	return l.Kind + " " + l.Fingerprint
}

// RotatedRequest says a leaked secret was rotated (POST /v1/leaks/rotated):
// Which is a fingerprint, a known secret's label ("keystore:openai"), or a
// key store name ("openai").
type RotatedRequest struct {
	Which string `json:"which"`
}

// RotatedResult lists the leaks a RotatedRequest cleared.
type RotatedResult struct {
	Cleared []Leak `json:"cleared"`
}

// Rotated clears the leaks a rotated secret left on record.
func (c *Client) Rotated(ctx context.Context, which string) (*RotatedResult, error) {
	var out RotatedResult
	if err := c.do(ctx, "POST", "/leaks/rotated", &RotatedRequest{Which: which}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
