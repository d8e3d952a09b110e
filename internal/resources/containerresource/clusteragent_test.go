package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// TestAccCluster_agentSandbox: with sandbox_api = "agent-sandbox" a sandbox
// is an agent-sandbox Sandbox, whose controller makes its pod from the
// provider's pod template: in the provider's RuntimeClass, with no
// service account token, under the provider's deny-all policy, owned by
// the Sandbox. It imports by name and by identity. It sleeps (operatingMode: Suspended, no pod) and wakes in
// place with the same ID and its workspace; a template edited out of band
// to share the node's network, to give the sandbox a capability, or to
// mount the service account's token, or its policy loosened, plans a
// replacement, whose Sandbox is
// isolated again.
func TestAccCluster_agentSandbox(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	config := func(state string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  kubernetes = {
    config_path  = %q
    namespace    = %q
    helper_image = %q
    sandbox_api  = "agent-sandbox"
  }
}

resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
}

resource "sandbox_container" "test" {
  name           = %q
  image          = %q
  network_mode   = "none"
  state          = %q
  env_wo         = { API_TOKEN = "agent-token" }
  env_wo_version = 1
  mounts         = { "/workspace" = { volume = sandbox_volume.work.name } }
}

data "sandbox_containers" "audit" {
  name_prefix = %q
  depends_on  = [sandbox_container.test]
}
`, acctest.RequireCluster(t), acctest.ClusterNamespace, acctest.TestImage, name, name, acctest.TestImage, state, name)
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	inPlace := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	awake := func(write bool) statecheck.StateCheck {
		return acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error {
			if !strings.Contains(c.ID, "/sandbox:") {
				return fmt.Errorf("the sandbox's ID %q does not name a Sandbox", c.ID)
			}
			ref := metav1.GetControllerOf(pod)
			if ref == nil || ref.Kind != "Sandbox" || !strings.HasSuffix(c.ID, string(ref.UID)) {
				return fmt.Errorf("pod %s is not controlled by the sandbox's Sandbox: %v", pod.Name, ref)
			}
			if pod.Spec.RuntimeClassName == nil || *pod.Spec.RuntimeClassName != c.Network.Pod.IsolatedClass ||
				pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
				return fmt.Errorf("the Sandbox's pod: RuntimeClass %v, token %v", pod.Spec.RuntimeClassName,
					pod.Spec.AutomountServiceAccountToken)
			}
			if v := isolation.Assess(c.Network); !v.Isolated {
				return fmt.Errorf("the Sandbox is not isolated: %s", v.Reason)
			}
			script := "cat /workspace/note; echo $API_TOKEN"
			want := "kept\nagent-token\n"
			if write {
				script, want = "echo kept >/workspace/note && "+script, "kept\nagent-token\n"
			}
			out, code, err := acctest.InPod(ctx, t, c.ID, "sh", "-c", script)
			if err != nil || code != 0 || out != want {
				return fmt.Errorf("in the Sandbox's pod: %q (exit %d, %w)", out, code, err)
			}
			return nil
		})
	}
	asleep := stateCheck(func(ctx context.Context, state map[string]any) error {
		id, _ := state["id"].(string)
		c, err := acctest.Cluster(t).InspectContainer(ctx, id)
		if err != nil {
			return err
		}
		if !engine.IsAsleep(c) || !isolation.Assess(c.Network).Isolated {
			return fmt.Errorf("the Sandbox asleep reads %+v, isolated %v", c.State, isolation.Assess(c.Network).Isolated)
		}
		if _, err := acctest.Pod(ctx, t, name); err == nil {
			return fmt.Errorf("the Sandbox asleep still has its pod")
		}
		return nil
	}).at(addr)
	acctest.ClusterTest(t, []resource.TestStep{{
		Config: config("running"),
		ConfigStateChecks: []statecheck.StateCheck{awake(true), sameID.AddStateValue(addr, attr("id")),
			// The audit lists the Sandbox, isolated, under its own ID.
			statecheck.ExpectKnownValue("data.sandbox_containers.audit", attr("containers"),
				knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":       knownvalue.StringRegexp(regexp.MustCompile(`/sandbox:`)),
					"isolated": knownvalue.Bool(true), "state": knownvalue.StringExact("running")})})),
		},
	}, {
		// Imported by the Sandbox's name, and by its identity.
		ResourceName: addr, ImportState: true, ImportStateId: acctest.ClusterNamespace + "/" + name,
		ImportStateVerify: true, ImportStateVerifyIgnore: []string{"env_wo", "env_wo_version"},
	}, {
		ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity,
	}, {
		Config:            config("stopped"),
		ConfigPlanChecks:  inPlace,
		ConfigStateChecks: []statecheck.StateCheck{asleep, sameID.AddStateValue(addr, attr("id"))},
	}, {
		Config:            config("running"),
		ConfigPlanChecks:  inPlace,
		ConfigStateChecks: []statecheck.StateCheck{awake(false), sameID.AddStateValue(addr, attr("id"))},
	}, {
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.Cluster(t).AgentsAPI().Patch(types.MergePatchType).Namespace(acctest.ClusterNamespace).
				Resource("sandboxes").Name(name).Body([]byte(`{"spec":{"podTemplate":{"spec":{"hostNetwork":true}}}}`)).
				Do(ctx).Error()
		}),
		Config: config("running"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{awake(true)},
	}, {
		// A template given a capability out of band: the running pod
		// keeps none, the next pod would have it.
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.Cluster(t).AgentsAPI().Patch(types.JSONPatchType).Namespace(acctest.ClusterNamespace).
				Resource("sandboxes").Name(name).Body([]byte(`[{"op":"add",` +
				`"path":"/spec/podTemplate/spec/containers/0/securityContext/capabilities",` +
				`"value":{"add":["NET_ADMIN"]}}]`)).Do(ctx).Error()
		}),
		Config: config("running"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{awake(true)},
	}, {
		// Its deny-all policy, owned by the Sandbox, loosened.
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.ChangePolicy(ctx, t, name, acctest.AllowAllEgress)
		}),
		Config: config("running"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{awake(true)},
	}, {
		// A template given the service account's token out of band: the
		// next pod could act on the cluster's API.
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.Cluster(t).AgentsAPI().Patch(types.MergePatchType).Namespace(acctest.ClusterNamespace).
				Resource("sandboxes").Name(name).
				Body([]byte(`{"spec":{"podTemplate":{"spec":{"automountServiceAccountToken":true}}}}`)).Do(ctx).Error()
		}),
		Config: config("running"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{awake(true)},
	}})
}

// TestAccCluster_agentSandboxExpiry: a Sandbox's expiry is its
// shutdownTime: at it the controller ends its pod, whose code ignores
// every signal it can, while no Terraform runs; the next plan reads it as
// expired and changes nothing; a renewal, in place, brings its pod back,
// isolated, under the same ID.
func TestAccCluster_agentSandboxExpiry(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	config := func(expiry string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  kubernetes = {
    config_path = %q
    namespace   = %q
    sandbox_api = "agent-sandbox"
  }
}

resource "sandbox_container" "test" {
  name          = %q
  image         = %q
  network_mode  = "none"
  command       = ["sh", "-c", "trap '' TERM INT HUP; while :; do sleep 1; done"]
  expires_after = %q
}
`, acctest.RequireCluster(t), acctest.ClusterNamespace, name, acctest.TestImage, expiry)
	}
	var expiresAt time.Time
	sameID := statecheck.CompareValue(compare.ValuesSame())
	acctest.ClusterTest(t, []resource.TestStep{{
		Config: config("1m"),
		ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id")),
			stateCheck(func(_ context.Context, state map[string]any) error {
				var err error
				expiresAt, err = time.Parse(time.RFC3339, fmt.Sprint(state["expires_at"]))
				return err
			}).at(addr)},
	}, {
		PreConfig: func() {
			for deadline := expiresAt.Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
				if _, err := acctest.Pod(context.Background(), t, name); apierrors.IsNotFound(err) {
					if late := time.Since(expiresAt); late > 15*time.Second {
						t.Fatalf("the Sandbox's pod was gone %s after its shutdownTime, want within 15 s", late)
					}
					t.Logf("the Sandbox's pod was gone %s after its shutdownTime", time.Since(expiresAt))
					return
				}
			}
			t.Fatalf("the Sandbox %s still had its pod a minute after its shutdownTime", name)
		},
		Config: config("1m"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)}},
		ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("expired"), knownvalue.Bool(true))},
	}, {
		Config: config("30m"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
		ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("expired"), knownvalue.Bool(false)),
			acctest.ClusterIsolated(t, addr)},
	}})
}
