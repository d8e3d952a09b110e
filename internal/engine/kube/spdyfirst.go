package kube

import (
	"context"
	"io"
	"sync/atomic"

	"k8s.io/client-go/tools/remotecommand"
)

// spdyFirst streams a command with a standard input over SPDY, and over
// WebSocket when the SPDY stream failed before it read any of the input
// (the API server, or a proxy before it, does not upgrade to SPDY): a
// stream that read some of it is never sent again, whole or in part.
type spdyFirst struct{ spdy, ws remotecommand.Executor }

// Stream is StreamWithContext without a context.
func (e spdyFirst) Stream(opts remotecommand.StreamOptions) error {
	return e.StreamWithContext(context.Background(), opts)
}

// StreamWithContext streams over SPDY, then over WebSocket if SPDY failed
// before it read any input.
func (e spdyFirst) StreamWithContext(ctx context.Context, opts remotecommand.StreamOptions) error {
	if opts.Stdin == nil {
		return e.ws.StreamWithContext(ctx, opts)
	}
	first := &untouched{r: opts.Stdin}
	spdyOpts := opts
	spdyOpts.Stdin = first
	err := e.spdy.StreamWithContext(ctx, spdyOpts)
	// SPDY's client may still read the input after it returned: the
	// input is either taken by it or closed to it, at once.
	if err == nil || ctx.Err() != nil || !first.state.CompareAndSwap(inputFresh, inputClosed) {
		return err
	}
	return e.ws.StreamWithContext(ctx, opts)
}

// The states of an untouched input.
const (
	inputFresh int32 = iota
	inputRead
	inputClosed
)

// untouched is an input that says whether anything read it, and reads
// nothing once closed.
type untouched struct {
	r     io.Reader
	state atomic.Int32
}

func (u *untouched) Read(p []byte) (int, error) {
	if u.state.CompareAndSwap(inputFresh, inputRead) || u.state.Load() == inputRead {
		return u.r.Read(p)
	}
	return 0, io.EOF
}
