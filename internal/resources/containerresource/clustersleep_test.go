package containerresource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// TestAccCluster_sleepAndWake: asleep on a cluster (state = "stopped"), a
// sandbox has no pod, while its deny-all NetworkPolicy, its Secret and its
// workspace claim stay; a wake brings back a pod under the same policy, in
// the provider's RuntimeClass, with the same ID and what the workspace
// held. A sandbox asleep whose policy is loosened out of band (all egress
// allowed) is replaced by one as asleep and as isolated. Each change is in place, and the plan
// after each apply is empty.
func TestAccCluster_sleepAndWake(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	config := func(state string) string {
		return clusterConfig(t, "", name, fmt.Sprintf(`  state          = %q
  env_wo         = { API_TOKEN = "sleep-well" }
  env_wo_version = 1
  mounts         = { "/workspace" = { volume = sandbox_volume.work.name } }`, state)) + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
}
`, name)
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	inPlace := func(state string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(addr, attr("state"), knownvalue.StringExact(state)),
		}}
	}
	write := acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, _ *corev1.Pod) error {
		out, code, err := acctest.InPod(ctx, t, c.ID, "sh", "-c", "echo kept >/workspace/note && cat /workspace/note")
		if err != nil || code != 0 || strings.TrimSpace(out) != "kept" {
			return fmt.Errorf("writing into the workspace: exit %d, %q, %w", code, out, err)
		}
		return nil
	})
	woken := acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error {
		if pod.Spec.RuntimeClassName == nil || *pod.Spec.RuntimeClassName != c.Network.Pod.IsolatedClass ||
			pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
			return fmt.Errorf("the woken pod is not made as the sandbox was: RuntimeClass %v, token %v",
				pod.Spec.RuntimeClassName, pod.Spec.AutomountServiceAccountToken)
		}
		if v := isolation.Assess(c.Network); !v.Isolated {
			return fmt.Errorf("the woken sandbox is not isolated: %s", v.Reason)
		}
		out, code, err := acctest.InPod(ctx, t, c.ID, "sh", "-c", "cat /workspace/note; echo $API_TOKEN")
		if err != nil || code != 0 || out != "kept\nsleep-well\n" {
			return fmt.Errorf("after the wake the workspace and env_wo read %q (exit %d, %w)", out, code, err)
		}
		return nil
	})
	acctest.ClusterTest(t, []resource.TestStep{{
		Config:            config("running"),
		ConfigStateChecks: []statecheck.StateCheck{write, sameID.AddStateValue(addr, attr("id"))},
	}, {
		Config:            config("stopped"),
		ConfigPlanChecks:  inPlace("stopped"),
		ConfigStateChecks: []statecheck.StateCheck{clusterAsleep(t, addr, name), sameID.AddStateValue(addr, attr("id"))},
	}, {
		Config:            config("running"),
		ConfigPlanChecks:  inPlace("running"),
		ConfigStateChecks: []statecheck.StateCheck{woken, sameID.AddStateValue(addr, attr("id"))},
	}, {
		Config:            config("stopped"),
		ConfigStateChecks: []statecheck.StateCheck{clusterAsleep(t, addr, name)},
	}, {
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			policy, err := asleepPolicy(ctx, t, name)
			if err != nil {
				return err
			}
			_, networking := acctest.Cluster(t).API()
			return networking.Patch(types.MergePatchType).Namespace(acctest.ClusterNamespace).
				Resource("networkpolicies").Name(policy.Name).Body([]byte(`{"spec":{"egress":[{}]}}`)).Do(ctx).Error()
		}),
		Config: config("stopped"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{clusterAsleep(t, addr, name)},
	}})
}

// TestAccCluster_madeAsleep: a sandbox made with state = "stopped" is made,
// checked and put to sleep; data "sandbox_containers" lists it asleep and
// isolated; and it wakes into a pod that runs.
func TestAccCluster_madeAsleep(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	listed := fmt.Sprintf(`
data "sandbox_containers" "asleep" {
  name_prefix = %q
  depends_on  = [sandbox_container.test]
}
`, name)
	acctest.ClusterTest(t, []resource.TestStep{{
		Config:            clusterConfig(t, "", name, `  state = "stopped"`),
		ConfigStateChecks: []statecheck.StateCheck{clusterAsleep(t, addr, name)},
	}, {
		Config: clusterConfig(t, "", name, `  state = "stopped"`) + listed,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.sandbox_containers.asleep", tfjsonpath.New("containers"),
				knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact(name), "state": knownvalue.StringExact("stopped"),
					"running": knownvalue.Bool(false), "isolated": knownvalue.Bool(true),
				})})),
		},
	}, {
		Config:            clusterConfig(t, "", name, `  state = "running"`),
		ConfigStateChecks: []statecheck.StateCheck{acctest.ClusterIsolated(t, addr)},
	}})
}

// clusterAsleep checks that the sandbox at address is asleep: the backend
// shows it so and isolated, it has no pod, and its policy stands for it,
// owned by nothing, owning the sandbox's Secrets.
func clusterAsleep(t *testing.T, address, name string) statecheck.StateCheck {
	return stateCheck(func(ctx context.Context, state map[string]any) error {
		id, _ := state["id"].(string)
		c, err := acctest.Cluster(t).InspectContainer(ctx, id)
		if err != nil {
			return fmt.Errorf("reading the sandbox asleep: %w", err)
		}
		if !engine.IsAsleep(c) || !isolation.Assess(c.Network).Isolated {
			return fmt.Errorf("the backend shows %s %q, isolated %v", id, c.State.Status, isolation.Assess(c.Network).Isolated)
		}
		if _, err := acctest.Pod(ctx, t, name); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the sandbox asleep has a pod (%w)", err)
		}
		policy, err := asleepPolicy(ctx, t, name)
		if err != nil {
			return err
		}
		if len(policy.OwnerReferences) != 0 {
			return fmt.Errorf("the policy of the sandbox asleep is owned by %v", policy.OwnerReferences)
		}
		core, _ := acctest.Cluster(t).API()
		secrets := &corev1.SecretList{}
		if err := core.Get().Namespace(acctest.ClusterNamespace).Resource("secrets").Do(ctx).Into(secrets); err != nil {
			return err
		}
		for _, s := range secrets.Items {
			if s.Labels[engine.LabelCreateToken] == policy.Labels[engine.LabelCreateToken] &&
				(len(s.OwnerReferences) != 1 || s.OwnerReferences[0].UID != policy.UID) {
				return fmt.Errorf("secret %s of the sandbox asleep is owned by %v, not by its policy", s.Name, s.OwnerReferences)
			}
		}
		return nil
	}).at(address)
}

// asleepPolicy is the policy that stands for the sandbox name asleep.
func asleepPolicy(ctx context.Context, t *testing.T, name string) (*networkingv1.NetworkPolicy, error) {
	_, networking := acctest.Cluster(t).API()
	list := &networkingv1.NetworkPolicyList{}
	err := networking.Get().Namespace(acctest.ClusterNamespace).Resource("networkpolicies").
		Param("labelSelector", engine.LabelPrefix+"asleep="+name).Do(ctx).Into(list)
	if err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%d policies stand for the sandbox %s asleep, want 1", len(list.Items), name)
	}
	return &list.Items[0], nil
}

// stateCheck runs check on the attribute values of the resource at
// address.
type stateCheck func(ctx context.Context, values map[string]any) error

func (f stateCheck) at(address string) statecheck.StateCheck { return addressedCheck{f, address} }

type addressedCheck struct {
	check   stateCheck
	address string
}

// CheckState implements statecheck.StateCheck.
func (a addressedCheck) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == a.address {
				if err := a.check(ctx, r.AttributeValues); err != nil {
					resp.Error = fmt.Errorf("%s: %w", a.address, err)
				}
				return
			}
		}
	}
	resp.Error = fmt.Errorf("%s: not in state", a.address)
}
