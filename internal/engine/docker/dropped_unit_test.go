package docker

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A read that the engine answers by closing the connection (rootless
// Podman's API service, now and then under load) is asked again: here a
// container's process listing whose first two answers were dropped.
func TestDroppedAnswerToAReadIsAskedAgain(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	tops := 0
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/top"):
			if tops++; tops <= 2 {
				if hijacker, ok := w.(http.Hijacker); ok {
					if conn, _, err := hijacker.Hijack(); err == nil {
						_ = conn.Close()
					}
				}
				return
			}
			_, _ = w.Write([]byte(`{"Titles":["PID","PPID","STAT","COMMAND"],"Processes":[["7","1","S","sleep 1"]]}`))
		case strings.HasSuffix(r.URL.Path, "/json"):
			_, _ = w.Write([]byte(`{"Id":"c1","HostConfig":{"Runtime":"runc"}}`))
		case strings.HasSuffix(r.URL.Path, "/info"):
			_, _ = w.Write([]byte(`{}`))
		}
	})
	procs, err := c.Processes(context.Background(), "c1")
	if err != nil || len(procs) != 1 || tops != 3 {
		t.Errorf("got %v, %v after %d listings; want one process after 3", procs, err, tops)
	}
}
