package acctest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// StallingEngine is a unix-socket proxy in front of the real engine that
// forwards every request, except that the requests stall matches are held
// until the client gives up: an engine that hangs on exactly one call,
// so that a test can cut an operation off at a chosen point.
type StallingEngine struct {
	// Host is the address to give the provider, unix:///....
	Host string
	// Stalled counts the requests held so far.
	Stalled atomic.Int32
}

// NewStallingEngine starts a proxy for the engine the tests use; it stops
// when the test ends.
func NewStallingEngine(t *testing.T, stall func(*http.Request) bool) *StallingEngine {
	t.Helper()
	target := Engine(t).Endpoint()
	socket, ok := strings.CutPrefix(target, "unix://")
	if !ok {
		t.Fatalf("the stalling proxy needs the engine on a unix socket, not %s", target)
	}
	path := filepath.Join(t.TempDir(), "engine.sock")
	listener, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := &StallingEngine{Host: "unix://" + path}
	forward := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "engine"
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}},
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stall(r) {
			s.Stalled.Add(1)
			<-r.Context().Done()
			return
		}
		forward.ServeHTTP(w, r)
	})}
	go func() {
		if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("stalling proxy: %v", err)
		}
	}()
	t.Cleanup(func() { _ = server.Close() })
	return s
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
		strings.Contains(r.URL.Path, "/containers/")
}

// ProviderBlock configures the provider to use this engine.
func (s *StallingEngine) ProviderBlock() string {
	return fmt.Sprintf("provider \"sandbox\" {\n  host = %q\n}\n", s.Host)
}
