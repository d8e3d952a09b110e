package kube

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// InspectPool reads a pool: its template judged as the pod it makes, the
// pool's replicas (none when the pool is gone), and every pod made from
// the template, warm or claimed, judged on its own. Each is judged with
// the template's deny-all policy, loosened when the template hands the
// network policy back to agent-sandbox, whose policy would add to it.
func (c *Client) InspectPool(ctx context.Context, id string) (engine.Pool, error) {
	t, err := c.getTemplate(ctx, id)
	if err != nil {
		return engine.Pool{}, err
	}
	tmpl := podOfTemplate(t.ObjectMeta, t.Spec.PodTemplate)
	policy, err := c.policyOf(ctx, tmpl)
	if err != nil {
		return engine.Pool{}, err
	}
	judge := func(pod *corev1.Pod) engine.Sandbox {
		s := c.observe(pod, policy)
		if t.Spec.NetworkPolicyManagement != policyUnmanaged || len(t.Spec.NetworkPolicy) > 0 {
			s.Network.Pod.Policy = isolation.PolicyLoosened
		}
		return s
	}
	out := engine.Pool{ID: poolID(t), Name: t.Name, Template: judge(tmpl)}
	// The template's literal variables: a pool's secret ones are read
	// from its Secret, and show nowhere.
	out.Template.Config.Env = nil
	for _, e := range sandboxContainer(tmpl).Env {
		if e.ValueFrom == nil {
			out.Template.Config.Env = append(out.Template.Config.Env, e.Name+"="+e.Value)
		}
	}
	// A pool gone, or one of its name that is not the template's, keeps
	// no replicas of it: the plan makes its own again (ScalePool).
	pool, err := c.ownedPool(ctx, t)
	switch {
	case err == nil && pool.Spec.TemplateRef.Name == t.Name:
		out.Replicas, out.Ready = int(deref(pool.Spec.Replicas)), int(pool.Status.ReadyReplicas)
	case err != nil && !engine.IsNotFound(err) && !engine.IsConflict(err):
		return engine.Pool{}, err
	}
	pods, err := c.templatePods(ctx, t)
	if err != nil {
		return engine.Pool{}, err
	}
	claims, err := c.claimNames(ctx, pods)
	if err != nil {
		return engine.Pool{}, err
	}
	for _, pod := range pods {
		out.Sandboxes = append(out.Sandboxes, engine.PoolSandbox{Name: pod.Name,
			Claim: claims[types.UID(pod.Labels[claimUIDLabel])], Ready: podReady(pod), Network: judge(pod).Network})
	}
	return out, nil
}

// podOfTemplate is the pod a template (a Sandbox's, a SandboxTemplate's)
// makes, as its controller makes it: for judging the template as the
// provider judges a pod. It carries the managed fields of the object
// that holds the template, which prove (provenance.go) whether the
// provider wrote the template's labels.
func podOfTemplate(meta metav1.ObjectMeta, t agentPodTemplate) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: meta.Name, Namespace: meta.Namespace, UID: meta.UID,
			Labels: t.Metadata.Labels, Annotations: t.Metadata.Annotations, CreationTimestamp: meta.CreationTimestamp,
			ManagedFields: meta.ManagedFields},
		Spec: t.Spec,
	}
}

// templatePods lists the pods made from the template, by the create token
// its pod template gives them, that are not being removed; a pod that
// carries the token without a Sandbox controlling it is not the pool's.
func (c *Client) templatePods(ctx context.Context, t *sandboxTemplate) ([]*corev1.Pod, error) {
	token := t.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken]
	list := &corev1.PodList{}
	err := c.call(ctx, "the request to list pods", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(t.Namespace).Resource("pods").
			VersionedParams(&metav1.ListOptions{LabelSelector: engine.LabelCreateToken + "=" + token}, c.params).
			Do(ctx).Into(list)
	})
	if err != nil || token == "" {
		return nil, err
	}
	var pods []*corev1.Pod
	for i := range list.Items {
		pod := &list.Items[i]
		if ref := metav1.GetControllerOf(pod); pod.DeletionTimestamp == nil && ref != nil && ref.Kind == "Sandbox" {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}

// unclaimed are the pods no claim holds.
func unclaimed(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Labels[claimUIDLabel] == "" {
			out = append(out, p)
		}
	}
	return out
}

// claimNames names, by UID, the claims that hold the pods: one list, and
// none when no pod is claimed. A claim gone meanwhile is named by its UID.
func (c *Client) claimNames(ctx context.Context, pods []*corev1.Pod) (map[types.UID]string, error) {
	names := map[types.UID]string{}
	for _, p := range pods {
		if uid := types.UID(p.Labels[claimUIDLabel]); uid != "" {
			names[uid] = "(claim " + string(uid) + ")"
		}
	}
	if len(names) == 0 {
		return names, nil
	}
	list := &sandboxClaimList{}
	err := c.call(ctx, "the request to list SandboxClaims", engine.QuickCallTimeout, func(ctx context.Context) error {
		raw, err := c.extensions.Get().Namespace(c.namespace).Resource("sandboxclaims").Do(ctx).Raw()
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, list)
	})
	if err != nil {
		return nil, err
	}
	for _, claim := range list.Items {
		if _, ok := names[claim.UID]; ok {
			names[claim.UID] = claim.Name
		}
	}
	return names, nil
}

// podReady reports whether the pod runs and is ready.
func podReady(pod *corev1.Pod) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue && pod.Status.Phase == corev1.PodRunning
		}
	}
	return false
}
