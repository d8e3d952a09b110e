package provider_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// TestAccCluster_moveExample applies examples/kubernetes through the real
// CLI: the hardened sandbox on the machine's Docker engine, then moved to
// the test cluster by its variable (created there, removed from Docker, in
// one apply), an empty plan, and a destroy that leaves nothing on either.
func TestAccCluster_moveExample(t *testing.T) {
	kubeconfig := acctest.RequireCluster(t)
	name := acctest.Name(t)
	cli := acctest.NewCLI(t, "")
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "kubernetes", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer(`"agent-1"`, `"`+name+`"`).Replace(string(example))
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), config)
	vars := func(placement string) []string {
		return []string{"-var", "placement=" + placement, "-var", "kubeconfig=" + kubeconfig, "-var", "image=" + acctest.TestImage}
	}
	defer cli.Run(append([]string{"destroy", "-auto-approve"}, vars("cluster")...)...)

	cli.Run(append([]string{"apply", "-auto-approve"}, vars("docker")...)...)
	if v := isolation.Assess(acctest.Inspect(t, name).Network); !v.Isolated {
		t.Errorf("the sandbox on Docker is not isolated: %s", v.Reason)
	}
	out := cli.Run(append([]string{"apply", "-auto-approve"}, vars("cluster")...)...)
	if !strings.Contains(out, "1 added, 0 changed, 1 destroyed") {
		t.Errorf("the move was not one creation and one removal:\n%s", out)
	}
	acctest.ExpectNoContainers(t, name, "the move")
	c, err := acctest.Cluster(t).InspectContainer(context.Background(), acctest.ClusterNamespace+"/"+name)
	if err != nil {
		t.Fatalf("the sandbox on the cluster: %v", err)
	}
	if v := isolation.Assess(c.Network); !v.Isolated || !engine.IsRunning(c) {
		t.Errorf("the sandbox on the cluster is not isolated and running: %+v", v)
	}
	if plan := cli.Run(append([]string{"plan"}, vars("cluster")...)...); !strings.Contains(plan, "No changes") {
		t.Errorf("a second plan is not empty:\n%s", plan)
	}
	cli.Run(append([]string{"destroy", "-auto-approve"}, vars("cluster")...)...)
	if _, err := acctest.Cluster(t).InspectContainer(context.Background(), c.ID); !engine.IsNotFound(err) {
		t.Errorf("the pod is still there after destroy (%v)", err)
	}
}

// TestAccCluster_poolExample applies examples/agent-pool through the real
// CLI on the test cluster: the pool warm, an empty second plan, its
// outputs, its sandboxes given the write-only token, which shows neither in
// the apply's output, nor in the state, nor in a trace log of Terraform and
// the provider; and a destroy that leaves no template.
func TestAccCluster_poolExample(t *testing.T) {
	kubeconfig := acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	cli := acctest.NewCLI(t, "")
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "agent-pool", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer(`name     = "agents"`, `name     = "`+name+`"`).Replace(string(example))
	if config == string(example) {
		t.Fatal("the example no longer names its pool as this test expects")
	}
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), config)
	secret := "tfsandbox-pool-secret-" + acctest.RandString(20)
	vars := []string{"-var", "kubeconfig=" + kubeconfig, "-var", "namespace=" + acctest.ClusterNamespace,
		"-var", "image=" + acctest.TestImage}
	defer cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)
	trace := filepath.Join(cli.Dir, "trace.log")
	// As the example's header says: from the environment (Terraform's
	// log shows its command line).
	cli.Env = append(cli.Env, "TF_VAR_api_token="+secret, "TF_LOG=TRACE", "TF_LOG_PATH="+trace)
	out := cli.Run(append([]string{"apply", "-auto-approve"}, vars...)...)
	if !strings.Contains(out, `"ready" = 3`) || !strings.Contains(out, "claims_not_isolated = {}") {
		t.Errorf("the pool's outputs are not a warm pool of 3 with no claim:\n%s", out)
	}
	poolHasToken(t, cli.StateIDs()["sandbox_pool.agents"], secret)
	state, err := os.ReadFile(filepath.Join(cli.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	logged, err := os.ReadFile(trace)
	if err != nil || len(logged) == 0 {
		t.Fatalf("no trace log (%v): the search below would prove nothing", err)
	}
	for what, text := range map[string]string{"apply's output": out, "state": string(state), "trace log": string(logged)} {
		if strings.Contains(text, secret) {
			t.Errorf("the pool's write-only token shows in the %s", what)
		}
	}
	if plan := cli.Run(append([]string{"plan"}, vars...)...); !strings.Contains(plan, "No changes") {
		t.Errorf("a second plan is not empty:\n%s", plan)
	}
	cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)
	err = acctest.Cluster(t).ExtensionsAPI().Get().Namespace(acctest.ClusterNamespace).Resource("sandboxtemplates").
		Name(name).Do(context.Background()).Error()
	if err == nil {
		t.Errorf("the pool's template is still there after destroy")
	}
}

// poolHasToken checks, from inside a warm sandbox of the pool with ID id,
// that it has the token as API_TOKEN.
func poolHasToken(t *testing.T, id, token string) {
	t.Helper()
	ctx := context.Background()
	p, err := acctest.Cluster(t).InspectPool(ctx, id)
	if err != nil || len(p.Sandboxes) == 0 {
		t.Fatalf("the pool %s has no sandbox to look into (%v)", id, err)
	}
	// The test image's busybox has no printenv.
	got, code, err := acctest.InPod(ctx, t, p.Sandboxes[0].Name, "sh", "-c", `echo "$API_TOKEN"`)
	if err != nil || code != 0 || strings.TrimSpace(got) != token {
		t.Fatalf("a sandbox of the pool does not have its token (exit %d, %v)", code, err)
	}
}
