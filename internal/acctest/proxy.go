package acctest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fault is what a FaultyEngine does with one request.
type Fault int

const (
	// Forward passes the request to the engine and the answer back.
	Forward Fault = iota
	// Stall holds the request until the client gives up: a frozen engine.
	Stall
	// CutAfterForward lets the engine do the work, then drops the
	// connection without an answer: an engine or network that failed
	// between doing something and saying so.
	CutAfterForward
	// Refuse drops the connection at once: an engine that is gone.
	Refuse
	// Slow holds the request for SlowFor, then forwards it unless the
	// client gave up meanwhile: a busy engine.
	Slow
	// Loaded holds the request for LoadedFor, then forwards it unless the
	// client gave up meanwhile: an engine under heavy load, slower than a
	// quick call's budget of old.
	Loaded
)

// SlowFor is how long the Slow fault holds a request, and LoadedFor the
// Loaded fault.
const (
	SlowFor   = 3 * time.Second
	LoadedFor = 12 * time.Second
)

// FaultyEngine is a unix-socket proxy in front of the real engine that does
// to each request what its rule says, so that a test can cut an operation
// off at a chosen point.
type FaultyEngine struct {
	// Host is the address to give the provider, unix:///....
	Host string

	mu    sync.Mutex
	rule  func(*http.Request) Fault
	count [Loaded + 1]atomic.Int32
}

// NewFaultyEngine starts a proxy for the engine the tests use, forwarding
// everything until SetRule says otherwise; it stops when the test ends.
func NewFaultyEngine(t *testing.T) *FaultyEngine {
	t.Helper()
	transport, scheme, host := Engine(t).Forwarder()
	path := filepath.Join(t.TempDir(), "engine.sock")
	listener, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	f := &FaultyEngine{Host: "unix://" + path, rule: func(*http.Request) Fault { return Forward }}
	forward := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = scheme, host
		},
		Transport: transport,
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serve(w, r, forward)
	})}
	go func() {
		if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("faulty engine proxy: %v", err)
		}
	}()
	t.Cleanup(func() { _ = server.Close() })
	return f
}

func (f *FaultyEngine) serve(w http.ResponseWriter, r *http.Request, forward http.Handler) {
	f.mu.Lock()
	fault := f.rule(r)
	f.mu.Unlock()
	f.count[fault].Add(1)
	switch fault {
	case Stall:
		<-r.Context().Done()
	case CutAfterForward:
		forward.ServeHTTP(httptest.NewRecorder(), r)
		drop(w)
	case Refuse:
		drop(w)
	case Slow, Loaded:
		hold := SlowFor
		if fault == Loaded {
			hold = LoadedFor
		}
		select {
		case <-time.After(hold):
			forward.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	default:
		forward.ServeHTTP(w, r)
	}
}

// drop closes the client's connection without an answer.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

// SetRule decides, from now on, what happens to each request.
func (f *FaultyEngine) SetRule(rule func(*http.Request) Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rule = rule
}

// Count is how many requests met the fault so far.
func (f *FaultyEngine) Count(fault Fault) int { return int(f.count[fault].Load()) }

// ProviderBlock configures the provider to use this engine.
func (f *FaultyEngine) ProviderBlock() string {
	return fmt.Sprintf("provider \"sandbox\" {\n  host = %q\n}\n", f.Host)
}

// On applies fault to the requests match selects, and forwards the rest.
func On(match func(*http.Request) bool, fault Fault) func(*http.Request) Fault {
	return func(r *http.Request) Fault {
		if match(r) {
			return fault
		}
		return Forward
	}
}

// IsContainerCreate matches the engine API's container create request.
func IsContainerCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/containers/create")
}

// IsContainerStart matches the engine API's container start request.
func IsContainerStart(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/start") &&
		strings.Contains(r.URL.Path, "/containers/")
}

// IsContainerInspect matches the engine API's container inspect request,
// which every refresh sends.
func IsContainerInspect(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/json") &&
		strings.Contains(r.URL.Path, "/containers/") && !strings.HasSuffix(r.URL.Path, "/containers/json")
}

// IsContainerRemove matches the engine API's container remove request.
func IsContainerRemove(r *http.Request) bool {
	return r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/containers/")
}
