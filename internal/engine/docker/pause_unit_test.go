package docker

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A pause the engine fails with an error of its own (runc's "unable to
// freeze" on a loaded machine) is asked for again, up to pauseAttempts
// in all; one refused for the container's state is not.
func TestPauseIsAskedAgainWhenTheRuntimeCannotFreeze(t *testing.T) {
	defer func(p time.Duration) { pauseRetryPause = p }(pauseRetryPause)
	pauseRetryPause = time.Millisecond
	freeze := "Cannot pause container 5a43: OCI runtime pause failed: unable to freeze: unknown"
	for _, tc := range []struct {
		name   string
		status int
		msg    string
		fails  int // pauses that fail before one succeeds
		asked  int
		ok     bool
	}{
		{"unable to freeze, once", http.StatusInternalServerError, freeze, 1, 2, true},
		{"unable to freeze, every time", http.StatusInternalServerError, freeze, 9, pauseAttempts, false},
		{"not running", http.StatusConflict, "Container 5a43 is not running", 1, 1, false},
		{"gone", http.StatusNotFound, "No such container: 5a43", 1, 1, false},
	} {
		asked := 0
		c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/containers/5a43/pause") {
				http.NotFound(w, r)
				return
			}
			if asked++; asked <= tc.fails {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(`{"message":"` + tc.msg + `"}`))
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		err := c.PauseContainer(context.Background(), "5a43")
		if asked != tc.asked || (err == nil) != tc.ok {
			t.Errorf("%s: asked %d times, error %v; want %d, ok %v", tc.name, asked, err, tc.asked, tc.ok)
		}
	}
}
