package docker

import (
	"errors"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
)

func TestStateMovedUnder(t *testing.T) {
	cases := map[error]bool{
		nil:                              false,
		cerrdefs.ErrNotFound:             false,
		cerrdefs.ErrConflict:             true,
		cerrdefs.ErrInternal:             true,
		cerrdefs.ErrPermissionDenied:     false,
		errors.New("connection refused"): false,
	}
	for err, want := range cases {
		if got := stateMovedUnder(err); got != want {
			t.Errorf("stateMovedUnder(%v) = %v, want %v", err, got, want)
		}
	}
}
