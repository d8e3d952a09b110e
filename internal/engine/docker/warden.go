package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/warden"
)

// A sandbox's expiry on a Docker engine or Podman, which stop no container
// at a given moment by themselves: the provider's warden (package warden)
// stops it. The warden is one container per engine, named wardenName, that
// runs the provider's helper program with the engine's socket mounted, no
// network, no capabilities, and a restart policy that brings it back with
// the engine; nothing in a sandbox can reach it. A sandbox is registered
// with it (ExpireAt) after its create and at each renewal; the warden
// checks that it reaches the engine that has the sandbox, and then stops
// the sandbox at its expiry, and again should it be started after it.

// wardenName is the warden's container's name: one per engine.
const wardenName = "tfsandbox-warden"

// wardenType is the resource type the warden and its image carry.
const wardenType = "warden"

// labelWardenVersion records the warden's version, wardenVersion: a
// provider that finds another replaces it (replaceWarden), keeping what it
// held. Version 3 reads its registry again after it lists the running
// containers, so that a renewal made meanwhile is not undone.
const labelWardenVersion = engine.LabelPrefix + "warden-version"

var wardenVersion = "3"

// wardenSocket is where the engine's socket is mounted in the warden.
const wardenSocket = "/run/tfsandbox-engine.sock"

// ExpireAt has the warden stop the sandbox id at at, instead of any expiry
// it had: after a create, and to renew one; a zero at removes its expiry.
func (c *Client) ExpireAt(ctx context.Context, id string, at time.Time) error {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var wardenID string
		if wardenID, err = c.warden(ctx); err != nil {
			return err
		}
		err = c.register(ctx, wardenID, id, at)
		if errors.As(err, new(*WardenElsewhereError)) {
			c.dropUselessWarden(ctx, wardenID)
			return err
		}
		if errors.As(err, new(*wardenUnreachableError)) && attempt == 0 {
			// The engine's socket was made again since the warden's
			// container mounted it: started again, it mounts it anew
			// (and keeps its registry).
			if err := c.restartWarden(ctx, wardenID); err != nil {
				return fmt.Errorf("%w; starting it again to mount the socket anew failed: %w", &wardenUnreachableError{}, err)
			}
			continue
		}
		if err == nil || (!engine.IsConflict(err) && !engine.IsNotFound(err) && !c.wardenStopped(ctx, wardenID)) {
			return err
		}
		// The warden stopped itself, idle, since it was found (or was
		// removed): find it again, and start it. Docker refuses the exec;
		// Podman runs it, and it fails in the stopped container.
		c.forgetWarden(wardenID)
	}
	return err
}

// dropUselessWarden removes the warden id, which reaches another engine,
// when it holds nothing (it never could, here): the next apply, its
// engine_socket set, makes one that reaches this engine.
func (c *Client) dropUselessWarden(ctx context.Context, id string) {
	held, err := c.listWarden(ctx, id)
	if err != nil || len(held) > 0 {
		return
	}
	found, err := c.InspectContainer(ctx, id)
	if err != nil {
		return
	}
	c.removeWarden(ctx, id, found.Image)
	c.forgetWarden(id)
}

// forgetWarden forgets the warden id found before.
func (c *Client) forgetWarden(id string) {
	c.wardenMu.Lock()
	defer c.wardenMu.Unlock()
	if c.wardenID == id {
		c.wardenID = ""
	}
}

// WardenElsewhereError is a warden whose socket reaches another engine
// than the one that has the sandbox.
type WardenElsewhereError struct{ Endpoint, Socket string }

func (e *WardenElsewhereError) Error() string {
	return fmt.Sprintf("the expiry warden mounts %s from the engine's host, which is not the socket of the engine "+
		"at %s: set the provider's engine_socket (or SANDBOX_ENGINE_SOCKET) to the path of that engine's socket "+
		"on its host", e.Socket, e.Endpoint)
}

// wardenUnreachableError is a warden that reaches no engine through the
// socket it mounts, even after it was started again.
type wardenUnreachableError struct{}

func (e *wardenUnreachableError) Error() string {
	return fmt.Sprintf("the expiry warden (container %s) reaches no engine through the socket it mounts from the "+
		"engine's host: if the engine's socket is elsewhere on its host, set the provider's engine_socket (or "+
		"SANDBOX_ENGINE_SOCKET) to its path and remove the warden (docker rm -f %[1]s), and the provider makes one "+
		"that mounts it", wardenName)
}

// restartWarden starts the warden again, which mounts the engine's socket
// anew.
func (c *Client) restartWarden(ctx context.Context, id string) error {
	grace := 1
	return c.within(ctx, "the request to restart a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerRestart(ctx, id, container.StopOptions{Timeout: &grace})
	})
}

// register runs the warden's register in its container.
func (c *Client) register(ctx context.Context, wardenID, id string, at time.Time) error {
	unix := int64(warden.Never)
	if !at.IsZero() {
		unix = at.Unix()
	}
	res, err := c.execWarden(ctx, wardenID, "register", wardenSocket, id, strconv.FormatInt(unix, 10))
	switch {
	case err != nil:
		return fmt.Errorf("registering the expiry with the warden (container %s): %w", wardenName, err)
	case res.ExitCode == warden.ExitElsewhere:
		return &WardenElsewhereError{Endpoint: c.endpoint, Socket: c.conn.EngineSocket(c.Kind(ctx) == KindPodman)}
	case res.ExitCode == warden.ExitUnreachable:
		return &wardenUnreachableError{}
	case res.ExitCode != 0:
		return fmt.Errorf("the expiry warden (container %s) refused the registration, exit code %d: %q. %s",
			wardenName, res.ExitCode, strings.TrimSpace(res.Stderr), wardenLost)
	}
	return nil
}

// execWarden runs the warden's program with args in its container, and
// waits for it: a short command.
func (c *Client) execWarden(ctx context.Context, wardenID string, args ...string) (engine.ExecResult, error) {
	var res engine.ExecResult
	cmd := append([]string{helperProgram, warden.Command}, args...)
	err := c.within(ctx, "the request to create an exec", engine.QuickCallTimeout, func(ctx context.Context) error {
		created, err := c.api.ContainerExecCreate(ctx, wardenID, container.ExecOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
		res.ID = created.ID
		return err
	})
	if err != nil {
		return res, err
	}
	var stdout, stderr strings.Builder
	err = c.within(ctx, "the expiry warden's "+args[0], engine.QuickCallTimeout, func(ctx context.Context) error {
		att, err := c.api.ContainerExecAttach(ctx, res.ID, container.ExecAttachOptions{})
		if err != nil {
			return err
		}
		defer att.Close()
		_, err = stdcopy.StdCopy(&stdout, &stderr, io.LimitReader(att.Reader, 64<<20))
		return err
	})
	if err != nil {
		return res, err
	}
	inspected, err := c.inspectExec(ctx, res.ID)
	res.Stdout, res.Stderr, res.ExitCode = stdout.String(), stderr.String(), inspected.ExitCode
	return res, err
}

// Expiries are the expiries the engine's warden holds, renewals included,
// by sandbox ID (zero for one removed): nil where no warden of the provider runs (none was
// needed, or it stopped itself with nothing to guard). It makes nothing.
func (c *Client) Expiries(ctx context.Context) (map[string]time.Time, error) {
	found, err := c.InspectContainer(ctx, wardenName)
	if engine.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if proven, err := c.provenWarden(ctx, found); err != nil || !proven || !engine.IsRunning(found) {
		return nil, err
	}
	held, err := c.listWarden(ctx, found.ID)
	if err != nil && c.wardenStopped(ctx, found.ID) {
		return nil, nil // it stopped itself since it was found
	}
	return held, err
}

// listWarden reads what the warden wardenID holds.
func (c *Client) listWarden(ctx context.Context, wardenID string) (map[string]time.Time, error) {
	res, err := c.execWarden(ctx, wardenID, "list")
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("the expiry warden (container %s) could not list its registry, exit code %d: %q. %s",
			wardenName, res.ExitCode, strings.TrimSpace(res.Stderr), wardenLost)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		id, at, ok := strings.Cut(line, " ")
		switch unix, err := strconv.ParseInt(at, 10, 64); {
		case !ok || err != nil:
		case unix == warden.Never:
			out[id] = time.Time{} // its expiry removed
		default:
			out[id] = time.Unix(unix, 0).UTC()
		}
	}
	return out, nil
}

// provenWarden reports whether found is the provider's warden: a container
// the provider can prove it made, as the warden.
func (c *Client) provenWarden(ctx context.Context, found engine.Sandbox) (bool, error) {
	proven, err := c.provenContainer(ctx, found)
	return err == nil && proven && found.Config.Labels[engine.LabelResourceType] == wardenType, err
}

// warden returns the ID of the engine's warden, running: found by its
// name and proven the provider's, or made; then remembered, until a
// registration finds it stopped or gone.
func (c *Client) warden(ctx context.Context) (string, error) {
	c.wardenMu.Lock()
	defer c.wardenMu.Unlock()
	if c.wardenID != "" {
		return c.wardenID, nil
	}
	id, err := c.findWarden(ctx)
	c.wardenID = id
	return id, err
}

// findWarden finds the engine's warden, proves it, starts it if it has
// stopped, and replaces it if another version made it; or makes it.
func (c *Client) findWarden(ctx context.Context) (string, error) {
	found, err := c.InspectContainer(ctx, wardenName)
	if engine.IsNotFound(err) {
		if err := c.makeWarden(ctx); err != nil && !engine.IsConflict(err) {
			return "", err
		}
		found, err = c.InspectContainer(ctx, wardenName)
	}
	if err != nil {
		return "", fmt.Errorf("finding the expiry warden (container %s): %w", wardenName, err)
	}
	proven, err := c.provenWarden(ctx, found)
	if err != nil {
		return "", fmt.Errorf("checking the expiry warden (container %s): %w", wardenName, err)
	}
	if !proven {
		return "", fmt.Errorf("a container named %s on the engine at %s is not this provider's expiry warden, and "+
			"takes its name: remove or rename it (docker rm %s), and the provider makes its warden", wardenName, c.endpoint, wardenName)
	}
	if !engine.IsRunning(found) {
		if err := c.startStoppedWarden(ctx, found.ID); err != nil {
			return "", fmt.Errorf("starting the expiry warden (container %s) again failed: %w. If the engine's "+
				"socket moved since the warden was made, remove it (docker rm %s: the sandboxes it guarded are "+
				"registered again when their expiry next changes) and set the provider's engine_socket", wardenName,
				err, wardenName)
		}
	}
	if found.Config.Labels[labelWardenVersion] != wardenVersion {
		return c.replaceWarden(ctx, found)
	}
	return found.ID, nil
}

// replaceWarden replaces a warden made by another version of the provider
// (running) with this version's, which it gives every expiry the old one
// held, renewals included, for the sandboxes that are still there.
func (c *Client) replaceWarden(ctx context.Context, old engine.Sandbox) (string, error) {
	held, err := c.listWarden(ctx, old.ID)
	if err != nil {
		return "", fmt.Errorf("reading the expiries that the expiry warden of another version of the provider "+
			"holds, to replace it: %w", err)
	}
	c.removeWarden(ctx, old.ID, old.Image)
	if err := c.makeWarden(ctx); err != nil && !engine.IsConflict(err) {
		return "", err
	}
	made, err := c.InspectContainer(ctx, wardenName)
	if err != nil {
		return "", fmt.Errorf("finding the expiry warden (container %s): %w", wardenName, err)
	}
	for id, at := range held {
		// A sandbox removed since is not registered again.
		if err := c.register(ctx, made.ID, id, at); err != nil && !errors.As(err, new(*WardenElsewhereError)) {
			return "", err
		}
	}
	return made.ID, nil
}

// makeWarden makes and starts the warden, from an image of its own that
// holds only the provider's helper program.
func (c *Client) makeWarden(ctx context.Context) error {
	program, err := c.helper(ctx)
	if err != nil {
		return fmt.Errorf("the expiry warden needs the provider's helper program: %w", err)
	}
	token := engine.NewCreateToken()
	labels := engine.OwnershipLabels(wardenType)
	img, err := c.importImage(ctx, program, labels, token, strings.TrimPrefix(path.Dir(warden.Registry), "/"))
	if err != nil {
		return fmt.Errorf("importing the expiry warden's image: %w", err)
	}
	labels[engine.LabelCreateToken] = token
	labels[engine.LabelMadeAt] = engine.MadeAt(c.engineNow(ctx))
	labels[labelWardenVersion] = wardenVersion
	socket := c.conn.EngineSocket(c.Kind(ctx) == KindPodman)
	pids := int64(32)
	cfg := &container.Config{Image: img, Entrypoint: []string{helperProgram, warden.Command},
		Cmd: []string{"serve", wardenSocket}, Labels: labels, NetworkDisabled: true}
	host := &container.HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"}, SecurityOpt: []string{"no-new-privileges"},
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyUnlessStopped},
		Binds:         []string{socket + ":" + wardenSocket},
		Resources:     container.Resources{Memory: 64 << 20, PidsLimit: &pids}}
	var id string
	err = c.within(ctx, "the request to create a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		resp, err := c.api.ContainerCreate(ctx, cfg, host, nil, nil, wardenName)
		id = resp.ID
		return err
	})
	if err != nil {
		c.removeWarden(ctx, "", img)
		if c.nameTaken(ctx) {
			return nameInUse{err} // another provider made it meanwhile
		}
		return fmt.Errorf("creating the expiry warden (container %s, mounting %s): %w", wardenName, socket, err)
	}
	if err := c.StartContainer(ctx, id); err != nil {
		// It never ran and holds nothing: removed, so that the next apply
		// makes it with the socket then configured.
		c.removeWarden(ctx, id, img)
		return fmt.Errorf("starting the expiry warden (container %s, mounting %s from the engine's host; set the "+
			"provider's engine_socket if the engine's socket is elsewhere): %w", wardenName, socket, err)
	}
	return nil
}

// removeWarden removes the warden id (none for "") and its image, even
// when ctx has ended, with the calls every removal uses.
func (c *Client) removeWarden(ctx context.Context, id, img string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if id != "" {
		_ = c.RemoveContainer(ctx, id)
	}
	_ = c.RemoveImage(ctx, img)
}

// nameTaken reports whether a container has the warden's name.
func (c *Client) nameTaken(ctx context.Context) bool {
	_, err := c.InspectContainer(ctx, wardenName)
	return err == nil
}

// labelChanges are the import changes that set labels and one more: one
// LABEL each, in the order of their keys. Podman 4 reads a LABEL with
// several pairs as one label, named by the first key, whose value is the
// rest of the line: a helper image imported so carried none of the
// provider's labels, and its clean-up, which finds it by its build token,
// left it on the engine.
func labelChanges(labels map[string]string, key, value string) []string {
	all := maps.Clone(labels)
	all[key] = value
	changes := make([]string, 0, len(all))
	for _, k := range slices.Sorted(maps.Keys(all)) {
		changes = append(changes, fmt.Sprintf("LABEL %s=%s", k, all[k]))
	}
	return changes
}
