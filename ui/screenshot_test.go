package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// screenshotConfig is the config the settings screenshot shows.
const screenshotConfig = `# agate's configuration (an example)
[auto]
mode = "ask"
auto_approve = ["fs", "code", "memory", "skills", "image", "git"]
rules = [
  "deny shell rm -rf /*",    # never
  "allow bash git status*",
  "allow bash go test*",
  "ask web *",
]
trusted_dirs = ["~/projects/agate"]
trusted_domains = ["docs.python.org", "pkg.go.dev"]
hard_deny = ["shell *mkfs*"]
`

// TestScreenshotSettings draws the settings panel's Rules tab, with a call
// tried, to $AGATE_SCREENSHOTS/screenshot-settings.png (`make
// screenshots`). Without the variable it only checks that the panel draws.
func TestScreenshotSettings(t *testing.T) {
	d := newTestDaemon(t, screenshotConfig)
	fa := test.NewTempApp(t)
	fa.Settings().SetTheme(theme.DefaultTheme())
	s := NewSettings(fa, d, t.Logf)
	for _, it := range s.tabs.Items {
		if it.Text == TabRules {
			s.tabs.Select(it)
		}
	}
	s.rules.tool.SetText("Bash")
	s.rules.args.SetText(`{"command": "git push origin main"}`)
	s.rules.cwd.SetText("/home/me/projects/agate")
	s.rules.try()
	s.status.SetText("Saved to ~/.config/agate/config.toml at 10:42:07 (comments kept).")
	s.win.Resize(fyne.NewSize(1100, 700))
	img := s.win.Canvas().Capture()
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 600 {
		t.Fatalf("captured %v", b)
	}
	dir := os.Getenv("AGATE_SCREENSHOTS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, "screenshot-settings.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
