package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
)

// fakeInspector answers from a table, counting how many inspections run at
// once.
type fakeInspector struct {
	gone, broken map[string]bool
	running, max atomic.Int32
}

func (f *fakeInspector) InspectContainer(ctx context.Context, id string) (Sandbox, error) {
	now := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		old := f.max.Load()
		if now <= old || f.max.CompareAndSwap(old, now) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond)
	switch {
	case f.gone[id]:
		return Sandbox{}, cerrdefs.ErrNotFound.WithMessage("no such container")
	case f.broken[id]:
		return Sandbox{}, errors.New("engine froze")
	}
	return Sandbox{Container: Container{ID: id, Name: "/" + id}}, ctx.Err()
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%064x", i+1)
	}
	return out
}

// TestInspectAll: every container, in the order asked, a few at a time;
// those gone meanwhile left out; an error names its container.
func TestInspectAll(t *testing.T) {
	all := ids(40)
	f := &fakeInspector{gone: map[string]bool{all[3]: true, all[17]: true}}
	found, err := InspectAll(context.Background(), f.InspectContainer, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 38 {
		t.Fatalf("found %d containers, want 38", len(found))
	}
	want := append(append(append([]string{}, all[:3]...), all[4:17]...), all[18:]...)
	for i, c := range found {
		if c.ID != want[i] {
			t.Fatalf("found[%d] = %s, want %s: the order asked is not kept", i, c.ID, want[i])
		}
	}
	if m := f.max.Load(); m < 2 || m > inspectors {
		t.Errorf("%d inspections ran at once, want 2 to %d", m, inspectors)
	}

	f = &fakeInspector{broken: map[string]bool{all[5]: true}}
	_, err = InspectAll(context.Background(), f.InspectContainer, all)
	if err == nil || !strings.Contains(err.Error(), "container "+ShortID(all[5])+": engine froze") {
		t.Errorf("err = %v, want one naming container %s", err, ShortID(all[5]))
	}

	found, err = InspectAll(context.Background(), f.InspectContainer, nil)
	if err != nil || len(found) != 0 {
		t.Errorf("no containers: got %v, %v", found, err)
	}
}
