package snapshotresource

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// fakeEngine lists a volume's users as lists says, one list a call (the
// last again once they run out), and records pauses.
type fakeEngine struct {
	lists   [][]engine.VolumeUser
	calls   int
	paused  []string
	resumed []string
	refuse  error  // what every pause answers, when set
	onList  func() // runs as a listing is answered, when set
}

func (f *fakeEngine) VolumeUsers(context.Context, string) ([]engine.VolumeUser, error) {
	if f.onList != nil {
		f.onList()
	}
	l := f.lists[min(f.calls, len(f.lists)-1)]
	f.calls++
	return l, nil
}

func (f *fakeEngine) Where() string { return "the fake engine" }

func (f *fakeEngine) Endpoint() string { return "fake://" }

func (f *fakeEngine) PauseContainer(_ context.Context, id string) error {
	if f.refuse != nil {
		return f.refuse
	}
	f.paused = append(f.paused, id)
	return nil
}

func (f *fakeEngine) UnpauseContainer(_ context.Context, id string) error {
	f.resumed = append(f.resumed, id)
	return nil
}

func writer(id string) engine.VolumeUser {
	return engine.VolumeUser{Container: "sandbox-" + id, ID: id, Writable: true, Running: true}
}

// A writer that starts while the others are paused is paused too; one
// that starts during the read fails it, naming the sandbox; every writer
// held is let go.
func TestHolderHoldsLateWritersAndRefusesOnesThatStartDuringTheRead(t *testing.T) {
	ctx := context.Background()
	reader := engine.VolumeUser{Container: "reader", ID: "r", Running: true}
	f := &fakeEngine{lists: [][]engine.VolumeUser{
		{writer("a"), reader},
		{writer("a"), writer("b"), reader}, // b started while a was paused
		{writer("a"), writer("b")},
	}}
	h := &holder{pauser: f, on: f}
	release := h.hold("work")(ctx)
	if err := h.verify(ctx, "work"); err != nil {
		t.Fatalf("nothing started during the read: %v", err)
	}
	release()
	if !slices.Equal(f.paused, []string{"a", "b"}) || !slices.Equal(f.resumed, []string{"a", "b"}) {
		t.Errorf("paused %v, resumed %v", f.paused, f.resumed)
	}

	f = &fakeEngine{lists: [][]engine.VolumeUser{{writer("a")}, {writer("a")}, {writer("a"), writer("c")}}}
	h = &holder{pauser: f, on: f}
	release = h.hold("work")(ctx)
	err := h.verify(ctx, "work") // c started during the read
	release()
	var changed *engine.VolumeChangedError
	if !errors.As(err, &changed) || changed.Said != "sandbox-c started writing to it during the read" {
		t.Errorf("a writer that started during the read: %v", err)
	}
	if !slices.Equal(h.unheld, []string{"sandbox-c"}) {
		t.Errorf("unheld %v", h.unheld)
	}
}

// Two snapshots of one apply whose volumes the same sandbox writes: the
// first to end does not let it go while the second still reads.
func TestHoldersShareAWriter(t *testing.T) {
	ctx := context.Background()
	f := &fakeEngine{lists: [][]engine.VolumeUser{{writer("shared")}}}
	first := &holder{pauser: f, on: f}
	releaseFirst := first.hold("one")(ctx)
	// Paused now: the engine lists it as not running.
	f.lists, f.calls = [][]engine.VolumeUser{{{Container: "sandbox-shared", ID: "shared", Writable: true}}}, 0
	second := &holder{pauser: f, on: f}
	releaseSecond := second.hold("two")(ctx)
	releaseFirst()
	if len(f.resumed) != 0 {
		t.Fatalf("the first snapshot's end let the writer go while the second reads: %v", f.resumed)
	}
	releaseSecond()
	if !slices.Equal(f.paused, []string{"shared"}) || !slices.Equal(f.resumed, []string{"shared"}) {
		t.Errorf("paused %v, resumed %v", f.paused, f.resumed)
	}
}

// A pause that fails, on an engine that can pause, refuses the read,
// naming the sandbox, unless the sandbox stopped meanwhile (it writes
// nothing).
func TestHolderRefusesAReadWhoseWriterWasNotPaused(t *testing.T) {
	ctx := context.Background()
	f := &fakeEngine{lists: [][]engine.VolumeUser{{writer("a")}}, refuse: errors.New("cgroup frozen elsewhere")}
	h := &holder{pauser: f, on: f}
	release := h.hold("work")(ctx)
	err := h.verify(ctx, "work")
	release()
	var heldNot *heldNotError
	if !errors.As(err, &heldNot) || err.Error() != "sandbox-a (cgroup frozen elsewhere)" {
		t.Errorf("a writer whose pause failed: %v", err)
	}

	stopped := writer("a")
	stopped.Running = false
	f = &fakeEngine{lists: [][]engine.VolumeUser{{writer("a")}, {stopped}}, refuse: errors.New("is not running")}
	h = &holder{pauser: f, on: f}
	release = h.hold("work")(ctx)
	err = h.verify(ctx, "work")
	release()
	if err != nil {
		t.Errorf("a writer that stopped before its pause: %v", err)
	}
}

// A writer that another snapshot of the apply holds paused, and lets go
// between the listing (which shows it paused) and the count of its
// holders, is held all the same: it does not run unheld through the read.
func TestHolderTakesAWriterAnotherLetsGoWhileItLists(t *testing.T) {
	ctx := context.Background()
	f := &fakeEngine{lists: [][]engine.VolumeUser{{writer("handed")}}}
	first := &holder{pauser: f, on: f}
	releaseFirst := first.hold("one")(ctx)
	paused := engine.VolumeUser{Container: "sandbox-handed", ID: "handed", Writable: true, Paused: true}
	f.lists, f.calls = [][]engine.VolumeUser{{paused}, {writer("handed")}}, 0
	f.onList = func() {
		if f.calls == 0 {
			releaseFirst() // the first snapshot ends as the second lists
		}
	}
	second := &holder{pauser: f, on: f}
	releaseSecond := second.hold("two")(ctx)
	if err := second.verify(ctx, "two"); err != nil {
		t.Fatalf("the writer was held through the read: %v", err)
	}
	releaseSecond()
	if !slices.Equal(f.paused, []string{"handed", "handed"}) || !slices.Equal(f.resumed, []string{"handed", "handed"}) {
		t.Errorf("paused %v, resumed %v", f.paused, f.resumed)
	}
}
