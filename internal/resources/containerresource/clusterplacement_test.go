package containerresource_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Pods the scheduler places on no node at first: a create waits for a
// node to take the pod, up to its timeout, and then says what the
// scheduler said.

// TestAccCluster_waitsForANodeToTakeIt: while every node carries a taint
// (as a node that is Ready but not yet untainted does, and as the test
// cluster's did once in CI), a sandbox's pod is placed on no node; the
// create waits, and when the taint is gone the sandbox starts, isolated.
func TestAccCluster_waitsForANodeToTakeIt(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	// What the watcher saw: the pod placed on no node, and how long the
	// create then waited on it.
	seen := make(chan error, 1)
	watch := func() {
		untaint := acctest.TaintNodes(t, "tfsandbox.acctest/not-ready")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		done := make(chan struct{})
		// The watcher ends before the test does, whatever the apply did.
		t.Cleanup(func() { cancel(); <-done })
		go func() {
			defer close(done)
			defer untaint()
			for ctx.Err() == nil {
				if pod, err := acctest.Pod(ctx, t, name); err == nil && unschedulable(pod) {
					// Long enough for the provider to look at the pod
					// several times and not give up on it.
					time.Sleep(5 * time.Second)
					seen <- nil
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
			seen <- errors.New("the sandbox's pod was never seen placed on no node: the test proves nothing")
		}()
	}
	// Every pod made while the nodes are tainted waits: the test runs
	// before the package's parallel tests.
	acctest.ClusterTestAlone(t, []resource.TestStep{{
		PreConfig: watch,
		Config:    clusterConfig(t, "", name, ""),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
			acctest.ClusterIsolated(t, addr),
		},
		Check: func(*terraform.State) error { return <-seen },
	}})
}

// unschedulable reports whether the scheduler said it could place the pod
// on no node.
func unschedulable(pod *corev1.Pod) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// TestAccCluster_noNodeTakesIt: a sandbox asking for more memory than any
// node has is placed nowhere; its create waits out its timeout, says what
// the scheduler said and which timeout to raise, and leaves no pod: the
// name is free for the next apply.
func TestAccCluster_noNodeTakesIt(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	acctest.ClusterTest(t, []resource.TestStep{
		{
			Config: clusterConfig(t, "", name, `  memory   = 1048576
  timeouts = { create = "20s" }`),
			ExpectError: regexp.MustCompile(`(?s)Cannot start sandbox.*placed\s+on\s+no\s+node\s+in\s+time.*Insufficient\s+memory.*` +
				`longer\s+timeouts\.create`),
		},
		{
			PreConfig: func() {
				if _, err := acctest.Pod(context.Background(), t, name); !apierrors.IsNotFound(err) {
					t.Fatalf("the failed create left pod %s (%v)", name, err)
				}
			},
			Config: clusterConfig(t, "", name, `  memory = 64`),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ClusterIsolated(t, addr),
			},
		},
	})
}
