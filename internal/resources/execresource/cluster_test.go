package execresource_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Commands in sandboxes on the test cluster (acctest's cluster kit; they
// run in the cluster pass).

// clusterConfig is an isolated sandbox "test" on the cluster and a
// sandbox_exec "test" in it with the given arguments.
func clusterConfig(t *testing.T, name, execBody string) string {
	return acctest.ClusterProvider(t, "") + fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
}

resource "sandbox_exec" "test" {
  container_id = sandbox_container.test.id
%s
}
`, name, acctest.TestImage, execBody)
}

// A command runs through the API server, with its output and exit code;
// a code not among success_exit_codes fails with it; what the API cannot
// give a command (env, user, working_dir) is refused at plan.
func TestAccCluster_exec(t *testing.T) {
	name := acctest.ClusterName(t)
	acctest.ClusterTest(t, []resource.TestStep{
		{
			Config: clusterConfig(t, name, `  command = ["sh", "-c", "echo out; echo err >&2; id -u"]`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("sandbox_exec.test", attr("stdout"), knownvalue.StringExact("out\n0\n")),
				statecheck.ExpectKnownValue("sandbox_exec.test", attr("stderr"), knownvalue.StringExact("err\n")),
				statecheck.ExpectKnownValue("sandbox_exec.test", attr("exit_code"), knownvalue.Int64Exact(0)),
			},
		},
		{
			Config:      clusterConfig(t, name, `  command = ["sh", "-c", "echo nope >&2; exit 3"]`),
			ExpectError: regexp.MustCompile(`(?s)exited 3, which is not\s+among\s+success_exit_codes.*nope`),
		},
		{
			Config: clusterConfig(t, name, `  command = ["sh", "-c", "exit 3"]
  success_exit_codes = [3]`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("sandbox_exec.test", attr("exit_code"), knownvalue.Int64Exact(3)),
			},
		},
		{
			Config: clusterConfig(t, name, `  command = ["true"]
  env = { A = "1" }`),
			PlanOnly:    true,
			ExpectError: acctest.Phrase("Remove env: a command run in a pod"),
		},
		{
			Config: clusterConfig(t, name, `  command = ["true"]
  user = "1000"`),
			PlanOnly:    true,
			ExpectError: acctest.Phrase("Remove user"),
		},
	})
}

// A command that outruns its timeout fails within seconds, and nothing it
// started runs on: the API cannot kill an exec's processes, so the
// sandbox's pod is deleted, and the next plan creates the sandbox again.
func TestAccCluster_execTimeout(t *testing.T) {
	name := acctest.ClusterName(t)
	var started time.Time
	acctest.ClusterTest(t, []resource.TestStep{
		{
			Config: clusterConfig(t, name, `  command = ["true"]`),
		},
		{
			PreConfig: func() { started = time.Now() },
			Config: clusterConfig(t, name, `  command = ["sh", "-c", "env -i sleep 601 & sleep 600"]
  timeout = "3s"`),
			ExpectError: regexp.MustCompile(`(?s)ran longer than its timeout.*was deleted, which stopped them all`),
		},
		{
			PreConfig: func() {
				if took := time.Since(started); took > 45*time.Second {
					t.Errorf("the timed-out apply took %s", took)
				}
				ctx := context.Background()
				if pod, err := acctest.Pod(ctx, t, name); err == nil && pod.DeletionTimestamp == nil {
					out, _, _ := acctest.InPod(ctx, t, name, "ps")
					if strings.Contains(out, "sleep 60") {
						t.Errorf("the command's processes run on in pod %s: %s", name, out)
					}
				}
			},
			Config: clusterConfig(t, name, `  command = ["true"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionCreate),
			}},
		},
	})
}
