package docker

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// fakeExecEngine answers exec creates with exec IDs e1, e2, ...; drops the
// connection of the first `drops` starts without an answer; and inspects
// every exec with pid.
func fakeExecEngine(t *testing.T, drops int32, pid int) (*Client, *atomic.Int32) {
	t.Helper()
	var created, starts atomic.Int32
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/exec") && r.Method == http.MethodPost:
			n := created.Add(1)
			_, _ = fmt.Fprintf(w, `{"Id":"e%d"}`, n)
		case strings.HasSuffix(r.URL.Path, "/start"):
			hijacker, ok := w.(http.Hijacker)
			if !ok {
				t.Error("the test server cannot hijack")
				return
			}
			conn, buf, err := hijacker.Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if starts.Add(1) <= drops {
				_ = conn.Close()
				return
			}
			_, _ = buf.WriteString("HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n")
			_ = buf.Flush()
			_ = conn.Close()
		case strings.HasSuffix(r.URL.Path, "/json"):
			_, _ = fmt.Fprintf(w, `{"Running":false,"Pid":%d,"ExitCode":0}`, pid)
		default:
			_, _ = w.Write([]byte("OK"))
		}
	})
	return c, &starts
}

// A start whose connection the engine dropped is asked again when the exec
// never started, and never when it may have.
func TestStartExecOnceRetriesOnlyWhatNeverStarted(t *testing.T) {
	opts := container.ExecOptions{Cmd: []string{"true"}, AttachStdout: true}
	c, starts := fakeExecEngine(t, 1, 0)
	id, att, err := c.startExecOnce(context.Background(), "sandbox", opts)
	if err != nil || id != "e2" || starts.Load() != 2 {
		t.Fatalf("a dropped start that never ran: exec %q after %d starts, %v; want e2 after 2", id, starts.Load(), err)
	}
	att.Close()

	c, starts = fakeExecEngine(t, 1, 7)
	if _, _, err := c.startExecOnce(context.Background(), "sandbox", opts); !engine.DroppedAnswer(err) || starts.Load() != 1 {
		t.Fatalf("a dropped start that may have run was started %d times (%v), want once and its error", starts.Load(), err)
	}

	c, starts = fakeExecEngine(t, 5, 0)
	if _, _, err := c.startExecOnce(context.Background(), "sandbox", opts); !engine.DroppedAnswer(err) || starts.Load() != 3 {
		t.Fatalf("an engine that always drops: %d starts (%v), want 3 and its error", starts.Load(), err)
	}
}
