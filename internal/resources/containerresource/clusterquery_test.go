package containerresource_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestAccCluster_identityQueryAndAction: on the cluster a sandbox's
// identity is its pod's namespace, name and UID, and a volume's its
// claim's namespace and name; the action sandbox_exec runs in the pod; and
// after the state is lost, terraform query finds both by the same proof
// as on Docker, and the import of what it generates adopts them with an
// empty plan after.
func TestAccCluster_identityQueryAndAction(t *testing.T) {
	name := acctest.ClusterName(t)
	provider := acctest.ClusterProvider(t, "none")
	tf := acctest.NewCLI(t, provider+`
resource "sandbox_container" "test" {
  name         = "`+name+`"
  image        = "`+acctest.TestImage+`"
  network_mode = "none"
}

resource "sandbox_volume" "work" {
  name    = "`+name+`-work"
  size_mb = 16
}

action "sandbox_exec" "greet" {
  config {
    container_id = sandbox_container.test.id
    command      = ["echo", "hello-from-the-pod"]
  }
}
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	id := tf.StateIDs()["sandbox_container.test"]
	parts := strings.Split(id, "/")
	if len(parts) != 3 {
		t.Fatalf("the sandbox's ID on the cluster is %q, want namespace/name/uid", id)
	}
	shown := tf.Exact("show", "-json", "-no-color")
	for _, want := range []string{`"namespace":"` + parts[0] + `"`, `"name":"` + parts[1] + `"`, `"uid":"` + parts[2] + `"`,
		`"name":"` + name + `-work"`} {
		if !strings.Contains(shown, want) {
			t.Errorf("the state's identity lacks %s:\n%s", want, shown)
		}
	}

	if out := tf.Run("apply", "-auto-approve", "-invoke=action.sandbox_exec.greet"); !strings.Contains(out, "stdout: hello-from-the-pod") {
		t.Errorf("the action did not run in the pod:\n%s", out)
	}

	// The state is lost.
	tf.SetConfig(provider)
	tf.Exact("state", "rm", "sandbox_container.test", "sandbox_volume.work")
	generated, out := tf.Query(`
list "sandbox_container" "left" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}

list "sandbox_volume" "volumes" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}

list "sandbox_image" "images" {
  provider         = sandbox
  include_resource = true
}
`)
	// A cluster has no images of the provider's: the image list says so
	// and lists nothing, and the others are listed all the same.
	if !strings.Contains(acctest.Flatten(out), "No images on a cluster") || strings.Contains(generated, "sandbox_image") {
		t.Errorf("the image list on the cluster did not say it has nothing to list:\n%s\n%s", out, generated)
	}
	if got := regexp.MustCompile(`uid\s*=\s*"`+regexp.QuoteMeta(parts[2])+`"`).FindAllString(generated, -1); len(got) != 1 {
		t.Fatalf("terraform query did not find the pod once by its identity:\n%s", generated)
	}
	tf.Run("apply", "-auto-approve")
	if ids := tf.StateIDs(); len(ids) != 2 || ids["sandbox_container.left_0"] != id || ids["sandbox_volume.volumes_0"] != name+"-work" {
		t.Fatalf("the import adopted %v, want the sandbox %s and the volume %s-work", ids, id, name)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}
}

// TestAccCluster_agentSandboxQuery: with sandbox_api = "agent-sandbox",
// after the state is lost, terraform query finds the provider's Sandbox by
// its managed fields, not a Sandbox made by hand from a copy of it (its
// labels, annotations and pod template), and the import of what it
// generates adopts the Sandbox with an empty plan after.
func TestAccCluster_agentSandboxQuery(t *testing.T) {
	name := acctest.ClusterName(t)
	provider := strings.Replace(acctest.ClusterProvider(t, ""), "  kubernetes = {",
		"  kubernetes = {\n    sandbox_api = \"agent-sandbox\"", 1)
	tf := acctest.NewCLI(t, provider+`
resource "sandbox_container" "test" {
  name         = "`+name+`"
  image        = "`+acctest.TestImage+`"
  network_mode = "none"
}
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	id := tf.StateIDs()["sandbox_container.test"]
	copySandbox(t, name, name+"-copy")

	tf.SetConfig(provider)
	tf.Exact("state", "rm", "sandbox_container.test")
	generated, _ := tf.Query(`
list "sandbox_container" "left" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}
`)
	if strings.Contains(generated, name+"-copy") || strings.Count(generated, `resource "sandbox_container"`) != 1 {
		t.Fatalf("terraform query did not find the provider's Sandbox alone:\n%s", generated)
	}
	tf.Run("apply", "-auto-approve")
	if ids := tf.StateIDs(); len(ids) != 1 || ids["sandbox_container.left_0"] != id {
		t.Fatalf("the import adopted %v, want the Sandbox %s", ids, id)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}
}

// copySandbox makes by hand, as the tests' own manager, a Sandbox named
// copyName that is the Sandbox name with its labels, annotations and spec,
// and removes it when the test ends.
func copySandbox(t *testing.T, name, copyName string) {
	t.Helper()
	ctx := context.Background()
	agents := acctest.Cluster(t).AgentsAPI()
	var s struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       map[string]any `json:"spec"`
	}
	raw, err := agents.Get().Namespace(acctest.ClusterNamespace).Resource("sandboxes").Name(name).Do(ctx).Raw()
	if err != nil || json.Unmarshal(raw, &s) != nil {
		t.Fatalf("reading the Sandbox %s: %v", name, err)
	}
	s.Metadata = map[string]any{"name": copyName, "labels": s.Metadata["labels"], "annotations": s.Metadata["annotations"]}
	body, _ := json.Marshal(s)
	if err := agents.Post().Namespace(acctest.ClusterNamespace).Resource("sandboxes").
		Param("fieldManager", acctest.TestFieldManager).Body(body).Do(ctx).Error(); err != nil {
		t.Fatalf("copying the Sandbox %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = agents.Delete().Namespace(acctest.ClusterNamespace).Resource("sandboxes").Name(copyName).Do(ctx).Error()
	})
}
