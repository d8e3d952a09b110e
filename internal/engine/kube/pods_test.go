package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStartState: which pods StartContainer waits for, which have started,
// and which will not start without a change; and what the scheduler said
// of a pod it placed nowhere, which a wait that runs out reports.
func TestStartState(t *testing.T) {
	unschedulable := func(message string) corev1.PodCondition {
		return corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: message}
	}
	waiting := func(reason string) corev1.ContainerStatus {
		return corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason,
			Message: "m"}}}
	}
	taint := "0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: not helpful."
	for _, tc := range []struct {
		name        string
		pod         corev1.Pod
		started     bool
		stuck       string
		unscheduled string
	}{
		{name: "just made", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}},
		// The CI failure this guards: a node that is Ready but not yet
		// untainted, or one the cluster is adding, places the pod later.
		{name: "on no node yet", unscheduled: taint, pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{unschedulable("  " + taint + "\n")}}}},
		{name: "its claim not bound yet", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{unschedulable(`0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.`)}}}},
		{name: "scheduled, not an unschedulable reason", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated",
				Message: "gated"}}}}},
		{name: "running", started: true, pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}},
		{name: "ended", started: true, pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}},
		{name: "restarted", started: true, pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{{RestartCount: 1, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}}}},
		{name: "image not pulled", stuck: "ErrImageNeverPull: m", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			ContainerStatuses: []corev1.ContainerStatus{waiting("ErrImageNeverPull")}}}},
		{name: "its configuration refused at once", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Now()},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{waiting("CreateContainerConfigError")}}}},
		{name: "its configuration still refused", stuck: "CreateContainerConfigError: m", pod: corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Minute))},
			Status:     corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{waiting("CreateContainerConfigError")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started, stuck := startState(&tc.pod)
			if started != tc.started || stuck != tc.stuck {
				t.Errorf("startState = %v, %q; want %v, %q", started, stuck, tc.started, tc.stuck)
			}
			if got := unscheduled(&tc.pod); got != tc.unscheduled {
				t.Errorf("unscheduled = %q; want %q", got, tc.unscheduled)
			}
		})
	}
}

// A wait whose deadline came reports what the last read of the pod showed,
// even when the deadline cut off the read after it (the CI failure this
// guards: under load the error said only "context deadline exceeded").
func TestNotStartedInTimeSaysWhatTheLastReadShowed(t *testing.T) {
	t.Parallel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/1 nodes are available: 1 Insufficient memory."}}}}
	err := notStartedInTime(pod, "default/p", context.DeadlineExceeded, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "placed on no node in time") ||
		!strings.Contains(err.Error(), "Insufficient memory") {
		t.Errorf("notStartedInTime = %v", err)
	}
	pod.Status.Conditions = nil
	if err := notStartedInTime(pod, "default/p", context.DeadlineExceeded, nil); !strings.Contains(err.Error(), "its phase is Pending") {
		t.Errorf("notStartedInTime of a pod placed = %v", err)
	}
}

// A refused pull judges the pod's pull secrets only when the kubelet had
// read them for it: on a loaded cluster it may not have (its event
// FailedToRetrieveImagePullSecret, the CI failure this guards), and then
// it pulls again with them.
func TestSecretsMissedLast(t *testing.T) {
	t.Parallel()
	event := func(reason string, count int32) corev1.Event { return corev1.Event{Reason: reason, Count: count} }
	for _, tc := range []struct {
		name   string
		events []corev1.Event
		missed bool
	}{
		{"no events yet", nil, false},
		{"pulled with them", []corev1.Event{event("Scheduled", 1), event("Pulling", 1), event("Failed", 1)}, false},
		{"missed them, then pulled", []corev1.Event{event(secretsMissed, 1), event("Pulling", 1), event("Failed", 1)}, true},
		{"missed them, before the pull is told", []corev1.Event{event(secretsMissed, 1)}, true},
		{"missed them once, pulled twice", []corev1.Event{event(secretsMissed, 1), event("Pulling", 2),
			event("BackOff", 1)}, false},
		{"missed them twice, pulled twice", []corev1.Event{event(secretsMissed, 2), event("Pulling", 2)}, true},
		{"an event with no count counts once", []corev1.Event{event(secretsMissed, 0), event("Pulling", 1),
			event("Pulling", 1)}, false},
	} {
		if got := secretsMissedLast(tc.events); got != tc.missed {
			t.Errorf("%s: secretsMissedLast = %v, want %v", tc.name, got, tc.missed)
		}
	}
}

// A wait that ran out while the kubelet could not read the pod's pull
// secrets says so, and keeps the registry's refusal for the caller.
func TestNotStartedInTimeNamesPullSecretsTheKubeletCouldNotRead(t *testing.T) {
	t.Parallel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	refused := errors.New("the registry r refused the credentials")
	err := notStartedInTime(pod, "default/p", context.DeadlineExceeded, refused)
	if !errors.Is(err, refused) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), secretsMissed) {
		t.Errorf("notStartedInTime = %v", err)
	}
}
