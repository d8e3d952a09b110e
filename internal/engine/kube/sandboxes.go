package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// A sandbox as an agent-sandbox Sandbox (agentsandbox.go): made, read,
// put to sleep, woken and removed through the Sandbox, whose controller
// keeps its pod.

// createAgentSandbox makes the Sandbox for pod (as podFor made it): its
// Secrets first, then the Sandbox, then its deny-all NetworkPolicy, all
// owned by the Sandbox. A Sandbox whose policy or Secrets could not be
// bound to it is removed.
func (c *Client) createAgentSandbox(ctx context.Context, spec engine.ContainerSpec, pod *corev1.Pod) (string, error) {
	token := spec.Labels[engine.LabelCreateToken]
	secrets, err := c.makeSecrets(ctx, pod, spec)
	if err != nil {
		return "", err
	}
	made := &agentSandbox{}
	if err := c.postObject(ctx, c.agents, "sandboxes", agentSandboxFor(pod), made); err != nil {
		c.removeCompanions(ctx, token, secrets)
		return "", err
	}
	policy := denyAll(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace}}, token)
	policy.OwnerReferences = []metav1.OwnerReference{sandboxOwner(made)}
	err = c.create(ctx, c.network, "networkpolicies", policy, &networkingv1.NetworkPolicy{})
	for _, name := range secrets {
		if err == nil {
			err = c.ownSecretBy(ctx, sandboxOwner(made), name)
		}
	}
	if err != nil {
		if removeErr := c.removeAgentSandbox(ctx, agentSandboxID(made)); removeErr != nil {
			return agentSandboxID(made), err
		}
		c.removeCompanions(ctx, token, secrets)
		return "", err
	}
	return agentSandboxID(made), nil
}

// inspectAgentSandbox is what the cluster shows of a Sandbox: its pod,
// when the controller keeps one, judged with the template the controller
// makes its next pod from; without a pod, the template alone, asleep
// (suspended), ended (past its shutdownTime) or about to start.
func (c *Client) inspectAgentSandbox(ctx context.Context, id string) (engine.Sandbox, error) {
	s, err := c.getAgentSandbox(ctx, id)
	if err != nil {
		return engine.Sandbox{}, err
	}
	tmpl := templatePod(s)
	policy, err := c.policyOf(ctx, tmpl)
	if err != nil {
		return engine.Sandbox{}, err
	}
	fromTemplate := c.observe(tmpl, policy)
	pod, err := c.getPod(ctx, id)
	if err != nil && !engine.IsNotFound(err) {
		return engine.Sandbox{}, err
	}
	var out engine.Sandbox
	if err == nil && pod.DeletionTimestamp == nil {
		// The pod's process and state; its settings as the template
		// gives them, which the controller's next pod takes (it applies
		// no edit to the pod it has): an edit shows at once.
		out = c.observe(pod, policy)
		out.Config, out.HostConfig = fromTemplate.Config, fromTemplate.HostConfig
		if !isolation.Assess(fromTemplate.Network).Isolated {
			// The template has lost what the pod still has: the sandbox
			// is judged on the worse.
			out.Network = fromTemplate.Network
		}
	} else {
		out = fromTemplate
		out.State = agentSandboxState(s, time.Now())
		// Without a pod, what it ran is what its sleep recorded, else
		// unknown here ("": the state keeps what it read last).
		out.Image = s.Annotations[annotationImageID]
	}
	out.ID, out.Name = agentSandboxID(s), s.Name
	out.Created = s.CreationTimestamp.UTC().Format(time.RFC3339Nano)
	out.ExpiresAt = time.Time{}
	if s.Spec.ShutdownTime != nil {
		out.ExpiresAt = s.Spec.ShutdownTime.UTC()
	}
	return out, nil
}

// agentSandboxState is the state of a Sandbox without a pod: asleep while
// suspended, ended past its shutdownTime, else made and not started (the
// controller is making its pod).
func agentSandboxState(s *agentSandbox, now time.Time) *engine.ContainerState {
	switch {
	case s.Spec.OperatingMode == modeSuspended:
		return &engine.ContainerState{Status: engine.StatusAsleep}
	case s.expired(now):
		return &engine.ContainerState{Status: "exited", FinishedAt: s.Spec.ShutdownTime.UTC().Format(time.RFC3339Nano)}
	}
	return &engine.ContainerState{Status: "created"}
}

// sleepAgentSandbox suspends the Sandbox, then removes its pod itself,
// giving its processes graceSeconds (its controller would give them the
// pod's own grace period, 30 s unless the sandbox has an expiry), and waits
// until the pod is gone.
func (c *Client) sleepAgentSandbox(ctx context.Context, id string, graceSeconds int) error {
	s, err := c.getAgentSandbox(ctx, id)
	if err != nil {
		return err
	}
	pod, err := c.sandboxPod(ctx, id)
	if err != nil {
		return err
	}
	patch := map[string]any{"spec": map[string]any{"operatingMode": modeSuspended}}
	if pod != nil {
		// What the pod ran, which its sandbox asleep shows.
		image := imageID(sandboxContainer(pod), containerStatus(pod, sandboxContainer(pod).Name))
		patch["metadata"] = map[string]any{"annotations": map[string]any{annotationImageID: image}}
	}
	if err := c.patchAgentSandbox(ctx, s, patch); err != nil {
		return err
	}
	return c.removeSandboxPod(ctx, pod, graceSeconds)
}

// sandboxPod is the Sandbox's pod, nil when it has none.
func (c *Client) sandboxPod(ctx context.Context, id string) (*corev1.Pod, error) {
	pod, err := c.getPod(ctx, id)
	if engine.IsNotFound(err) {
		return nil, nil
	}
	return pod, err
}

// removeSandboxPod removes a Sandbox's pod (nil: none) by its UID, giving
// its processes graceSeconds, and waits until it is gone. Its controller
// makes no other while the Sandbox is suspended or being removed.
func (c *Client) removeSandboxPod(ctx context.Context, pod *corev1.Pod, graceSeconds int) error {
	if pod == nil {
		return nil
	}
	if err := c.removePod(ctx, podID(pod), int64(graceSeconds)); !errors.Is(err, errNoPod) {
		return err
	}
	return nil
}

// wakeAgentSandbox sets the Sandbox running, with the expiry spec gives
// (a renewal), and, when it ended at its shutdownTime, lets its controller
// make its pod again. The caller waits for the pod to start.
func (c *Client) wakeAgentSandbox(ctx context.Context, id string, spec engine.ContainerSpec) error {
	s, err := c.getAgentSandbox(ctx, id)
	if err != nil {
		return err
	}
	var shutdown any
	if !spec.ExpiresAt.IsZero() {
		shutdown = spec.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return c.patchAgentSandbox(ctx, s, map[string]any{"spec": map[string]any{"operatingMode": modeRunning,
		"shutdownTime": shutdown}})
}

// removeAgentSandbox removes the Sandbox (its policy and Secrets go with
// it) and its pod at once, and waits until its name is free. One that is
// gone, or another Sandbox of its name, counts as removed.
func (c *Client) removeAgentSandbox(ctx context.Context, id string) error {
	namespace, name, uid := c.splitID(id)
	pod, err := c.sandboxPod(ctx, id)
	if err != nil {
		return err
	}
	err = c.call(ctx, "the request to remove a Sandbox", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.agents.Delete().Namespace(namespace).Resource("sandboxes").Name(name).
			Body(deleteOptions(sandboxUID(uid), 0)).Do(ctx).Error()
	})
	if engine.IsNotFound(err) || engine.IsConflict(err) {
		return nil
	}
	if err != nil {
		return err
	}
	// The garbage collector would give the pod its own grace period.
	if err := c.removeSandboxPod(ctx, pod, 0); err != nil {
		return err
	}
	return waitGone(ctx, "Sandbox "+namespace+"/"+name, engine.SlowCallTimeout, func(ctx context.Context) bool {
		_, err := c.getAgentSandbox(ctx, id)
		return engine.IsNotFound(err)
	})
}

// listSandboxObjects lists the Sandboxes of namespace that the selector
// ("" for all) selects.
func (c *Client) listSandboxObjects(ctx context.Context, namespace, selector string) (*agentSandboxList, error) {
	list := &agentSandboxList{}
	err := c.call(ctx, "the request to list Sandboxes", engine.QuickCallTimeout, func(ctx context.Context) error {
		// The parameter codec knows only the API's own groups.
		raw, err := c.agents.Get().Namespace(namespace).Resource("sandboxes").Param("labelSelector", selector).
			Do(ctx).Raw()
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, list)
	})
	return list, err
}

// listAgentSandboxes lists the IDs of the Sandboxes the selector selects,
// that the provider made, and whose labels hold labels. A cluster that
// does not serve the API has none.
func (c *Client) listAgentSandboxes(ctx context.Context, selector string, labels map[string]string, namePrefix string) ([]string, error) {
	list, err := c.listSandboxObjects(ctx, c.namespace, selector)
	if engine.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range list.Items {
		s := &list.Items[i]
		if !labelsWrittenByProvider(s.ManagedFields) || s.DeletionTimestamp != nil || len(s.Name) < len(namePrefix) ||
			s.Name[:len(namePrefix)] != namePrefix {
			continue
		}
		if holds(sandboxLabels(templatePod(s)), labels) {
			ids = append(ids, agentSandboxID(s))
		}
	}
	return ids, nil
}

// agentSandboxProvenance says who made the Sandbox: the provider where its
// managed fields prove it.
func (c *Client) agentSandboxProvenance(ctx context.Context, id string) (engine.Provenance, error) {
	s, err := c.getAgentSandbox(ctx, id)
	switch {
	case err != nil:
		return 0, err
	case labelsWrittenByProvider(s.ManagedFields):
		return engine.MadeByProvider, nil
	case engine.CarriesProviderLabels(s.Labels) || engine.CarriesProviderLabels(s.Annotations):
		return engine.LabelsNotItsOwn, nil
	}
	return engine.MadeByHand, nil
}

// errNotAgentSandbox says which setting makes sandboxes Sandboxes, for a
// cluster that does not serve the API.
func (c *Client) errNotAgentSandbox() error {
	return fmt.Errorf("the cluster at %s does not serve agent-sandbox's API (%s/%s Sandbox), which the provider's "+
		"kubernetes.sandbox_api = %q asks for: install agent-sandbox on the cluster (its CRDs and controller), "+
		"or set sandbox_api = %q to run sandboxes as bare pods", c.server, agentsGroup, agentsVersion,
		APIAgentSandbox, APIPods)
}
