package acctest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Checks of a sandbox's pod, and changes to it behind Terraform's back.

// Pod reads a pod by name.
func Pod(ctx context.Context, t *testing.T, name string) (*corev1.Pod, error) {
	t.Helper()
	core, _ := Cluster(t).API()
	pod := &corev1.Pod{}
	err := core.Get().Namespace(ClusterNamespace).Resource("pods").Name(name).Do(ctx).Into(pod)
	return pod, err
}

// ClusterCheck checks a condition on the sandbox at address, as the
// backend shows it (engine.Sandbox) and as the cluster has its pod.
func ClusterCheck(t *testing.T, address string, check func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error) statecheck.StateCheck {
	return clusterCheck{t: t, address: address, check: check}
}

// clusterCheck is ClusterCheck's state check.
type clusterCheck struct {
	t       *testing.T
	address string
	check   func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error
}

// CheckState implements statecheck.StateCheck.
func (c clusterCheck) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("%s: no state", c.address)
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		id, _ := r.AttributeValues["id"].(string)
		sandbox, err := Cluster(c.t).InspectContainer(ctx, id)
		if err != nil {
			resp.Error = fmt.Errorf("%s: reading pod %q: %w", c.address, id, err)
			return
		}
		pod, err := Pod(ctx, c.t, engine.ShortID(id)[len(ClusterNamespace)+1:])
		if err != nil {
			resp.Error = fmt.Errorf("%s: reading pod %q: %w", c.address, id, err)
			return
		}
		if err := c.check(ctx, sandbox, pod); err != nil {
			resp.Error = fmt.Errorf("%s (pod %s): %w", c.address, id, err)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in state", c.address)
}

// ClusterIsolated checks that the backend's verdict for the sandbox at
// address is isolated, that its pod runs, and that from inside it sees
// no network interface but loopback (gVisor with no network stack, the
// test cluster's default class for sandboxes).
func ClusterIsolated(t *testing.T, address string) statecheck.StateCheck {
	return ClusterCheck(t, address, func(ctx context.Context, c engine.Sandbox, _ *corev1.Pod) error {
		if v := isolation.Assess(c.Network); !v.Isolated {
			return fmt.Errorf("the backend shows the sandbox is not isolated: %s", v.Reason)
		}
		if !engine.IsRunning(c) {
			return fmt.Errorf("sandbox is %s, not running", c.State.Status)
		}
		return OnlyLoopbackInPod(ctx, t, c.ID)
	})
}

// OnlyLoopbackInPod checks from inside a running sandbox that it sees no
// network interface but loopback.
func OnlyLoopbackInPod(ctx context.Context, t *testing.T, id string) error {
	out, code, err := InPod(ctx, t, id, "cat", "/proc/net/dev")
	if err != nil || code != 0 {
		return fmt.Errorf("reading /proc/net/dev inside (exit %d): %w %s", code, err, out)
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, "|") {
			names = append(names, strings.TrimSpace(name))
		}
	}
	if len(names) != 1 || names[0] != "lo" {
		return fmt.Errorf("interfaces inside the sandbox are %v, want only [lo]", names)
	}
	return nil
}

// policyOf reads the deny-all NetworkPolicy made beside the pod named name.
func policyOf(ctx context.Context, t *testing.T, name string) (*networkingv1.NetworkPolicy, error) {
	pod, err := Pod(ctx, t, name)
	if err != nil {
		return nil, err
	}
	_, network := Cluster(t).API()
	policy := &networkingv1.NetworkPolicy{}
	err = network.Get().Namespace(ClusterNamespace).Resource("networkpolicies").
		Name("tfsandbox-" + pod.Labels[engine.LabelCreateToken]).Do(ctx).Into(policy)
	return policy, err
}

// ChangePolicy changes the deny-all NetworkPolicy of the sandbox whose pod
// is named name; a nil change deletes it.
func ChangePolicy(ctx context.Context, t *testing.T, name string, change func(*networkingv1.NetworkPolicy)) error {
	policy, err := policyOf(ctx, t, name)
	if err != nil {
		return err
	}
	_, network := Cluster(t).API()
	req := network.Delete().Namespace(ClusterNamespace).Resource("networkpolicies").Name(policy.Name)
	if change != nil {
		change(policy)
		req = network.Put().Namespace(ClusterNamespace).Resource("networkpolicies").Name(policy.Name).Body(policy)
	}
	return req.Do(ctx).Error()
}

// AllowAllEgress is a change that lets the pod reach anything.
func AllowAllEgress(p *networkingv1.NetworkPolicy) {
	p.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}}
}

// SelectNothing is a change that makes the policy select no pod.
func SelectNothing(p *networkingv1.NetworkPolicy) {
	p.Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{"tfsandbox.acctest": "nothing"}}
}

// AnnotatePod sets an annotation on the pod named name.
func AnnotatePod(ctx context.Context, t *testing.T, name, key, value string) error {
	core, _ := Cluster(t).API()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	return core.Patch(types.MergePatchType).Namespace(ClusterNamespace).Resource("pods").Name(name).Param("fieldManager", TestFieldManager).
		Body([]byte(patch)).Do(ctx).Error()
}

// DeletePod deletes the pod named name at once and waits until it is gone.
func DeletePod(ctx context.Context, t *testing.T, name string) error {
	return Cluster(t).RemoveContainer(ctx, ClusterNamespace+"/"+name)
}

// ReplacePod deletes the pod named name and makes another of the same name
// and labels, as a controller or a person would, but in the node's default
// runtime, on the pod network, as root with every capability the runtime
// gives.
func ReplacePod(ctx context.Context, t *testing.T, name string) error {
	old, err := Pod(ctx, t, name)
	if err != nil {
		return err
	}
	if err := DeletePod(ctx, t, name); err != nil {
		return err
	}
	core, _ := Cluster(t).API()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ClusterNamespace, Labels: old.Labels, Annotations: old.Annotations},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptrTo(int64(0)),
			Containers: []corev1.Container{{Name: "sandbox", Image: TestImage, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"sleep", "3600"}}},
		},
	}
	if err := core.Post().Namespace(ClusterNamespace).Resource("pods").Param("fieldManager", TestFieldManager).Body(pod).Do(ctx).Error(); err != nil {
		return err
	}
	t.Cleanup(func() { _ = DeletePod(context.Background(), t, name) })
	return waitRunning(ctx, t, name)
}

func waitRunning(ctx context.Context, t *testing.T, name string) error {
	for {
		pod, err := Pod(ctx, t, name)
		if err == nil && pod.Status.Phase == corev1.PodRunning {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s does not run: %w", name, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// ExpectOnlyStatePods fails the test when a pod named prefix* is not in
// the working directory's state, by its ID or, for a cut-off create
// recorded tainted, by its create token; and returns the IDs of those that
// are. Pods on their way out (deleted, not yet gone) are not counted.
func (c *CLI) ExpectOnlyStatePods(prefix string) []string {
	c.t.Helper()
	inState := map[string]bool{}
	for _, id := range c.StateIDs() {
		inState[id] = true
	}
	core, _ := Cluster(c.t).API()
	list := &corev1.PodList{}
	if err := core.Get().Namespace(ClusterNamespace).Resource("pods").Do(context.Background()).Into(list); err != nil {
		c.t.Fatalf("listing pods: %v", err)
	}
	var ids []string
	for _, p := range list.Items {
		if !strings.HasPrefix(p.Name, prefix) || p.DeletionTimestamp != nil {
			continue
		}
		id := p.Namespace + "/" + p.Name + "/" + string(p.UID)
		if token := p.Labels[engine.LabelCreateToken]; token != "" && inState[pendingCreate+token] {
			c.t.Logf("pod %s is in the state as a cut-off create, tainted", id)
		} else if !inState[id] {
			c.t.Fatalf("pod %s is on the cluster but not in the state", id)
		}
		ids = append(ids, id)
	}
	return ids
}
