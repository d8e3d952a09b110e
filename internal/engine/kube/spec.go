package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What a sandbox's ContainerSpec becomes on a cluster: a pod, the deny-all
// NetworkPolicy beside it, and a Secret for its write-only environment.
// The plan refuses what a pod cannot carry (containerresource's cluster
// checks); what reaches here anyway is an error, never dropped.

// The pod's labels are only those the backend selects by; every label of
// the spec, which a Docker label's looser syntax allows, is kept whole in
// annotations, with what the spec asked for where the pod spells it
// differently.
const (
	annotationLabels  = engine.LabelPrefix + "labels"
	annotationRuntime = engine.LabelPrefix + "runtime"
	annotationRestart = engine.LabelPrefix + "restart"
	annotationTmpfs   = engine.LabelPrefix + "tmpfs"
	// annotationNetworks is Multus's list of networks to attach a pod to.
	annotationNetworks = "k8s.v1.cni.cncf.io/networks"
)

// containerName is the name of the sandbox's one container in its pod.
const containerName = "sandbox"

// selectorLabels are the labels of a sandbox's pod that the backend lists
// and selects by.
func selectorLabels(spec engine.ContainerSpec) map[string]string {
	out := map[string]string{}
	for _, k := range []string{engine.LabelManagedBy, engine.LabelResourceType, engine.LabelCreateToken} {
		if v, ok := spec.Labels[k]; ok {
			out[k] = v
		}
	}
	return out
}

// companionName names the NetworkPolicy and the Secret of the pod made by
// the create with token: unique per create, so that a replacement's never
// meets its predecessor's while the cluster removes that.
func companionName(token string) string { return "tfsandbox-" + token }

// podFor is the pod a spec asks for, in the RuntimeClass class.
func podFor(spec engine.ContainerSpec, namespace, class string) (*corev1.Pod, error) {
	labels, err := json.Marshal(spec.Labels)
	if err != nil {
		return nil, err
	}
	tmpfs, err := json.Marshal(spec.Tmpfs)
	if err != nil {
		return nil, err
	}
	restart, err := restartPolicy(spec.Restart)
	if err != nil {
		return nil, err
	}
	container, volumes := containerFor(spec)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: spec.Name, Namespace: namespace, Labels: selectorLabels(spec),
			Annotations: map[string]string{annotationLabels: string(labels), annotationRuntime: spec.Runtime,
				annotationRestart: spec.Restart, annotationTmpfs: string(tmpfs)},
		},
		Spec: corev1.PodSpec{
			RuntimeClassName: &class,
			// Nothing in a sandbox may reach the cluster's API as the
			// namespace's service account.
			AutomountServiceAccountToken: ptr(false),
			EnableServiceLinks:           ptr(false),
			RestartPolicy:                restart,
			ShareProcessNamespace:        ptr(spec.Init),
			Containers:                   []corev1.Container{container},
			Volumes:                      volumes,
		},
	}
	if spec.Name == "" {
		pod.GenerateName = "sandbox-"
	}
	setExpiry(pod, spec.ExpiresAt, time.Now())
	return pod, nil
}

// containerFor is the sandbox's container, and the volumes of its tmpfs
// mounts, its files and its claims. What a pod cannot carry the rules
// (rules.go) refused before this: it is left out here.
func containerFor(spec engine.ContainerSpec) (corev1.Container, []corev1.Volume) {
	c := corev1.Container{
		Name: containerName, Image: spec.Image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: spec.Entrypoint, Args: spec.Command, WorkingDir: spec.WorkingDir,
		Env: envFor(spec), SecurityContext: securityContext(spec), Resources: resourcesFor(spec.Limits),
	}
	volumes, mounts := tmpfsVolumes(spec.Tmpfs)
	fileVolumes, fileMounts := filesVolume(spec)
	workspaces, workspaceMounts := workspaceVolumes(spec.Mounts)
	c.VolumeMounts = slices.Concat(mounts, fileMounts, workspaceMounts)
	return c, slices.Concat(volumes, fileVolumes, workspaces)
}

// workspacePrefix names the pod's volume of each claim it mounts.
const workspacePrefix = "workspace-"

// workspaceVolumes mount each sandbox_volume, which is a claim on a
// cluster (volumes.go), at its target. A pod mounts no host path (the
// rules refuse one).
func workspaceVolumes(mounts []engine.Mount) ([]corev1.Volume, []corev1.VolumeMount) {
	var (
		volumes []corev1.Volume
		out     []corev1.VolumeMount
	)
	for i, m := range mounts {
		name := workspacePrefix + strconv.Itoa(i)
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: m.Volume, ReadOnly: m.ReadOnly},
		}})
		out = append(out, corev1.VolumeMount{Name: name, MountPath: m.Target, ReadOnly: m.ReadOnly})
	}
	return volumes, out
}

// envFor is the container's environment: the write-only variables from
// the sandbox's Secret, the others as they are.
func envFor(spec engine.ContainerSpec) []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, kv := range spec.Env {
		name, value, _ := strings.Cut(kv, "=")
		if !slices.Contains(spec.SecretEnv, name) {
			env = append(env, corev1.EnvVar{Name: name, Value: value})
			continue
		}
		env = append(env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: companionName(spec.Labels[engine.LabelCreateToken])},
			Key:                  name,
		}}})
	}
	return env
}

// needsSecret reports whether the sandbox has a Secret: for its write-only
// environment, or its files.
func needsSecret(spec engine.ContainerSpec) bool { return len(spec.SecretEnv)+len(spec.Files) > 0 }

// secretData is the sandbox's Secret: the write-only environment by the
// variables' names, and the files by fileKey.
func secretData(spec engine.ContainerSpec) map[string][]byte {
	data := map[string][]byte{}
	for _, kv := range spec.Env {
		if name, value, _ := strings.Cut(kv, "="); slices.Contains(spec.SecretEnv, name) {
			data[name] = []byte(value)
		}
	}
	for i, f := range spec.Files {
		data[fileKey(i)] = f.Content
	}
	return data
}

// fileKey is the key of the i-th file in the sandbox's Secret: never an
// environment variable's name, which has no '-'.
func fileKey(i int) string { return fmt.Sprintf("file-%d", i) }

// filesVolume mounts each file from the sandbox's Secret at its path,
// read-only, with its mode, owned by root.
func filesVolume(spec engine.ContainerSpec) ([]corev1.Volume, []corev1.VolumeMount) {
	if len(spec.Files) == 0 {
		return nil, nil
	}
	source := &corev1.SecretVolumeSource{SecretName: companionName(spec.Labels[engine.LabelCreateToken])}
	var mounts []corev1.VolumeMount
	for i, f := range spec.Files {
		source.Items = append(source.Items, corev1.KeyToPath{Key: fileKey(i), Path: fileKey(i), Mode: ptr(int32(f.Mode))})
		mounts = append(mounts, corev1.VolumeMount{Name: filesVolumeName, MountPath: f.Path, SubPath: fileKey(i), ReadOnly: true})
	}
	return []corev1.Volume{{Name: filesVolumeName, VolumeSource: corev1.VolumeSource{Secret: source}}}, mounts
}

// filesVolumeName names the volume of the sandbox's files.
const filesVolumeName = "files"

// securityContext is the container's privileges: user, capabilities, no
// new privileges, read-only root and seccomp.
func securityContext(spec engine.ContainerSpec) *corev1.SecurityContext {
	sc := &corev1.SecurityContext{
		Privileged:               ptr(false),
		AllowPrivilegeEscalation: ptr(true),
		ReadOnlyRootFilesystem:   ptr(spec.ReadOnly),
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	if len(spec.CapAdd)+len(spec.CapDrop) > 0 {
		sc.Capabilities = &corev1.Capabilities{}
		for _, c := range engine.CapabilityNames(spec.CapAdd) {
			sc.Capabilities.Add = append(sc.Capabilities.Add, corev1.Capability(c))
		}
		for _, c := range engine.CapabilityNames(spec.CapDrop) {
			sc.Capabilities.Drop = append(sc.Capabilities.Drop, corev1.Capability(c))
		}
	}
	for _, opt := range spec.SecurityOpt {
		if apply := securityOpts[opt]; apply != nil {
			apply(sc)
		}
	}
	if uid, gid, err := numericUser(spec.User); spec.User != "" && err == nil {
		sc.RunAsUser, sc.RunAsGroup = uid, gid
	}
	return sc
}

// numericUser reads a user as "UID" or "UID:GID": a pod names users by
// number only.
func numericUser(user string) (*int64, *int64, error) {
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.ParseInt(u, 10, 64)
	if err != nil || !digits(u) {
		return nil, nil, fmt.Errorf("user %q: a pod names its user by number (UID or UID:GID)", user)
	}
	if !hasGroup {
		return &uid, nil, nil
	}
	gid, err := strconv.ParseInt(g, 10, 64)
	if err != nil || !digits(g) {
		return nil, nil, fmt.Errorf("user %q: a pod names its group by number (UID:GID)", user)
	}
	return &uid, &gid, nil
}

// digits reports whether s is a number: digits only.
func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// resourcesFor is the container's memory and CPU limits, requested as
// much as limited so that the scheduler places the sandbox where they fit.
// A pod carries no other limit (enforcement, which the create asks first).
func resourcesFor(l engine.Limits) corev1.ResourceRequirements {
	list := corev1.ResourceList{}
	if l.Memory > 0 {
		list[corev1.ResourceMemory] = *resource.NewQuantity(l.Memory, resource.BinarySI)
	}
	if l.NanoCPUs > 0 {
		list[corev1.ResourceCPU] = *resource.NewMilliQuantity(l.NanoCPUs/1e6, resource.DecimalSI)
	}
	if len(list) == 0 {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Limits: list, Requests: list.DeepCopy()}
}

// tmpfsVolumes are memory-backed emptyDir volumes for the tmpfs mounts,
// sized by their size option, the only one a pod can carry (the rules
// refuse the others, and a size that is not one).
func tmpfsVolumes(tmpfs map[string]string) ([]corev1.Volume, []corev1.VolumeMount) {
	var (
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount
	)
	for i, target := range slices.Sorted(maps.Keys(tmpfs)) {
		ed := &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}
		if q, err := tmpfsSize(tmpfs[target]); err == nil && q != nil {
			ed.SizeLimit = q
		}
		name := fmt.Sprintf("tmpfs-%d", i)
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: ed}})
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: target})
	}
	return volumes, mounts
}

// tmpfsSize reads the size option of a tmpfs mount's options as the kernel
// takes it (bytes, or k, m, g), nil when it has none.
func tmpfsSize(options string) (*resource.Quantity, error) {
	var size string
	for _, opt := range strings.Split(options, ",") {
		if key, value, _ := strings.Cut(opt, "="); key == "size" {
			size = value
		}
	}
	if size == "" {
		return nil, nil
	}
	mult, v := int64(1), size
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1<<10, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "m"):
		mult, v = 1<<20, strings.TrimSuffix(v, "m")
	case strings.HasSuffix(v, "g"):
		mult, v = 1<<30, strings.TrimSuffix(v, "g")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("size %q: a pod takes a size in bytes, k, m or g", size)
	}
	return resource.NewQuantity(n*mult, resource.BinarySI), nil
}

// restartPolicy is the pod's restart policy for a Docker one.
func restartPolicy(docker string) (corev1.RestartPolicy, error) {
	switch docker {
	case "", "no":
		return corev1.RestartPolicyNever, nil
	case "on-failure":
		return corev1.RestartPolicyOnFailure, nil
	case "always", "unless-stopped":
		return corev1.RestartPolicyAlways, nil
	}
	return "", fmt.Errorf("restart policy %q has no meaning on a Kubernetes cluster", docker)
}

// denyAll is the NetworkPolicy that selects the sandbox's pod by its
// create token and allows nothing in and nothing out, owned by the pod.
func denyAll(pod *corev1.Pod, token string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: companionMeta(pod, token),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{engine.LabelCreateToken: token}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
}

// companionMeta names and labels an object made beside a sandbox's pod,
// owned by the pod when it exists already.
func companionMeta(pod *corev1.Pod, token string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name: companionName(token), Namespace: pod.Namespace,
		Labels: map[string]string{engine.LabelManagedBy: engine.ManagedByValue, engine.LabelCreateToken: token},
	}
	if pod.UID != "" {
		meta.OwnerReferences = []metav1.OwnerReference{ownedBy(pod)}
	}
	return meta
}

func ownedBy(pod *corev1.Pod) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}
}

func ptr[T any](v T) *T { return &v }
