package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/mount"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar/helpers"
)

// Seeding a volume, and archiving one: the engines' API writes into (and
// reads out of) a volume only through a container that mounts it. The
// provider imports an empty image of its own (no registry is needed),
// creates a container from it (never started on Docker; on Podman, running
// only Podman's init), copies the tar into the volume (or out of it)
// through it, and removes both, however the copy ends.

// seedHelperType is the resource type the seeding helpers carry.
const seedHelperType = "sandbox_volume"

// podmanInit is where Podman mounts its init (catatonit) into a container
// created with init.
const podmanInit = "/run/podman-init"

// cleanupTimeout bounds the removal of the helper container and image, which
// runs even when the caller's context has ended: as long as one removal may
// take, since an engine under load takes more than 30 s to remove an image,
// and a helper left behind fails the operation that made it.
const cleanupTimeout = engine.SlowCallTimeout

// SeedVolume unpacks the tar, whose entries are under SeedDir, into the
// volume's root, through a helper container and image that carry the token
// (NewCreateToken), and removes the helpers. Entries with the paths of
// existing files replace them; other files stay. When the engine fails
// before the helpers are removed, CleanUpSeed with the same token removes
// them later.
func (c *Client) SeedVolume(ctx context.Context, volume, token string, archive io.Reader) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, volume, token, helperWrites, nil)
	if err != nil {
		return err
	}
	upload := c.watch(ctx, archive)
	defer upload.stop()
	err = c.within(upload.ctx, "the request to copy into a volume", streamTimeout, func(ctx context.Context) error {
		return c.api.CopyToContainer(ctx, id, "/", upload, container.CopyToContainerOptions{})
	})
	if err != nil {
		return fmt.Errorf("copying into the volume: %w", upload.cause(err))
	}
	return nil
}

// What a helper does with the volume: fill it through the engine's
// archive endpoint, read it through that endpoint, or read it with the
// provider's own program (volumetar), which it then holds.
type helperUse int

const (
	helperWrites helperUse = iota
	helperReads
	helperRunsProgram
)

// startHelper makes the helper container that mounts the volume at
// SeedDir (read-only unless it writes), from an image of its own (empty,
// or holding only the program, which a helper that runs it is given), with no network and no
// capabilities but the one its program needs to read every file, and
// returns its ID; the helper and its image carry the token, which
// CleanUpSeed takes.
func (c *Client) startHelper(ctx context.Context, volume, token string, use helperUse, program *helpers.Helper) (string, error) {
	img, err := c.importHelperImage(ctx, volume, token, program)
	if err != nil {
		return "", fmt.Errorf("importing the helper image: %w", err)
	}
	labels := engine.OwnershipLabels(seedHelperType)
	labels[engine.LabelCreateToken] = token
	cfg := &container.Config{Image: img, Cmd: []string{"/never-started"}, Labels: labels, NetworkDisabled: true}
	host := &container.HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"}, Mounts: []mount.Mount{{
			Type: mount.TypeVolume, Source: volume, Target: "/" + engine.SeedDir, ReadOnly: use != helperWrites,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		}}}
	if use == helperRunsProgram {
		host.CapAdd = []string{"DAC_READ_SEARCH"}
	}
	podman := c.Kind(ctx) == KindPodman
	switch {
	case podman:
		// Podman copies into and out of a volume only through a running
		// container: the helper runs Podman's own init, which the engine
		// mounts into it, pausing (catatonit -P), and nothing else.
		yes := true
		host.Init = &yes
		cfg.Entrypoint, cfg.Cmd = []string{podmanInit}, []string{"-P"}
	case use == helperRunsProgram:
		// On Docker, the program waits until the helper is removed.
		cfg.Entrypoint, cfg.Cmd = []string{helperProgram, volumetar.Command}, []string{"wait", helperLife(ctx)}
	}
	var id string
	err = c.within(ctx, "the request to create a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		resp, err := c.api.ContainerCreate(ctx, cfg, host, nil, nil, "")
		id = resp.ID
		return err
	})
	if err != nil {
		return "", fmt.Errorf("creating the helper container: %w", err)
	}
	if podman || use == helperRunsProgram {
		if err := c.StartContainer(ctx, id); err != nil {
			return "", fmt.Errorf("starting the helper container: %w", err)
		}
	}
	return id, nil
}

// helperLife is how long a helper that runs the provider's program waits,
// in seconds: the caller's time and a minute, so that one left by a
// provider killed outright stops on its own.
func helperLife(ctx context.Context) string {
	life := volumetar.WaitAtMost
	if deadline, ok := ctx.Deadline(); ok {
		life = time.Until(deadline) + time.Minute
	}
	return strconv.Itoa(int(life.Seconds()) + 1)
}

// helperProgram is where a helper image holds the program that reads a
// volume.
const helperProgram = "/tfsandbox-volume-tar"

// importHelperImage imports an image labelled as the provider's with the
// token, and returns its ID: empty, or holding only the program (nil: none)
// at helperProgram.
func (c *Client) importHelperImage(ctx context.Context, volume, token string, program *helpers.Helper) (string, error) {
	labels := engine.OwnershipLabels(seedHelperType)
	labels[engine.LabelHelperVolume] = volume
	return c.importImage(ctx, program, labels, token)
}

// importImage imports an image with the labels and the build token, and
// returns its ID: empty, or holding only the program (nil: none) at
// helperProgram and the empty directories dirs.
//
// The image also holds an empty directory named by the token, so that its
// layer is its own. Podman 4.3 gives two imports of the same content one
// layer, which the removal of the first image deletes with it, even while
// the second import is making its image of it: that import then fails
// ("creating image ...: layer not known"), as it did for helpers of two
// sandboxes' volumes seeded side by side.
func (c *Client) importImage(ctx context.Context, program *helpers.Helper, labels map[string]string, token string,
	dirs ...string) (string, error) {
	changes := labelChanges(labels, engine.LabelBuildToken, token)
	content, err := helperImageContent(program, append(dirs, importMark+token)...)
	if err != nil {
		return "", err
	}
	defer func() { _ = content.Close() }()
	var id string
	err = c.within(ctx, "the request to import an image", engine.SlowCallTimeout, func(ctx context.Context) error {
		rc, err := c.api.ImageImport(ctx, image.ImportSource{Source: content, SourceName: "-"}, "", image.ImportOptions{Changes: changes})
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		id, err = importedID(rc)
		return err
	})
	return id, err
}

// importMark begins the name of the empty directory that makes each
// imported image's layer its own (importImage).
const importMark = ".tfsandbox-import-"

// helperImageContent is the tar of a helper image's files: the empty
// directories dirs (mode 0700), and the program if there is one, streamed.
func helperImageContent(program *helpers.Helper, dirs ...string) (io.ReadCloser, error) {
	if program == nil {
		var content bytes.Buffer
		tw := tar.NewWriter(&content)
		// Writing to a buffer never fails.
		_ = helpers.WriteDirs(tw, dirs...)
		_ = tw.Close()
		return io.NopCloser(&content), nil
	}
	return program.Tar(strings.TrimPrefix(helperProgram, "/"), dirs...)
}

// importedID reads the image ID from an import's JSON stream: Docker ends
// it with {"status":"sha256:..."}, Podman with {"status":"...","id":...}.
func importedID(r io.Reader) (string, error) {
	dec := json.NewDecoder(r)
	var id string
	for {
		var msg struct {
			Status string `json:"status"`
			ID     string `json:"id"`
			Error  string `json:"error"`
		}
		err := dec.Decode(&msg)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch {
		case msg.Error != "":
			return "", errors.New(msg.Error)
		case isHexID(msg.ID):
			id = msg.ID
		case isHexID(strings.TrimSpace(msg.Status)):
			id = strings.TrimSpace(msg.Status)
		}
	}
	if id == "" {
		return "", errors.New("the engine did not say which image it imported")
	}
	return id, nil
}

// CleanUpSeed removes the helper container and image of the seeding with
// the token, found by it, within cleanupTimeout even when ctx has ended.
func (c *Client) CleanUpSeed(ctx context.Context, token string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	ids, err := c.ContainersCreatedWith(ctx, token)
	if err != nil {
		return fmt.Errorf("listing the helper container to remove it: %w", err)
	}
	var errs []error
	for _, id := range ids {
		if err := c.RemoveContainer(ctx, id); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing the helper container %s: %w", engine.ShortID(id), err))
		}
	}
	images, err := c.listImages(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("label", engine.LabelBuildToken+"="+token))})
	if err != nil {
		errs = append(errs, fmt.Errorf("listing the helper image to remove it: %w", err))
	}
	for _, img := range images {
		if err := c.RemoveImage(ctx, img.ID); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing the helper image %s: %w", engine.ShortID(img.ID), err))
		}
	}
	return errors.Join(errs...)
}
