package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox's expiry on a cluster is its pod's activeDeadlineSeconds: the
// kubelet ends the pod that long after it started, whatever runs in it,
// and the pod stays, failed (DeadlineExceeded), with its claims, Secret
// and policy. A renewal makes the pod again (a deadline cannot be
// lengthened), as a wake does (sleep.go).

// annotationExpiresAt is the sandbox's expiry, which the pod's
// activeDeadlineSeconds enforces.
const annotationExpiresAt = engine.LabelExpiresAt

// expiryGraceSeconds is how long a pod's processes get to exit at its
// expiry: the kubelet's least grace period. The pod's own would be 30 s
// by default, which a process that ignores SIGTERM would get; a deletion
// gives its own grace period (stop_timeout).
const expiryGraceSeconds = 2

// setExpiry gives the pod, made at now, the deadline of the expiry at,
// and records it; nothing for a zero expiry.
func setExpiry(pod *corev1.Pod, at, now time.Time) {
	if at.IsZero() {
		return
	}
	pod.Spec.ActiveDeadlineSeconds = ptr(engine.DeadlineSeconds(at, now))
	pod.Spec.TerminationGracePeriodSeconds = ptr(int64(expiryGraceSeconds))
	pod.Annotations[annotationExpiresAt] = at.UTC().Format(time.RFC3339)
}
