package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/pkg/jsonmessage"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// buildTailLines is how many lines of output a BuildError keeps.
const buildTailLines = 20

// BuildImage builds an image from spec with the engine's classic builder,
// which needs no registry (FROM an image already on the engine works
// offline) and takes the context as a tar, so remote engines build too.
// Each line of output goes to logf. It returns the image's ID, and the
// intermediate images the build made, which the engine keeps when the
// image is removed (RemoveBuilt removes both). A build has no deadline of
// its own: it takes as long as its steps, within the caller's (the create
// timeout). A build that Podman failed for a race in its own store is run
// again (storageRace).
func (c *Client) BuildImage(ctx context.Context, spec engine.BuildSpec, logf func(line string)) (engine.Built, error) {
	defer engine.InFlight()()
	auth, err := c.buildAuth()
	if err != nil {
		return engine.Built{}, err
	}
	labels := spec.Labels
	for attempt := 1; ; attempt++ {
		// The build token proves the provider built the image
		// (provenance.go): each build its own, so that nothing a failed
		// one left is taken for the first image made with it.
		spec.Labels = maps.Clone(labels)
		if spec.Labels == nil {
			spec.Labels = map[string]string{}
		}
		spec.Labels[engine.LabelBuildToken] = engine.NewCreateToken()
		spec.Labels[engine.LabelBuildLabels] = buildLabelKeys(spec.Labels)
		opts := buildOptions(spec)
		opts.AuthConfigs = auth
		built, err := c.buildOnce(ctx, spec, opts, logf)
		if attempt == storageRaceBuilds || !c.storageRace(ctx, err) {
			return built, err
		}
		logf(fmt.Sprintf("Podman failed the build for a race in its image store (%v): building again", err))
		select {
		case <-ctx.Done():
			return built, err
		case <-time.After(time.Duration(attempt) * storageRacePause):
		}
	}
}

// buildOnce runs the build once, with a new stream of the context.
func (c *Client) buildOnce(ctx context.Context, spec engine.BuildSpec, opts build.ImageBuildOptions,
	logf func(line string)) (engine.Built, error) {
	buildContext := spec.Context()
	defer func() { _ = buildContext.Close() }()
	began := c.engineNow(ctx).Add(-buildClockSlack)
	resp, err := c.api.ImageBuild(ctx, buildContext, opts)
	if err != nil {
		return engine.Built{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	out := buildOutput{logf: logf}
	// discard removes the images the build made, of those its output named.
	discard := func() { c.removeIntermediates(ctx, c.madeSince(ctx, out.made, began), true) }
	if err := out.read(ctx, resp.Body); err != nil {
		var ended *engine.BuildError // the engine's own error ends its build
		if !errors.As(err, &ended) && out.stepMayOrphan() {
			logf("The build was cut off while the engine may still commit a step's image without a container " +
				"(COPY, ADD, or a step not yet reported): the images it made are left untagged for the next build's cache")
			return engine.Built{}, err
		}
		discard()
		return engine.Built{}, err
	}
	id := out.imageID()
	if id == "" {
		discard()
		return engine.Built{}, fmt.Errorf("the engine reported no image ID at the end of the build")
	}
	img, err := c.inspectImage(ctx, id)
	if err != nil {
		return engine.Built{}, fmt.Errorf("inspecting the image just built (%s): %w", id, err)
	}
	// The build's labels go on its last image only: an ID its output named
	// that lacks this build's token is not the image it built.
	if token := opts.Labels[engine.LabelBuildToken]; img.Labels[engine.LabelBuildToken] != token {
		discard()
		return engine.Built{}, fmt.Errorf("the build's output named image %s as the one it built, but that image does "+
			"not carry this build's token (label %s), so a step printed a line like the builder's own "+
			"(\"Successfully built ID\", or an ID alone as the output's last line) and the provider takes no image "+
			"it cannot prove it built: make the Dockerfile's last step print no such line", id, engine.LabelBuildToken)
	}
	return engine.Built{ID: img.ID, Intermediates: c.madeSince(ctx, out.below(img.ID), began)}, nil
}

// storageRaceBuilds is how many times a build is run in all while Podman
// fails it for a race in its store.
const storageRaceBuilds = 3

// storageRacePause is the pause before the second build, and grows by
// as much before each after it. A variable for the tests.
var storageRacePause = time.Second

// storageRace reports whether err is a build that Podman failed because
// an image or layer went from its store while the build read it: its
// builder lists the images to find one it can take from its cache, then
// reads each one's layers, and an image removed meanwhile (by another
// client, or by the provider's own removal of a helper image beside the
// build) fails the build with "checking if cached image exists from a
// previous build: getting top layer info: layer not known" (Podman 4.3).
// The build's stream carries only that text, so its error is read for
// containers/storage's words for a missing layer or image. A base image
// that is really missing fails every build the same way, a few seconds
// later.
func (c *Client) storageRace(ctx context.Context, err error) bool {
	var buildErr *engine.BuildError
	if !errors.As(err, &buildErr) || ctx.Err() != nil || c.Kind(ctx) != KindPodman {
		return false
	}
	return StoreRaceMessage(buildErr.Message)
}

// StoreRaceMessage reports whether a Podman build's error message holds
// containers/storage's words for a layer or image that went from its
// store (storageRace).
func StoreRaceMessage(message string) bool {
	return strings.Contains(message, "layer not known") || strings.Contains(message, "image not known")
}

// buildOptions asks the classic builder for spec, with the intermediate
// containers removed.
func buildOptions(spec engine.BuildSpec) build.ImageBuildOptions {
	opts := build.ImageBuildOptions{
		Dockerfile:  spec.Dockerfile,
		Target:      spec.Target,
		Labels:      spec.Labels,
		Remove:      true,
		ForceRemove: true,
		Version:     build.BuilderV1,
		BuildArgs:   map[string]*string{},
	}
	if spec.Tag != "" {
		opts.Tags = []string{spec.Tag}
	}
	for k, v := range spec.BuildArgs {
		opts.BuildArgs[k] = &v
	}
	return opts
}

// buildOutput follows a build's stream of JSON messages: each line goes to
// logf, and it keeps the step under way, the last lines, the image ID, and
// the images the build made for its steps (not those it found in its
// cache, nor the base image).
type buildOutput struct {
	logf func(line string)
	id   string
	// fromAux says id came from the engine's own message, not from a line
	// of output, which a step may print.
	fromAux bool
	step    string
	tail    []string
	made    []string
	// stepOld says the step under way found its image in the cache, or is
	// the FROM step, whose image is the base.
	stepOld bool
	// pending is the instruction of the step under way (COPY, RUN), ""
	// once its image is known; begun and steps number the last step
	// begun and all of them.
	pending      string
	begun, steps int
	// stepsSeen counts the step lines, and claimedIn is the count when the
	// last image was added to made.
	stepsSeen, claimedIn int
}

// maxClaims bounds the images a build's output can name for the engine to
// be asked about (madeSince): a step that prints a great many lines like
// the builder's own would otherwise make as many requests.
const maxClaims = 256

// claim takes id as the image of the step under way. The builder prints a
// step's image after the step's own output, so the last ID within a step
// is the builder's: a line like it that the step printed is replaced.
// Which of them the build made is the engine's to say (madeSince).
func (o *buildOutput) claim(id string) {
	if len(o.made) > 0 && o.claimedIn == o.stepsSeen {
		o.made[len(o.made)-1] = id
		return
	}
	if o.made, o.claimedIn = append(o.made, id), o.stepsSeen; len(o.made) > maxClaims {
		o.made = o.made[1:]
	}
}

// stepMayOrphan reports whether a build cut off may still, on the engine,
// make a step's image on the newest image the build made with no container
// holding that image meanwhile: a COPY or ADD under way, which the classic
// builder commits from a layer alone, or a step begun after the last image
// arrived, whose instruction the provider did not see. Removing the newest
// image then leaves the step's image without its parent (the engine sets
// the parent after storing the image, and fails the step when the parent
// is gone): untagged, and found by no later build's cache. A step run in a
// container (RUN, and the classic builder's LABEL, ENV and the like) holds
// the image until the engine removes the container, and its removal waits
// for that (removeIntermediates).
func (o *buildOutput) stepMayOrphan() bool {
	switch o.pending {
	case "":
		return o.begun < o.steps
	case "COPY", "ADD":
		return true
	}
	return false
}

// read consumes the stream to its end, and fails with the build's error.
func (o *buildOutput) read(ctx context.Context, body io.Reader) error {
	dec := json.NewDecoder(body)
	for {
		var msg jsonmessage.JSONMessage
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("the build did not finish: %w", ctx.Err())
			}
			return fmt.Errorf("reading the build's output: %w", err)
		}
		if msg.Error != nil {
			return &engine.BuildError{Step: o.step, Tail: o.tail, Message: strings.TrimSpace(msg.Error.Message)}
		}
		if msg.Aux != nil {
			var aux struct{ ID string }
			if json.Unmarshal(*msg.Aux, &aux) == nil && aux.ID != "" {
				o.id, o.fromAux = aux.ID, true
			}
		}
		for _, line := range strings.Split(strings.TrimRight(msg.Stream, "\n"), "\n") {
			o.line(line)
		}
	}
}

// line takes one line of the build's output.
func (o *buildOutput) line(line string) {
	if line = strings.TrimSpace(ansiEscape.ReplaceAllString(line, "")); line == "" {
		return
	}
	o.logf(line)
	if strings.HasPrefix(line, "Step ") || strings.HasPrefix(line, "STEP ") {
		numbers, instruction, _ := strings.Cut(line[len("Step "):], ":")
		keyword, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(instruction)), " ")
		o.step, o.stepOld, o.pending = line, keyword == "FROM", keyword
		o.stepsSeen++
		begun, steps, _ := strings.Cut(strings.TrimSpace(numbers), "/")
		o.begun, _ = strconv.Atoi(begun)
		o.steps, _ = strconv.Atoi(steps)
	}
	// The classic builder gives a step's image as " ---> ID", Podman as
	// "--> ID" (eleven digits); both say "Using cache" first when the step
	// was cached.
	if rest, ok := stepResult(line); ok {
		switch {
		case strings.HasPrefix(rest, "Using cache"):
			o.stepOld = true
		case len(rest) >= 10 && strings.Trim(rest, "0123456789abcdef") == "":
			if !o.stepOld {
				o.claim(rest)
			}
			o.pending = ""
		}
	}
	if o.tail = append(o.tail, line); len(o.tail) > buildTailLines {
		o.tail = o.tail[1:]
	}
	// The classic builder ends with this line; Podman's sends no aux
	// message but prints the ID last. A step may print such a line too, so
	// the builder's own, the last, is taken.
	if rest, ok := strings.CutPrefix(line, "Successfully built "); ok && !o.fromAux {
		o.id = rest
	}
}

// below are the images the build made for its steps other than final
// (the image it ended with): its intermediates, oldest first.
func (o *buildOutput) below(final string) []string {
	final = strings.TrimPrefix(final, "sha256:")
	var ids []string
	for _, id := range o.made {
		if !strings.HasPrefix(final, strings.TrimPrefix(id, "sha256:")) {
			ids = append(ids, id)
		}
	}
	return ids
}

// stepResult is what follows a step's result arrow, if line is one.
func stepResult(line string) (string, bool) {
	for _, arrow := range []string{"---> ", "--> "} {
		if rest, ok := strings.CutPrefix(line, arrow); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// imageID is the ID the engine's message reported, or else the last line
// of the output when that is an ID (Podman prints it last), or else the
// last "Successfully built" line.
func (o *buildOutput) imageID() string {
	if !o.fromAux && len(o.tail) > 0 && isHexID(o.tail[len(o.tail)-1]) {
		return o.tail[len(o.tail)-1]
	}
	return o.id
}

// ansiEscape matches the terminal colour codes the classic builder puts
// around a step's standard error.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

func isHexID(s string) bool {
	s = strings.TrimPrefix(s, "sha256:")
	return len(s) >= 12 && strings.Trim(s, "0123456789abcdef") == ""
}

// ContainersUsingImage returns the names of the containers, running or
// not, created from the image with the given ID.
func (c *Client) ContainersUsingImage(ctx context.Context, id string) ([]string, error) {
	var names []string
	err := c.within(ctx, "the request to list containers", engine.QuickCallTimeout, func(ctx context.Context) error {
		// Podman matches an ID only without its sha256: prefix; Docker
		// takes either.
		list, err := c.api.ContainerList(ctx, container.ListOptions{All: true,
			Filters: filters.NewArgs(filters.Arg("ancestor", strings.TrimPrefix(id, "sha256:")))})
		for _, s := range list {
			if strings.TrimPrefix(s.ImageID, "sha256:") != strings.TrimPrefix(id, "sha256:") {
				continue // a container of an image built on this one
			}
			for _, n := range s.Names {
				names = append(names, strings.TrimPrefix(n, "/"))
			}
		}
		return err
	})
	slices.Sort(names)
	return names, err
}

// TagImageID returns the ID of the image that ref names, or "" when ref
// names none.
func (c *Client) TagImageID(ctx context.Context, ref string) (string, error) {
	img, err := c.inspectImage(ctx, ref)
	if engine.IsNotFound(err) {
		return "", nil
	}
	return img.ID, err
}

// TagImage makes ref name the image with the given ID, moving the tag from
// any image it named before.
func (c *Client) TagImage(ctx context.Context, id, ref string) error {
	return c.within(ctx, "the request to tag an image", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.api.ImageTag(ctx, id, ref)
	})
}
