package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// A pod as the resources read a sandbox (engine.Sandbox): its spec and
// status as the seam's engine.Container, and its network and namespaces in
// a cluster's own terms (isolation.Pod: host network, PID and IPC,
// RuntimeClass, extra networks and its NetworkPolicy), for the verdict.

// dockerShmBytes is the /dev/shm a pod's container gets, which is what a
// Docker container gets by default.
const dockerShmBytes = 64 << 20

// observe is what the cluster shows of the sandbox's pod.
func (c *Client) observe(pod *corev1.Pod, policy *networkingv1.NetworkPolicy) engine.Sandbox {
	spec := sandboxContainer(pod)
	status := containerStatus(pod, spec.Name)
	return engine.Sandbox{
		Container: engine.Container{
			ID: sandboxID(pod), Name: pod.Name, Created: pod.CreationTimestamp.UTC().Format(time.RFC3339Nano),
			Image: imageID(spec, status), State: containerState(pod, status), RestartCount: int(status.RestartCount),
			HostConfig: c.hostConfig(pod, spec),
			Mounts:     workspacesOf(pod, spec),
			ExpiresAt:  engine.ExpiryOf(pod.Annotations),
			Config: &engine.ContainerConfig{
				Image: spec.Image, Entrypoint: spec.Command, Cmd: spec.Args, Env: literalEnv(spec),
				Labels: sandboxLabels(pod), User: user(spec), WorkingDir: spec.WorkingDir, Hostname: pod.Name,
			},
		},
		Network: isolation.Observed{Pod: &isolation.Pod{
			HostNetwork: pod.Spec.HostNetwork, HostPID: pod.Spec.HostPID, HostIPC: pod.Spec.HostIPC,
			RuntimeClass: deref(pod.Spec.RuntimeClassName), IsolatedClass: c.class,
			ServiceAccountToken: pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken,
			ExtraNetworks:       extraNetworks(pod), Policy: policyState(pod.Labels[engine.LabelCreateToken], policy),
		}},
	}
}

// hostConfig is what the pod's spec applies on the node: privileges,
// runtime, limits and restart policy (its network is the Pod of observe).
func (c *Client) hostConfig(pod *corev1.Pod, spec corev1.Container) *engine.HostConfig {
	h := &engine.HostConfig{
		Init:    ptr(deref(pod.Spec.ShareProcessNamespace)),
		ShmSize: dockerShmBytes, Runtime: c.runtimeOf(pod), Tmpfs: tmpfsOf(pod, spec),
		RestartPolicy: restartOf(pod),
	}
	if sc := spec.SecurityContext; sc != nil {
		h.ReadonlyRootfs = deref(sc.ReadOnlyRootFilesystem)
		h.Privileged = deref(sc.Privileged)
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				h.CapAdd = append(h.CapAdd, string(c))
			}
			for _, c := range sc.Capabilities.Drop {
				h.CapDrop = append(h.CapDrop, string(c))
			}
		}
		if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
			h.SecurityOpt = append(h.SecurityOpt, "no-new-privileges")
		}
	}
	if seccompOf(pod, spec) == corev1.SeccompProfileTypeUnconfined {
		h.SecurityOpt = append(h.SecurityOpt, "seccomp=unconfined")
	}
	if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; ok {
		// A pod's memory limit covers its memory, with no swap beside.
		h.Memory, h.MemorySwap = q.Value(), q.Value()
	}
	if q, ok := spec.Resources.Limits[corev1.ResourceCPU]; ok {
		h.NanoCPUs = q.MilliValue() * 1e6
	}
	return h
}

// runtimeOf is the runtime the sandbox was asked to run under, while its
// pod runs in the RuntimeClass sandboxes run in; otherwise the class it
// runs in ("" for none), which is not one a sandbox asks for.
func (c *Client) runtimeOf(pod *corev1.Pod) string {
	class := deref(pod.Spec.RuntimeClassName)
	if class == c.class {
		return pod.Annotations[annotationRuntime]
	}
	if class == "" {
		return "default"
	}
	return class
}

// seccompOf is the container's seccomp profile type, or its pod's.
func seccompOf(pod *corev1.Pod, spec corev1.Container) corev1.SeccompProfileType {
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		return sc.SeccompProfile.Type
	}
	if sc := pod.Spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		return sc.SeccompProfile.Type
	}
	return ""
}

// restartOf is the Docker restart policy the sandbox asked for, while its
// pod's policy is what that asks; otherwise the pod's, in Docker's words.
func restartOf(pod *corev1.Pod) string {
	asked := pod.Annotations[annotationRestart]
	if policy, err := restartPolicy(asked); err == nil && policy == pod.Spec.RestartPolicy {
		return asked
	}
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyAlways:
		return "always"
	case corev1.RestartPolicyOnFailure:
		return "on-failure"
	}
	return "no"
}

// workspacesOf are the claims the pod's sandbox container mounts, as the
// engine shows a container's named volumes.
func workspacesOf(pod *corev1.Pod, spec corev1.Container) []engine.MountPoint {
	var out []engine.MountPoint
	for _, m := range spec.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name == m.Name && v.PersistentVolumeClaim != nil {
				out = append(out, engine.MountPoint{
					Type: engine.MountVolume, Name: v.PersistentVolumeClaim.ClaimName, Destination: m.MountPath,
					RW: !m.ReadOnly && !v.PersistentVolumeClaim.ReadOnly,
				})
			}
		}
	}
	return out
}

// tmpfsOf is the tmpfs mounts as the sandbox asked for them, while the
// pod's memory-backed volumes are mounted where they were asked; otherwise
// those volumes, by their size.
func tmpfsOf(pod *corev1.Pod, spec corev1.Container) map[string]string {
	shown := map[string]string{}
	for _, m := range spec.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name == m.Name && v.EmptyDir != nil && v.EmptyDir.Medium == corev1.StorageMediumMemory {
				shown[m.MountPath] = ""
				if v.EmptyDir.SizeLimit != nil {
					shown[m.MountPath] = fmt.Sprintf("size=%d", v.EmptyDir.SizeLimit.Value())
				}
			}
		}
	}
	var asked map[string]string
	if json.Unmarshal([]byte(pod.Annotations[annotationTmpfs]), &asked) == nil && samePaths(asked, shown) {
		return asked
	}
	if len(shown) == 0 {
		return nil
	}
	return shown
}

func samePaths(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// sandboxContainer is the pod's sandbox container (the first, in a pod
// someone else made).
func sandboxContainer(pod *corev1.Pod) corev1.Container {
	for _, c := range pod.Spec.Containers {
		if c.Name == containerName {
			return c
		}
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0]
	}
	return corev1.Container{}
}

func containerStatus(pod *corev1.Pod, name string) corev1.ContainerStatus {
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name == name {
			return s
		}
	}
	return corev1.ContainerStatus{}
}

// containerState is the container's state in Docker's words: a container
// the kubelet waits to restart (CrashLoopBackOff) is restarting, as Docker
// says of one its restart policy restarts.
func containerState(pod *corev1.Pod, s corev1.ContainerStatus) *engine.ContainerState {
	st := &engine.ContainerState{Status: "created"}
	switch {
	case pod.DeletionTimestamp != nil:
		st.Status = "removing"
	case s.State.Running != nil:
		st.Status, st.Running = "running", true
		st.StartedAt = s.State.Running.StartedAt.UTC().Format(time.RFC3339Nano)
	case s.State.Terminated != nil:
		t := s.State.Terminated
		st.Status, st.ExitCode = "exited", int(t.ExitCode)
		st.StartedAt, st.FinishedAt = t.StartedAt.UTC().Format(time.RFC3339Nano), t.FinishedAt.UTC().Format(time.RFC3339Nano)
	case s.State.Waiting != nil && s.RestartCount > 0:
		st.Status, st.Restarting = "restarting", true
		if t := s.LastTerminationState.Terminated; t != nil {
			st.ExitCode = int(t.ExitCode)
			st.FinishedAt = t.FinishedAt.UTC().Format(time.RFC3339Nano)
		}
	}
	st.OOMKilled = s.LastTerminationState.Terminated != nil && s.LastTerminationState.Terminated.Reason == "OOMKilled"
	return st
}

// imageID is the image the container runs, as the node resolved it once
// it started; the pod's image reference before.
func imageID(spec corev1.Container, s corev1.ContainerStatus) string {
	if s.ImageID != "" {
		return s.ImageID
	}
	return spec.Image
}

// literalEnv is the container's environment given by value; variables
// from the sandbox's Secret are named without it.
func literalEnv(spec corev1.Container) []string {
	env := make([]string, 0, len(spec.Env))
	for _, e := range spec.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	return env
}

// user is the container's user as Docker writes it, "UID[:GID]".
func user(spec corev1.Container) string {
	sc := spec.SecurityContext
	if sc == nil || sc.RunAsUser == nil {
		return ""
	}
	u := fmt.Sprint(*sc.RunAsUser)
	if sc.RunAsGroup != nil {
		u += fmt.Sprintf(":%d", *sc.RunAsGroup)
	}
	return u
}

// sandboxLabels are the labels the sandbox was given, kept whole in an
// annotation; a pod without it shows its own labels. A pod the provider
// did not make (provenance.go) shows none of the provider's, whatever it
// copied.
func sandboxLabels(pod *corev1.Pod) map[string]string {
	var labels map[string]string
	if err := json.Unmarshal([]byte(pod.Annotations[annotationLabels]), &labels); err != nil || labels == nil {
		labels = maps.Clone(pod.Labels)
	}
	if !madeByProvider(pod) {
		maps.DeleteFunc(labels, func(k, _ string) bool { return engine.IsProviderLabel(k) })
	}
	return labels
}

// extraNetworks are the networks Multus's annotation asks for, as a list
// of names or as JSON.
func extraNetworks(pod *corev1.Pod) []string {
	value := strings.TrimSpace(pod.Annotations[annotationNetworks])
	if value == "" {
		return nil
	}
	var selections []struct {
		Name string `json:"name"`
	}
	if strings.HasPrefix(value, "[") && json.Unmarshal([]byte(value), &selections) == nil {
		var names []string
		for _, s := range selections {
			names = append(names, s.Name)
		}
		return names
	}
	var names []string
	for _, n := range strings.Split(value, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return []string{value}
	}
	return names
}

// policyState is what became of the pod's deny-all NetworkPolicy: it must
// still select the pod by its create token, cover both directions, and
// allow nothing.
func policyState(token string, policy *networkingv1.NetworkPolicy) isolation.PolicyState {
	if policy == nil {
		return isolation.PolicyMissing
	}
	sel := policy.Spec.PodSelector
	selects := token != "" && len(sel.MatchExpressions) == 0 && len(sel.MatchLabels) == 1 &&
		sel.MatchLabels[engine.LabelCreateToken] == token
	both := slices.Contains(policy.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) &&
		slices.Contains(policy.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	if !selects || !both || len(policy.Spec.Ingress) > 0 || len(policy.Spec.Egress) > 0 {
		return isolation.PolicyLoosened
	}
	return isolation.PolicyDeniesAll
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
