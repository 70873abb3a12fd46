package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/leaks"
	"github.com/agatehq/agate/keystore"
)

// A secret pasted into an agent's chat is compromised: the daemon records
// it (app/files/leaks), and these say so and clear it once it is rotated.

// rotateHints say where each kind of credential is revoked and replaced.
var rotateHints = map[string]string{
	"Anthropic API key":    "revoke it at console.anthropic.com (Settings, API keys) and make a new one",
	"OpenAI API key":       "revoke it at platform.openai.com/api-keys and make a new one",
	"API key (sk-...)":     "revoke it with the provider that issued it (OpenAI: platform.openai.com/api-keys) and make a new one",
	"GitHub token":         "revoke it at github.com/settings/tokens (a gh CLI login: github.com/settings/applications) and make a new one",
	"GitHub OAuth token":   "revoke it at github.com/settings/applications, or `gh auth logout` then `gh auth login`",
	"GitHub refresh token": "revoke the app's authorization at github.com/settings/applications",
	"GitLab token":         "revoke it in GitLab (Preferences, Access tokens) and make a new one",
	"AWS access key":       "deactivate and delete it in IAM (Security credentials, Access keys; `aws iam delete-access-key`) and make a new one",
	"Slack token":          "rotate it at api.slack.com/apps (the app's OAuth & Permissions, or revoke the token)",
	"Google API key":       "delete or regenerate it at console.cloud.google.com/apis/credentials",
	"Hugging Face token":   "invalidate it at huggingface.co/settings/tokens and make a new one",
	"npm token":            "revoke it with `npm token revoke` (or npmjs.com, Access Tokens) and make a new one",
	"PyPI token":           "remove it at pypi.org/manage/account/token/ and make a new one",
	"Stripe key":           "roll it at dashboard.stripe.com/apikeys",
	"SendGrid key":         "delete it at app.sendgrid.com/settings/api_keys and make a new one",
	"private key":          "make a new key pair and remove the old public key wherever it is trusted (authorized_keys, GitHub's SSH keys, servers)",
}

// rotateHint says how to rotate a leaked secret: revoke it where it was
// issued, give agate the new value when agate keeps it, then say so.
func rotateHint(l *api.Leak) string {
	how, ok := rotateHints[l.Kind]
	if !ok {
		how = "revoke it where it was issued and make a new one"
	}
	name, kept := strings.CutPrefix(l.Name, "keystore:")
	switch {
	case kept:
		return how + "; then `agate keys set " + name + "` the new value (that clears it)"
	case l.Name != "":
		return how + "; then update what " + l.Name + " refers to in [secrets.env], and `agate keys rotated " + l.Fingerprint + "`"
	}
	return how + "; then `agate keys rotated " + l.Fingerprint + "`"
}

// leakLine says in one line which secret leaked, where and when.
func leakLine(l *api.Leak) string {
	times := ""
	if l.Count > 1 {
		times = fmt.Sprintf(", %d times", l.Count)
	}
	return fmt.Sprintf("%s was %s (%s%s): it is compromised", l.Label(), l.Where, l.Last.Local().Format(time.DateTime), times)
}

// keysRotated clears the leaks which names: pasted into a chat (through the
// daemon when it runs, so the tray hears of it; else in the file), and a
// key store key seen in an agent's arguments. For a key store key it says
// whether the store still holds the leaked value.
func keysRotated(ctx context.Context, e *Env, p api.Paths, store *keystore.Store, which string) error {
	var cleared []api.Leak
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	res, err := (&api.Client{Socket: p.Socket}).Rotated(cctx, which)
	cancel()
	switch {
	case err == nil:
		cleared = res.Cleared
	case errors.Is(err, api.ErrDaemonDown):
		if cleared, err = leaks.Open(p.State).Clear(ctx, which); err != nil {
			return err
		}
	default:
		return fmt.Errorf("clear the leak through the daemon: %w", err)
	}
	// The same key seen in an agent's arguments (keystore's record).
	var argLabels []string
	pending, perr := keystore.PendingLeaks(p.State)
	for _, l := range pending {
		if l.Name == which || l.Name == "keystore:"+which {
			if err := keystore.RecordRotated(p.State, l.Name, time.Now()); err != nil {
				return err
			}
			argLabels = append(argLabels, l.Name)
		}
	}
	if perr != nil {
		if len(cleared) == 0 {
			return fmt.Errorf("the record of keys seen in agents' arguments: %w", perr)
		}
		fmt.Fprintf(e.Stderr, "agate: not cleared in the record of keys seen in agents' arguments: %v\n", perr)
	}
	if len(cleared) == 0 && len(argLabels) == 0 {
		return fmt.Errorf("no leak on record for %q: see `agate doctor` for the names and fingerprints", which)
	}
	for _, l := range cleared {
		fmt.Fprintf(e.Stdout, "cleared: %s, %s\n", l.Label(), l.Where)
	}
	for _, n := range argLabels {
		fmt.Fprintf(e.Stdout, "cleared: %s, seen in an agent's arguments\n", n)
	}
	stillHeld(ctx, e.Stderr, store, cleared, argLabels)
	return nil
}

// stillHeld warns when the key store still holds a value that leaked: the
// rotation made a new one, which agate does not have yet.
func stillHeld(ctx context.Context, w io.Writer, store *keystore.Store, cleared []api.Leak, argLabels []string) {
	fps := map[string][]string{} // key store name -> leaked fingerprints
	for _, l := range cleared {
		if name, ok := strings.CutPrefix(l.Name, "keystore:"); ok {
			fps[name] = append(fps[name], l.Fingerprint)
		}
	}
	for _, label := range argLabels {
		if name, ok := strings.CutPrefix(label, "keystore:"); ok {
			if _, seen := fps[name]; !seen {
				fps[name] = nil // the value itself was seen: any value held is the leaked one
			}
		}
	}
	for name, leaked := range fps {
		v, err := store.Get(ctx, name)
		if err != nil {
			if !errors.Is(err, keystore.ErrNotFound) {
				fmt.Fprintf(w, "agate: could not check whether the key store still holds the leaked %s: %v\n", name, err)
			}
			continue
		}
		fp := keystore.Fingerprint(v)
		if leaked == nil || slices.Contains(leaked, fp) {
			fmt.Fprintf(w, "agate: the key store still holds the leaked value of %s (%s): `agate keys set %s` the new one\n", name, fp, name)
		}
	}
}

// clearPastedOnSet clears the pasted leaks of a key store key once a new
// value is set for it: the rotation they asked for. The value set is
// compared by fingerprint, so setting the leaked value again clears
// nothing.
func clearPastedOnSet(ctx context.Context, e *Env, p api.Paths, name, value string) {
	rec := leaks.Open(p.State)
	ls, err := rec.List()
	if err != nil {
		fmt.Fprintf(e.Stderr, "agate: %v\n", err)
		return
	}
	fp := keystore.Fingerprint(value)
	for _, l := range ls {
		if l.Name != "keystore:"+name {
			continue
		}
		if l.Fingerprint == fp {
			fmt.Fprintf(e.Stderr, "agate: this is the value that was %s: it is still compromised; rotate it with its provider and set the new one\n", l.Where)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := (&api.Client{Socket: p.Socket}).Rotated(cctx, l.Fingerprint)
		cancel()
		if errors.Is(err, api.ErrDaemonDown) {
			_, err = rec.Clear(ctx, l.Fingerprint)
		}
		if err != nil {
			fmt.Fprintf(e.Stderr, "agate: clear the leak of %s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(e.Stderr, "agate: cleared the leak of %s (%s, %s)\n", name, l.Fingerprint, l.Where)
	}
}

// pastedByName returns the pasted leaks of known secrets, by label; an
// error when the record cannot be read (the caller says so: a key that
// leaked must not look clean).
func pastedByName(p api.Paths) (map[string]api.Leak, error) {
	out := map[string]api.Leak{}
	ls, err := leaks.Open(p.State).List()
	for _, l := range ls {
		if _, dup := out[l.Name]; l.Name != "" && !dup {
			out[l.Name] = l
		}
	}
	return out, err
}

// pastedLeaks reads the record of secrets pasted into a chat.
func pastedLeaks(p api.Paths) ([]api.Leak, error) { return leaks.Open(p.State).List() }
