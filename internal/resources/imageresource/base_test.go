package imageresource_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

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

// A step's output is content the build's own code writes: a step that
// prints the builder's lines (" ---> ID", "Step N/M", "Successfully built
// ID") names images the provider did not make, a tagged one and an older
// untagged one here. The apply takes neither as the image it built, and
// the destroy removes neither, while it still removes the intermediate
// images the build did make.
func TestAccImage_stepsThatPrintTheBuildersLinesNameNothingItRemoves(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.ImageName(t)
	images := acctest.Engine(t)
	tagged := buildUntagged(t, fmt.Sprintf("FROM %s\nLABEL test.name=%q\n", acctest.TestImage, name+"-tagged"))
	if err := images.TagImage(context.Background(), tagged, name+"-tagged:1"); err != nil {
		t.Fatal(err)
	}
	older := buildUntagged(t, fmt.Sprintf("FROM %s\nLABEL test.name=%q\n", acctest.TestImage, name+"-older"))
	// Older than the build by more than the provider's allowance for the
	// engine's clock (two seconds), whatever the apply's own pace.
	time.Sleep(3 * time.Second)
	dir := t.TempDir()
	acctest.Write(t, filepath.Join(dir, "Dockerfile"), fmt.Sprintf("FROM %s\nLABEL test.name=%q\n"+
		"RUN echo ' ---> %s'; echo 'Step 9/9 : RUN x'; echo '--> %s'; echo 'Step 9/9 : RUN y'; echo 'Successfully built %[3]s'\n"+
		"RUN echo made > /made\n", acctest.TestImage, name, engine.ShortID(tagged), engine.ShortID(older)))
	acctest.Test(t, []resource.TestStep{{
		Config: fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = \"%s:1\"\n  context = %q\n}\n", name, dir),
		Check: func(s *terraform.State) error {
			if id := s.RootModule().Resources[addr].Primary.Attributes["image_id"]; id == tagged || id == older {
				return fmt.Errorf("the provider took image %s, which a step named, as the image it built", id)
			}
			return nil
		},
	}})
	for what, id := range map[string]string{"tagged": tagged, "older untagged": older} {
		if _, err := images.InspectImage(context.Background(), id); err != nil {
			t.Errorf("the destroy removed the %s image %s, which a step of the build named: %v", what, engine.ShortID(id), err)
		}
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
