package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	quantity "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/kube"
)

// The cluster kit: the acceptance tests of the Kubernetes backend run
// against the test cluster of scripts/cluster.sh, in the cluster pass of
// scripts/testacc.sh, which exports its kubeconfig as
// SANDBOX_TEST_KUBECONFIG (and the pod network's gateway, an address of
// the node, as SANDBOX_TEST_POD_GATEWAY).

// TestFieldManager is who the tests' own changes to the cluster are
// recorded as, and the user agent of the tests' client (Cluster): not the
// provider, whose client code they share, so that a change a test makes
// by hand stands for someone else's.
const TestFieldManager = "tfsandbox-acctest"

// ClusterNamespace is where the tests' sandboxes and probes go.
const ClusterNamespace = "default"

// IsolatedClasses are the test cluster's RuntimeClasses whose pods have no
// network: gVisor with --network=none, and runc with an interface that
// leads nowhere.
var IsolatedClasses = []string{"gvisor", "none"}

var (
	clusterOnce   sync.Once
	clusterClient *kube.Client
	clusterErr    error
)

// RequireCluster skips a test outside the cluster pass, and returns the
// cluster's kubeconfig.
func RequireCluster(t *testing.T) string {
	t.Helper()
	RequireAcc(t)
	path := os.Getenv("SANDBOX_TEST_KUBECONFIG")
	if path == "" {
		t.Skip("a cluster test: it runs in the cluster pass of scripts/testacc.sh (SANDBOX_TEST_KUBECONFIG)")
	}
	return path
}

// Cluster is the tests' own client of the test cluster, through the
// provider's kube package, for sandboxes in class (the runtime class the
// provider is configured with).
func Cluster(t *testing.T) *kube.Client {
	t.Helper()
	path := RequireCluster(t)
	clusterOnce.Do(func() {
		clusterClient, clusterErr = kube.New(kube.Config{ConfigPath: path, Namespace: ClusterNamespace, HelperImage: TestImage,
			UserAgent: TestFieldManager})
	})
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return clusterClient
}

// PodGateway is the pod network's gateway: an address of the node that
// the cluster's ordinary pods reach.
func PodGateway(t *testing.T) string {
	t.Helper()
	gw := os.Getenv("SANDBOX_TEST_POD_GATEWAY")
	if gw == "" {
		t.Fatal("SANDBOX_TEST_POD_GATEWAY is not set: the cluster pass exports it (scripts/cluster.sh env)")
	}
	return gw
}

// ClusterProvider is the provider block for the test cluster, with class
// as the runtime class ("" for the default), and the test image, which
// its nodes have, as the helper pods' image.
func ClusterProvider(t *testing.T, class string) string {
	t.Helper()
	return ClusterProviderAs(t, "", class)
}

// ClusterProviderAs is ClusterProvider under an alias ("" for none).
func ClusterProviderAs(t *testing.T, alias, class string) string {
	t.Helper()
	extra := ""
	if class != "" {
		extra = fmt.Sprintf("\n    runtime_class = %q", class)
	}
	if alias != "" {
		alias = fmt.Sprintf("\n  alias = %q", alias)
	}
	return fmt.Sprintf(`
provider "sandbox" {%s
  kubernetes = {
    config_path  = %q
    namespace    = %q
    helper_image = %q%s
  }
}
`, alias, RequireCluster(t), ClusterNamespace, TestImage, extra)
}

// ClusterProviderDefaultHelper is the provider block of the test cluster
// with the helper pods' image left to its default, which no node of the
// test cluster has.
func ClusterProviderDefaultHelper(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf(`
provider "sandbox" {
  kubernetes = {
    config_path = %q
    namespace   = %q
  }
}
`, RequireCluster(t), ClusterNamespace)
}

// ClusterTest runs acceptance steps against the test cluster, asking the
// cluster at the end that every sandbox's pod is gone.
func ClusterTest(t *testing.T, steps []resource.TestStep) {
	t.Helper()
	resource.ParallelTest(t, clusterCase(t, steps))
}

// ClusterTestAlone is ClusterTest for a test that changes the whole
// cluster (its nodes): it is not parallel, so it runs before its package's
// parallel tests start, which it would otherwise slow or mislead.
func ClusterTestAlone(t *testing.T, steps []resource.TestStep) {
	t.Helper()
	resource.Test(t, clusterCase(t, steps))
}

func clusterCase(t *testing.T, steps []resource.TestStep) resource.TestCase {
	t.Helper()
	Cluster(t)
	return resource.TestCase{
		ProtoV6ProviderFactories: ProtoV6ProviderFactories,
		CheckDestroy:             clusterDestroyed(t),
		Steps:                    steps,
	}
}

// clusterDestroyed asks the cluster that no sandbox of the state has a pod
// left, nor a network policy or secret made with it.
func clusterDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for addr, r := range s.RootModule().Resources {
			if r.Type == "sandbox_volume" && r.Primary != nil {
				_, err := Cluster(t).InspectVolume(context.Background(), r.Primary.Attributes["name"])
				if !engine.IsNotFound(err) {
					return fmt.Errorf("%s: claim %s is still there after destroy (%w)", addr, r.Primary.Attributes["name"], err)
				}
			}
			if r.Type != "sandbox_container" || r.Primary == nil {
				continue
			}
			if _, err := Cluster(t).InspectContainer(context.Background(), r.Primary.ID); !engine.IsNotFound(err) {
				return fmt.Errorf("%s: pod %s is still there after destroy (%w)", addr, r.Primary.ID, err)
			}
		}
		return nil
	}
}

// ClusterName returns a pod name unique to this test run and, when the
// test ends however it ends, removes every pod the tests made whose name
// starts with it.
func ClusterName(t *testing.T) string {
	t.Helper()
	short := strings.ToLower(strings.TrimPrefix(t.Name(), "TestAcc"))
	short = strings.NewReplacer("/", "-", "_", "-").Replace(short)
	if len(short) > 30 {
		short = short[:30]
	}
	name := strings.Trim(namePrefix+short, "-") + "-" + RandString(6)
	t.Cleanup(func() {
		if t.Skipped() || os.Getenv("SANDBOX_TEST_KUBECONFIG") == "" {
			return
		}
		core, _ := Cluster(t).API()
		list := &corev1.PodList{}
		if err := core.Get().Namespace(ClusterNamespace).Resource("pods").Do(context.Background()).Into(list); err != nil {
			t.Errorf("cleanup: listing pods: %v", err)
			return
		}
		removeAgentSandboxes(t, name)
		for _, p := range list.Items {
			if strings.HasPrefix(p.Name, name) {
				_ = Cluster(t).RemoveContainer(context.Background(), ClusterNamespace+"/"+p.Name)
			}
		}
		removeClaims(t, name)
	})
	return name
}

// removeAgentSandboxes removes the agent-sandbox Sandboxes whose name
// starts with prefix, whoever made them, which would otherwise make their
// pods again; a cluster without the API has none.
func removeAgentSandboxes(t *testing.T, prefix string) {
	var list struct {
		Items []metav1.PartialObjectMetadata `json:"items"`
	}
	raw, err := Cluster(t).AgentsAPI().Get().Namespace(ClusterNamespace).Resource("sandboxes").
		Do(context.Background()).Raw()
	if err != nil || json.Unmarshal(raw, &list) != nil {
		return
	}
	for _, s := range list.Items {
		if strings.HasPrefix(s.Name, prefix) {
			_ = Cluster(t).AgentsAPI().Delete().Namespace(ClusterNamespace).Resource("sandboxes").Name(s.Name).
				Do(context.Background()).Error()
		}
	}
}

// removeClaims removes the persistent volume claims whose name starts with
// prefix, whoever made them, once no pod mounts them.
func removeClaims(t *testing.T, prefix string) {
	core, _ := Cluster(t).API()
	list := &corev1.PersistentVolumeClaimList{}
	if err := core.Get().Namespace(ClusterNamespace).Resource("persistentvolumeclaims").Do(context.Background()).Into(list); err != nil {
		t.Errorf("cleanup: listing persistent volume claims: %v", err)
		return
	}
	for _, c := range list.Items {
		if strings.HasPrefix(c.Name, prefix) {
			_ = DeleteClaim(context.Background(), t, c.Name)
		}
	}
}

// DeleteClaim asks the cluster to remove a persistent volume claim, and
// does not wait: a claim that a pod mounts stays until the pod is gone.
func DeleteClaim(ctx context.Context, t *testing.T, name string) error {
	t.Helper()
	core, _ := Cluster(t).API()
	return core.Delete().Namespace(ClusterNamespace).Resource("persistentvolumeclaims").Name(name).Do(ctx).Error()
}

// HandMadeClaim makes a persistent volume claim as a user would by hand,
// with labels (removed when the test ends).
func HandMadeClaim(ctx context.Context, t *testing.T, name string, labels map[string]string) error {
	t.Helper()
	core, _ := Cluster(t).API()
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ClusterNamespace, Labels: labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: quantity.MustParse("16Mi"),
			}},
		},
	}
	t.Cleanup(func() { removeClaims(t, name) })
	return core.Post().Namespace(ClusterNamespace).Resource("persistentvolumeclaims").
		Param("fieldManager", TestFieldManager).Body(claim).Do(ctx).Error()
}

// ClusterPod is a pod the tests run beside the sandboxes: a probe, a
// listener, or a pod that takes a sandbox's name.
type ClusterPod struct {
	Name         string
	RuntimeClass string // "" for the node's default runtime and network
	Command      []string
	Labels       map[string]string
	Annotations  map[string]string
}

// RunPod makes the pod (removed when the test ends) and waits until its
// container runs; it returns the pod.
func RunPod(t *testing.T, p ClusterPod) *corev1.Pod {
	t.Helper()
	core, _ := Cluster(t).API()
	labels := map[string]string{labelTest: "1"}
	for k, v := range p.Labels {
		labels[k] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ClusterNamespace, Labels: labels, Annotations: p.Annotations},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  ptrTo(false),
			TerminationGracePeriodSeconds: ptrTo(int64(0)),
			Containers: []corev1.Container{{
				Name: "sandbox", Image: TestImage, ImagePullPolicy: corev1.PullIfNotPresent, Command: p.Command,
			}},
		},
	}
	if p.RuntimeClass != "" {
		pod.Spec.RuntimeClassName = &p.RuntimeClass
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	made := &corev1.Pod{}
	if err := core.Post().Namespace(ClusterNamespace).Resource("pods").Param("fieldManager", TestFieldManager).Body(pod).Do(ctx).Into(made); err != nil {
		t.Fatalf("creating pod %s: %v", p.Name, err)
	}
	t.Cleanup(func() { _ = Cluster(t).RemoveContainer(context.Background(), ClusterNamespace+"/"+p.Name) })
	for {
		got := &corev1.Pod{}
		err := core.Get().Namespace(ClusterNamespace).Resource("pods").Name(p.Name).Do(ctx).Into(got)
		if err == nil && got.Status.Phase == corev1.PodRunning && got.Status.PodIP != "" {
			return got
		}
		if ctx.Err() != nil {
			t.Fatalf("pod %s did not run within 2 minutes (%v, phase %s)", p.Name, err, got.Status.Phase)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// InPod runs a command in a pod (a sandbox's ID, or a name) and returns its
// combined output and exit code.
func InPod(ctx context.Context, t *testing.T, idOrName string, cmd ...string) (string, int, error) {
	t.Helper()
	res, err := Cluster(t).RunExec(ctx, idOrName, engine.ExecSpec{Command: cmd})
	return res.Stdout + res.Stderr, res.ExitCode, err
}

// ClusterOutOfBand returns a PreConfig that changes the cluster behind
// Terraform's back, failing the test on error.
func ClusterOutOfBand(t *testing.T, change func(ctx context.Context) error) func() {
	return func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := change(ctx); err != nil {
			t.Fatalf("changing the cluster out of band: %v", err)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
