package imageresource_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// After their state is lost, terraform query finds the images
// sandbox_image built that their name still tags, with the configuration
// they were built from (target, build arguments, labels); the import of
// what it generates adopts them and the plan after it is empty. An
// earlier build, left by keep_on_destroy, is named in a warning instead,
// and a child image that adds only labels (inheriting the provider's, and
// its build record) is neither listed nor importable.
func TestAccImage_queryFindsWhatItBuilt(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.ImageName(t)
	agentDir := buildContext(t, name, fmt.Sprintf("FROM %s AS run\nARG PY\nRUN echo \"$PY\" > /py\n", acctest.TestImage),
		map[string]string{})
	keptDir := buildContext(t, name, "COPY a.txt /a.txt\n", map[string]string{"a.txt": "1"})
	tf := acctest.NewCLI(t, fmt.Sprintf(`
resource "sandbox_image" "agent" {
  name       = "%[1]s-agent:1"
  context    = %[2]q
  target     = "run"
  build_args = { PY = "3.12" }
  labels     = { team = "agents", "cost centre" = "a=b c" }
}

resource "sandbox_image" "kept" {
  name            = "%[1]s-kept"
  context         = %[3]q
  keep_on_destroy = true
}
`, name, agentDir, keptDir))
	api := acctest.Docker(t)
	var leftIDs []string
	t.Cleanup(func() {
		tf.Run("destroy", "-auto-approve")
		for _, id := range append(leftIDs, acctest.ImagesNamed(t, name)...) {
			_, _ = api.ImageRemove(context.Background(), id, image.RemoveOptions{Force: true})
		}
	})
	tf.Run("apply", "-auto-approve")
	ids := tf.StateIDs()
	agentID, earlierKept := ids["sandbox_image.agent"], ids["sandbox_image.kept"]
	// A rebuild of the kept image leaves its earlier build, untagged.
	acctest.Write(t, filepath.Join(keptDir, "a.txt"), "2")
	tf.Run("apply", "-auto-approve")
	keptID := tf.StateIDs()["sandbox_image.kept"]
	leftIDs = append(leftIDs, earlierKept, keptID)
	if keptID == earlierKept {
		t.Fatal("the kept image was not rebuilt")
	}

	ctx := context.Background()
	childTag := name + "-child:1"
	childID, err := buildByHand(ctx, api, agentID, "LABEL added.by=hand", childTag)
	if err != nil {
		t.Fatal(err)
	}
	// Removed before the destroy, which its parent's removal waits for.
	t.Cleanup(func() { _, _ = api.ImageRemove(context.Background(), childID, image.RemoveOptions{Force: true}) })
	// A build by hand that copies every label of the agent's image, build
	// token and list of labels included, as the provider's build sets them.
	copyTag := name + "-copy:1"
	copyID, err := copyByHand(ctx, api, agentID, copyTag)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = api.ImageRemove(context.Background(), copyID, image.RemoveOptions{Force: true}) })

	// The state is lost.
	tf.SetConfig("")
	tf.Exact("state", "rm", "sandbox_image.agent", "sandbox_image.kept")
	generated, out := tf.Query(`
list "sandbox_image" "left" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}
`)
	for _, want := range []string{name + "-agent:1", name + "-kept", agentID, keptID, `"3.12"`, `"a=b c"`, `"run"`} {
		if !strings.Contains(generated, `"`+strings.Trim(want, `"`)+`"`) {
			t.Errorf("the generated configuration lacks %s:\n%s", want, generated)
		}
	}
	for _, unwanted := range []string{childID, earlierKept, childTag, copyID, copyTag} {
		if strings.Contains(generated, unwanted) {
			t.Errorf("the generated configuration holds %s, which the query must not offer:\n%s", unwanted, generated)
		}
	}
	t.Logf("query:\n%s", out)
	flat := acctest.Flatten(out)
	if !strings.Contains(flat, "cannot be imported") || !strings.Contains(flat, engine.ShortID(earlierKept)+": an earlier build of "+name+"-kept:latest") {
		t.Errorf("the query does not name the earlier build %s:\n%s", engine.ShortID(earlierKept), out)
	}
	if strings.Contains(out, engine.ShortID(childID)) {
		t.Errorf("the query names the child image %s:\n%s", engine.ShortID(childID), out)
	}

	tf.Run("apply", "-auto-approve")
	if got := tf.StateIDs(); len(got) != 2 || got["sandbox_image.left_0"] != agentID || got["sandbox_image.left_1"] != keptID {
		t.Fatalf("the import adopted %v, want %s and %s", got, agentID, keptID)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}

	// The child cannot be imported by ID either.
	acctest.Write(t, filepath.Join(tf.Dir, "child.tf"), fmt.Sprintf(
		"resource \"sandbox_image\" \"child\" {\n  name    = %q\n  context = %q\n}\n", childTag, agentDir))
	out, err = tf.Try("import", "-no-color", "-input=false", "sandbox_image.child", childID)
	if err == nil || !strings.Contains(acctest.Flatten(out), "was not built by a sandbox_image of this provider") {
		t.Errorf("importing the child image did not fail as it should (%v):\n%s", err, out)
	}
	// Nor the copy.
	acctest.Write(t, filepath.Join(tf.Dir, "child.tf"), fmt.Sprintf(
		"resource \"sandbox_image\" \"child\" {\n  name    = %q\n  context = %q\n}\n", copyTag, agentDir))
	out, err = tf.Try("import", "-no-color", "-input=false", "sandbox_image.child", copyID)
	if err == nil || !strings.Contains(acctest.Flatten(out), "was not built by a sandbox_image of this provider") {
		t.Errorf("importing the copy did not fail as it should (%v):\n%s", err, out)
	}
	acctest.Write(t, filepath.Join(tf.Dir, "child.tf"), "")
}

// copyByHand builds, as the provider does, an image FROM the test image
// whose build sets every label the build of the image id set, and tags it
// tag.
func copyByHand(ctx context.Context, api *client.Client, id, tag string) (string, error) {
	inspected, err := api.ImageInspect(ctx, id)
	if err != nil {
		return "", err
	}
	if inspected.Config == nil {
		return "", fmt.Errorf("the image %s has no configuration", id)
	}
	img := inspected.Config
	if img.Labels[engine.LabelBuildToken] == "" {
		return "", fmt.Errorf("the image %s has no build token to copy", id)
	}
	var keys []string
	if err := json.Unmarshal([]byte(img.Labels[engine.LabelBuildLabels]), &keys); err != nil {
		return "", err
	}
	labels := map[string]string{}
	for _, k := range keys {
		labels[k] = img.Labels[k]
	}
	return buildByHandWith(ctx, api, acctest.TestImage, "", tag, labels)
}
