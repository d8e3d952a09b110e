package engine

import (
	"testing"
	"time"
)

func TestDeadlineSeconds(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		left time.Duration
		want int64
	}{{2 * time.Minute, 120}, {1200 * time.Millisecond, 2}, {time.Millisecond, 1}, {0, 1}, {-time.Minute, 1}} {
		if got := DeadlineSeconds(now.Add(tc.left), now); got != tc.want {
			t.Errorf("%s left: %d seconds, want %d", tc.left, got, tc.want)
		}
	}
}

// A sandbox is expired once its expiry passed and it does not run: one
// its backend has not stopped yet is not, nor one with no expiry.
func TestExpired(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	sandbox := func(at time.Time, running bool) Sandbox {
		var c Sandbox
		c.ExpiresAt, c.State = at, &ContainerState{Running: running, Status: "exited"}
		return c
	}
	for _, tc := range []struct {
		name string
		c    Sandbox
		want bool
	}{
		{"stopped after its expiry", sandbox(now.Add(-time.Second), false), true},
		{"stopped at its expiry", sandbox(now, false), true},
		{"still running after it", sandbox(now.Add(-time.Second), true), false},
		{"stopped before it", sandbox(now.Add(time.Minute), false), false},
		{"no expiry", sandbox(time.Time{}, false), false},
	} {
		if got := Expired(tc.c, now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
