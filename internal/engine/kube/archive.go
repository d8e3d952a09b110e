package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A claim is read and filled through a helper pod, as a Docker engine's
// volume is through a helper container: the API has no other way into a
// claim. The helper runs HelperImage's tar and sleep, as root with only
// the capabilities the copy needs, no network (a deny-all NetworkPolicy,
// as a sandbox's), no service account token, a read-only root, and the
// claim mounted at SeedDir (read-only when it is read). The provider
// streams the archive through the API server's pods/exec, checked before
// it reaches the pod (package archive), and removes the pod however the
// copy ends; a pod left by a provider killed outright carries the copy's
// token and sleeps for an hour at most.

// DefaultHelperImage is the helper's image unless the provider names
// another: any image with a busybox or GNU tar and sleep.
const DefaultHelperImage = "busybox:1.37"

// helperMemory bounds the helper pod's memory: tar streams.
const helperMemory = 256 << 20

// Capabilities of the helper: reading every file of a claim, or writing
// them with their owners and modes.
var (
	readCaps  = []string{"DAC_READ_SEARCH"}
	writeCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER"}
)

// helperSpec is the helper pod of the copy with token.
func (c *Client) helperSpec(claim, token string, readOnly bool) engine.ContainerSpec {
	labels := engine.OwnershipLabels("sandbox_volume")
	labels[engine.LabelCreateToken] = token
	caps := writeCaps
	if readOnly {
		caps = readCaps
	}
	return engine.ContainerSpec{
		Name: "tfsandbox-copy-" + token[:16], Image: c.helperImage, NetworkMode: "none",
		Entrypoint: []string{"sleep"}, Command: []string{"3600"}, Labels: labels, User: "0:0",
		CapDrop: []string{"ALL"}, CapAdd: caps, SecurityOpt: []string{"no-new-privileges"}, ReadOnly: true,
		Restart: "no", Limits: engine.Limits{Memory: helperMemory, MemorySwap: helperMemory},
		Mounts: []engine.Mount{{Target: "/" + engine.SeedDir, Volume: claim, ReadOnly: readOnly}},
	}
}

// startHelper makes the helper pod and waits until it runs.
func (c *Client) startHelper(ctx context.Context, claim, token string, readOnly bool) (string, error) {
	id, err := c.CreateContainer(ctx, c.helperSpec(claim, token, readOnly))
	if err != nil {
		return "", fmt.Errorf("creating the helper pod (image %s): %w", c.helperImage, err)
	}
	if err := c.StartContainer(ctx, id); err != nil {
		return "", fmt.Errorf("starting the helper pod (image %s, kubernetes.helper_image): %w", c.helperImage, err)
	}
	return id, nil
}

// ArchivesInOrder: tar in a pod lists a directory as the file system
// does.
func (c *Client) ArchivesInOrder() bool { return false }

// ArchiveVolume reads the claim out through a helper pod running tar,
// its entries under SeedDir. A cluster cannot pause a pod: hold is asked
// all the same, and says so.
func (c *Client) ArchiveVolume(ctx context.Context, claim, token string, hold func(context.Context) func(),
	read func(tar io.Reader) error) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, claim, token, true)
	if err != nil {
		return err
	}
	if hold != nil {
		defer hold(ctx)()
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := read(pr)
		if err == nil {
			err = archive.CheckEnd(pr) // tar's padding, and nothing else
		}
		_ = pr.CloseWithError(err)
		done <- err
	}()
	err = c.stream(ctx, id, []string{"tar", "-cf", "-", "-C", "/", engine.SeedDir}, nil, pw)
	_ = pw.CloseWithError(err)
	if readErr := <-done; readErr != nil {
		return readErr
	}
	return err
}

// SeedVolume fills the claim through a helper pod running tar, from an
// archive whose entries lie under SeedDir, its directories written again
// at its end so that tar gives them their times.
func (c *Client) SeedVolume(ctx context.Context, claim, token string, tarball io.Reader) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, claim, token, false)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() { _ = pw.CloseWithError(archive.DirectoriesAgain(pw, tarball)) }()
	defer func() { _ = pr.Close() }()
	return c.stream(ctx, id, []string{"tar", "-xf", "-", "-C", "/"}, pr, io.Discard)
}

// CleanUpSeed removes the helper pod of the copy with token, within
// cleanupTimeout even when ctx has ended.
func (c *Client) CleanUpSeed(ctx context.Context, token string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.SlowCallTimeout)
	defer cancel()
	ids, err := c.ContainersCreatedWith(ctx, token)
	if err != nil {
		return fmt.Errorf("listing the helper pod to remove it: %w", err)
	}
	var errs []error
	for _, id := range ids {
		if err := c.RemoveContainer(ctx, id); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing the helper pod %s: %w", podName(id), err))
		}
	}
	return errors.Join(errs...)
}

// stream runs command in the helper pod with stdin and stdout, and
// fails with what it wrote to its standard error when it fails.
func (c *Client) stream(ctx context.Context, id string, command []string, stdin io.Reader, stdout io.Writer) error {
	pod, err := c.getPod(ctx, id)
	if err != nil {
		return err
	}
	exec, err := c.executor(pod, command, stdin != nil)
	if err != nil {
		return err
	}
	stderr := engine.NewOutput(4096)
	done := engine.InFlight()
	err = exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr.Stderr()})
	done()
	var exit utilexec.ExitError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &exit):
		// What tar said names paths a sandbox wrote: quoted.
		return fmt.Errorf("%s in the helper pod exited with %d: %q", command[0], exit.ExitStatus(),
			strings.TrimSpace(stderr.Result("", 0).Stderr))
	case err != nil:
		return classify(err)
	}
	return nil
}
