package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The Kubernetes backend, against the test cluster (acctest's cluster kit;
// they run in the cluster pass).

// clusterConfig is one sandbox_container "test" on the cluster, in the
// provider's runtime class class ("" for the default).
func clusterConfig(t *testing.T, class, name, extra string) string {
	return acctest.ClusterProvider(t, class) + fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
%s
}
`, name, acctest.TestImage, extra)
}

// TestAccCluster_isolationProof proves from inside a sandbox, in each of
// the test cluster's network-less runtime classes, that it reaches none of
// the places an ordinary pod of the cluster reaches: another pod, a DNS
// server, the node, the API server and a host off the node, nor does
// anything reach it.
func TestAccCluster_isolationProof(t *testing.T) {
	acctest.RequireCluster(t)
	base := acctest.ClusterName(t)
	control := acctest.RunPod(t, acctest.ClusterPod{Name: base + "-control", Command: []string{"sleep", "3600"}})
	destinations := []acctest.Destination{
		acctest.ListenerPod(t, base+"-pod", "another pod", 8080),
		acctest.ListenerPod(t, base+"-dns", "a DNS server (port 53)", 53),
		acctest.NodeListener(t),
		acctest.APIServerOnNode(t),
		acctest.OffNodeHost(t),
	}
	ctx := context.Background()
	for _, d := range destinations {
		if ok, out := acctest.Reaches(ctx, t, control.Name, d); !ok {
			t.Fatalf("the control pod does not reach %s at %s (%s): the test would prove nothing", d.What, d.Addr, out)
		}
	}
	for _, class := range acctest.IsolatedClasses {
		t.Run(class, func(t *testing.T) {
			name := base + "-" + class
			acctest.ClusterTest(t, []resource.TestStep{{
				// The sandbox listens, so that nothing reaching it is
				// missed for want of a listener.
				Config: clusterConfig(t, class, name, `  command = ["nc", "-ll", "-p", "8080", "-e", "/bin/echo", "ok"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
					acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Container, pod *corev1.Pod) error {
						for _, d := range destinations {
							if ok, out := acctest.Reaches(ctx, t, c.ID, d); ok {
								return fmt.Errorf("the sandbox reaches %s at %s: %s", d.What, d.Addr, out)
							}
						}
						inbound := acctest.Destination{What: "the sandbox", Addr: pod.Status.PodIP + ":8080"}
						if pod.Status.PodIP != "" {
							if ok, out := acctest.Reaches(ctx, t, control.Name, inbound); ok {
								return fmt.Errorf("the control pod reaches the sandbox at %s: %s", inbound.Addr, out)
							}
						}
						if class == "gvisor" {
							// No network stack at all; runc's pods in class
							// none have an interface that leads nowhere.
							return acctest.OnlyLoopbackInPod(ctx, t, c.ID)
						}
						return nil
					}),
				},
			}})
		})
	}
}

// TestAccCluster_drift changes a sandbox's pod and its NetworkPolicy behind
// Terraform's back in every way that weakens its isolation, and checks
// that each is seen at refresh, planned as a replacement that says why,
// and repaired by apply.
func TestAccCluster_drift(t *testing.T) {
	name := acctest.ClusterName(t)
	config := clusterConfig(t, "", name, "")
	isolated := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
		acctest.ClusterIsolated(t, addr),
	}
	replaced := func(mode string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			acctest.ExpectPriorValue{Address: addr, Attribute: "network_mode", Want: mode},
		}}
	}
	policy := func(change func(p *networkingv1.NetworkPolicy)) func() {
		return acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.ChangePolicy(ctx, t, name, change)
		})
	}
	acctest.ClusterTest(t, []resource.TestStep{
		{Config: config, ConfigStateChecks: isolated},
		{Config: config, PlanOnly: true},
		{
			PreConfig:         policy(nil),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeNoPolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig:         policy(acctest.AllowAllEgress),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeLoosePolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig:         policy(acctest.SelectNothing),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeLoosePolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.AnnotatePod(ctx, t, name, "k8s.v1.cni.cncf.io/networks", "macvlan-conf")
			}),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeNetwork),
			ConfigStateChecks: isolated,
		},
		{
			// Deleted: the plan creates it again.
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.DeletePod(ctx, t, name)
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: isolated,
		},
		{
			// Deleted and made again by someone else, with the name and
			// labels but another runtime class and security context: not
			// the sandbox. The plan creates it; apply refuses to take the
			// name from that pod, and says how to remove it.
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.ReplacePod(ctx, t, name)
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)already used by container\s+default/%s\s.*kubectl -n default delete pod %s`,
				name, name)),
		},
		{
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.DeletePod(ctx, t, name)
			}),
			Config:            config,
			ConfigStateChecks: isolated,
		},
	})
}
