package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestTrayIcons(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range []struct {
		s     TrayState
		count int
		want  string
	}{
		{TrayIdle, 0, "tray-idle.png"},
		{TrayPending, 1, "tray-pending-1.png"},
		{TrayPending, 9, "tray-pending-9.png"},
		{TrayPending, 10, "tray-pending-many.png"},
		{TrayPending, 0, "tray-pending-many.png"},
		{TrayPlan, 3, "tray-plan.png"},
		{TrayYolo, 0, "tray-yolo.png"},
		{TrayError, 0, "tray-error.png"},
	} {
		name, data := Tray(tt.s, tt.count)
		if name != tt.want {
			t.Errorf("Tray(%v, %d) = %s, want %s", tt.s, tt.count, name, tt.want)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
			t.Errorf("%s is %v, want 64×64", name, b)
		}
		seen[name] = true
	}
	if img, err := png.Decode(bytes.NewReader(Icon)); err != nil || img.Bounds().Dx() != 256 {
		t.Errorf("icon: %v", err)
	}
}
