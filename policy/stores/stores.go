// Package stores holds the policy's lists of where things that matter
// live: the secret stores of the tools developers use (Secrets), whose
// reads are secret reads and which the sandbox hides, and the paths whose
// writes run code later or change an agent's rules (Protected), which ask
// and which the sandbox keeps read-only. One list drives both the
// judgment and the confinement.
//
// It is data alone, no parser and no policy engine, so that the sandbox's
// runner (agate-hook sandbox), which starts for every confined command,
// links it for nothing. The secret stores are written in
// policy/secrets.toml and generated into secrets_table.go from it (go
// test ./policy -run TestSecretStoresTable -update; that test fails when
// the two differ).
package stores

import "slices"

// Secret is where one tool keeps its secrets: a read of one of its
// paths, or of a folder that holds one, is a secret read, and the sandbox
// hides each that exists. A path is "~/...", absolute, or a name or glob
// matched anywhere; a trailing "/" is a folder and all it holds.
type Secret struct {
	Name  string // the entry's name in secrets.toml: "aws"
	Tool  string // whose secrets: "AWS CLI and SDKs"
	Paths []string
}

// Secrets returns the built-in secret stores, sorted by name. The caller
// must not change the list.
func Secrets() []Secret { return secrets }

// Template reports whether a file's base name is one of a file named
// like a secret that is a template, written to be committed
// (.env.example): a read of one asks nothing, and the sandbox does not
// hide it.
func Template(base string) bool { return slices.Contains(notSecrets, base) }

// notSecrets are files named like secrets that are templates, written to
// be committed.
var notSecrets = []string{".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults", ".env.schema",
	".env.test.example", ".env.local.example", "example.env", "sample.env"}

// BuildOutput reports whether a folder's base name is one that builds,
// package managers and test tools make and make again (node_modules,
// target, dist, .venv, __pycache__): deleting one that git ignores and
// that holds no link out of the project loses nothing a build cannot
// give back.
func BuildOutput(base string) bool { return slices.Contains(buildOutputs, base) }

// buildOutputs are the folders BuildOutput names.
var buildOutputs = []string{"node_modules", "target", "dist", "build", ".venv", "venv", "__pycache__", ".gradle", ".next", ".nuxt",
	".svelte-kit", ".turbo", ".parcel-cache", ".angular", "coverage", "htmlcov", ".pytest_cache", ".mypy_cache", ".ruff_cache",
	".tox", ".nox", ".eggs", ".cache-loader", "bower_components", ".terraform"}
