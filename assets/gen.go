//go:build ignore

// gen draws agate's icons: the application icon and the tray icon for each
// state. They are committed as PNG files; run `go generate ./assets` after
// changing this program.
//
// Each icon is a coloured disc (or rounded square, for the application
// icon) with a white gate on it, and for some states a badge: the count of
// approvals waiting, a warning triangle for yolo, a cross for a config
// error. Shapes are sampled 8×8 times per pixel for smooth edges.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"strconv"
)

type shape func(x, y float64) bool

type layer struct {
	in shape
	c  color.NRGBA
}

func circle(cx, cy, r float64) shape {
	return func(x, y float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
}

func rrect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		if x < x0 || x > x1 || y < y0 || y > y1 {
			return false
		}
		cx := math.Max(x0+r, math.Min(x, x1-r))
		cy := math.Max(y0+r, math.Min(y, y1-r))
		return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
	}
}

func triangle(ax, ay, bx, by, cx, cy float64) shape {
	sign := func(px, py, qx, qy, rx, ry float64) float64 { return (px-rx)*(qy-ry) - (qx-rx)*(py-ry) }
	return func(x, y float64) bool {
		d1 := sign(x, y, ax, ay, bx, by)
		d2 := sign(x, y, bx, by, cx, cy)
		d3 := sign(x, y, cx, cy, ax, ay)
		neg := d1 < 0 || d2 < 0 || d3 < 0
		pos := d1 > 0 || d2 > 0 || d3 > 0
		return !(neg && pos)
	}
}

func union(ss ...shape) shape {
	return func(x, y float64) bool {
		for _, s := range ss {
			if s(x, y) {
				return true
			}
		}
		return false
	}
}

func render(size int, layers []layer) *image.NRGBA {
	const n = 8
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/n) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/n) / float64(size)
					for i := len(layers) - 1; i >= 0; i-- {
						if layers[i].in(x, y) {
							c := layers[i].c
							al := float64(c.A) / 255
							r += float64(c.R) * al
							g += float64(c.G) * al
							b += float64(c.B) * al
							a += al
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(255 * a / (n * n))})
		}
	}
	return img
}

var (
	white  = color.NRGBA{255, 255, 255, 255}
	dark   = color.NRGBA{30, 30, 30, 255}
	teal   = color.NRGBA{22, 128, 110, 255}
	amber  = color.NRGBA{214, 140, 0, 255}
	blue   = color.NRGBA{52, 101, 204, 255}
	red    = color.NRGBA{200, 45, 40, 255}
	grey   = color.NRGBA{105, 112, 125, 255}
	yellow = color.NRGBA{250, 204, 21, 255}
	badge  = color.NRGBA{220, 38, 38, 255}
)

// gate is the white gate: two posts, a lintel and a rail.
func gate() shape {
	return union(
		rrect(0.28, 0.30, 0.38, 0.76, 0.03),
		rrect(0.62, 0.30, 0.72, 0.76, 0.03),
		rrect(0.20, 0.24, 0.80, 0.34, 0.04),
		rrect(0.38, 0.49, 0.62, 0.56, 0.0),
	)
}

// segments are a seven-segment digit's strokes in a box.
var segments = map[rune]string{
	'0': "abcdef", '1': "bc", '2': "abged", '3': "abgcd", '4': "fgbc",
	'5': "afgcd", '6': "afgedc", '7': "abc", '8': "abcdefg", '9': "abcdfg",
}

// digit draws one badge glyph in the box (x0, y0)-(x0+w, y0+h) with
// strokes t thick. The tray shows the icon at 22 to 32 pixels: a stroke
// must stay two pixels wide there, and "1" is drawn as a one (a centred
// stem with a flag and a foot), not as a seven-segment pair of bars.
func digit(ch rune, x0, y0, w, h, t float64) shape {
	r := t / 2
	seg := map[rune]shape{
		'a': rrect(x0, y0, x0+w, y0+t, r),
		'g': rrect(x0, y0+h/2-t/2, x0+w, y0+h/2+t/2, r),
		'd': rrect(x0, y0+h-t, x0+w, y0+h, r),
		'f': rrect(x0, y0, x0+t, y0+h/2+t/2, r),
		'b': rrect(x0+w-t, y0, x0+w, y0+h/2+t/2, r),
		'e': rrect(x0, y0+h/2-t/2, x0+t, y0+h, r),
		'c': rrect(x0+w-t, y0+h/2-t/2, x0+w, y0+h, r),
	}
	switch ch {
	case '+':
		return union(rrect(x0, y0+h/2-t/2, x0+w, y0+h/2+t/2, r), rrect(x0+w/2-t/2, y0+h/2-w/2, x0+w/2+t/2, y0+h/2+w/2, r))
	case '1':
		mid := x0 + w/2
		return union(
			rrect(mid-t/2, y0, mid+t/2, y0+h, r),         // stem
			rrect(mid-w*0.42, y0, mid+t/2, y0+t, r),      // flag
			rrect(x0+w*0.08, y0+h-t, x0+w*0.92, y0+h, r), // foot
		)
	}
	var ss []shape
	for _, s := range segments[ch] {
		ss = append(ss, seg[s])
	}
	return union(ss...)
}

// countBadge is a red disc at the top right with n (or "9+") in white,
// as large as the gate leaves room for.
func countBadge(n int) []layer {
	text := strconv.Itoa(n)
	if n > 9 {
		text = "9+"
	}
	const cx, cy = 0.70, 0.30
	ls := []layer{{circle(cx, cy, 0.30), white}, {circle(cx, cy, 0.26), badge}}
	w, h, t, gap := 0.17, 0.30, 0.075, 0.0
	if len(text) > 1 {
		w, h, t, gap = 0.13, 0.24, 0.06, 0.03
	}
	total := float64(len(text))*w + float64(len(text)-1)*gap
	x := cx - total/2
	for _, ch := range text {
		ls = append(ls, layer{digit(ch, x, cy-h/2, w, h, t), white})
		x += w + gap
	}
	return ls
}

func trayIcon(bg color.NRGBA, extra ...layer) []layer {
	return append([]layer{{circle(0.5, 0.5, 0.48), bg}, {gate(), white}}, extra...)
}

func write(name string, img image.Image) {
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	const tray = 64
	write("icon.png", render(256, []layer{{rrect(0.04, 0.04, 0.96, 0.96, 0.2), teal}, {gate(), white}}))
	write("tray-idle.png", render(tray, trayIcon(teal)))
	write("tray-plan.png", render(tray, trayIcon(blue)))
	write("tray-yolo.png", render(tray, trayIcon(red,
		layer{triangle(0.74, 0.02, 0.98, 0.44, 0.50, 0.44), dark},
		layer{triangle(0.74, 0.08, 0.94, 0.41, 0.54, 0.41), yellow},
		layer{rrect(0.725, 0.16, 0.755, 0.31, 0.01), dark},
		layer{circle(0.74, 0.36, 0.022), dark})))
	write("tray-error.png", render(tray, trayIcon(grey,
		layer{circle(0.74, 0.26, 0.26), white},
		layer{circle(0.74, 0.26, 0.22), badge},
		layer{union(
			func(x, y float64) bool { return math.Abs((x-0.74)-(y-0.26)) < 0.045 && math.Abs(x-0.74) < 0.11 },
			func(x, y float64) bool { return math.Abs((x-0.74)+(y-0.26)) < 0.045 && math.Abs(x-0.74) < 0.11 },
		), white})))
	for n := 1; n <= 10; n++ {
		name := "tray-pending-" + strconv.Itoa(n) + ".png"
		if n == 10 {
			name = "tray-pending-many.png"
		}
		write(name, render(tray, trayIcon(amber, countBadge(n)...)))
	}
}
