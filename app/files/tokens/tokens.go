package tokens

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// FileName is the file in the state folder.
const FileName = "tokens.json"

// prefix starts every token, so a leaked one is recognisable.
const prefix = "agt_"

// Sentinel errors Lookup and the store return.
var (
	ErrUnknown  = errors.New("unknown token")
	ErrExpired  = errors.New("the token has expired")
	ErrWrongUID = errors.New("the token is not this user's")
	ErrExists   = errors.New("a token of that name exists")
	ErrNotFound = errors.New("no token of that name")
	// ErrWrongSocket is a container's token on another socket, or a
	// caller's token on a container's.
	ErrWrongSocket = errors.New("the token is not for this socket")
)

// Token is one scoped token, as stored: never the secret itself.
type Token struct {
	Name string `json:"name"`
	// Hash is the hex SHA-256 of the secret.
	Hash string `json:"hash"`
	// UID is the only user that may present it.
	UID int `json:"uid"`
	// Project, when set, is the only folder its calls are decided in
	// (an absolute path: the call's cwd must be in it).
	Project string `json:"project,omitempty"`
	// Mode, when set, is a floor on the mode its calls are decided in.
	Mode    string    `json:"mode,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires,omitzero"`
	// Container marks a dev container's token (`agate container add`):
	// presented on that container's own socket only, by whatever uid the
	// container runs as, for Project only, which the container sees at
	// Inside.
	Container bool `json:"container,omitempty"`
	// Inside is where the container sees Project (its mount point).
	Inside string `json:"inside,omitempty"`
}

// file is tokens.json.
type file struct {
	Version int     `json:"version"`
	Tokens  []Token `json:"tokens"`
}

// Path is tokens.json in state.
func Path(state string) string { return filepath.Join(state, FileName) }

// maxSize bounds the file.
const maxSize = 1 << 20

// Load reads the tokens at path; a missing file is none.
func Load(path string) ([]Token, error) {
	data, err := osutil.ReadPrivate(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) ([]Token, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", path, f.Version)
	}
	seen := map[string]bool{}
	for i, t := range f.Tokens {
		if err := ValidName(t.Name); err != nil {
			return nil, fmt.Errorf("%s: token %d: %w", path, i+1, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: token %q is named twice", path, t.Name)
		}
		seen[t.Name] = true
		if b, err := hex.DecodeString(t.Hash); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%s: token %q: its hash is not a SHA-256", path, t.Name)
		}
		if t.UID < 0 {
			return nil, fmt.Errorf("%s: token %q: uid %d", path, t.Name, t.UID)
		}
		if t.Project != "" && !filepath.IsAbs(t.Project) {
			return nil, fmt.Errorf("%s: token %q: project %q is not absolute", path, t.Name, t.Project)
		}
		if err := t.checkContainer(); err != nil {
			return nil, fmt.Errorf("%s: token %q: %w", path, t.Name, err)
		}
	}
	return f.Tokens, nil
}

// ValidName reports whether name can name a token: 1 to 64 letters,
// digits, '-', '_' or '.'.
func ValidName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("a token's name is 1 to 64 characters, not %d", len(name))
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("token name %q: only letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// hash is the stored form of a secret.
func hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// Add makes a token like t (its Hash and Created are filled in), stores
// it at path and returns its secret, which is never stored.
func Add(ctx context.Context, path string, t Token, now time.Time) (string, error) {
	if err := ValidName(t.Name); err != nil {
		return "", err
	}
	if err := t.checkContainer(); err != nil {
		return "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("tokens: %w", err)
	}
	secret := prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	t.Hash, t.Created = hash(secret), now.UTC()
	err := update(ctx, path, func(list []Token) ([]Token, error) {
		if slices.ContainsFunc(list, func(o Token) bool { return o.Name == t.Name }) {
			return nil, fmt.Errorf("%w: %q", ErrExists, t.Name)
		}
		return append(list, t), nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// Remove revokes the token named name.
func Remove(ctx context.Context, path, name string) error {
	return update(ctx, path, func(list []Token) ([]Token, error) {
		i := slices.IndexFunc(list, func(o Token) bool { return o.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
		}
		return slices.Delete(list, i, i+1), nil
	})
}

// update changes the file under its lock.
func update(ctx context.Context, path string, fn func([]Token) ([]Token, error)) error {
	if err := osutil.MakeDir(filepath.Dir(path), false); err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	unlock, err := osutil.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	defer unlock()
	list, err := Load(path)
	if err != nil {
		return err
	}
	list, err = fn(list)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(file{Version: 1, Tokens: list}, "", "  ")
	if err != nil {
		return err
	}
	return osutil.WriteFile(path, append(data, '\n'), 0o600)
}

// Lookup returns the token whose secret this is, presented by uid at
// now on the socket of the container named container ("" for the
// tokens' socket), or why it is refused. A container's token works on
// its own socket only, whatever the uid (the container's users are not
// the host's); every other token only on the tokens' socket, by its uid.
func Lookup(list []Token, secret string, uid int, container string, now time.Time) (*Token, error) {
	if !strings.HasPrefix(secret, prefix) {
		return nil, ErrUnknown
	}
	h := hash(secret)
	for i := range list {
		t := &list[i]
		if subtle.ConstantTimeCompare([]byte(t.Hash), []byte(h)) != 1 {
			continue
		}
		switch {
		case t.Container != (container != "") || t.Container && t.Name != container:
			return nil, fmt.Errorf("%w (token %q belongs on another socket)", ErrWrongSocket, t.Name)
		case !t.Container && t.UID != uid:
			return nil, fmt.Errorf("%w (token %q is for uid %d, presented by uid %d)", ErrWrongUID, t.Name, t.UID, uid)
		case !t.Expires.IsZero() && !now.Before(t.Expires):
			return nil, fmt.Errorf("%w (token %q, %s)", ErrExpired, t.Name, t.Expires.Format(time.RFC3339))
		}
		return t, nil
	}
	return nil, ErrUnknown
}

// UIDs are the users the tokens are for: who may connect to the
// tokens' socket at all (containers' tokens are not used there).
func UIDs(list []Token) map[int]bool {
	out := map[int]bool{}
	for _, t := range list {
		if !t.Container {
			out[t.UID] = true
		}
	}
	return out
}

// Within reports whether dir is t's project or a folder in it (true
// when t names no project).
func (t *Token) Within(dir string) bool {
	if t.Project == "" {
		return true
	}
	rel, err := filepath.Rel(t.Project, filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
