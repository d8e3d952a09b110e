package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A Sandbox carries the pod the provider would make as its template, with
// the expiry as its shutdownTime instead of the pod's deadline, no
// Service, and its pods kept past the shutdownTime's end (Retain).
func TestAgentSandboxFor(t *testing.T) {
	spec := hardened()
	at := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	spec.ExpiresAt = at
	pod, err := podFor(spec, "sandboxes", "gvisor")
	if err != nil {
		t.Fatal(err)
	}
	s := agentSandboxFor(pod)
	tmpl := s.Spec.PodTemplate.Spec
	switch {
	case s.Kind != "Sandbox" || s.APIVersion != "agents.x-k8s.io/v1beta1":
		t.Errorf("kind %s/%s", s.APIVersion, s.Kind)
	case tmpl.RuntimeClassName == nil || *tmpl.RuntimeClassName != "gvisor" || tmpl.AutomountServiceAccountToken == nil ||
		*tmpl.AutomountServiceAccountToken:
		t.Errorf("the template's RuntimeClass %v, token %v", tmpl.RuntimeClassName, tmpl.AutomountServiceAccountToken)
	case tmpl.ActiveDeadlineSeconds != nil || pod.Spec.ActiveDeadlineSeconds == nil:
		t.Errorf("the template keeps the pod's deadline (%v), which a next pod would count again", tmpl.ActiveDeadlineSeconds)
	case s.Spec.ShutdownTime == nil || !s.Spec.ShutdownTime.Time.Equal(at) || s.Spec.ShutdownPolicy != shutdownRetain:
		t.Errorf("shutdown %v (%s), want %v, Retain", s.Spec.ShutdownTime, s.Spec.ShutdownPolicy, at)
	case s.Spec.Service == nil || *s.Spec.Service || s.Spec.OperatingMode != modeRunning:
		t.Errorf("service %v, mode %q", s.Spec.Service, s.Spec.OperatingMode)
	case s.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken] == "":
		t.Error("the template's pods carry no create token, which the deny-all policy selects them by")
	}
}

// A Sandbox's ID marks its UID, and only the pod its controller made for
// that Sandbox is its pod.
func TestAgentSandboxIDs(t *testing.T) {
	s := &agentSandbox{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "u-1"}}
	id := agentSandboxID(s)
	if id != "ns/agent/sandbox:u-1" || !isSandboxID(id) || isSandboxID("ns/agent/u-1") || isSandboxID("agent") {
		t.Errorf("ID %q", id)
	}
	if _, _, uid := testClient.splitID(id); sandboxUID(uid) != "u-1" {
		t.Errorf("UID %q", sandboxUID(uid))
	}
	owned := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "agents.x-k8s.io/v1beta1", Kind: "Sandbox", Name: "agent", UID: "u-1", Controller: ptr(true)}}}}
	if !controlledBy(owned, "u-1") || controlledBy(owned, types.UID("u-2")) {
		t.Error("the Sandbox's pod")
	}
	owned.OwnerReferences[0].Controller = nil
	if controlledBy(owned, "u-1") {
		t.Error("a pod the Sandbox owns but does not control is not its pod")
	}
}

// Without a pod, a Sandbox is asleep while suspended, ended past its
// shutdownTime (as its spec says, whatever its conditions still say), and
// else about to start.
func TestAgentSandboxState(t *testing.T) {
	now := time.Now()
	past, future := &metav1.Time{Time: now.Add(-time.Minute)}, &metav1.Time{Time: now.Add(time.Minute)}
	for _, c := range []struct {
		mode     string
		shutdown *metav1.Time
		want     string
	}{
		{modeSuspended, nil, engine.StatusAsleep}, {modeSuspended, past, engine.StatusAsleep},
		{modeRunning, past, "exited"}, {modeRunning, future, "created"}, {modeRunning, nil, "created"},
	} {
		s := &agentSandbox{Spec: agentSandboxSpec{OperatingMode: c.mode, ShutdownTime: c.shutdown}}
		if got := agentSandboxState(s, now).Status; got != c.want {
			t.Errorf("%s, shutdown %v: %q, want %q", c.mode, c.shutdown, got, c.want)
		}
	}
}
