package docker

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeWardenEngine refuses the first `refused` starts of the warden as
// Podman refuses a container on its way down, and shows it running once
// `runningAfter` starts were asked (0: never).
func fakeWardenEngine(t *testing.T, refused, runningAfter int32) (*Client, *atomic.Int32) {
	t.Helper()
	var starts atomic.Int32
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/start"):
			if starts.Add(1) <= refused {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"message":"container w must be in Created or Stopped state to be started: container state improper"}`))
				return
			}
			w.WriteHeader(http.StatusNoContent)
		case strings.HasSuffix(r.URL.Path, "/json"):
			running := runningAfter > 0 && starts.Load() >= runningAfter
			_, _ = fmt.Fprintf(w, `{"Id":"w","Name":"/tfsandbox-warden","State":{"Status":%q,"Running":%t},"Config":{},"HostConfig":{}}`,
				map[bool]string{true: "running", false: "stopping"}[running], running)
		}
	})
	return c, &starts
}

// A warden that cannot be started while it stops itself is started once
// it is down; one another process started meanwhile is running; one that
// keeps refusing fails with the engine's error, within the wait.
func TestStoppedWardenIsStartedWhenItIsDown(t *testing.T) {
	defer func(w time.Duration) { wardenRestartWait = w }(wardenRestartWait)
	wardenRestartWait = 2 * time.Second
	c, starts := fakeWardenEngine(t, 2, 0)
	if err := c.startStoppedWarden(context.Background(), "w"); err != nil || starts.Load() != 3 {
		t.Errorf("refused twice: %v after %d starts, want started at the third", err, starts.Load())
	}
	c, starts = fakeWardenEngine(t, 1, 1)
	if err := c.startStoppedWarden(context.Background(), "w"); err != nil || starts.Load() != 1 {
		t.Errorf("running after a refused start: %v after %d starts, want no error after one", err, starts.Load())
	}
	c, _ = fakeWardenEngine(t, 1000, 0)
	began := time.Now()
	err := c.startStoppedWarden(context.Background(), "w")
	if err == nil || !strings.Contains(err.Error(), "state improper") || time.Since(began) > 5*time.Second {
		t.Errorf("always refused: %v after %s, want the engine's error within the wait", err, time.Since(began))
	}
}

// An imported image's labels are one LABEL change each, in the order of
// their keys: Podman 4 reads a LABEL of several pairs as one label.
func TestLabelChangesOnePerLabel(t *testing.T) {
	t.Parallel()
	got := labelChanges(map[string]string{"b.type": "warden", "a.by": "p"}, "c.token", "0f")
	want := []string{"LABEL a.by=p", "LABEL b.type=warden", "LABEL c.token=0f"}
	if !slices.Equal(got, want) {
		t.Errorf("labelChanges = %q, want %q", got, want)
	}
}
