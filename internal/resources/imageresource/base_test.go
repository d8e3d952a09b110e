package imageresource_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// An image built FROM an untagged image that the provider did not make (a
// base given by its ID, as a team's own build leaves one) is destroyed
// with the intermediate images its build made for its steps, and the base
// stays: the engine is never asked to prune an image's untagged parents,
// which `docker rmi` does unless told not to (and Podman's
// Docker-compatible API always does).
func TestAccImage_destroyKeepsAnUntaggedBaseItDidNotBuild(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.ImageName(t)
	base := buildUntagged(t, fmt.Sprintf("FROM %s\nLABEL test.name=%q\nRUN echo base > /base\n", acctest.TestImage, name+"-base"))
	dir := t.TempDir()
	acctest.Write(t, filepath.Join(dir, "Dockerfile"), fmt.Sprintf("FROM %s\nLABEL test.name=%q\nCOPY a.txt /a.txt\n"+
		"RUN echo made > /made\n", strings.TrimPrefix(base, "sha256:"), name))
	acctest.Write(t, filepath.Join(dir, "a.txt"), "a")
	acctest.Test(t, []resource.TestStep{{
		Config: fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = \"%s:1\"\n  context = %q\n}\n", name, dir),
	}})
	if _, err := acctest.Engine(t).InspectImage(context.Background(), base); err != nil {
		t.Errorf("the destroy removed the untagged base image %s, which the provider did not build: %v",
			engine.ShortID(base), err)
	}
	expectNoDanglingImages(t, name, "the destroy")
}

// buildUntagged builds dockerfile by hand into an image without a tag, and
// returns its ID; the image is removed when the test ends.
func buildUntagged(t *testing.T, dockerfile string) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(dockerfile)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	images := acctest.Engine(t)
	built, err := images.BuildImage(context.Background(), engine.BuildSpec{Context: engine.BytesContext(buf.Bytes()), Dockerfile: "Dockerfile"},
		func(string) {})
	if err != nil {
		t.Fatalf("building the base image by hand: %v", err)
	}
	t.Cleanup(func() { _ = images.RemoveBuilt(context.Background(), built) })
	return built.ID
}
