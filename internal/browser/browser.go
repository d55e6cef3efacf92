// Package browser loads local HTML files in headless Chromium for tests: it
// collects console errors, uncaught exceptions and every network request
// the page makes, evaluates expressions in the page and takes screenshots.
// The report and the static site use it to prove that pages render offline,
// quietly and without executing anything from the data they show.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ErrNotFound means no Chromium binary was found.
var ErrNotFound = errors.New("chromium not found (set CHROMIUM or install the chromium package: make browser-deps)")

// candidates are tried in order after $CHROMIUM.
var candidates = []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "chromium", "chromium-browser", "google-chrome"}

// Find returns the Chromium binary: $CHROMIUM, /usr/bin/chromium, or one on
// PATH.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHROMIUM=%s: %w", p, err)
		}
		return p, nil
	}
	for _, c := range candidates {
		if filepath.IsAbs(c) {
			if _, err := os.Stat(c); err == nil {
				return c, nil
			}
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// RequireEnv names the variable that turns a missing browser from a skip
// into a failure, for CI jobs that install Chromium. Without it, browser
// tests also skip under -short.
const RequireEnv = "TRAINDOC_REQUIRE_BROWSER"

// ForTest returns the Chromium binary, or skips the test when there is none
// (fails it when TRAINDOC_REQUIRE_BROWSER=1).
func ForTest(t testing.TB) string {
	t.Helper()
	required := os.Getenv(RequireEnv) == "1"
	if testing.Short() && !required {
		t.Skip("skipping browser test in -short mode")
	}
	p, err := Find()
	if err != nil {
		if required {
			t.Fatalf("%v (%s=1)", err, RequireEnv)
		}
		t.Skipf("skipping browser test: %v", err)
	}
	return p
}

// Browser is one headless Chromium process with a throw-away profile.
type Browser struct {
	allocCtx    context.Context
	cancelAlloc context.CancelFunc
	browserCtx  context.Context
	cancel      context.CancelFunc
	profile     string
}

// Start launches Chromium at path. Close it when done.
func Start(ctx context.Context, path string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "traindoc-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browser profile: %w", err)
	}
	// The flags keep the browser from phoning home on its own, so that any
	// request seen is one the page made.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	browserCtx, cancel := chromedp.NewContext(allocCtx)
	// Run with no action starts the browser and its first tab.
	if err := chromedp.Do(browserCtx); err != nil {
		cancel()
		cancelAlloc()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start chromium %s: %w", path, err)
	}
	return &Browser{allocCtx: allocCtx, cancelAlloc: cancelAlloc, browserCtx: browserCtx, cancel: cancel, profile: profile}, nil
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	b.cancel()
	b.cancelAlloc()
	os.RemoveAll(b.profile)
}

// Options for loading a page.
type Options struct {
	// Width and Height of the viewport in CSS pixels (default 1200×900).
	Width, Height int64
	// Scale is the device pixel ratio (default 1).
	Scale float64
	// Dark emulates prefers-color-scheme: dark.
	Dark bool
	// Timeout bounds loading and every later call (default 30s).
	Timeout time.Duration
}

// Page is a loaded page in its own tab.
type Page struct {
	ctx    context.Context
	cancel context.CancelFunc
	url    string

	mu       sync.Mutex
	problems []string
	requests []string
}

// Open loads the local file at path in a new tab and waits for it to load.
func (b *Browser) Open(path string, opts Options) (*Page, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open page: %w", err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	if opts.Width == 0 {
		opts.Width, opts.Height = 1200, 900
	}
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	tabCtx, cancelTab := chromedp.NewContext(b.browserCtx)
	ctx, cancelTimeout := context.WithTimeout(tabCtx, opts.Timeout)
	p := &Page{ctx: ctx, url: u, cancel: func() { cancelTimeout(); cancelTab() }}
	if err := chromedp.Listen(ctx, p.record); err != nil {
		p.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	scheme := "light"
	if opts.Dark {
		scheme = "dark"
	}
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(opts.Width, opts.Height, chromedp.EmulateScale(opts.Scale)),
		emulateColorScheme(scheme),
		chromedp.Navigate(u),
	)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("load %s: %w", u, err)
	}
	return p, nil
}

func emulateColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return chromedp.Void{}, err
	}
}

// record runs in the tab's event loop: it must only append.
func (p *Page) record(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			p.problems = append(p.problems, "console."+string(ev.Type)+": "+strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		p.problems = append(p.problems, "exception: "+msg)
	case *cdplog.EventEntryAdded:
		if ev.Entry != nil && ev.Entry.Level == cdplog.EntryLevelError {
			p.problems = append(p.problems, fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		if ev.Request != nil {
			p.requests = append(p.requests, ev.Request.URL)
		}
	}
}

// Problems returns the console errors, uncaught exceptions and browser log
// errors seen so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Requests returns every URL the page requested, except the page itself
// and data: URLs (which never leave the browser).
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		if r == p.url || strings.HasPrefix(r, "data:") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Eval evaluates a JavaScript expression in the page and decodes its value
// into T. DevTools evaluation is not subject to the page's CSP, so it works
// on pages that forbid scripts.
func Eval[T any](p *Page, expr string) (T, error) {
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		var zero T
		return zero, fmt.Errorf("evaluate %q: %w", expr, err)
	}
	return v, nil
}

// Text returns the visible text of the page (document.body.innerText).
func (p *Page) Text() (string, error) {
	return Eval[string](p, "document.body.innerText")
}

// Screenshot returns a PNG of the whole page.
func (p *Page) Screenshot() ([]byte, error) {
	// Let late layout (fonts) settle; there are no network loads to wait for.
	if err := chromedp.Do(p.ctx, chromedp.Sleep(100*time.Millisecond)); err != nil {
		return nil, err
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return png, nil
}

// Close closes the tab.
func (p *Page) Close() { p.cancel() }
