package kube

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"k8s.io/client-go/tools/remotecommand"
)

// fakeExecutor reads n bytes of the input (all with n < 0), then ends with
// err.
type fakeExecutor struct {
	n     int
	err   error
	got   string
	calls int
}

func (f *fakeExecutor) Stream(opts remotecommand.StreamOptions) error {
	return f.StreamWithContext(context.Background(), opts)
}

func (f *fakeExecutor) StreamWithContext(_ context.Context, opts remotecommand.StreamOptions) error {
	f.calls++
	var b []byte
	if f.n < 0 {
		b, _ = io.ReadAll(opts.Stdin)
	} else if f.n > 0 {
		b = make([]byte, f.n)
		n, _ := io.ReadFull(opts.Stdin, b)
		b = b[:n]
	}
	f.got = string(b)
	return f.err
}

// A stream with an input goes over SPDY; over WebSocket only when SPDY
// failed before it read any of it, with the whole input; never after SPDY
// read some.
func TestSPDYFirstFallsBackOnlyBeforeTheInputIsRead(t *testing.T) {
	refused := errors.New("unable to upgrade connection: 403")
	for _, tc := range []struct {
		name    string
		spdy    *fakeExecutor
		wsCalls int
		wsGot   string
		fails   bool
	}{
		{"SPDY streams it", &fakeExecutor{n: -1}, 0, "", false},
		{"SPDY refused", &fakeExecutor{err: refused}, 1, "restore me", false},
		{"SPDY cut after a read", &fakeExecutor{n: 3, err: errors.New("connection reset")}, 0, "", true},
	} {
		ws := &fakeExecutor{n: -1}
		e := spdyFirst{spdy: tc.spdy, ws: ws}
		err := e.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdin: strings.NewReader("restore me")})
		if (err != nil) != tc.fails || ws.calls != tc.wsCalls || ws.got != tc.wsGot {
			t.Errorf("%s: error %v, WebSocket streamed %d times with %q; want failure %v, %d times with %q",
				tc.name, err, ws.calls, ws.got, tc.fails, tc.wsCalls, tc.wsGot)
		}
	}
	// A read that comes after the fallback began gets nothing.
	u := &untouched{r: strings.NewReader("x")}
	u.state.Store(inputClosed)
	if n, err := u.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("a closed input read %d bytes (%v)", n, err)
	}
}
