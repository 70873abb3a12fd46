package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/machine"
	"github.com/agatehq/agate/keystore"
)

// keysTimeout bounds one key store operation: a keychain that does not
// answer (a locked keyring's unlock window left open) must not hang it.
const keysTimeout = 20 * time.Second

// keysTab shows the sealed keys by name and masked tail, adds and removes
// them, and says which backend keeps the master key and whether the
// keychain answers. It never shows a value.
type keysTab struct {
	s          *Settings
	backend    *widget.Label
	health     *widget.Label
	list       *fyne.Container
	name       *widget.Entry
	value      *widget.Entry
	passphrase *widget.Entry
	content    fyne.CanvasObject
}

func newKeysTab(s *Settings) *keysTab {
	t := &keysTab{s: s, backend: widget.NewLabel("…"), health: widget.NewLabel("…"), list: container.NewVBox()}
	t.health.Wrapping = fyne.TextWrapWord
	t.name = widget.NewEntry()
	t.name.SetPlaceHolder("name, e.g. openai")
	t.value = widget.NewPasswordEntry()
	t.value.SetPlaceHolder("the key (never shown)")
	t.passphrase = widget.NewPasswordEntry()
	t.passphrase.SetPlaceHolder("only for a store sealed with a passphrase")
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewCard("Key store", "Provider keys sealed at rest; the config refers to them as \"keystore:NAME\".",
			widget.NewForm(widget.NewFormItem("Backend", t.backend), widget.NewFormItem("Keychain", t.health),
				widget.NewFormItem("Passphrase", t.passphrase))),
		widget.NewCard("Keys", "", container.NewVBox(t.list, widget.NewButton("Refresh", t.load))),
		widget.NewCard("Add a key", "", container.NewVBox(
			widget.NewForm(widget.NewFormItem("Name", t.name), widget.NewFormItem("Value", t.value)),
			widget.NewButton("Seal it", t.add))),
	))
	return t
}

// store opens the key store; the passphrase typed here answers a
// passphrase-sealed store.
func (t *keysTab) store() (*keystore.Store, error) {
	pass := t.passphrase.Text
	return machine.OpenKeyStore(t.s.d.Paths(), func(ctx context.Context, isNew bool) (string, error) {
		if pass == "" {
			return "", fmt.Errorf("%w: type the passphrase in the Keys tab", keystore.ErrLocked)
		}
		return pass, nil
	})
}

// load lists the keys and checks the keychain, off Fyne's goroutine.
func (t *keysTab) load() {
	st, err := t.store()
	if err != nil {
		t.backend.SetText("cannot open " + t.s.d.Paths().KeyStore() + ": " + err.Error())
		return
	}
	t.list.Objects = []fyne.CanvasObject{widget.NewLabel("Reading the key store…")}
	t.list.Refresh()
	t.content.Refresh()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), keysTimeout)
		defer cancel()
		entries, lerr := st.List(ctx)
		backend := st.Backend()
		_, kerr := (&keystore.Keychain{}).Get(ctx, nil)
		health := "answers (Secret Service / Keychain)"
		if kerr != nil && !errors.Is(kerr, keystore.ErrNotFound) {
			health = "unavailable: " + kerr.Error() + " (a new store uses a passphrase)"
		}
		t.s.do(func() { t.show(backend, health, entries, lerr) })
	}()
}

func (t *keysTab) show(backend, health string, entries []keystore.Entry, err error) {
	if backend == "" {
		backend = "none yet: the first key decides (the keychain when it answers)"
	}
	t.backend.SetText(backend)
	t.health.SetText(health)
	t.list.Objects = nil
	for _, e := range entries {
		name := e.Name
		note := e.Masked
		switch {
		case err != nil:
			note = "(locked)"
		case e.Err != nil:
			note = "(does not open: tampered or corrupt)"
		}
		t.list.Add(container.NewBorder(nil, nil, nil, widget.NewButton("Remove", func() { t.remove(name) }),
			widget.NewLabelWithStyle(name+"   "+note, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})))
	}
	if len(entries) == 0 {
		t.list.Add(widget.NewLabel("No keys yet."))
	}
	if err != nil {
		l := widget.NewLabel("The store did not open: " + err.Error())
		l.Wrapping = fyne.TextWrapWord
		t.list.Add(l)
	}
	t.list.Refresh()
	t.content.Refresh() // the card's size changed: lay the tab out again
}

func (t *keysTab) add() {
	name, value := t.name.Text, t.value.Text
	if name == "" || value == "" {
		t.s.status.SetText("Type a name and a value to seal.")
		return
	}
	st, err := t.store()
	if err != nil {
		t.s.status.SetText("Not sealed: " + err.Error())
		return
	}
	t.value.SetText("")
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), keysTimeout)
		defer cancel()
		err := st.Set(ctx, name, value)
		t.s.do(func() {
			if err != nil {
				t.s.status.SetText("Not sealed: " + err.Error())
				return
			}
			t.name.SetText("")
			t.s.status.SetText(fmt.Sprintf("Sealed %s (%s).", name, keystore.Mask(value)))
			t.load()
		})
	}()
}

func (t *keysTab) remove(name string) {
	dialog.ShowConfirm("Remove "+name+"?", "The sealed value is deleted; references to keystore:"+name+" stop resolving.", func(ok bool) {
		if !ok {
			return
		}
		st, err := t.store()
		if err != nil {
			t.s.status.SetText("Not removed: " + err.Error())
			return
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), keysTimeout)
			defer cancel()
			err := st.Delete(ctx, name)
			t.s.do(func() {
				if err != nil {
					t.s.status.SetText("Not removed: " + err.Error())
				} else {
					t.s.status.SetText("Removed " + name + ".")
				}
				t.load()
			})
		}()
	}, t.s.win)
}
