package warden

import (
	"errors"
	"syscall"
	"time"
)

// What the warden does when its socket reaches no engine: the engine made
// its socket again (a restart of Podman's service, or of dockerd with
// live-restore) after the warden's container mounted the old one.

// ReconnectAfter is how long the warden goes on while no engine answers
// on its socket (its calls are a list every relist) before it exits to be
// started again.
const ReconnectAfter = 30 * time.Second

// unreachable reports whether err is a call that found no engine behind
// the socket: nothing listens on it, or there is no socket.
func unreachable(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// reached records the outcome of a call to the engine: one that found no
// engine starts the time the engine has been lost, if it had not begun;
// any answer ends it.
func (w *watch) reached(err error, now time.Time) {
	switch {
	case !unreachable(err):
		w.lostSince = time.Time{}
	case w.lostSince.IsZero():
		w.lostSince = now
	}
}

// lost reports whether no engine has answered for ReconnectAfter.
func (w *watch) lost(now time.Time) bool {
	return !w.lostSince.IsZero() && now.Sub(w.lostSince) >= ReconnectAfter
}
