package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestAccCluster_expiry: a sandbox given a two-minute expiry, whose code
// ignores every signal it can and forks, is stopped by the cluster within
// ten seconds of its expiry while no Terraform runs; the next plan reads it
// as expired, says so, and changes nothing; data "sandbox_containers"
// finds it with expired = true; a renewal starts it again in place, under
// the same ID. An expiry in the past is refused at plan.
func TestAccCluster_expiry(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	hostile := `  command = ["sh", "-c", "trap '' TERM INT HUP QUIT USR1 USR2; (trap '' TERM INT HUP; while :; do sleep 1; done) & while :; do sleep 1; done"]`
	config := func(expiry string) string {
		return clusterConfig(t, "", name, hostile+"\n  "+expiry)
	}
	listed := fmt.Sprintf(`
data "sandbox_containers" "expired" {
  name_prefix = %q
  expired     = true
  depends_on  = [sandbox_container.test]
}
`, name)
	var expiresAt time.Time
	sameID := statecheck.CompareValue(compare.ValuesSame())
	acctest.ClusterTest(t, []resource.TestStep{{
		Config:      config(`expires_at = "2001-01-01T00:00:00Z"`),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`Expiry in the past`),
	}, {
		Config: config(`expires_after = "2m"`),
		ConfigStateChecks: []statecheck.StateCheck{
			sameID.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("expired"), knownvalue.Bool(false)),
			stateCheck(func(_ context.Context, state map[string]any) error {
				created, err1 := time.Parse(time.RFC3339, fmt.Sprint(state["created_at"]))
				at, err2 := time.Parse(time.RFC3339, fmt.Sprint(state["expires_at"]))
				if err1 != nil || err2 != nil || at.Sub(created) != 2*time.Minute {
					return fmt.Errorf("created_at %v and expires_at %v are not two minutes apart", state["created_at"],
						state["expires_at"])
				}
				expiresAt = at
				return nil
			}).at(addr),
		},
	}, {
		// No Terraform runs until the cluster stopped the sandbox.
		PreConfig: func() { awaitExpiry(t, name, expiresAt) },
		Config:    config(`expires_after = "2m"`) + listed,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			sameID.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("expired"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(addr, attr("state"), knownvalue.StringExact("running")),
			statecheck.ExpectKnownValue("data.sandbox_containers.expired", tfjsonpath.New("containers"),
				knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact(name), "expired": knownvalue.Bool(true),
					"state": knownvalue.StringExact("stopped"),
				})})),
		},
	}, {
		Config: config(`expires_after = "30m"`),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			sameID.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("expired"), knownvalue.Bool(false)),
			acctest.ClusterIsolated(t, addr),
		},
	}})
}

// awaitExpiry waits until the sandbox's pod has ended at its expiry, and
// fails the test unless the cluster ended it for its deadline, within
// expiryLag of it. The kubelet enforces a pod's deadline when it syncs the
// pod (every 10 s, and later on a node the whole suite loads: 16 s in a
// fresh-clone run); on a quiet node it was 2 s, the deadline's grace.
func awaitExpiry(t *testing.T, name string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	deadline := at.Add(time.Minute)
	for time.Now().Before(deadline) {
		pod, err := acctest.Pod(ctx, t, name)
		if err != nil {
			t.Fatalf("reading the sandbox's pod: %v", err)
		}
		if ended := endedAt(pod); !ended.IsZero() {
			if late := ended.Sub(at); late > expiryLag || pod.Status.Reason != "DeadlineExceeded" {
				t.Fatalf("the pod ended %s after the expiry %s (reason %q), want within %s for its deadline", late,
					at.Format(time.RFC3339), pod.Status.Reason, expiryLag)
			}
			t.Logf("the pod ended %s after the expiry (%s)", ended.Sub(at), pod.Status.Reason)
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("the sandbox %s still ran a minute after its expiry %s", name, at.Format(time.RFC3339))
}

const expiryLag = 30 * time.Second

// endedAt is when the pod's sandbox container ended, or when the pod
// failed; zero while it runs.
func endedAt(pod *corev1.Pod) time.Time {
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Terminated != nil {
			return s.State.Terminated.FinishedAt.Time
		}
	}
	if pod.Status.Phase == corev1.PodFailed {
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady {
				return c.LastTransitionTime.Time
			}
		}
		return time.Now()
	}
	return time.Time{}
}
