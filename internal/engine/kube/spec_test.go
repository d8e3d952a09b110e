package kube

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// hardened is a sandbox's spec with every group of attributes a pod carries.
func hardened() engine.ContainerSpec {
	labels := engine.OwnershipLabels("sandbox_container")
	labels[engine.LabelCreateToken] = "0123abcd"
	labels["team.example.com/owner"] = "agents"
	return engine.ContainerSpec{
		Name: "agent-1", Image: "registry.example.com/worker:2", Entrypoint: []string{"tail"}, Command: []string{"-f", "/dev/null"},
		Env: []string{"PLAIN=visible", "TOKEN=s3cret"}, SecretEnv: []string{"TOKEN"}, Labels: labels,
		WorkingDir: "/work", User: "1000:2000", Init: true, CapDrop: []string{"ALL"}, CapAdd: []string{"cap_chown"},
		SecurityOpt: []string{"no-new-privileges"}, ReadOnly: true, Tmpfs: map[string]string{"/tmp": "size=16m"},
		Limits:  engine.Limits{Memory: 128 << 20, MemorySwap: 128 << 20, NanoCPUs: 500_000_000},
		Restart: "unless-stopped",
		Files:   []engine.File{{Path: "/etc/agent.conf", Content: []byte("x"), Mode: 0o600}},
		Mounts: []engine.Mount{{Target: "/workspace", Volume: "agent-1-work"},
			{Target: "/reference", Volume: "shared-docs", ReadOnly: true}},
	}
}

// made is the pod the API server would return for spec: with a UID, the
// provider's managed fields, and its container running.
func made(t *testing.T, spec engine.ContainerSpec) *corev1.Pod {
	t.Helper()
	pod, err := podFor(spec, "sandboxes", "gvisor")
	if err != nil {
		t.Fatal(err)
	}
	pod.UID = "uid-1"
	pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: fieldManager, Operation: metav1.ManagedFieldsOperationUpdate,
		FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:tfsandbox.create-token":{}}}}`)}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: containerName, ImageID: "sha256:abc",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	return pod
}

func TestPodForCarriesTheSpec(t *testing.T) {
	pod := made(t, hardened())
	c := pod.Spec.Containers[0]
	sc := c.SecurityContext
	switch {
	case *pod.Spec.RuntimeClassName != "gvisor" || *pod.Spec.AutomountServiceAccountToken || *pod.Spec.EnableServiceLinks:
		t.Errorf("pod spec %+v: want RuntimeClass gvisor, no token, no service links", pod.Spec)
	case pod.Spec.RestartPolicy != corev1.RestartPolicyAlways || !*pod.Spec.ShareProcessNamespace:
		t.Errorf("restart %s, shared process namespace %v", pod.Spec.RestartPolicy, *pod.Spec.ShareProcessNamespace)
	case *sc.RunAsUser != 1000 || *sc.RunAsGroup != 2000 || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("security context %+v", sc)
	case sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || *sc.Privileged:
		t.Errorf("seccomp %+v, privileged %v", sc.SeccompProfile, *sc.Privileged)
	case !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"CHOWN"}):
		t.Errorf("capabilities %+v", sc.Capabilities)
	case c.Resources.Limits.Memory().Value() != 128<<20 || c.Resources.Limits.Cpu().MilliValue() != 500 ||
		c.Resources.Requests.Memory().Value() != 128<<20:
		t.Errorf("resources %+v", c.Resources)
	case pod.Labels[engine.LabelCreateToken] != "0123abcd" || pod.Labels["team.example.com/owner"] != "":
		t.Errorf("pod labels %v: want the selecting labels only", pod.Labels)
	}
	for _, e := range c.Env {
		if e.Name == "TOKEN" && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "tfsandbox-0123abcd") {
			t.Errorf("the write-only variable is %+v, not a reference to the sandbox's Secret", e)
		}
	}
	data := secretData(hardened())
	if string(data["TOKEN"]) != "s3cret" || string(data[fileKey(0)]) != "x" || len(data) != 2 {
		t.Errorf("the Secret holds %v", data)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	if m := mounts["/etc/agent.conf"]; m.SubPath != fileKey(0) || !m.ReadOnly || m.Name != filesVolumeName {
		t.Errorf("the file is mounted as %+v", m)
	}
	if _, ok := mounts["/tmp"]; !ok {
		t.Errorf("no tmpfs at /tmp: %v", mounts)
	}
}

func TestObserveGivesTheSpecBack(t *testing.T) {
	spec := hardened()
	pod := made(t, spec)
	c := (&Client{class: "gvisor"}).observe(pod, denyAll(pod, "0123abcd"))
	h := c.HostConfig
	switch {
	case c.ID != "sandboxes/agent-1/uid-1" || c.Name != "agent-1" || c.Image != "sha256:abc":
		t.Errorf("ID %q, name %q, image %q", c.ID, c.Name, c.Image)
	case !engine.IsRunning(c) || c.Config.User != "1000:2000" || c.Config.WorkingDir != "/work":
		t.Errorf("state %+v, user %q, working dir %q", c.State, c.Config.User, c.Config.WorkingDir)
	case c.Network.Pod == nil || c.Network.Attachments != nil || !isolation.Assess(c.Network).Isolated:
		t.Errorf("network %+v: %+v", c.Network, isolation.Assess(c.Network))
	case !slices.Equal(h.CapDrop, []string{"ALL"}) || !slices.Equal(h.CapAdd, []string{"CHOWN"}) || !h.ReadonlyRootfs:
		t.Errorf("capabilities %v %v, read-only %v", h.CapAdd, h.CapDrop, h.ReadonlyRootfs)
	case !slices.Equal(h.SecurityOpt, []string{"no-new-privileges"}) || h.Runtime != "" || !*h.Init:
		t.Errorf("security options %v, runtime %q, init %v", h.SecurityOpt, h.Runtime, *h.Init)
	case h.Memory != 128<<20 || h.MemorySwap != 128<<20 || h.NanoCPUs != 500_000_000:
		t.Errorf("limits %d %d %d", h.Memory, h.MemorySwap, h.NanoCPUs)
	case h.Tmpfs["/tmp"] != "size=16m" || h.RestartPolicy != "unless-stopped":
		t.Errorf("tmpfs %v, restart %q", h.Tmpfs, h.RestartPolicy)
	case c.Config.Labels["team.example.com/owner"] != "agents" || !engine.ManagedBy(c.Config.Labels):
		t.Errorf("labels %v", c.Config.Labels)
	}
	want := map[string]engine.Mount{
		"/workspace": {Target: "/workspace", Volume: "agent-1-work"},
		"/reference": {Target: "/reference", Volume: "shared-docs", ReadOnly: true},
	}
	if got := engine.ObservedMounts(c); !maps.Equal(got, want) {
		t.Errorf("mounts %v, want %v", got, want)
	}
	for _, kv := range c.Config.Env {
		if strings.Contains(kv, "s3cret") {
			t.Errorf("the write-only value reads back: %s", kv)
		}
	}
}

func TestObserveWhatWeakensIsolation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*corev1.Pod) *corev1.Pod // returns the pod's policy's pod (nil: the policy is gone)
		mode   string
	}{
		{"policy gone", func(p *corev1.Pod) *corev1.Pod { return nil }, isolation.PodModeNoPolicy},
		{"other class", func(p *corev1.Pod) *corev1.Pod { p.Spec.RuntimeClassName = ptr("runc"); return p },
			`pod network (RuntimeClass "runc")`},
		{"host network", func(p *corev1.Pod) *corev1.Pod { p.Spec.HostNetwork = true; return p }, isolation.PodModeHost},
		{"host PID", func(p *corev1.Pod) *corev1.Pod { p.Spec.HostPID = true; return p }, "none sharing pid with the node"},
		{"host IPC", func(p *corev1.Pod) *corev1.Pod { p.Spec.HostIPC = true; return p }, "none sharing ipc with the node"},
		{"multus", func(p *corev1.Pod) *corev1.Pod { p.Annotations[annotationNetworks] = `[{"name":"a"}]`; return p },
			isolation.PodModeNetwork},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := made(t, hardened())
			policy := denyAll(pod, "0123abcd")
			if tc.change(pod) == nil {
				policy = nil
			}
			c := (&Client{class: "gvisor"}).observe(pod, policy)
			if v := isolation.Assess(c.Network); v.Isolated || v.Mode != tc.mode {
				t.Errorf("verdict %+v, want not isolated, %q", v, tc.mode)
			}
		})
	}
}

func TestPolicyState(t *testing.T) {
	pod := made(t, hardened())
	if got := policyState(pod.Labels[engine.LabelCreateToken], denyAll(pod, "0123abcd")); got != isolation.PolicyDeniesAll {
		t.Errorf("the provider's policy reads %v", got)
	}
	if got := policyState(pod.Labels[engine.LabelCreateToken], nil); got != isolation.PolicyMissing {
		t.Errorf("no policy reads %v", got)
	}
	for name, change := range map[string]func(p *networkingv1.NetworkPolicy){
		"allows egress":       func(p *networkingv1.NetworkPolicy) { p.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}} },
		"allows ingress":      func(p *networkingv1.NetworkPolicy) { p.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}} },
		"covers ingress only": func(p *networkingv1.NetworkPolicy) { p.Spec.PolicyTypes = p.Spec.PolicyTypes[:1] },
		"selects another pod": func(p *networkingv1.NetworkPolicy) { p.Spec.PodSelector.MatchLabels = map[string]string{"a": "b"} },
		"selects more pods": func(p *networkingv1.NetworkPolicy) {
			p.Spec.PodSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}}
		},
	} {
		policy := denyAll(pod, "0123abcd")
		change(policy)
		if got := policyState(pod.Labels[engine.LabelCreateToken], policy); got != isolation.PolicyLoosened {
			t.Errorf("a policy that %s reads %v", name, got)
		}
	}
}

func TestProvenance(t *testing.T) {
	pod := made(t, hardened())
	if !madeByProvider(pod) {
		t.Error("the provider's pod is not recognised")
	}
	copied := pod.DeepCopy()
	copied.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-create", Operation: metav1.ManagedFieldsOperationUpdate,
		FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:tfsandbox.create-token":{}}}}`)}}
	if madeByProvider(copied) {
		t.Error("a copy made with kubectl reads as the provider's")
	}
	if labels := sandboxLabels(copied); engine.ManagedBy(labels) || labels["team.example.com/owner"] != "agents" {
		t.Errorf("a copy shows labels %v: want its own, without the provider's", labels)
	}
	touched := pod.DeepCopy()
	touched.ManagedFields[0].FieldsV1 = metav1.NewFieldsV1(`{"f:metadata":{"f:annotations":{}}}`)
	if madeByProvider(touched) {
		t.Error("a pod whose create token the provider did not write reads as the provider's")
	}
}

// TestClaimProvenance: a claim's provider labels count only where the
// provider wrote them; a claim mounted by a pod makes the pod its user.
func TestClaimProvenance(t *testing.T) {
	labels := engine.OwnershipLabels("sandbox_volume")
	labels[engine.LabelCreateToken] = "0123abcd"
	labels["team"] = "agents"
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "agent-1-work", Labels: labels,
		ManagedFields: made(t, hardened()).ManagedFields}}
	claim.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("16Mi")}
	if v := volumeOf(claim); !engine.VolumeMadeWith(v, "0123abcd") || v.Options["size"] != "16777216" {
		t.Errorf("the provider's claim reads as %+v", v)
	}
	copied := claim.DeepCopy()
	copied.ManagedFields[0].Manager = "kubectl-create"
	if v := volumeOf(copied); engine.VolumeMadeWith(v, "0123abcd") || engine.ManagedBy(v.Labels) || v.Labels["team"] != "agents" {
		t.Errorf("a copy made with kubectl reads as %+v: want its own labels, without the provider's", v)
	}
	u, ok := claimUser(made(t, hardened()), "shared-docs")
	if !ok || u.Writable || u.Target != "/reference" || u.Container != "agent-1" {
		t.Errorf("the pod as a user of its read-only claim: %+v, %v", u, ok)
	}
	if _, ok := claimUser(made(t, hardened()), "another"); ok {
		t.Error("a pod is a user of a claim it does not mount")
	}
}

// What reaches a create past the plan is refused there, by the same rules.
func TestSpecsAPodCannotCarry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*engine.ContainerSpec)
		want   string
	}{
		{"user by name", func(s *engine.ContainerSpec) { s.User = "nobody" }, "by number"},
		{"apparmor", func(s *engine.ContainerSpec) { s.SecurityOpt = []string{"apparmor=x"} }, "security_opts holds"},
		{"tmpfs mode", func(s *engine.ContainerSpec) { s.Tmpfs = map[string]string{"/tmp": "mode=1777"} }, "takes only size"},
		{"tmpfs size", func(s *engine.ContainerSpec) { s.Tmpfs = map[string]string{"/tmp": "size=lots"} }, "bytes, k, m or g"},
		{"pids", func(s *engine.ContainerSpec) { s.Limits.PidsLimit = 10 }, "pids_limit"},
		{"swap", func(s *engine.ContainerSpec) { s.Limits.MemorySwap = -1 }, "memory_swap"},
		{"ulimits", func(s *engine.ContainerSpec) { s.Ulimits = []engine.Ulimit{{Name: "nofile", Soft: 1, Hard: 1}} }, "ulimits"},
		{"host path", func(s *engine.ContainerSpec) {
			s.Mounts = []engine.Mount{{Target: "/data", HostPath: "/srv/data"}}
		}, "mounts a host path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := hardened()
			tc.change(&spec)
			if err := testClient.refuseSpec(context.Background(), spec); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("refused: %v, want an error about %q", err, tc.want)
			}
		})
	}
	spec := hardened()
	spec.Restart = "on-failure:3"
	if _, err := podFor(spec, "sandboxes", "gvisor"); err == nil || !strings.Contains(err.Error(), "no meaning") {
		t.Errorf("podFor with a restart policy a pod has not: %v", err)
	}
}

func TestExtraNetworks(t *testing.T) {
	for value, want := range map[string][]string{
		"":                                     nil,
		"a, b":                                 {"a", "b"},
		`[{"name":"a"},{"name":"b","ips":[]}]`: {"a", "b"},
		"ns/net@eth1":                          {"ns/net@eth1"},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{annotationNetworks: value}}}
		if got := extraNetworks(pod); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", value, got, want)
		}
	}
}

// An expiry is the pod's deadline from when it is made, with the kubelet's
// least grace period so that nothing inside delays it, and is recorded.
func TestPodExpiry(t *testing.T) {
	now := time.Now()
	pod, err := podFor(engine.ContainerSpec{Name: "sb", Image: "busybox", Labels: map[string]string{},
		ExpiresAt: now.Add(2 * time.Minute)}, "default", "gvisor")
	if err != nil {
		t.Fatal(err)
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d == nil || *d < 119 || *d > 120 {
		t.Errorf("activeDeadlineSeconds %v, want 120", d)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g != expiryGraceSeconds {
		t.Errorf("terminationGracePeriodSeconds %v, want %d", g, expiryGraceSeconds)
	}
	if got := engine.ExpiryOf(pod.Annotations); !got.Equal(now.Add(2 * time.Minute).Truncate(time.Second)) {
		t.Errorf("recorded expiry %s", got)
	}
	plain, _ := podFor(engine.ContainerSpec{Name: "sb", Image: "busybox", Labels: map[string]string{}}, "default", "gvisor")
	if plain.Spec.ActiveDeadlineSeconds != nil || plain.Spec.TerminationGracePeriodSeconds != nil {
		t.Error("a pod with no expiry has a deadline or a grace period of its own")
	}
}
