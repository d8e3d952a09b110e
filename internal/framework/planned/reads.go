package planned

import (
	"context"
	"sync"
)

// Reads and starts in progress: sandbox_snapshot holds the sandboxes that
// write to a volume still while it reads it, and sandbox_container,
// starting a sandbox in the same apply, waits until no read of a volume
// it mounts writable is in progress, so that the snapshot is of one
// moment. A read that begins while such a start is under way waits for
// it, and then holds the sandbox still with the others. A sandbox started
// by anyone else during a read fails the snapshot.

var gate = struct {
	sync.Mutex
	reads, starts map[string]int // by key(endpoint, volume)
	changed       chan struct{}  // closed, and replaced, at every change
}{reads: map[string]int{}, starts: map[string]int{}, changed: make(chan struct{})}

// await waits until ok holds under the gate's lock, or ctx ends; it
// returns with the lock held when it returns nil.
func await(ctx context.Context, ok func() bool) error {
	for {
		gate.Lock()
		if ok() {
			return nil
		}
		changed := gate.changed
		gate.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// change records a change, under the lock, and wakes the waiters.
func change(counts map[string]int, k string, by int) {
	if counts[k] += by; counts[k] == 0 {
		delete(counts, k)
	}
	close(gate.changed)
	gate.changed = make(chan struct{})
}

// Reading records a read of the volume on the engine at endpoint, once
// the starts of sandboxes that write to it under way have ended, until
// the returned function is called.
func Reading(ctx context.Context, endpoint, volume string) (end func(), err error) {
	k := key(endpoint, volume)
	gate.Lock()
	change(gate.reads, k, 1)
	gate.Unlock()
	var once sync.Once
	end = func() {
		once.Do(func() {
			gate.Lock()
			defer gate.Unlock()
			change(gate.reads, k, -1)
		})
	}
	if err := await(ctx, func() bool { return gate.starts[k] == 0 }); err != nil {
		end()
		return nil, err
	}
	gate.Unlock()
	return end, nil
}

// Starting waits until no read of the volumes on the engine at endpoint
// is in progress, or ctx ends, and records a start of a sandbox that
// writes to them until the returned function is called.
func Starting(ctx context.Context, endpoint string, volumes []string) (end func(), err error) {
	err = await(ctx, func() bool {
		for _, v := range volumes {
			if gate.reads[key(endpoint, v)] > 0 {
				return false
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, v := range volumes {
		change(gate.starts, key(endpoint, v), 1)
	}
	gate.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gate.Lock()
			defer gate.Unlock()
			for _, v := range volumes {
				change(gate.starts, key(endpoint, v), -1)
			}
		})
	}, nil
}
