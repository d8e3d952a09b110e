package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox's ID on a cluster is namespace/name/UID: the name to read the
// pod by, the UID to tell it from another pod given the same name since
// (by a controller, or by hand), which is not the provider's.

func podID(pod *corev1.Pod) string {
	return pod.Namespace + "/" + pod.Name + "/" + string(pod.UID)
}

// splitID reads an ID, or a bare name (an import), whose UID is then "".
func (c *Client) splitID(idOrName string) (namespace, name string, uid types.UID) {
	parts := strings.Split(idOrName, "/")
	switch len(parts) {
	case 3:
		return parts[0], parts[1], types.UID(parts[2])
	case 2:
		return parts[0], parts[1], ""
	}
	return c.namespace, idOrName, ""
}

// podName is the pod's name in an ID.
func podName(id string) string {
	parts := strings.Split(id, "/")
	if len(parts) >= 2 {
		return parts[1]
	}
	return id
}

// CreateContainer makes the sandbox's pod, its image pull secret first when
// the provider has credentials for its image's registry and its Secret
// when it has write-only environment or files, then its deny-all
// NetworkPolicy, all owned by the pod. What a failed create made is
// removed here when it can be; the rest carries the create token, by which
// the caller removes it.
func (c *Client) CreateContainer(ctx context.Context, spec engine.ContainerSpec) (string, error) {
	if err := c.refuseSpec(ctx, spec); err != nil {
		return "", err
	}
	ctx, cancel := engine.Uncancelled(ctx)
	defer cancel()
	token := spec.Labels[engine.LabelCreateToken]
	pod, err := podFor(spec, c.namespace, c.class)
	if err != nil {
		return "", invalid{err}
	}
	if c.agentSandbox {
		return c.createAgentSandbox(ctx, spec, pod)
	}
	secrets, err := c.makeSecrets(ctx, pod, spec)
	if err != nil {
		return "", err
	}
	made := &corev1.Pod{}
	if err := c.create(ctx, c.core, "pods", pod, made); err != nil {
		c.removeCompanions(ctx, token, secrets)
		return "", err
	}
	err = c.create(ctx, c.network, "networkpolicies", denyAll(made, token), &networkingv1.NetworkPolicy{})
	for _, name := range secrets {
		if err == nil {
			err = c.ownSecret(ctx, made, name)
		}
	}
	if err != nil {
		// A sandbox without its policy, or whose Secrets the cluster would
		// not remove with it, is not kept.
		if removeErr := c.RemoveContainer(ctx, podID(made)); removeErr != nil {
			return podID(made), err
		}
		c.removeCompanions(ctx, token, secrets)
		return "", err
	}
	return podID(made), nil
}

// refuseSpec refuses what a pod cannot carry, as the plan did with what it
// knew then: the cluster's rules, and the limits a pod has no place for
// (which the plan refuses through engine.Facts).
func (c *Client) refuseSpec(ctx context.Context, spec engine.ContainerSpec) error {
	planned := engine.PlannedSandbox{Spec: spec}
	for _, f := range spec.Files {
		planned.FilesBytes += len(f.Content)
	}
	if err := engine.Refused(c.RefuseSandbox(ctx, planned)); err != nil {
		return err
	}
	if limits := enforcement.Unenforced(spec); len(limits) > 0 {
		return invalid{fmt.Errorf("a pod cannot carry %s: %s; remove them (on %s)",
			strings.Join(limits, ", "), enforcement.Why, c.Where())}
	}
	return nil
}

// create posts obj to the resource and reads what the cluster made into
// out.
func (c *Client) create(ctx context.Context, client rest.Interface, resource string, obj, out runtime.Object) error {
	return c.call(ctx, "the request to create a "+singular(resource), engine.SlowCallTimeout, func(ctx context.Context) error {
		return client.Post().Namespace(c.namespace).Resource(resource).Param("fieldManager", fieldManager).
			Body(obj).Do(ctx).Into(out)
	})
}

// ownSecret makes the pod the owner of a Secret made for it before it (its
// environment's and files', its image pull secret), so that the cluster
// removes the Secret with the pod.
func (c *Client) ownSecret(ctx context.Context, pod *corev1.Pod, name string) error {
	return c.ownSecretBy(ctx, ownedBy(pod), name)
}

// ownSecretBy makes owner the owner of a Secret made before it.
func (c *Client) ownSecretBy(ctx context.Context, owner metav1.OwnerReference, name string) error {
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q}]}}`,
		owner.APIVersion, owner.Kind, owner.Name, owner.UID)
	return c.call(ctx, "the request to update a secret", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Patch(types.MergePatchType).Namespace(c.namespace).Resource("secrets").
			Name(name).Param("fieldManager", fieldManager).Body([]byte(patch)).Do(ctx).Error()
	})
}

// removeCompanions removes the NetworkPolicy and the Secrets made for the
// create with token, when no pod owns them to take them along: an undo,
// which does what it can.
func (c *Client) removeCompanions(ctx context.Context, token string, secrets []string) {
	_ = c.removeCompanionsIn(ctx, c.namespace, token, secrets)
}

// removeCompanionsIn removes, in namespace, the NetworkPolicy and the
// Secrets made for the create with token, each even when one before it
// failed, and returns the first failure other than one already gone.
func (c *Client) removeCompanionsIn(ctx context.Context, namespace, token string, secrets []string) error {
	var first error
	remove := func(client rest.Interface, resource, name string) {
		err := c.call(ctx, "the request to remove a "+singular(resource), engine.QuickCallTimeout, func(ctx context.Context) error {
			return client.Delete().Namespace(namespace).Resource(resource).Name(name).Body(deleteOptions("", 0)).
				Do(ctx).Error()
		})
		if err != nil && !engine.IsNotFound(err) && first == nil {
			first = err
		}
	}
	remove(c.network, "networkpolicies", companionName(token))
	for _, name := range secrets {
		remove(c.core, "secrets", name)
	}
	return first
}

func singular(resource string) string {
	if resource == "networkpolicies" {
		return "network policy"
	}
	return strings.TrimSuffix(resource, "s")
}

// getPod reads a pod by ID (or name). A pod of that name with another UID
// is not the sandbox: it is not found.
func (c *Client) getPod(ctx context.Context, idOrName string) (*corev1.Pod, error) {
	namespace, name, uid := c.splitID(idOrName)
	pod := &corev1.Pod{}
	err := c.call(ctx, "the request to read a pod", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(namespace).Resource("pods").Name(name).Do(ctx).Into(pod)
	})
	if isSandboxID(idOrName) {
		if err == nil && !controlledBy(pod, sandboxUID(uid)) {
			return nil, notFound{fmt.Errorf("pod %s/%s is not the pod of the Sandbox of UID %s", namespace, name,
				sandboxUID(uid))}
		}
		return pod, err
	}
	if err == nil && uid != "" && pod.UID != uid && !wokenFrom(pod, uid) {
		return nil, notFound{fmt.Errorf("pod %s/%s is another pod than the sandbox's (UID %s, not %s)",
			namespace, name, pod.UID, uid)}
	}
	return pod, err
}

// wokenFrom reports whether the provider made the pod by waking the
// sandbox whose first pod had the UID uid (sleep.go).
func wokenFrom(pod *corev1.Pod, uid types.UID) bool {
	return types.UID(pod.Annotations[annotationSandboxUID]) == uid && madeByProvider(pod)
}

// sandboxID is the ID of the sandbox whose pod this is: the pod's, or, for
// a pod a wake made, the one of the sandbox's first pod.
func sandboxID(pod *corev1.Pod) string {
	if uid := pod.Annotations[annotationSandboxUID]; uid != "" && madeByProvider(pod) {
		return pod.Namespace + "/" + pod.Name + "/" + uid
	}
	return podID(pod)
}

// InspectContainer reads the sandbox's pod and its NetworkPolicy, or, with
// no pod, the sandbox asleep (sleep.go).
func (c *Client) InspectContainer(ctx context.Context, idOrName string) (engine.Sandbox, error) {
	if isSandboxID(idOrName) {
		return c.inspectAgentSandbox(ctx, idOrName)
	}
	pod, err := c.getPod(ctx, idOrName)
	if id, ok := c.namedSandbox(ctx, idOrName, pod, err); ok {
		return c.inspectAgentSandbox(ctx, id)
	}
	if engine.IsNotFound(err) {
		if asleep, asleepErr := c.inspectAsleep(ctx, idOrName); asleepErr == nil {
			return asleep, nil
		}
	}
	if err != nil {
		return engine.Sandbox{}, err
	}
	policy, err := c.policyOf(ctx, pod)
	if err != nil {
		return engine.Sandbox{}, err
	}
	return c.observe(pod, policy), nil
}

// policyOf reads the deny-all NetworkPolicy made with the pod; nil when
// it is gone.
func (c *Client) policyOf(ctx context.Context, pod *corev1.Pod) (*networkingv1.NetworkPolicy, error) {
	policy := &networkingv1.NetworkPolicy{}
	err := c.call(ctx, "the request to read a network policy", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.network.Get().Namespace(pod.Namespace).Resource("networkpolicies").
			Name(companionName(pod.Labels[engine.LabelCreateToken])).Do(ctx).Into(policy)
	})
	if engine.IsNotFound(err) {
		return nil, nil
	}
	return policy, err
}

// StopContainer removes the pod, giving its processes graceSeconds to
// exit: a pod cannot be stopped and kept.
func (c *Client) StopContainer(ctx context.Context, id string, graceSeconds int) error {
	if isSandboxID(id) {
		return c.sleepAgentSandbox(ctx, id, graceSeconds)
	}
	if err := c.removePod(ctx, id, int64(graceSeconds)); !errors.Is(err, errNoPod) {
		return err
	}
	return nil
}

// RemoveContainer removes the pod at once (its NetworkPolicy and Secret go
// with it), and waits until the name is free; a sandbox asleep, its
// policy and Secrets. A pod that is gone, or is another pod than the
// sandbox's, counts as removed.
func (c *Client) RemoveContainer(ctx context.Context, id string) error {
	if isSandboxID(id) {
		return c.removeAgentSandbox(ctx, id)
	}
	if err := c.removePod(ctx, id, 0); !errors.Is(err, errNoPod) {
		return err
	}
	return c.removeAsleep(ctx, id)
}

// errNoPod is removePod's answer when the sandbox had no pod to remove.
var errNoPod = errors.New("the sandbox has no pod")

// removePod removes the sandbox's pod, giving its processes grace seconds,
// and waits until it is gone; errNoPod when there was none.
func (c *Client) removePod(ctx context.Context, id string, grace int64) error {
	namespace, name, uid := c.splitID(id)
	err := c.call(ctx, "the request to remove a pod", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.core.Delete().Namespace(namespace).Resource("pods").Name(name).
			Body(deleteOptions(uid, grace)).Do(ctx).Error()
	})
	if engine.IsConflict(err) && uid != "" {
		// Another pod has the name, or the pod a wake made.
		pod, getErr := c.getPod(ctx, id)
		if getErr != nil || pod.UID == uid {
			return errNoPod
		}
		return c.removePod(ctx, podID(pod), grace)
	}
	if engine.IsNotFound(err) {
		return errNoPod
	}
	if err != nil {
		return err
	}
	return waitGone(ctx, "pod "+namespace+"/"+name, engine.SlowCallTimeout+time.Duration(grace)*time.Second,
		func(ctx context.Context) bool {
			_, err := c.getPod(ctx, id)
			return engine.IsNotFound(err)
		})
}

// waitGone waits, up to limit, until gone reports that the object whose
// removal was asked is gone.
func waitGone(ctx context.Context, what string, limit time.Duration, gone func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for !gone(ctx) {
		if ctx.Err() != nil {
			return fmt.Errorf("%s was still there %s after its removal was asked", what, limit)
		}
		select {
		case <-ctx.Done():
		case <-time.After(gonePoll):
		}
	}
	return nil
}

// gonePoll is how often waitGone asks: a pod removed with no grace is gone
// within a second or two, and each of a destroy's sandboxes waits for its
// own, so a coarser step adds half of itself to every one.
const gonePoll = 100 * time.Millisecond

// deleteOptions removes only the pod of the given UID (any, when empty),
// and what it owns after it.
func deleteOptions(uid types.UID, grace int64) *metav1.DeleteOptions {
	background := metav1.DeletePropagationBackground
	opts := &metav1.DeleteOptions{GracePeriodSeconds: &grace, PropagationPolicy: &background}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	return opts
}

// ContainersCreatedWith lists the sandboxes the provider made with the
// create token, awake (their pods) and asleep (sleep.go).
func (c *Client) ContainersCreatedWith(ctx context.Context, token string) ([]string, error) {
	return c.listSandboxes(ctx, engine.LabelCreateToken+"="+token, nil, "")
}

// ManagedContainers lists the sandboxes the provider made, awake and
// asleep, that carry every label in labels, with a name that starts with
// namePrefix.
func (c *Client) ManagedContainers(ctx context.Context, labels map[string]string, namePrefix string) ([]string, error) {
	return c.listSandboxes(ctx, engine.LabelManagedBy+"="+engine.ManagedByValue, labels, namePrefix)
}

// listSandboxes lists the sandboxes awake (listPods) and asleep
// (listAsleep) as the selector, labels and namePrefix choose them.
func (c *Client) listSandboxes(ctx context.Context, selector string, labels map[string]string, namePrefix string) ([]string, error) {
	awake, err := c.listPods(ctx, selector, labels, namePrefix)
	if err != nil {
		return nil, err
	}
	asleep, err := c.listAsleep(ctx, selector, labels, namePrefix)
	if err != nil {
		return nil, err
	}
	sandboxes, err := c.listAgentSandboxes(ctx, selector, labels, namePrefix)
	return slices.Concat(awake, asleep, sandboxes), err
}

// listPods lists the IDs of the pods that the selector selects, that the
// provider made (provenance.go), and whose labels (as the sandbox was
// given them) hold labels.
func (c *Client) listPods(ctx context.Context, selector string, labels map[string]string, namePrefix string) ([]string, error) {
	list := &corev1.PodList{}
	err := c.call(ctx, "the request to list pods", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource("pods").
			VersionedParams(&metav1.ListOptions{LabelSelector: selector}, c.params).Do(ctx).Into(list)
	})
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range list.Items {
		pod := &list.Items[i]
		if !madeByProvider(pod) || !strings.HasPrefix(pod.Name, namePrefix) || pod.DeletionTimestamp != nil {
			continue
		}
		if holds(sandboxLabels(pod), labels) {
			ids = append(ids, sandboxID(pod))
		}
	}
	return ids, nil
}
