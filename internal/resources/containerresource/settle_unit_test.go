package containerresource

import (
	"context"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Starts are crowded when another was under way at any moment of theirs:
// those of one apply's count, not those of a chain one after another.
func TestStartWindowCrowded(t *testing.T) {
	alone := openStartWindow()
	if alone.crowded() {
		t.Error("a start alone is crowded")
	}
	alone.close()
	next := openStartWindow()
	if next.crowded() {
		t.Error("a start after another ended is crowded")
	}
	next.close()

	first := openStartWindow()
	second := openStartWindow()
	if !first.crowded() || !second.crowded() {
		t.Error("two starts under way at once are not both crowded")
	}
	second.close()
	if !first.crowded() {
		t.Error("a start that another ended during is not crowded")
	}
	first.close()
	if last := openStartWindow(); last.crowded() {
		t.Error("a start after the crowd ended is crowded")
	} else {
		last.close()
	}
}

// looks answers InspectContainer with each container in turn.
type looks struct {
	engine.Engine
	next []engine.Sandbox
}

func (l *looks) InspectContainer(context.Context, string) (engine.Sandbox, error) {
	c := l.next[0]
	l.next = l.next[1:]
	return c, nil
}

func sandboxAt(status string, started, finished time.Time, restarts int) engine.Sandbox {
	var c engine.Sandbox
	c.RestartCount = restarts
	c.State = &engine.ContainerState{Status: status, Running: status == "running" || status == "paused",
		Paused: status == "paused", StartedAt: started.Format(time.RFC3339Nano), FinishedAt: finished.Format(time.RFC3339Nano)}
	return c
}

// A refresh finishes the check a crowded start left: a command that ended
// or restarted within settleTime of that start did not stay up; one
// stopped later, paused, or started again since is judged otherwise.
func TestSettle(t *testing.T) {
	defer func(d time.Duration) { settleTime = d }(settleTime)
	settleTime = 200 * time.Millisecond
	zero := time.Time{}
	for _, tc := range []struct {
		name  string
		look  func(start time.Time) engine.Sandbox
		again func(start time.Time) []engine.Sandbox
		want  bool
	}{
		{"running past its second", func(s time.Time) engine.Sandbox {
			return sandboxAt("running", s.Add(-time.Second), zero, 0)
		}, nil, false},
		{"exited within its second", func(s time.Time) engine.Sandbox {
			return sandboxAt("exited", s.Add(-time.Minute), s.Add(-time.Minute+100*time.Millisecond), 0)
		}, nil, true},
		{"stopped later", func(s time.Time) engine.Sandbox {
			return sandboxAt("exited", s.Add(-time.Minute), s.Add(-time.Second), 0)
		}, nil, false},
		{"paused", func(s time.Time) engine.Sandbox { return sandboxAt("paused", s.Add(-time.Minute), zero, 0) }, nil, false},
		{"running in its second, then still", func(s time.Time) engine.Sandbox { return sandboxAt("running", s, zero, 0) },
			func(s time.Time) []engine.Sandbox { return []engine.Sandbox{sandboxAt("running", s, zero, 0)} }, false},
		{"running in its second, then exited", func(s time.Time) engine.Sandbox { return sandboxAt("running", s, zero, 0) },
			func(s time.Time) []engine.Sandbox {
				return []engine.Sandbox{sandboxAt("exited", s, s.Add(150*time.Millisecond), 0)}
			}, true},
		{"running in its second, then restarted", func(s time.Time) engine.Sandbox { return sandboxAt("running", s, zero, 0) },
			func(s time.Time) []engine.Sandbox {
				return []engine.Sandbox{sandboxAt("running", s.Add(150*time.Millisecond), zero, 1)}
			}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			first := tc.look(start)
			l := &looks{}
			if tc.again != nil {
				l.next = tc.again(start)
			}
			r := &Resource{}
			r.Client = l
			seen := mainProcess{Unsettled: true, StartedAt: first.State.StartedAt}
			if _, exited := r.settle(context.Background(), "id", first, seen); exited != tc.want {
				t.Errorf("settle says exited = %v, want %v", exited, tc.want)
			}
			if len(l.next) != 0 {
				t.Error("settle did not look again within the second")
			}
		})
	}
	// Started again since the recorded start: that start is judged on its own.
	r := &Resource{}
	now := time.Now()
	seen := mainProcess{Unsettled: true, StartedAt: now.Add(-time.Minute).Format(time.RFC3339Nano)}
	if _, exited := r.settle(context.Background(), "id", sandboxAt("exited", now, now, 0), seen); exited {
		t.Error("a sandbox started again since is judged on the recorded start")
	}
}
