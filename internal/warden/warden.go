// Package warden is the program that enforces sandboxes' expiry on a
// Docker engine or Podman, which stop no container at a given moment by
// themselves. It runs in a container of its own beside the sandboxes
// (never in one of them), the engine's socket mounted into it, as
//
//	terraform-provider-sandbox Command serve SOCKET
//
// and every second stops, through the engine's API, each registered
// container whose expiry has passed and that runs (or is paused): a stop
// with no grace period, which ends every process of the container
// whatever they do, and keeps the container and its workspace. A
// container started again after its expiry (by hand, or by its restart
// policy when the engine restarts) is stopped again. The provider
// registers a sandbox when it makes it, and again when its expiry is
// renewed, with
//
//	terraform-provider-sandbox Command register SOCKET ID UNIX-SECONDS
//
// run in the warden's container: it asks the engine for the container
// through the socket first, so that a warden that reaches another engine
// (a socket that is not the engine's) refuses to register instead of
// guarding nothing (ExitElsewhere). The registry is a file in the
// warden's own container; the latest entry for an ID wins, and a
// container gone is no longer guarded.
//
//	terraform-provider-sandbox Command list
//
// writes what it holds, which the provider reads to list sandboxes with
// their renewed expiries, and to carry the registry over to a newer
// warden. A warden with nothing left to guard for IdleFor stops its own
// container, which the provider starts again when it next registers one.
//
// It talks to the engine with HTTP/1.0 requests over the socket and reads
// nothing but status codes, IDs and states, so that it stays small: the
// provider embeds it for every Linux architecture.
package warden

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Command is the argument that runs the warden instead of the provider.
const Command = "__tfsandbox_warden"

// Registry is the file that holds the registered expiries, one
// "ID UNIX-SECONDS" line each, in the warden's container.
const Registry = "/tfsandbox-warden/registry"

// IdleFor is how long a warden with no registered container left runs
// before it stops its own container.
const IdleFor = 5 * time.Minute

// Exit statuses of register: ExitElsewhere says that the socket reaches an
// engine that has no container with the ID; ExitUnreachable that it
// reaches none: nothing listens on it, as when the engine's socket was made
// again (a restart of Podman's service, or of dockerd with live-restore)
// since the warden's container mounted it, or it is gone.
const (
	exitFailed      = 1
	exitUsage       = 2
	ExitElsewhere   = 3
	ExitUnreachable = 4
)

// Never is the expiry registered for a sandbox whose expiry was removed:
// it is no longer guarded.
const Never = 0

// interval is how often the warden looks at the registered expiries.
const interval = time.Second

// callTimeout bounds one request to the engine.
const callTimeout = 30 * time.Second

// Main runs the warden on its arguments (after Command) and returns its
// exit status.
func Main(args []string) int {
	switch {
	case len(args) == 2 && args[0] == "serve":
		return serve(engineAPI{socket: args[1]}, Registry, time.Now)
	case len(args) == 4 && args[0] == "register":
		return register(engineAPI{socket: args[1]}, Registry, args[2], args[3])
	case len(args) == 1 && args[0] == "list":
		return list(os.Stdout, Registry)
	}
	fmt.Fprintf(os.Stderr, "usage: %s serve SOCKET | register SOCKET ID UNIX-SECONDS | list\n", Command)
	return exitUsage
}

// list writes the registered expiries, the latest for each ID, one
// "ID UNIX-SECONDS" line each: what the provider reads to learn of
// renewals, and to carry the registry over to a newer warden.
func list(w io.Writer, registry string) int {
	for id, at := range readRegistry(registry) {
		if _, err := fmt.Fprintf(w, "%s %d\n", id, at); err != nil {
			return exitFailed
		}
	}
	return 0
}

// register records the container id's expiry at (Unix seconds), after
// checking that the engine behind the socket has that container.
func register(api engine, registry, id, at string) int {
	if _, err := strconv.ParseInt(at, 10, 64); err != nil || id == "" || strings.ContainsAny(id, " \n/") {
		fmt.Fprintf(os.Stderr, "register: bad arguments %q %q\n", id, at)
		return exitUsage
	}
	err := api.exists(id)
	switch {
	case errors.Is(err, errNotFound):
		fmt.Fprintf(os.Stderr, "register: the engine behind the socket has no container %s\n", id)
		return ExitElsewhere
	case unreachable(err):
		fmt.Fprintf(os.Stderr, "register: no engine answers on the socket: %v\n", err)
		return ExitUnreachable
	case err != nil:
		fmt.Fprintf(os.Stderr, "register: %v\n", err)
		return exitFailed
	}
	if err := os.MkdirAll(filepath.Dir(registry), 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "register: %v\n", err)
		return exitFailed
	}
	f, err := os.OpenFile(registry, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, err = fmt.Fprintf(f, "%s %s\n", id, at)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "register: %v\n", err)
		return exitFailed
	}
	return 0
}

// serve stops each registered container past its expiry, every interval,
// until nothing is left to guard for IdleFor; then it stops its own
// container and returns 0. When no engine has answered on the socket for
// ReconnectAfter, it returns exitFailed: the engine's restart policy
// starts the warden again, which mounts the engine's socket anew.
func serve(api engine, registry string, now func() time.Time) int {
	w := watch{api: api, gone: map[string]bool{}}
	idleSince := now()
	for {
		if w.sweep(func() map[string]int64 { return readRegistry(registry) }, now()) > 0 {
			idleSince = now()
		} else if now().Sub(idleSince) >= IdleFor {
			stopSelf(api)
			return 0
		}
		if w.lost(now()) {
			fmt.Fprintf(os.Stderr, "warden: no engine has answered on the socket for %s (was the engine's socket made "+
				"again since this container mounted it?): exiting, for the engine to start the warden again with "+
				"the socket mounted anew\n", ReconnectAfter)
			return exitFailed
		}
		time.Sleep(interval)
	}
}

// relist is how often the warden lists every container, to learn which
// registered ones are gone.
const relist = 30 * time.Second

// watch is what the warden knows of the registered containers.
type watch struct {
	api engine
	// known are the containers as last listed (every one), and when.
	known    map[string]string
	listedAt time.Time
	// gone are registered containers the engine no longer has: an ID is
	// never given again.
	gone map[string]bool
	// lostSince is when the calls began to find no engine (zero: the
	// last call was answered).
	lostSince time.Time
}

// sweep stops the registered containers past their expiry that run or are
// paused, and returns how many registered containers it guards (those
// that exist). It reads the registry again after the list, as a renewal
// is registered before its start: a sandbox listed as started after its
// renewal is never stopped for the expiry it had before.
func (w *watch) sweep(read func() map[string]int64, now time.Time) int {
	expiries := read()
	w.learn(expiries, now)
	guarding := 0
	var running map[string]string
	var latest map[string]int64
	for id, at := range expiries {
		if w.gone[id] || at == Never {
			continue
		}
		guarding++
		if now.Unix() < at {
			continue
		}
		if running == nil {
			var err error
			running, err = w.api.list(false)
			if w.reached(err, now); err != nil {
				fmt.Fprintf(os.Stderr, "warden: listing running containers: %v\n", err)
				return guarding
			}
			latest = read()
		}
		if renewed, ok := latest[id]; ok && (renewed == Never || now.Unix() < renewed) {
			continue
		}
		if err := stop(w.api, id, running[id]); err != nil {
			fmt.Fprintf(os.Stderr, "warden: stopping %s: %v\n", id, err)
		} else if running[id] != "" {
			fmt.Fprintf(os.Stderr, "warden: stopped %s at its expiry (%s)\n", id, time.Unix(at, 0).UTC().Format(time.RFC3339))
		}
	}
	return guarding
}

// learn lists every container when relist has passed, or when a
// registered container is not known yet; a registered container missing
// from a list made after the registry was read is gone.
func (w *watch) learn(expiries map[string]int64, now time.Time) {
	fresh := now.Sub(w.listedAt) >= relist
	for id, at := range expiries {
		if _, ok := w.known[id]; !ok && !w.gone[id] && at != Never {
			fresh = true
		}
	}
	if !fresh {
		return
	}
	all, err := w.api.list(true)
	if w.reached(err, now); err != nil {
		fmt.Fprintf(os.Stderr, "warden: listing containers: %v\n", err)
		return
	}
	w.known, w.listedAt = all, now
	for id := range expiries {
		if _, ok := all[id]; !ok {
			w.gone[id] = true
		}
	}
}

// stop stops the container id, in the state listed ("" for one that does
// not run): a paused container is unpaused first.
func stop(api engine, id, state string) error {
	switch state {
	case "":
		return nil
	case "paused":
		if err := api.post("/containers/" + id + "/unpause"); err != nil {
			return err
		}
	}
	return api.post("/containers/" + id + "/stop?t=0")
}

// readRegistry reads the registered expiries: the latest for each ID.
func readRegistry(registry string) map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open(registry)
	if err != nil {
		return out
	}
	defer func() { _ = f.Close() }()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		id, at, ok := strings.Cut(lines.Text(), " ")
		if n, err := strconv.ParseInt(at, 10, 64); ok && err == nil {
			out[id] = n
		}
	}
	return out
}

// stopSelf stops the warden's own container (its hostname is its ID, as
// the engine sets it), so that no restart policy starts it again.
func stopSelf(api engine) {
	if self, err := os.Hostname(); err == nil {
		_ = api.post("/containers/" + url.PathEscape(self) + "/stop?t=1")
	}
}

// engine is what the warden asks of the engine.
type engine interface {
	// exists reports whether the engine has the container id.
	exists(id string) error
	// list gives the containers that run or are paused (every one, with
	// all), by ID, with their state ("running", "paused", ...).
	list(all bool) (map[string]string, error)
	post(path string) error
}

var errNotFound = errors.New("no such container")

// engineAPI is the engine's API on a unix socket.
type engineAPI struct{ socket string }

func (a engineAPI) exists(id string) error {
	status, body, err := a.call("GET", "/containers/"+url.PathEscape(id)+"/json")
	switch {
	case err != nil:
		return err
	case status == 404:
		return errNotFound
	case status != 200:
		return fmt.Errorf("status %d: %s", status, strings.TrimSpace(string(body)))
	}
	return nil
}

// runningFilter lists the containers that run or are paused.
var runningFilter = url.QueryEscape(`{"status":["running","paused"]}`)

func (a engineAPI) list(all bool) (map[string]string, error) {
	path := "/containers/json?filters=" + runningFilter
	if all {
		path = "/containers/json?all=1"
	}
	status, body, err := a.call("GET", path)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, fmt.Errorf("status %d: %s", status, strings.TrimSpace(string(body)))
	}
	var listed []struct{ ID, State string }
	if err := json.Unmarshal(body, &listed); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(listed))
	for _, c := range listed {
		out[c.ID] = c.State
	}
	return out, nil
}

func (a engineAPI) post(path string) error {
	status, body, err := a.call("POST", path)
	switch {
	case err != nil:
		return err
	case status == 404:
		return errNotFound
	case status >= 300 && status != 304: // 304: already stopped
		return fmt.Errorf("status %d: %s", status, strings.TrimSpace(string(body)))
	}
	return nil
}

// call makes one HTTP/1.0 request, which the engine answers and closes
// without chunking.
func (a engineAPI) call(method, path string) (int, []byte, error) {
	conn, err := net.DialTimeout("unix", a.socket, callTimeout)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(callTimeout))
	if _, err := fmt.Fprintf(conn, "%s %s HTTP/1.0\r\nHost: engine\r\nContent-Length: 0\r\n\r\n", method, path); err != nil {
		return 0, nil, err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, nil, err
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return 0, nil, fmt.Errorf("unexpected answer %q", line)
	}
	status, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, nil, fmt.Errorf("unexpected answer %q", line)
	}
	for {
		header, err := r.ReadString('\n')
		if err != nil {
			return 0, nil, err
		}
		if strings.TrimSpace(header) == "" {
			break
		}
	}
	body, err := io.ReadAll(io.LimitReader(r, 64<<20))
	return status, body, err
}
