package warden

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeEngine is an engine's containers by ID and state.
type fakeEngine struct {
	state map[string]string
	posts []string
	lists int
	// listed runs as the running containers are listed, before the answer.
	listed func()
	// down is the error of every call: a socket no engine answers on.
	down error
}

func (f *fakeEngine) exists(id string) error {
	if f.down != nil {
		return f.down
	}
	if _, ok := f.state[id]; !ok {
		return errNotFound
	}
	return nil
}

func (f *fakeEngine) list(all bool) (map[string]string, error) {
	f.lists++
	if f.down != nil {
		return nil, f.down
	}
	if !all && f.listed != nil {
		f.listed()
	}
	out := map[string]string{}
	for id, s := range f.state {
		if all || s == "running" || s == "paused" {
			out[id] = s
		}
	}
	return out, nil
}

func (f *fakeEngine) post(path string) error {
	f.posts = append(f.posts, path)
	id := strings.Split(path, "/")[2]
	switch {
	case strings.HasSuffix(path, "/unpause"):
		f.state[id] = "running"
	case strings.Contains(path, "/stop"):
		f.state[id] = "exited"
	}
	return nil
}

func TestSweep(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &fakeEngine{state: map[string]string{
		"due": "running", "frozen": "paused", "later": "running", "asleep": "exited", "unbounded": "running",
	}}
	w := watch{api: f, gone: map[string]bool{}}
	expiries := map[string]int64{
		"due": now.Unix(), "frozen": now.Unix() - 5, "later": now.Unix() + 60, "asleep": now.Unix() - 1, "removed": now.Unix(),
		"unbounded": Never,
	}
	if got := w.sweep(fixed(expiries), now); got != 4 {
		t.Errorf("guarding %d, want 4 (removed is gone, unbounded has no expiry)", got)
	}
	want := map[string]string{"due": "exited", "frozen": "exited", "later": "running", "asleep": "exited", "unbounded": "running"}
	for id, s := range want {
		if f.state[id] != s {
			t.Errorf("%s is %s, want %s", id, f.state[id], s)
		}
	}
	if !w.gone["removed"] {
		t.Error("a registered container the engine does not have is not taken as gone")
	}

	// Started again by hand after its expiry: stopped again at the next sweep.
	f.state["due"] = "running"
	posts := len(f.posts)
	w.sweep(fixed(expiries), now.Add(time.Second))
	if f.state["due"] != "exited" || len(f.posts) != posts+1 {
		t.Errorf("a sandbox started again after its expiry is %s (%d stops)", f.state["due"], len(f.posts)-posts)
	}

	// Removed: dropped at the next full list; nothing left to guard once all are.
	lists := f.lists
	w.sweep(fixed(expiries), now.Add(2*time.Second))
	if f.lists != lists+1 {
		t.Errorf("listed every container %d times within relist, want none", f.lists-lists-1)
	}
	f.state = map[string]string{}
	if got := w.sweep(fixed(expiries), now.Add(relist+time.Minute)); got != 0 {
		t.Errorf("guarding %d after every container went, want 0", got)
	}
}

// fixed is a registry that holds expiries whenever it is read.
func fixed(expiries map[string]int64) func() map[string]int64 {
	return func() map[string]int64 { return expiries }
}

// A renewal registered and the sandbox started again while the warden
// listed the running containers (after it read the registry): the sandbox
// is seen running, and must not be stopped for the expiry it had before.
func TestSweepReadsARenewalMadeWhileItListed(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &fakeEngine{state: map[string]string{"renewed": "exited", "due": "running"}}
	registry := map[string]int64{"renewed": now.Unix() - 60, "due": now.Unix() - 60}
	f.listed = func() {
		if f.state["renewed"] == "exited" {
			registry = map[string]int64{"renewed": now.Unix() + 1800, "due": now.Unix() - 60}
			f.state["renewed"] = "running"
		}
	}
	w := watch{api: f, gone: map[string]bool{}}
	w.sweep(func() map[string]int64 { return registry }, now)
	if f.state["renewed"] != "running" {
		t.Errorf("a sandbox renewed and started while the warden listed was stopped for its old expiry: %v", f.posts)
	}
	if f.state["due"] != "exited" {
		t.Errorf("a sandbox past its expiry beside it is %s, want exited", f.state["due"])
	}
}

func TestSweepListsANewRegistration(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &fakeEngine{state: map[string]string{}}
	w := watch{api: f, gone: map[string]bool{}}
	w.sweep(fixed(map[string]int64{}), now)
	f.state["new"] = "running"
	if got := w.sweep(fixed(map[string]int64{"new": now.Unix()}), now.Add(time.Second)); got != 1 || f.state["new"] != "exited" {
		t.Errorf("a container registered after the last list: guarding %d, state %s", got, f.state["new"])
	}
}

func TestRegister(t *testing.T) {
	registry := filepath.Join(t.TempDir(), "w", "registry")
	f := &fakeEngine{state: map[string]string{"abc": "created"}}
	if code := register(f, registry, "abc", "100"); code != 0 {
		t.Fatalf("register: %d", code)
	}
	if code := register(f, registry, "abc", "200"); code != 0 {
		t.Fatalf("renew: %d", code)
	}
	if code := register(f, registry, "elsewhere", "100"); code != ExitElsewhere {
		t.Errorf("a container the engine does not have: %d, want %d", code, ExitElsewhere)
	}
	for _, bad := range [][2]string{{"abc", "soon"}, {"a b", "1"}, {"", "1"}, {"../x", "1"}} {
		if code := register(f, registry, bad[0], bad[1]); code != exitUsage {
			t.Errorf("register %q: %d, want %d", bad, code, exitUsage)
		}
	}
	got := readRegistry(registry)
	if len(got) != 1 || got["abc"] != 200 {
		t.Errorf("registry %v, want the latest expiry of abc alone", got)
	}
	if data, _ := os.ReadFile(registry); strings.Count(string(data), "\n") != 2 {
		t.Errorf("registry %q", data)
	}
}

func TestList(t *testing.T) {
	registry := filepath.Join(t.TempDir(), "registry")
	if err := os.WriteFile(registry, []byte("a 100\nb 5\na 200\nbroken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if code := list(&out, registry); code != 0 {
		t.Fatalf("list: %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	if strings.Join(lines, ",") != "a 200,b 5" {
		t.Errorf("list wrote %q, want the latest expiry of each ID", out.String())
	}
}

// staleSocket is what a call meets on a socket the engine no longer
// listens on: the engine made its socket again after the warden's
// container mounted it.
var staleSocket = &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// A registration through a socket no engine answers on says so with an
// exit status of its own, which the provider takes to start the warden
// again; an engine that answers otherwise is not taken for one gone.
func TestRegisterThroughAStaleSocket(t *testing.T) {
	registry := filepath.Join(t.TempDir(), "w", "registry")
	f := &fakeEngine{state: map[string]string{"abc": "running"}, down: staleSocket}
	if code := register(f, registry, "abc", "100"); code != ExitUnreachable {
		t.Errorf("register through a stale socket: exit %d, want %d", code, ExitUnreachable)
	}
	f.down = errors.New("status 500: the engine failed")
	if code := register(f, registry, "abc", "100"); code != exitFailed {
		t.Errorf("register on an engine that failed: exit %d, want %d", code, exitFailed)
	}
	if held := readRegistry(registry); len(held) != 0 {
		t.Errorf("registered %v through a socket that reached no engine", held)
	}
}

// The warden counts the time no engine has answered on its socket from
// the first call that found none, and forgets it at the first answer:
// serve exits at ReconnectAfter, for the engine to start it again.
func TestWatchLosesTheEngineAfterReconnectAfter(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &fakeEngine{state: map[string]string{"abc": "running"}, down: staleSocket}
	w := watch{api: f, gone: map[string]bool{}}
	expiries := map[string]int64{"abc": now.Unix() + 3600}
	w.sweep(fixed(expiries), now)
	if w.lost(now.Add(ReconnectAfter - time.Second)) {
		t.Error("lost before ReconnectAfter")
	}
	w.sweep(fixed(expiries), now.Add(ReconnectAfter))
	if !w.lost(now.Add(ReconnectAfter)) {
		t.Error("not lost after ReconnectAfter of calls that found no engine")
	}
	if w.gone["abc"] {
		t.Error("a registered sandbox was taken as gone while no engine answered")
	}
	f.down = nil
	w.sweep(fixed(expiries), now.Add(2*ReconnectAfter))
	if w.lost(now.Add(2 * ReconnectAfter)) {
		t.Error("still lost after the engine answered")
	}
}
