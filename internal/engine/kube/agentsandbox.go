package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// On a cluster that runs agent-sandbox (kubernetes-sigs/agent-sandbox) and
// where the provider is told to use it (Config.AgentSandbox), a sandbox is
// an agents.x-k8s.io/v1beta1 Sandbox: its controller makes the pod from
// the Sandbox's pod template (the pod the provider would make), names it
// after the Sandbox and owns it, deletes it while the Sandbox is suspended
// (operatingMode: Suspended) and at its shutdownTime. The provider's
// deny-all NetworkPolicy and its Secrets are owned by the Sandbox, so they
// outlive the pods the controller makes and go with the Sandbox. A
// Sandbox's ID is its namespace, name and UID, the UID marked with
// sandboxUIDPrefix, so that every call that takes an ID knows which kind
// of sandbox it names.
//
// The types below are the part of agent-sandbox's v1beta1 API (v1.0.1)
// that the provider writes and reads, declared here rather than imported:
// its module brings a newer client-go and controller-runtime into every
// provider process.

// The API group and version of agent-sandbox's Sandbox.
const (
	agentsGroup   = "agents.x-k8s.io"
	agentsVersion = "v1beta1"
)

// sandboxUIDPrefix marks the UID in an ID as a Sandbox's.
const sandboxUIDPrefix = "sandbox:"

// agentSandbox is an agents.x-k8s.io/v1beta1 Sandbox.
type agentSandbox struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              agentSandboxSpec   `json:"spec"`
	Status            agentSandboxStatus `json:"status,omitempty"`
}

type agentSandboxSpec struct {
	PodTemplate agentPodTemplate `json:"podTemplate"`
	// Service asks for a headless Service: never, since nothing reaches a
	// sandbox over the network.
	Service        *bool        `json:"service,omitempty"`
	OperatingMode  string       `json:"operatingMode,omitempty"`
	ShutdownTime   *metav1.Time `json:"shutdownTime,omitempty"`
	ShutdownPolicy string       `json:"shutdownPolicy,omitempty"`
}

type agentPodTemplate struct {
	Metadata agentPodMetadata `json:"metadata"`
	Spec     corev1.PodSpec   `json:"spec"`
}

type agentPodMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type agentSandboxStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type agentSandboxList struct {
	Items []agentSandbox `json:"items"`
}

// The operating modes and the shutdown policy the provider uses: a
// Sandbox past its shutdownTime is kept (its claims, Secret and policy
// with it), as an expired sandbox is on every backend.
const (
	modeRunning    = "Running"
	modeSuspended  = "Suspended"
	shutdownRetain = "Retain"
)

// isSandboxID reports whether id names an agent-sandbox Sandbox: its UID,
// the last of its three parts, is marked.
func isSandboxID(id string) bool {
	return strings.Count(id, "/") == 2 && strings.HasPrefix(id[strings.LastIndex(id, "/")+1:], sandboxUIDPrefix)
}

// agentSandboxID is the ID of a Sandbox.
func agentSandboxID(s *agentSandbox) string {
	return s.Namespace + "/" + s.Name + "/" + sandboxUIDPrefix + string(s.UID)
}

// sandboxUID is the Sandbox's UID in an ID, "" when it gives none.
func sandboxUID(uid types.UID) types.UID {
	return types.UID(strings.TrimPrefix(string(uid), sandboxUIDPrefix))
}

// agentSandboxFor is the Sandbox a spec asks for: the pod podFor makes, as
// its pod template, and the expiry as its shutdownTime (a pod's
// activeDeadlineSeconds would count again from each pod the controller
// makes).
func agentSandboxFor(pod *corev1.Pod) *agentSandbox {
	tmpl := pod.DeepCopy()
	tmpl.Spec.ActiveDeadlineSeconds = nil
	s := &agentSandbox{
		TypeMeta: metav1.TypeMeta{APIVersion: agentsGroup + "/" + agentsVersion, Kind: "Sandbox"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, GenerateName: pod.GenerateName, Namespace: pod.Namespace,
			Labels: pod.Labels, Annotations: pod.Annotations},
		Spec: agentSandboxSpec{
			PodTemplate: agentPodTemplate{
				Metadata: agentPodMetadata{Labels: tmpl.Labels, Annotations: tmpl.Annotations},
				Spec:     tmpl.Spec,
			},
			Service: ptr(false), OperatingMode: modeRunning, ShutdownPolicy: shutdownRetain,
		},
	}
	if at := engine.ExpiryOf(pod.Annotations); !at.IsZero() {
		s.Spec.ShutdownTime = &metav1.Time{Time: at}
	}
	return s
}

// templatePod is the pod a Sandbox's template makes, as the controller
// makes it: for judging the template as the provider judges a pod.
func templatePod(s *agentSandbox) *corev1.Pod {
	return podOfTemplate(s.ObjectMeta, s.Spec.PodTemplate)
}

// controlledBy reports whether the pod's controller is the Sandbox of UID
// uid: the pod the Sandbox's controller made for it.
func controlledBy(pod *corev1.Pod, uid types.UID) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.Kind == "Sandbox" && ref.UID == uid && strings.HasPrefix(ref.APIVersion, agentsGroup+"/")
}

// expired reports whether the Sandbox is past its shutdownTime. Its spec
// says, not its Ready condition, which its controller updates later (and
// which still says SandboxExpired for a moment after a renewal).
func (s *agentSandbox) expired(now time.Time) bool {
	return s.Spec.ShutdownTime != nil && !now.Before(s.Spec.ShutdownTime.Time)
}

// getAgentSandbox reads the Sandbox an ID names; another Sandbox of that
// name is not found.
func (c *Client) getAgentSandbox(ctx context.Context, id string) (*agentSandbox, error) {
	namespace, name, uid := c.splitID(id)
	s, err := c.readAgentSandbox(ctx, namespace, name)
	if err == nil && s.UID != sandboxUID(uid) {
		return nil, notFound{fmt.Errorf("the Sandbox %s/%s is another than the sandbox's (UID %s, not %s)",
			namespace, name, s.UID, sandboxUID(uid))}
	}
	return s, err
}

// patchAgentSandbox merges patch (its spec, its metadata) into the Sandbox.
func (c *Client) patchAgentSandbox(ctx context.Context, s *agentSandbox, patch map[string]any) error {
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	return c.call(ctx, "the request to update a Sandbox", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.agents.Patch(types.MergePatchType).Namespace(s.Namespace).Resource("sandboxes").Name(s.Name).
			Param("fieldManager", fieldManager).Body(body).Do(ctx).Error()
	})
}

// sandboxOwner is the owner reference that makes a Sandbox own its
// policy and Secrets.
func sandboxOwner(s *agentSandbox) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: agentsGroup + "/" + agentsVersion, Kind: "Sandbox", Name: s.Name,
		UID: s.UID}
}

// namedSandbox is the ID of the Sandbox that a name (with no UID, as an
// import gives one) names: the Sandbox that controls the pod of that name,
// or, with no pod (a Sandbox asleep or expired), the Sandbox of that name.
// pod and podErr are the read of the pod by that name.
func (c *Client) namedSandbox(ctx context.Context, idOrName string, pod *corev1.Pod, podErr error) (string, bool) {
	namespace, name, uid := c.splitID(idOrName)
	switch {
	case uid != "":
		return "", false
	case podErr == nil:
		ref := metav1.GetControllerOf(pod)
		if ref == nil || ref.Kind != "Sandbox" || !strings.HasPrefix(ref.APIVersion, agentsGroup+"/") {
			return "", false
		}
		return namespace + "/" + ref.Name + "/" + sandboxUIDPrefix + string(ref.UID), true
	case !engine.IsNotFound(podErr):
		return "", false
	}
	s, err := c.readAgentSandbox(ctx, namespace, name)
	if err != nil {
		return "", false
	}
	return agentSandboxID(s), true
}

// readAgentSandbox reads the Sandbox of that name, whichever it is.
func (c *Client) readAgentSandbox(ctx context.Context, namespace, name string) (*agentSandbox, error) {
	s := &agentSandbox{}
	return s, c.getObject(ctx, c.agents, namespace, "sandboxes", name, s)
}
