package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// startPoll is how often StartContainer looks at a starting pod.
const startPoll = 250 * time.Millisecond

// StartContainer waits until the pod's container has started (the kubelet
// starts a pod by itself), or says why it does not: its image not pulled,
// its configuration refused. A container that started and ended is the
// caller's to judge. Pulling an image can take long, and a pod no node
// takes now may be placed later (a node that is not ready yet, one the
// cluster adds, a pod that frees its room): the wait is bounded by the
// caller's deadline (the create timeout), each read by its own, and ends
// saying what the scheduler said last.
func (c *Client) StartContainer(ctx context.Context, id string) error {
	var last *corev1.Pod
	var refusedWithout error // a refusal of a pull the kubelet made without the pod's pull secrets
	for {
		pod, err := c.getPod(ctx, id)
		if engine.IsNotFound(err) && isSandboxID(id) {
			// The Sandbox's controller has not made its pod yet.
			pod, err = c.awaitedPod(ctx, id)
		}
		if err != nil && last != nil && ctx.Err() != nil {
			// The deadline came during a read: what the last read showed
			// says why the pod did not start.
			return notStartedInTime(last, id, ctx.Err(), refusedWithout)
		}
		if err != nil {
			return err
		}
		last = pod
		if started, why := startState(pod); started {
			return nil
		} else if why != "" {
			refused := c.pullRefused(pod, why)
			if refused == nil {
				return fmt.Errorf("pod %s does not start: %s", pod.Name, why)
			}
			if !c.pulledWithoutSecrets(ctx, pod) {
				return fmt.Errorf("pod %s does not start: %w", pod.Name, refused)
			}
			refusedWithout = refused // the kubelet pulls again, with them
		}
		select {
		case <-ctx.Done():
			return notStartedInTime(pod, id, ctx.Err(), refusedWithout)
		case <-time.After(startPoll):
		}
	}
}

// notStartedInTime says why the pod of the sandbox id, as last read, had
// not started when the wait's deadline came (cause); refused, when not
// nil, is a refusal of a pull the kubelet made without the pod's image
// pull secrets, which it had not read by then.
func notStartedInTime(pod *corev1.Pod, id string, cause, refused error) error {
	if refused != nil {
		return fmt.Errorf("pod %s did not start in time: its node's kubelet could not read its image pull "+
			"secrets before its pulls (its events say FailedToRetrieveImagePullSecret), and %w; the node's "+
			"log says why it cannot read them: %w", podName(id), refused, cause)
	}
	if why := unscheduled(pod); why != "" {
		return fmt.Errorf("pod %s was placed on no node in time: the scheduler says %s; a cluster that "+
			"adds nodes may need a longer timeouts.create: %w", pod.Name, why, cause)
	}
	if waitsForClaims(pod) {
		return fmt.Errorf("pod %s did not start in time: a persistent volume claim it mounts (a "+
			"sandbox_volume) is bound to no volume; the cluster's default StorageClass must provision "+
			"one (kubectl get pvc,storageclass): %w", podName(id), cause)
	}
	return fmt.Errorf("pod %s did not start in time (its phase is %s): %w", podName(id), pod.Status.Phase, cause)
}

// awaitedPod stands for the pod of a Sandbox its controller has not made
// yet: a pod not yet scheduled, while the Sandbox is there.
func (c *Client) awaitedPod(ctx context.Context, id string) (*corev1.Pod, error) {
	s, err := c.getAgentSandbox(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.expired(time.Now()) {
		return nil, fmt.Errorf("the Sandbox %s is past its shutdownTime (%s): renew its expiry (expires_after or expires_at)", s.Name,
			s.Spec.ShutdownTime.UTC().Format(time.RFC3339))
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}, nil
}

// stuckReasons are the waiting reasons of a container the kubelet will not
// start without a change.
var stuckReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
}

// claimsBinding is how the scheduler says that a claim the pod mounts is
// not bound to a volume yet: the cluster's provisioner is making one, and
// the scheduler tries again once it has (the create timeout bounds the
// wait for a class that never provisions).
const claimsBinding = "unbound immediate PersistentVolumeClaims"

// waitsForClaims reports whether the scheduler waits for the pod's
// claims to be bound.
func waitsForClaims(pod *corev1.Pod) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && strings.Contains(cond.Message, claimsBinding) {
			return true
		}
	}
	return false
}

// unscheduled is what the scheduler said of a pod it could place on no
// node ("0/1 nodes are available: ..."), but for a wait for its claims;
// "" when it did not say so.
func unscheduled(pod *corev1.Pod) string {
	if waitsForClaims(pod) {
		return ""
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
			return strings.TrimSpace(cond.Message)
		}
	}
	return ""
}

// startState reports whether the pod's container has started (it runs, or
// ran), or why it cannot without a change. A pod not placed on a node yet
// is waited for (StartContainer).
func startState(pod *corev1.Pod) (bool, string) {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return true, ""
	}
	for _, s := range pod.Status.ContainerStatuses {
		switch {
		case s.State.Running != nil || s.State.Terminated != nil || s.RestartCount > 0:
			return true, ""
		case s.State.Waiting != nil && stuckReasons[s.State.Waiting.Reason] &&
			(s.State.Waiting.Reason != "CreateContainerConfigError" || pod.CreationTimestamp.Add(10*time.Second).Before(time.Now())):
			return false, s.State.Waiting.Reason + ": " + s.State.Waiting.Message
		}
	}
	return false, ""
}
