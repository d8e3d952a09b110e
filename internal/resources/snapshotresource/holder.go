package snapshotresource

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planned"
)

// holder holds still the running sandboxes that mount a volume writable,
// for as long as the engine reads the volume, and says what it could not
// hold.
type holder struct {
	pauser engine.Pauser
	on     volumeUsers
	diags  diag.Diagnostics
	warned map[string]bool // a volume read twice (spooled) warns once
	unheld []string        // the writers it could not hold
	held   map[string]bool // by ID, the writers it holds now
	// failed are the writers the engine could have held but did not: a
	// pause of a running sandbox that failed. The read is refused.
	failed []string
}

// volumeUsers is what the holder asks the engine.
type volumeUsers interface {
	VolumeUsers(ctx context.Context, volume string) ([]engine.VolumeUser, error)
	Where() string
	Endpoint() string
}

// holdRounds bounds how often the holder lists the volume's writers again
// for one that started while it paused the others.
const holdRounds = 3

// hold is the hold ArchiveVolume takes: it pauses every running writer,
// and lists them again until none is left running (one may start while
// the others are paused).
func (h *holder) hold(volume string) func(context.Context) func() {
	return func(ctx context.Context) func() {
		h.held = map[string]bool{}
		var held []engine.VolumeUser
		// A sandbox of this apply does not start writing to the volume
		// while it is read (framework/planned); one starting now is
		// waited for, then held with the others.
		reading, err := planned.Reading(ctx, h.on.Endpoint(), volume)
		if err != nil {
			return func() {} // ctx ended: the read fails with it
		}
		for range holdRounds {
			writers, ok := h.runningWriters(ctx, volume, true)
			if !ok || len(writers) == 0 {
				break
			}
			if h.pauser == nil {
				h.warn(volume, fmt.Sprintf("%s cannot pause a sandbox, and %s were writing to it",
					h.on.Where(), names(writers)))
				for _, u := range writers {
					h.unheld = append(h.unheld, u.Container)
				}
				break
			}
			for _, u := range writers {
				h.held[u.ID] = true // tried: not asked again
				switch err := pauses.acquire(ctx, h.pauser, h.on.Where(), u.ID); {
				case err == nil:
					held = append(held, u)
				case !engine.IsNotFound(err) && h.stillRuns(ctx, volume, u): // one that went writes nothing
					h.failed = append(h.failed, fmt.Sprintf("%s (%s)", u.Container, engine.Brief(err)))
					h.unheld = append(h.unheld, u.Container)
				}
			}
		}
		return func() {
			h.release(ctx, held)
			reading()
		}
	}
}

// runningWriters are the running sandboxes that mount the volume writable
// and that the holder has not held yet, with the paused ones among them
// where paused is true; ok is false when the engine could not say (and the
// holder warned). A hold takes the paused too: one paused by another
// snapshot of this apply, which lets it go between the listing and the
// count of its holders, would otherwise run unheld through the read.
func (h *holder) runningWriters(ctx context.Context, volume string, paused bool) ([]engine.VolumeUser, bool) {
	users, err := h.on.VolumeUsers(ctx, volume)
	if err != nil {
		h.warn(volume, fmt.Sprintf("which sandboxes write to it could not be asked (%s)", engine.Brief(err)))
		return nil, false
	}
	var writers []engine.VolumeUser
	for _, u := range users {
		// One another snapshot of this apply holds is held here too: the
		// other's end must not let it go during this read.
		if u.Writable && (u.Running || (paused && u.Paused) || pauses.holds(h.on.Where(), u.ID)) && !h.held[u.ID] {
			writers = append(writers, u)
		}
	}
	return writers, true
}

// verify, at the end of a read the holder held, refuses the archive when
// a writer started during it: the archive would not be of one moment.
// Where the engine cannot pause, the apply has warned already.
func (h *holder) verify(ctx context.Context, volume string) error {
	if h.pauser == nil {
		return nil
	}
	if len(h.failed) > 0 {
		return &heldNotError{Writers: h.failed}
	}
	writers, ok := h.runningWriters(ctx, volume, false)
	if !ok || len(writers) == 0 {
		return nil
	}
	h.unheld = append(h.unheld, names(writers))
	return &engine.VolumeChangedError{Said: fmt.Sprintf("%s started writing to it during the read", names(writers))}
}

// stillRuns reports whether the writer u, whose pause failed, still runs
// (and so writes): one that stopped meanwhile needs no holding. Where the
// engine cannot say, it is taken to run.
func (h *holder) stillRuns(ctx context.Context, volume string, u engine.VolumeUser) bool {
	users, err := h.on.VolumeUsers(ctx, volume)
	if err != nil {
		return true
	}
	for _, v := range users {
		if v.ID == u.ID && v.Writable && v.Running {
			return true
		}
	}
	return false
}

// heldNotError refuses an archive read while writers the engine could
// have paused were not: their pause failed.
type heldNotError struct{ Writers []string }

func (e *heldNotError) Error() string { return strings.Join(e.Writers, ", ") }

// release lets the held sandboxes go, even after the snapshot was
// interrupted; one that cannot be is an error naming the fix.
func (h *holder) release(ctx context.Context, held []engine.VolumeUser) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	for _, u := range held {
		if err := pauses.release(ctx, h.pauser, h.on.Where(), u.ID); err != nil && !engine.IsNotFound(err) {
			h.diags.AddError("Sandbox left paused", fmt.Sprintf("The sandbox %s, paused while its volume was "+
				"archived, could not be unpaused on %s (%s). The next apply of its sandbox_container "+
				"unpauses it.", u.Container, h.on.Where(), engine.Brief(err)))
		}
	}
}

func (h *holder) warn(volume, why string) {
	if h.warned[why] {
		return
	}
	if h.warned == nil {
		h.warned = map[string]bool{}
	}
	h.warned[why] = true
	h.diags.AddAttributeWarning(path.Root("volume"), "Snapshot taken while sandboxes write", fmt.Sprintf(
		"The snapshot of the volume %q was taken without holding its writers still: %s. A file written "+
			"during the copy may be archived half-written, or as it was before. Stop those sandboxes "+
			"(running = false) before the snapshot for an archive of one moment.", volume, why))
}

// pauses counts, per engine and sandbox, the snapshots of this process
// that hold a sandbox paused: several snapshots of one apply may hold the
// same writer (it mounts both volumes), and the first to end must not let
// it go while another still reads.
var pauses = &pauseCounts{n: map[string]int{}}

type pauseCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// acquire pauses the sandbox unless a snapshot holds it already.
func (p *pauseCounts) acquire(ctx context.Context, pauser engine.Pauser, where, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[where+" "+id] > 0 {
		p.n[where+" "+id]++
		return nil
	}
	if err := pauser.PauseContainer(ctx, id); err != nil {
		return err
	}
	p.n[where+" "+id] = 1
	return nil
}

// release lets the sandbox go when no other snapshot holds it.
func (p *pauseCounts) release(ctx context.Context, pauser engine.Pauser, where, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[where+" "+id]--; p.n[where+" "+id] > 0 {
		return nil
	}
	delete(p.n, where+" "+id)
	return pauser.UnpauseContainer(ctx, id)
}

// holds reports whether a snapshot of this process holds the sandbox.
func (p *pauseCounts) holds(where, id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[where+" "+id] > 0
}
