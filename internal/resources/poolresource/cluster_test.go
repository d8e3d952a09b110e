package poolresource_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

const addr = "sandbox_pool.test"

func poolConfig(t *testing.T, name string, replicas int, claims bool) string {
	config := acctest.ClusterProvider(t, "") + fmt.Sprintf(`
resource "sandbox_pool" "test" {
  name           = %q
  image          = %q
  replicas       = %d
  env            = { ROLE = "agent" }
  env_wo         = { API_TOKEN = "pool-token" }
  env_wo_version = 1
  memory         = 64
  cap_add        = ["CHOWN"]
  files = {
    "/etc/agent/task.txt" = { content = "the task" }
    "/opt/bin/run"        = { content_base64 = "IyEvYmluL3NoCmVjaG8gcmFuCg==", mode = "0755" }
  }
}
`, name, acctest.TestImage, replicas)
	if claims {
		config += `
data "sandbox_pool_claims" "test" {
  pool = sandbox_pool.test.id
}
`
	}
	return config
}

// TestAccCluster_pool: a pool is an agent-sandbox SandboxTemplate whose pod
// is the provider's (RuntimeClass, no token, hardening, the Secret for
// env_wo) under the provider's deny-all policy, never agent-sandbox's, and
// a SandboxWarmPool that apply waits to see warm, and makes again in
// place when it was removed out of band. A sandbox an agent
// claims, outside Terraform, reaches neither the node nor the API server
// and sees only loopback, and has the pool's env, env_wo and files, and
// the data source judges it, and root in it holds cap_add's capability
// and no other; replicas change
// in place; the pool is not removed while a claim holds one of its
// sandboxes; a template handed back to agent-sandbox's network policy, or
// given a capability, out of band plans a replacement, which is isolated
// and hardened again.
func TestAccCluster_pool(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	claim := name + "-claim"
	t.Cleanup(func() {
		deleteClaim(context.Background(), t, claim)
		// What a failed test left: the template takes its pool, policy
		// and Secrets along.
		_ = acctest.Cluster(t).ExtensionsAPI().Delete().Namespace(acctest.ClusterNamespace).
			Resource("sandboxtemplates").Name(name).Do(context.Background()).Error()
	})
	// An ordinary pod first: it reaches what a claimed sandbox must not
	// (and makes the pod network, whose gateway the listeners take).
	control := acctest.RunPod(t, acctest.ClusterPod{Name: name + "-control", Command: []string{"sleep", "3600"}})
	destinations := []acctest.Destination{acctest.NodeListener(t), acctest.APIServerOnNode(t)}
	for _, d := range destinations {
		if ok, out := acctest.Reaches(context.Background(), t, control.Name, d); !ok {
			t.Fatalf("the control pod does not reach %s at %s (%s): the test would prove nothing", d.What, d.Addr, out)
		}
	}
	warm := func(n int) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(int64(n))),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("network_mode"), knownvalue.StringExact("none")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("hardened"), knownvalue.Bool(true)),
			templateCheck(t),
		}
	}
	replace := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)}}
	patchTemplate := func(kind types.PatchType, body string) func() {
		return acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.Cluster(t).ExtensionsAPI().Patch(kind).Namespace(acctest.ClusterNamespace).
				Resource("sandboxtemplates").Name(name).Body([]byte(body)).Do(ctx).Error()
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             poolGone(t, name),
		Steps: []resource.TestStep{{
			Config:            poolConfig(t, name, 2, false),
			ConfigStateChecks: warm(2),
		}, {
			// Imported by its template's name: every attribute the cluster
			// shows is the state's (files and env_wo are not read back).
			ResourceName:            addr,
			ImportState:             true,
			ImportStateId:           acctest.ClusterNamespace + "/" + name,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"files", "env_wo_version"},
		}, {
			// The SandboxWarmPool removed out of band: made again, in place.
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.Cluster(t).ExtensionsAPI().Delete().Namespace(acctest.ClusterNamespace).
					Resource("sandboxwarmpools").Name(name).Do(ctx).Error()
			}),
			Config: poolConfig(t, name, 2, false),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			ConfigStateChecks: warm(2),
		}, {
			// An agent claims a sandbox: it is isolated from inside, and
			// the data source lists it, isolated.
			PreConfig: func() {
				pod := makeClaim(t, name, claim)
				ctx := context.Background()
				id := acctest.ClusterNamespace + "/" + pod
				for _, d := range destinations {
					if ok, out := acctest.Reaches(ctx, t, id, d); ok {
						t.Fatalf("the claimed sandbox reaches %s at %s: %s", d.What, d.Addr, out)
					}
				}
				if err := acctest.OnlyLoopbackInPod(ctx, t, id); err != nil {
					t.Fatal(err)
				}
				// Root with CHOWN (bit 0) alone.
				out, code, err := acctest.InPod(ctx, t, id, "sh", "-c", "echo $ROLE $API_TOKEN; id -u; "+
					"cat /etc/agent/task.txt; echo; /opt/bin/run; grep -E '^Cap(Eff|Bnd)' /proc/self/status")
				if err != nil || code != 0 || out != "agent pool-token\n0\nthe task\nran\n"+
					"CapEff:\t0000000000000001\nCapBnd:\t0000000000000001\n" {
					t.Fatalf("in the claimed sandbox: %q (exit %d, %v)", out, code, err)
				}
			},
			Config: poolConfig(t, name, 2, true),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.sandbox_pool_claims.test", tfjsonpath.New("isolated"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.sandbox_pool_claims.test", tfjsonpath.New("sandboxes"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"claim": knownvalue.StringExact(claim), "isolated": knownvalue.Bool(true),
						"network_mode": knownvalue.StringExact("none")})})),
			},
		}, {
			Config: poolConfig(t, name, 3, true),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			ConfigStateChecks: append(warm(3),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("claimed_replicas"), knownvalue.Int64Exact(1))),
		}, {
			// Removing the pool while a claim holds one of its sandboxes
			// is refused; the claim's sandbox keeps its policy.
			Config:      acctest.ClusterProvider(t, ""),
			ExpectError: regexp.MustCompile(`(?s)Sandboxes claimed from the pool still run.*` + claim + `.*kubectl delete`),
		}, {
			PreConfig: func() { deleteClaim(context.Background(), t, claim) },
			Config:    poolConfig(t, name, 2, false),
		}, {
			// agent-sandbox's own policy, whose default lets a sandbox
			// reach the internet, added to the provider's.
			PreConfig:         patchTemplate(types.MergePatchType, `{"spec":{"networkPolicyManagement":"Managed"}}`),
			Config:            poolConfig(t, name, 2, false),
			ConfigPlanChecks:  replace,
			ConfigStateChecks: warm(2),
		}, {
			PreConfig: patchTemplate(types.JSONPatchType, `[{"op":"add",`+
				`"path":"/spec/podTemplate/spec/containers/0/securityContext/capabilities/add","value":["NET_ADMIN"]}]`),
			Config:            poolConfig(t, name, 2, false),
			ConfigPlanChecks:  replace,
			ConfigStateChecks: warm(2),
		}, {
			PreConfig:         patchTemplate(types.MergePatchType, `{"spec":{"podTemplate":{"spec":{"automountServiceAccountToken":true}}}}`),
			Config:            poolConfig(t, name, 2, false),
			ConfigPlanChecks:  replace,
			ConfigStateChecks: warm(2),
		}},
	})
}

// templateCheck asks the cluster that the pool's template is the
// provider's: its pod in the isolated RuntimeClass with no token, its
// network policy left to the provider, and that every pod made from it is
// isolated.
func templateCheck(t *testing.T) statecheck.StateCheck {
	return stateFunc(func(ctx context.Context, id string) error {
		p, err := acctest.Cluster(t).InspectPool(ctx, id)
		if err != nil {
			return err
		}
		if v := isolation.Assess(p.Template.Network); !v.Isolated {
			return fmt.Errorf("the template is not isolated: %s", v.Reason)
		}
		for _, s := range p.Sandboxes {
			if v := isolation.Assess(s.Network); !v.Isolated {
				return fmt.Errorf("sandbox %s of the pool is not isolated: %s", s.Name, v.Reason)
			}
		}
		var tmpl struct {
			Spec struct {
				NetworkPolicyManagement string `json:"networkPolicyManagement"`
				PodTemplate             struct {
					Spec corev1.PodSpec `json:"spec"`
				} `json:"podTemplate"`
			} `json:"spec"`
		}
		raw, err := acctest.Cluster(t).ExtensionsAPI().Get().Namespace(acctest.ClusterNamespace).
			Resource("sandboxtemplates").Name(p.Name).Do(ctx).Raw()
		if err != nil || json.Unmarshal(raw, &tmpl) != nil {
			return fmt.Errorf("reading the template: %w", err)
		}
		spec := tmpl.Spec.PodTemplate.Spec
		if tmpl.Spec.NetworkPolicyManagement != "Unmanaged" || spec.RuntimeClassName == nil ||
			spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			return fmt.Errorf("the template: policy management %q, RuntimeClass %v, token %v",
				tmpl.Spec.NetworkPolicyManagement, spec.RuntimeClassName, spec.AutomountServiceAccountToken)
		}
		return nil
	})
}

type stateFunc func(ctx context.Context, id string) error

func (f stateFunc) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == addr {
			if err := f(ctx, fmt.Sprint(r.AttributeValues["id"])); err != nil {
				resp.Error = err
			}
			return
		}
	}
	resp.Error = fmt.Errorf("%s is not in the state", addr)
}

// makeClaim claims a sandbox from the pool, as an agent does, and returns
// its pod's name once it runs and is ready.
func makeClaim(t *testing.T, pool, claim string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	body := fmt.Sprintf(`{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxClaim",`+
		`"metadata":{"name":%q},"spec":{"warmPoolRef":{"name":%q}}}`, claim, pool)
	made := &metav1.PartialObjectMetadata{}
	raw, err := acctest.Cluster(t).ExtensionsAPI().Post().Namespace(acctest.ClusterNamespace).Resource("sandboxclaims").
		Body([]byte(body)).Do(ctx).Raw()
	if err != nil || json.Unmarshal(raw, made) != nil {
		t.Fatalf("claiming a sandbox from %s: %v", pool, err)
	}
	core, _ := acctest.Cluster(t).API()
	for {
		list := &corev1.PodList{}
		err := core.Get().Namespace(acctest.ClusterNamespace).Resource("pods").
			Param("labelSelector", "agents.x-k8s.io/claim-uid="+string(made.UID)).Do(ctx).Into(list)
		if err == nil && len(list.Items) == 1 {
			for _, c := range list.Items[0].Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					return list.Items[0].Name
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the claim %s got no ready sandbox within 2 minutes (%v, %d pods)", claim, err, len(list.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// deleteClaim ends the claim, as an agent does, and waits until its
// sandbox's pod is gone.
func deleteClaim(ctx context.Context, t *testing.T, claim string) {
	ext := acctest.Cluster(t).ExtensionsAPI()
	got := &metav1.PartialObjectMetadata{}
	raw, err := ext.Get().Namespace(acctest.ClusterNamespace).Resource("sandboxclaims").Name(claim).Do(ctx).Raw()
	if err != nil || json.Unmarshal(raw, got) != nil {
		return
	}
	_ = ext.Delete().Namespace(acctest.ClusterNamespace).Resource("sandboxclaims").Name(claim).Do(ctx).Error()
	core, _ := acctest.Cluster(t).API()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		list := &corev1.PodList{}
		err := core.Get().Namespace(acctest.ClusterNamespace).Resource("pods").
			Param("labelSelector", "agents.x-k8s.io/claim-uid="+string(got.UID)).Do(ctx).Into(list)
		if err == nil && len(list.Items) == 0 {
			return
		}
	}
	t.Errorf("the pod of claim %s was still there a minute after the claim's removal", claim)
}

// poolGone asks the cluster that the pool's template, pool and pods are
// gone.
func poolGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		ctx := context.Background()
		for _, kind := range []string{"sandboxtemplates", "sandboxwarmpools"} {
			err := acctest.Cluster(t).ExtensionsAPI().Get().Namespace(acctest.ClusterNamespace).Resource(kind).
				Name(name).Do(ctx).Error()
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s %s is still there after destroy (%w)", kind, name, err)
			}
		}
		return nil
	}
}

// TestAccCluster_poolNameTaken: a SandboxTemplate of the pool's name that
// the provider did not make is neither adopted nor changed: the create is
// refused naming the template. One that copies a pool's labels is not
// imported as a pool the provider made.
func TestAccCluster_poolNameTaken(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	ctx := context.Background()
	ext := acctest.Cluster(t).ExtensionsAPI()
	labels := engine.OwnershipLabels("sandbox_pool")
	labels[engine.LabelCreateToken] = "copied"
	for template, labels := range map[string]map[string]string{name: nil, name + "-copy": labels} {
		meta, _ := json.Marshal(map[string]any{"name": template, "labels": labels})
		body := fmt.Sprintf(`{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxTemplate",`+
			`"metadata":%s,"spec":{"podTemplate":{"spec":{"containers":[{"name":"c","image":%q}]}}}}`,
			meta, acctest.TestImage)
		if err := ext.Post().Namespace(acctest.ClusterNamespace).Resource("sandboxtemplates").Body([]byte(body)).
			Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = ext.Delete().Namespace(acctest.ClusterNamespace).Resource("sandboxtemplates").Name(template).Do(ctx).Error()
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      poolConfig(t, name, 1, false),
			ExpectError: regexp.MustCompile(`(?s)Pool name taken.*does not adopt what it did not make`),
		}, {
			Config:        poolConfig(t, name+"-copy", 1, false),
			ResourceName:  addr,
			ImportState:   true,
			ImportStateId: acctest.ClusterNamespace + "/" + name + "-copy",
			ExpectError: regexp.MustCompile(`(?s)Cannot import the pool.*` +
				acctest.Phrase("it is a copy, not a pool the provider made").String()),
		}},
	})
}

// TestAccCluster_poolInterrupted: a Ctrl-C while apply waits for a pool that
// cannot become warm (its image cannot be pulled) ends the apply, removes
// the template and what it owns, and leaves nothing in the state.
func TestAccCluster_poolInterrupted(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	config := acctest.ClusterProvider(t, "") + fmt.Sprintf(`
resource "sandbox_pool" "test" {
  name     = %q
  image    = "tfsandbox/never-pulled:%s"
  replicas = 1
}
`, name, name)
	tf := acctest.NewCLI(t, config)
	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "Creating...", time.Minute)
	time.Sleep(3 * time.Second)
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	out, err := apply.Wait(2 * time.Minute)
	if err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	if !strings.Contains(acctest.Flatten(out), "when the apply was interrupted") {
		t.Errorf("the error does not say the wait was interrupted:\n%s", out)
	}
	acctest.WaitForProviderExit(t, time.Minute)
	if ids := tf.StateIDs(); len(ids) != 0 {
		t.Errorf("the state holds %v after the interrupted create", ids)
	}
	if err := poolGone(t, name)(nil); err != nil {
		t.Error(err)
	}
}
