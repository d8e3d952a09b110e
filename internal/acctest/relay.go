package acctest

import (
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// SocketRelay is a unix socket at Path that relays each connection to the
// socket target: what an expiry warden mounts in place of the engine's
// socket (SANDBOX_ENGINE_SOCKET), which Remake makes again, as a restart
// of Podman's service or of dockerd with live-restore makes the engine's,
// without touching the engine.
type SocketRelay struct {
	Path   string
	target string
	mu     sync.Mutex
	ln     net.Listener
}

// NewSocketRelay starts a relay to target, stopped when the test ends.
func NewSocketRelay(t *testing.T, target string) *SocketRelay {
	t.Helper()
	// A unix socket's path is at most 107 bytes: a test's name fits.
	r := &SocketRelay{Path: filepath.Join(t.TempDir(), "engine.sock"), target: target}
	r.listen(t)
	t.Cleanup(r.close)
	return r
}

// Remake closes the socket, which removes its file, and makes it again at
// the same path: a mount of the old one reaches nothing.
func (r *SocketRelay) Remake(t *testing.T) {
	t.Helper()
	r.close()
	r.listen(t)
}

func (r *SocketRelay) listen(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("unix", r.Path)
	if err != nil {
		t.Fatalf("listening on %s: %v", r.Path, err)
	}
	r.mu.Lock()
	r.ln = ln
	r.mu.Unlock()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go r.relay(conn)
		}
	}()
}

func (r *SocketRelay) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		_ = r.ln.Close()
		r.ln = nil
	}
}

// relay passes bytes both ways between conn and a new connection to the
// target, until either side closes.
func (r *SocketRelay) relay(conn net.Conn) {
	defer func() { _ = conn.Close() }()
	upstream, err := net.Dial("unix", r.target)
	if err != nil {
		return
	}
	defer func() { _ = upstream.Close() }()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(upstream, conn)
		if u, ok := upstream.(*net.UnixConn); ok {
			_ = u.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(conn, upstream)
	if c, ok := conn.(*net.UnixConn); ok {
		_ = c.CloseWrite()
	}
	<-done
}
