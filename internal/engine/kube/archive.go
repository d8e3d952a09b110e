package kube

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar/helpers"
)

// A claim is read and filled through a helper pod, as a Docker engine's
// volume is through a helper container: the API has no other way into a
// claim. The helper runs HelperImage's sleep and tar, as root with only
// the capabilities the copy needs, no network (a deny-all NetworkPolicy,
// as a sandbox's), no service account token, a read-only root, and the
// claim mounted at SeedDir (read-only when it is read). The provider
// streams the archive through the API server's pods/exec, checked before
// it reaches the pod (package archive) and in the header form every tar
// reads alike, and removes the pod however the copy ends; a pod left by a
// provider killed outright carries the copy's token and sleeps for an
// hour at most. A claim is read by the provider's own program (package
// volumetar), copied into the helper's memory-backed programDir with its
// tar: the helper image's tar would write owners past 8 octal digits cut,
// times before 1970 as 1970, and follow a directory a sandbox swaps for a
// symbolic link.

// helperMemory bounds the helper pod's memory: tar streams, and the
// provider's program, in programRoom, reads one file at a time.
const helperMemory = 256 << 20

// programDir is where a helper holds the provider's program (at
// programPath), a memory-backed volume of programRoom bytes.
const (
	programDir  = "/tfsandbox"
	programName = "volume-tar"
	programPath = programDir + "/" + programName
	programRoom = 128 << 20
)

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
	tmpfs := map[string]string{programDir: fmt.Sprintf("size=%d", programRoom)}
	return engine.ContainerSpec{
		Name: "tfsandbox-copy-" + token[:16], Image: c.helperImage, NetworkMode: "none", Tmpfs: tmpfs,
		Entrypoint: []string{"sleep"}, Command: []string{"3600"}, Labels: labels, User: "0:0",
		CapDrop: []string{"ALL"}, CapAdd: caps, SecurityOpt: []string{"no-new-privileges"}, ReadOnly: true,
		Restart: "no", Limits: engine.Limits{Memory: helperMemory, MemorySwap: helperMemory},
		Mounts: []engine.Mount{{Target: "/" + engine.SeedDir, Volume: claim, ReadOnly: readOnly}},
	}
}

// startHelper makes the helper pod and waits until it runs.
func (c *Client) startHelper(ctx context.Context, claim, token string, readOnly bool) (string, error) {
	if why := c.helperImageRefusal(ctx); why != "" {
		return "", &engine.HelperImageError{Detail: helperImageAdvice(why)}
	}
	id, err := c.CreateContainer(ctx, c.helperSpec(claim, token, readOnly))
	if err != nil {
		return "", fmt.Errorf("creating the helper pod (image %s): %w", c.helperImage, err)
	}
	if err := c.StartContainer(ctx, id); err != nil {
		return "", fmt.Errorf("starting the helper pod (image %s, kubernetes.helper_image): %w", c.helperImage, err)
	}
	return id, nil
}

// ArchivesInOrder: the provider's program walks each directory in its
// names' order.
func (c *Client) ArchivesInOrder() bool { return true }

// ArchiveVolume reads the claim out through a helper pod running the
// provider's program, its entries under SeedDir. A cluster cannot pause a
// pod: hold is asked all the same, and says so.
func (c *Client) ArchiveVolume(ctx context.Context, claim, token string, hold func(context.Context) func(),
	read func(tar io.Reader) error) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, claim, token, true)
	if err != nil {
		return err
	}
	command := []string{programPath, volumetar.Command, "/" + engine.SeedDir, engine.SeedDir,
		volumetar.Gzip}
	compressed := true
	if err := c.copyProgram(ctx, id); err != nil {
		if !errors.As(err, new(*cannotRun)) {
			return err
		}
		// Terraform on another system than the nodes': the helper image's
		// tar reads the claim (the Kubernetes guide says what it keeps).
		command, compressed = []string{"tar", "-cf", "-", "-C", "/", engine.SeedDir}, false
	}
	if hold != nil {
		defer hold(ctx)()
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := readArchive(pr, compressed, read)
		_ = pr.CloseWithError(err)
		done <- err
	}()
	err = c.stream(ctx, id, command, nil, pw)
	_ = pw.CloseWithError(err)
	readErr := <-done
	if changed := new(engine.VolumeChangedError); errors.As(err, &changed) || readErr == nil {
		return err // the stream it cut short says less than why it did
	}
	return readErr
}

// copyProgram copies the program that reads a volume into the helper pod,
// with the pod's tar: the provider's build for the node's platform
// (programFor).
func (c *Client) copyProgram(ctx context.Context, id string) error {
	program, err := c.programFor(ctx, id)
	if err != nil {
		return err
	}
	content, err := program.Tar(programName)
	if err != nil {
		return err
	}
	defer func() { _ = content.Close() }()
	if err := c.stream(ctx, id, []string{"tar", "-xof", "-", "-C", programDir}, content, io.Discard); err != nil {
		return fmt.Errorf("copying %s into the helper pod (image %s, kubernetes.helper_image): %w",
			program.Source, c.helperImage, err)
	}
	return nil
}

// cannotRun is a node none of the provider's programs runs on.
type cannotRun struct{ why string }

func (e *cannotRun) Error() string { return e.why }

// programFor chooses the program for the helper pod's node
// (helpers.HelperFor): its platform as the node reports it. A user who
// may not read nodes gets the one for the provider's own architecture,
// which most clusters run; on another, its start fails, naming its file.
func (c *Client) programFor(ctx context.Context, id string) (*helpers.Helper, error) {
	if c.tarOnly {
		return nil, &cannotRun{why: "kube.Config.TarOnly"}
	}
	pod, err := c.getPod(ctx, id)
	if err != nil {
		return nil, err
	}
	node := &corev1.Node{}
	err = c.call(ctx, "the request to read a node", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Resource("nodes").Name(pod.Spec.NodeName).Do(ctx).Into(node)
	})
	target := helpers.Platform{OS: "linux", Arch: runtime.GOARCH}
	switch {
	case err == nil:
		info := node.Status.NodeInfo
		target = helpers.Platform{OS: info.OperatingSystem, Arch: helpers.EngineArch(info.Architecture)}
	case !isForbidden(err):
		return nil, err
	}
	program, err := helpers.HelperFor(target)
	if err != nil {
		return nil, &cannotRun{why: fmt.Sprintf("the node %s: %v", pod.Spec.NodeName, err)}
	}
	return program, nil
}

// SeedVolume fills the claim through a helper pod from an archive whose
// entries lie under SeedDir: an empty claim (a new volume, a restore) with
// the provider's program (volumetar's Unpack), which writes a file a
// megabyte at a time and leaves its zeros as holes, where one runs on the
// node; else (a reseed over what sandboxes wrote, or no program for the
// node) with the helper image's tar, then, in a second archive, its
// directories again, so that tar gives them their times after every entry
// in them is made (hard links included, which busybox's tar makes last).
func (c *Client) SeedVolume(ctx context.Context, claim, token string, tarball io.Reader) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, claim, token, false)
	if err != nil {
		return err
	}
	command, compress := []string{programPath, volumetar.Command, volumetar.Unpack, "/" + engine.SeedDir,
		engine.SeedDir, volumetar.Gzip}, true
	err = c.copyProgram(ctx, id)
	if err == nil {
		err = c.stream(ctx, id, []string{programPath, volumetar.Command, volumetar.Empty, "/" + engine.SeedDir}, nil,
			io.Discard)
	}
	if exit := new(helperExit); errors.As(err, new(*cannotRun)) ||
		errors.As(err, &exit) && exit.status == volumetar.ExitNotEmpty {
		if compress, err = c.helperReadsGzip(ctx, id); err == nil {
			command = extracting(compress)
		}
	}
	if err != nil {
		return err
	}
	var dirs []*tar.Header
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		var err error
		dirs, err = portableDirectories(pw, tarball, compress)
		_ = pw.CloseWithError(err)
		done <- err
	}()
	err = c.stream(ctx, id, command, pr, io.Discard)
	_ = pr.Close()
	// tar may stop reading at the archive's end marker, before its padding:
	// every directory was listed by then.
	if produced := <-done; err == nil && !errors.Is(produced, io.ErrClosedPipe) {
		err = produced
	}
	if err != nil || command[0] != "tar" {
		return err
	}
	var again bytes.Buffer // headers alone: 512 bytes a directory, or 1536 with a long name
	if err := archive.Directories(&again, dirs); err != nil {
		return err
	}
	return c.stream(ctx, id, extracting(false), &again, io.Discard)
}

// EntryRefusal says why the helper pod would fill a claim otherwise than
// the archive has h: a time after 2262, which the node's runtime does not
// keep (the test cluster's gVisor stored such times as 1861).
func (c *Client) EntryRefusal(context.Context) (func(h *tar.Header) string, error) {
	return func(h *tar.Header) string {
		if h.ModTime.After(engine.LatestFileTime) {
			return fmt.Sprintf("is dated %s, which a claim filled on %s cannot hold (its runtime keeps no time "+
				"after 2262)", h.ModTime.UTC().Format(time.RFC3339), c.Where())
		}
		return ""
	}, nil
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
	case errors.As(err, &exit) && exit.ExitStatus() == volumetar.ExitChanged && len(command) > 1 &&
		command[1] == volumetar.Command:
		return &engine.VolumeChangedError{Said: strings.TrimSpace(stderr.Result("", 0).Stderr)}
	case errors.As(err, &exit):
		return &helperExit{command: command[0], status: exit.ExitStatus(), said: strings.TrimSpace(stderr.Result("", 0).Stderr)}
	case err != nil:
		return classify(err)
	}
	return nil
}

// helperExit is a command in the helper pod that ended with a failure.
type helperExit struct {
	command string
	status  int
	said    string // its standard error
}

// Error says what the command said: quoted, since it names paths a
// sandbox wrote.
func (e *helperExit) Error() string {
	return fmt.Sprintf("%s in the helper pod exited with %d: %q", e.command, e.status, e.said)
}
