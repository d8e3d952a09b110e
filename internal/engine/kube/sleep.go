package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// A sandbox asleep on a cluster (state = "stopped") has no pod: its node's
// CPU and memory are free. What makes it itself stays: its deny-all
// NetworkPolicy, which the pod owned while it ran and which then owns
// nothing, and stands for the sandbox; its Secrets (environment, files,
// image pull secret), which the policy owns from the first sleep on, so
// that the cluster removes them with it; and its claims, which are
// sandbox_volumes of their own. A wake makes the pod again from the
// configuration, in the provider's RuntimeClass and under the same
// policy, which it owns again.
//
// The sandbox's ID keeps its first pod's UID: a pod made by a wake carries
// it (annotationSandboxUID), and is the sandbox's when the provider made
// it (provenance.go). Asleep, the policy carries it, with the pod's name
// in a label a read selects it by (labelAsleep), and what a read shows of
// the sandbox asleep (its image, its labels).

const (
	annotationSandboxUID = engine.LabelPrefix + "sandbox-uid"
	annotationImageID    = engine.LabelPrefix + "image-id"
	annotationAsleepAt   = engine.LabelPrefix + "asleep-since"
	annotationPodName    = engine.LabelPrefix + "pod-name"
	labelAsleep          = engine.LabelPrefix + "asleep"
)

// asleepValue is the value of labelAsleep for the pod name: the name
// itself where a label value can hold it (63 characters), else a digest.
func asleepValue(name string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "h-" + hex.EncodeToString(sum[:])[:60]
}

// policyOwner makes the policy the owner of an object.
func policyOwner(p *networkingv1.NetworkPolicy) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Name: p.Name, UID: p.UID}
}

// SleepContainer puts the sandbox to sleep: its policy stops being owned by
// the pod and takes its Secrets over, then the pod is removed, giving its
// processes graceSeconds. In that order, a sleep cut off half-way leaves a
// sandbox awake or asleep, never one whose policy went with its pod.
func (c *Client) SleepContainer(ctx context.Context, id string, graceSeconds int) error {
	if isSandboxID(id) {
		return c.sleepAgentSandbox(ctx, id, graceSeconds)
	}
	pod, err := c.getPod(ctx, id)
	if err != nil {
		return err
	}
	policy, err := c.policyOf(ctx, pod)
	if err != nil {
		return err
	}
	if policy == nil {
		return fmt.Errorf("pod %s has no deny-all NetworkPolicy (%s) to keep it isolated while it sleeps: apply "+
			"again to have the sandbox replaced", pod.Name, companionName(pod.Labels[engine.LabelCreateToken]))
	}
	_, _, uid := c.splitID(id)
	if uid == "" {
		uid = pod.UID
	}
	status := containerStatus(pod, sandboxContainer(pod).Name)
	meta := map[string]any{
		"ownerReferences": nil,
		"labels":          map[string]any{labelAsleep: asleepValue(pod.Name)},
		"annotations": map[string]any{
			annotationSandboxUID: string(uid), annotationImageID: imageID(sandboxContainer(pod), status),
			annotationLabels: pod.Annotations[annotationLabels], annotationAsleepAt: time.Now().UTC().Format(time.RFC3339),
			annotationPodName: pod.Name, annotationExpiresAt: expiryAnnotation(pod),
		},
	}
	if err := c.patchMeta(ctx, c.network, "networkpolicies", policy.Name, meta); err != nil {
		return err
	}
	if err := c.ownSecrets(ctx, pod.Labels[engine.LabelCreateToken], policyOwner(policy)); err != nil {
		return err
	}
	if err := c.removePod(ctx, podID(pod), int64(graceSeconds)); !errors.Is(err, errNoPod) {
		return err
	}
	return nil
}

// WakeContainer makes the sleeping sandbox's pod again from spec, under its
// policy, which then owns it again; a pod that ended (its command exited)
// is put to sleep first. The caller waits for the pod to start
// (StartContainer).
func (c *Client) WakeContainer(ctx context.Context, id string, spec engine.ContainerSpec) error {
	if isSandboxID(id) {
		return c.wakeAgentSandbox(ctx, id, spec)
	}
	if _, err := c.getPod(ctx, id); err == nil {
		if err := c.SleepContainer(ctx, id, 0); err != nil {
			return err
		}
	} else if !engine.IsNotFound(err) {
		return err
	}
	policy, err := c.asleep(ctx, id)
	if err != nil {
		return err
	}
	token := policy.Labels[engine.LabelCreateToken]
	spec.Labels[engine.LabelCreateToken] = token
	pod, err := podFor(spec, c.namespace, c.class)
	if err != nil {
		return invalid{err}
	}
	pod.Annotations[annotationSandboxUID] = policy.Annotations[annotationSandboxUID]
	pod.Spec.ImagePullSecrets, err = c.wakePullSecrets(ctx, token)
	if err != nil {
		return err
	}
	made := &corev1.Pod{}
	if err := c.create(ctx, c.core, "pods", pod, made); err != nil {
		return err
	}
	meta := map[string]any{"ownerReferences": []metav1.OwnerReference{ownedBy(made)},
		"labels": map[string]any{labelAsleep: nil}}
	if err := c.patchMeta(ctx, c.network, "networkpolicies", policy.Name, meta); err != nil {
		// A pod its policy does not go with is not kept: the sandbox
		// stays asleep.
		_ = c.removePod(ctx, podID(made), 0) // best effort: the error says why it stays asleep
		return err
	}
	return nil
}

// wakePullSecrets are the image pull secrets of a woken pod: the provider's
// kubernetes.image_pull_secrets, and the one made for the sandbox, when
// there is one.
func (c *Client) wakePullSecrets(ctx context.Context, token string) ([]corev1.LocalObjectReference, error) {
	var refs []corev1.LocalObjectReference
	for _, name := range c.pullSecrets {
		refs = append(refs, corev1.LocalObjectReference{Name: name})
	}
	err := c.call(ctx, "the request to read a secret", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource("secrets").Name(pullSecretName(token)).Do(ctx).Error()
	})
	switch {
	case err == nil:
		refs = append(refs, corev1.LocalObjectReference{Name: pullSecretName(token)})
	case !engine.IsNotFound(err):
		return nil, err
	}
	return refs, nil
}

// asleep finds the policy that stands for the sandbox id while it sleeps:
// the one the provider made, labelled asleep under the pod's name, with the
// sandbox's UID. Not found when there is none.
func (c *Client) asleep(ctx context.Context, id string) (*networkingv1.NetworkPolicy, error) {
	namespace, name, uid := c.splitID(id)
	list := &networkingv1.NetworkPolicyList{}
	selector := labelAsleep + "=" + asleepValue(name) + "," + engine.LabelManagedBy + "=" + engine.ManagedByValue
	err := c.call(ctx, "the request to list network policies", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.network.Get().Namespace(namespace).Resource("networkpolicies").
			VersionedParams(&metav1.ListOptions{LabelSelector: selector}, c.params).Do(ctx).Into(list)
	})
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		p := &list.Items[i]
		if labelsWrittenByProvider(p.ManagedFields) && p.DeletionTimestamp == nil &&
			(uid == "" || types.UID(p.Annotations[annotationSandboxUID]) == uid) {
			return p, nil
		}
	}
	return nil, notFound{fmt.Errorf("no pod %s/%s, and no sandbox of that name asleep", namespace, name)}
}

// inspectAsleep is what the cluster shows of a sandbox asleep: no pod, so
// no process, and its policy.
func (c *Client) inspectAsleep(ctx context.Context, id string) (engine.Sandbox, error) {
	policy, err := c.asleep(ctx, id)
	if err != nil {
		return engine.Sandbox{}, err
	}
	namespace, name, _ := c.splitID(id)
	var labels map[string]string
	_ = json.Unmarshal([]byte(policy.Annotations[annotationLabels]), &labels)
	return engine.Sandbox{
		Container: engine.Container{
			ID: namespace + "/" + name + "/" + policy.Annotations[annotationSandboxUID], Name: name,
			Created: policy.CreationTimestamp.UTC().Format(time.RFC3339Nano), Image: policy.Annotations[annotationImageID],
			State:     &engine.ContainerState{Status: engine.StatusAsleep, FinishedAt: policy.Annotations[annotationAsleepAt]},
			Config:    &engine.ContainerConfig{Labels: labels},
			ExpiresAt: engine.ExpiryOf(policy.Annotations),
		},
		Network: isolation.Observed{Pod: &isolation.Pod{Asleep: true, IsolatedClass: c.class,
			Policy: policyState(policy.Labels[engine.LabelCreateToken], policy)}},
	}, nil
}

// removeAsleep removes the policy that stands for a sandbox asleep, and
// with it its Secrets. One that is gone counts as removed.
func (c *Client) removeAsleep(ctx context.Context, id string) error {
	policy, err := c.asleep(ctx, id)
	if engine.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.call(ctx, "the request to remove a network policy", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.network.Delete().Namespace(policy.Namespace).Resource("networkpolicies").Name(policy.Name).
			Body(deleteOptions(policy.UID, 0)).Do(ctx).Error()
	})
	if engine.IsNotFound(err) {
		return nil
	}
	return err
}

// patchMeta merges meta into the metadata of the named object.
func (c *Client) patchMeta(ctx context.Context, client rest.Interface, resource, name string, meta map[string]any) error {
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return err
	}
	return c.call(ctx, "the request to update a "+singular(resource), engine.QuickCallTimeout, func(ctx context.Context) error {
		return client.Patch(types.MergePatchType).Namespace(c.namespace).Resource(resource).Name(name).
			Param("fieldManager", fieldManager).Body(patch).Do(ctx).Error()
	})
}

// ownSecrets makes owner the owner of the Secrets made for the create with
// token.
func (c *Client) ownSecrets(ctx context.Context, token string, owner metav1.OwnerReference) error {
	list := &corev1.SecretList{}
	err := c.call(ctx, "the request to list secrets", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource("secrets").
			VersionedParams(&metav1.ListOptions{LabelSelector: engine.LabelCreateToken + "=" + token}, c.params).
			Do(ctx).Into(list)
	})
	for i := 0; err == nil && i < len(list.Items); i++ {
		if labelsWrittenByProvider(list.Items[i].ManagedFields) {
			err = c.patchMeta(ctx, c.core, "secrets", list.Items[i].Name,
				map[string]any{"ownerReferences": []metav1.OwnerReference{owner}})
		}
	}
	return err
}

// listAsleep lists the IDs of the sandboxes asleep whose policy the
// selector selects (with the label that marks them asleep), that the
// provider made, and whose labels hold labels.
func (c *Client) listAsleep(ctx context.Context, selector string, labels map[string]string, namePrefix string) ([]string, error) {
	list := &networkingv1.NetworkPolicyList{}
	err := c.call(ctx, "the request to list network policies", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.network.Get().Namespace(c.namespace).Resource("networkpolicies").
			VersionedParams(&metav1.ListOptions{LabelSelector: selector + "," + labelAsleep}, c.params).Do(ctx).Into(list)
	})
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range list.Items {
		p := &list.Items[i]
		name := p.Annotations[annotationPodName]
		if !labelsWrittenByProvider(p.ManagedFields) || p.DeletionTimestamp != nil || name == "" ||
			!strings.HasPrefix(name, namePrefix) {
			continue
		}
		var have map[string]string
		_ = json.Unmarshal([]byte(p.Annotations[annotationLabels]), &have)
		if holds(have, labels) {
			ids = append(ids, p.Namespace+"/"+name+"/"+p.Annotations[annotationSandboxUID])
		}
	}
	return ids, nil
}

// holds reports whether have holds every label of want.
func holds(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// expiryAnnotation is the pod's expiry annotation for its policy asleep:
// nil (removed) when it has none.
func expiryAnnotation(pod *corev1.Pod) any {
	if v, ok := pod.Annotations[annotationExpiresAt]; ok {
		return v
	}
	return nil
}
