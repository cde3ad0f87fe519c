package timeline_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// findChromium finds headless Chromium, which `make test-tools` installs; a
// missing one fails the test with the fix.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "/Applications/Chromium.app/Contents/MacOS/Chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: run make test-tools (it installs Debian's chromium package)")
	return ""
}

// screenshot renders the SVG file in headless Chromium at its own size
// and returns the PNG, decoded.
func screenshot(t *testing.T, svg string, width, height int) image.Image {
	t.Helper()
	browser := findChromium(t)
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot,
		fmt.Sprintf("--window-size=%d,%d", width, height), "file://"+svg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	return img
}

// count counts the pixels in a box that match.
func count(img image.Image, x0, y0, x1, y1 float64, match func(r, g, b int) bool) int {
	n := 0
	for y := int(y0); y <= int(y1); y++ {
		for x := int(x0); x <= int(x1); x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if match(int(r>>8), int(g>>8), int(b>>8)) {
				n++
			}
		}
	}
	return n
}

// near matches a pixel within 24 of a colour "#RRGGBB" in each channel.
func near(hex string) func(r, g, b int) bool {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	want := color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v)}
	d := func(a int, b uint8) bool { return a-int(b) <= 24 && int(b)-a <= 24 }
	return func(r, g, b int) bool { return d(r, want.R) && d(g, want.G) && d(b, want.B) }
}

// The figure as a person sees it: rendered by a browser, it has the size
// it says, a red overlap where the SVG puts it, a colour for each writer
// and legible text under each gap.
func TestSVGRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("testing.Short() is set: -short runs unit tests only, and this one runs Chromium")
	}
	s, events := troubled()
	p := draw(t, s.timeline(t), events)
	path := filepath.Join(t.TempDir(), "timeline.svg")
	if err := os.WriteFile(path, []byte(p.src), 0o644); err != nil {
		t.Fatal(err)
	}
	width, height := int(p.root.num("width")), int(p.root.num("height"))
	img := screenshot(t, path, width, height)
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot is %v, want %dx%d", b, width, height)
	}
	white := count(img, 0, 0, float64(width-1), float64(height-1), func(r, g, b int) bool { return r > 250 && g > 250 && b > 250 })
	if white < width*height/2 || white == width*height {
		t.Errorf("%d of %d pixels are white: want a white figure with something drawn on it", white, width*height)
	}
	o := p.class("overlap")[0]
	red := func(r, g, b int) bool { return r > 150 && r > g+100 && r > b+100 }
	if n := count(img, o.num("x")-2, o.num("y")-2, o.num("x")+o.num("width")+2, o.num("y")+o.num("height")+2, red); n < 100 {
		t.Errorf("%d red pixels where the overlap is drawn, want its red frame", n)
	}
	for _, bar := range p.class("bar") {
		y := bar.num("y") + bar.num("height")/2
		if n := count(img, bar.num("x"), y, bar.num("x")+bar.num("width"), y, near(bar.attr("fill"))); n < 3 {
			t.Errorf("bar %q: %d pixels of its colour %s on its middle line", bar.title(), n, bar.attr("fill"))
		}
	}
	for _, l := range p.class("gap-label") {
		dark := func(r, g, b int) bool { return r < 100 && g < 100 && b < 100 }
		if n := count(img, l.num("x"), l.num("y")-11, l.num("x")+60, l.num("y")+2, dark); n < 30 {
			t.Errorf("gap label %q: %d dark pixels where its text is drawn", l.Text, n)
		}
	}
	if t.Failed() {
		keep := filepath.Join(os.TempDir(), "timeline-render.svg")
		_ = os.WriteFile(keep, []byte(p.src), 0o644)
		t.Logf("the SVG is kept in %s", keep)
	}
}
