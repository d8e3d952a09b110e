package provider_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestAccCluster_resumeExample applies examples/resume through the real
// CLI: a session on the machine's Docker engine writes to its workspace, a
// checkpoint snapshots it, the session moves to the test cluster resumed
// from that snapshot (the note is there), writes more, and moves back to
// Docker with both notes; destroy leaves only the snapshots, which the
// example keeps.
func TestAccCluster_resumeExample(t *testing.T) {
	kubeconfig := acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	cli := acctest.NewCLI(t, "")
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "resume", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), strings.ReplaceAll(string(example), "agent-7", name))
	apply := func(placement, checkpoint, resume string) {
		t.Helper()
		args := []string{"apply", "-auto-approve", "-var", "placement=" + placement, "-var", "checkpoint=" + checkpoint,
			"-var", "kubeconfig=" + kubeconfig, "-var", "image=" + acctest.TestImage}
		if resume != "" {
			args = append(args, "-var", "resume_from="+resume)
		}
		cli.Run(args...)
	}
	snapshot := func() string { return cli.Exact("output", "-json", "snapshot") }
	onDocker := func(script string) string {
		t.Helper()
		out, err := acctest.ExecOK(context.Background(), t, name, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	onCluster := func(script string) string {
		t.Helper()
		out, code, err := acctest.InPod(context.Background(), t, acctest.ClusterNamespace+"/"+name, "sh", "-c", script)
		if err != nil || code != 0 {
			t.Fatalf("%s on the cluster: exit %d, %v\n%s", script, code, err, out)
		}
		return out
	}
	defer cli.Run("destroy", "-auto-approve", "-var", "placement=docker", "-var", "kubeconfig="+kubeconfig)

	apply("docker", "0", "")
	onDocker("echo 'step 1 on docker' > /workspace/notes")
	apply("docker", "1", "")
	first := snapshot()
	apply("cluster", "1", first)
	if got := onCluster("cat /workspace/notes"); got != "step 1 on docker\n" {
		t.Fatalf("the session resumed on the cluster holds %q", got)
	}
	onCluster("echo 'step 2 on the cluster' >> /workspace/notes")
	apply("cluster", "2", first)
	second := snapshot()
	apply("docker", "2", second)
	if got := onDocker("cat /workspace/notes"); got != "step 1 on docker\nstep 2 on the cluster\n" {
		t.Fatalf("the session back on Docker holds %q", got)
	}
	cli.Run("destroy", "-auto-approve", "-var", "placement=docker", "-var", "kubeconfig="+kubeconfig,
		"-var", "resume_from="+second)
	if left, _ := os.ReadDir(filepath.Join(cli.Dir, "snapshots")); len(left) < 2 {
		t.Errorf("the example keeps its snapshots, and left %v", left)
	}
}
