package docker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// hang is an engine call that never answers.
func hang(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestUnansweredCallNamesEndpointAndFailsLaterCallsAtOnce(t *testing.T) {
	t.Parallel()
	c := &Client{endpoint: "unix:///run/frozen.sock"}
	ctx := context.Background()

	err := c.within(ctx, "the request to inspect a container", 50*time.Millisecond, hang)
	var unanswered *engine.UnansweredError
	if !errors.As(err, &unanswered) || unanswered.Earlier {
		t.Fatalf("err = %v, want an UnansweredError for this call", err)
	}
	for _, want := range []string{"unix:///run/frozen.sock", "inspect a container", "50ms", "docker -H unix:///run/frozen.sock info"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}

	sent := false
	start := time.Now()
	err = c.within(ctx, "the request to start a container", time.Hour, func(context.Context) error {
		sent = true
		return nil
	})
	if !engine.IsUnanswered(err) || sent || time.Since(start) > time.Second {
		t.Fatalf("a call right after an unanswered one: err %v, sent %v after %s; want it refused at once", err, sent, time.Since(start))
	}

	time.Sleep(60 * time.Millisecond)
	if err := c.within(ctx, "a ping", time.Second, func(context.Context) error { return nil }); err != nil {
		t.Fatalf("a call after the unanswered one's deadline passed: %v, want it sent", err)
	}
}

func TestCallerCancellationIsNotAnUnansweredEngine(t *testing.T) {
	t.Parallel()
	c := &Client{endpoint: "unix:///run/docker.sock"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := c.within(ctx, "the request to create a container", time.Hour, hang)
	if engine.IsUnanswered(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's own deadline", err)
	}
	if err := c.health.check(); err != nil {
		t.Fatalf("the caller's deadline marked the engine unanswering: %v", err)
	}
}
