package ui

import (
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/agatehq/agate/app/api"
)

// TestPopupGolden draws the popup as Fyne's test driver does (its fixed
// theme and font) and compares it with testdata/popup-*.png: a shell call
// alone, then with a headless web call waiting behind it. After a
// deliberate change, the new images are in testdata/failed/: look at them,
// then move them over the old ones.
func TestPopupGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		calls func() []api.Approval // made in the bubble: its clock starts the countdowns
	}{
		{"popup-shell.png", func() []api.Approval { return []api.Approval{shellCall("1", "claude-code")} }},
		{"popup-two-waiting.png", func() []api.Approval { return []api.Approval{shellCall("1", "claude-code"), webCall("2", "gemini")} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fa := test.NewTempApp(t)
				p := NewPrompter(fa, PrompterOptions{})
				defer p.Close()
				for _, a := range tt.calls() {
					ask(t.Context(), p, a)
					synctest.Wait()
				}
				time.Sleep(armDelay) // the allow buttons awake
				synctest.Wait()
				onUI(p, func() {
					p.popup.win.Resize(popupSize)
					test.AssertImageMatches(t, tt.name, p.popup.win.Canvas().Capture())
				})
			})
		})
	}
}
