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

// TestTrayCountLegibleAt32 looks at the count badge as a panel shows it, at
// 32 pixels: the stem of each digit is at least two pixels of clear white
// across, in the middle of the badge (a one-pixel stroke blurs away).
func TestTrayCountLegibleAt32(t *testing.T) {
	for n := 1; n <= 9; n++ {
		_, data := Tray(TrayPending, n)
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		// Halve to 32×32 by averaging each 2×2 block, as a panel scales.
		white := func(x, y int) bool {
			var sum [3]uint32
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					r, g, b, _ := img.At(2*x+dx, 2*y+dy).RGBA()
					sum[0], sum[1], sum[2] = sum[0]+r>>8, sum[1]+g>>8, sum[2]+b>>8
				}
			}
			return sum[0]/4 > 200 && sum[1]/4 > 200 && sum[2]/4 > 200
		}
		// The longest run of white across rows through the digit's middle
		// (the badge is centred at (0.70, 0.30) of the icon).
		best := 0
		for y := 8; y <= 11; y++ {
			run := 0
			for x := 16; x < 32; x++ {
				if white(x, y) {
					run++
					best = max(best, run)
				} else {
					run = 0
				}
			}
		}
		if best < 2 {
			t.Errorf("tray-pending-%d at 32 px: the digit's widest stroke is %d px of white", n, best)
		}
	}
}
