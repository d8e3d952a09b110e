package kube

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What a sandbox, a command or a volume on a cluster cannot have
// (engine.Rules). A pod carries no host ports, host paths or /dev/shm
// size, nor files beyond what its Secret holds, cannot be stopped and
// kept, renamed or changed in place, and names its user by number; a
// command run through the API has no environment, user or working
// directory of its own; a claim is on disk and has a size. Each is refused on its attribute, at plan when its value is
// known then and at apply otherwise; the limits a pod cannot carry
// (memory_swap, pids_limit, ulimits) are refused with the other engines'
// through engine.Facts.

// refusedAttributes are the attributes a sandbox on a cluster cannot set,
// whether its spec holds them, and why.
var refusedAttributes = []struct {
	attr   string
	inSpec func(engine.ContainerSpec) bool
	why    string
}{
	{"ports", func(s engine.ContainerSpec) bool { return len(s.Ports) > 0 },
		"a sandbox on a cluster has no network, so no port can reach it"},
	{"shm_size", func(s engine.ContainerSpec) bool { return s.ShmSize != 0 },
		"a pod's /dev/shm is the runtime's; mount a tmpfs where the sandbox needs more"},
}

// filesBytes bounds a sandbox's files on a cluster: they travel in its
// Secret, which the API server takes up to 1 MiB, with room for the
// write-only environment beside them.
const filesBytes = 1_000_000

// securityOpts are the security options a pod carries, each with what it
// sets in the container's security context (nil: nothing, the default).
var securityOpts = map[string]func(*corev1.SecurityContext){
	"no-new-privileges": noNewPrivileges, "no-new-privileges=true": noNewPrivileges,
	"no-new-privileges:true": noNewPrivileges, "no-new-privileges=false": nil, "no-new-privileges:false": nil,
	"seccomp=unconfined": seccompUnconfined, "seccomp:unconfined": seccompUnconfined,
}

func noNewPrivileges(sc *corev1.SecurityContext) { sc.AllowPrivilegeEscalation = ptr(false) }

func seccompUnconfined(sc *corev1.SecurityContext) {
	sc.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
}

// objectName is a Kubernetes object's name (a pod's, a claim's): a DNS
// subdomain, lower case.
var objectName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// objectNameOK reports whether name may name a pod or a persistent volume
// claim: lower-case letters, digits, '-' and '.', at most 253 characters,
// starting and ending with a letter or digit.
func objectNameOK(name string) bool { return len(name) <= 253 && objectName.MatchString(name) }

// RefuseSandbox refuses what a pod cannot carry.
func (c *Client) RefuseSandbox(ctx context.Context, p engine.PlannedSandbox) []engine.Refusal {
	var out []engine.Refusal
	refuse := func(attr, key, summary, detail string) {
		out = append(out, engine.Refusal{Attribute: attr, Key: key, Summary: summary,
			Detail: detail + " (on " + c.Where() + ")."})
	}
	spec := p.Spec
	for _, a := range refusedAttributes {
		if p.Set.Has(a.attr, a.inSpec(spec)) {
			refuse(a.attr, "", "Not possible on a Kubernetes cluster",
				fmt.Sprintf("Remove %s, or place this sandbox on a Docker engine: %s", a.attr, a.why))
		}
	}
	if spec.Name != "" && !objectNameOK(spec.Name) {
		refuse("name", "", "Name not allowed on a Kubernetes cluster", fmt.Sprintf("name = %q names a pod, "+
			"which takes lower-case letters, digits, '-' and '.', at most 253 characters, starting and ending "+
			"with a letter or digit", spec.Name))
	}
	if _, _, err := numericUser(spec.User); spec.User != "" && err != nil {
		refuse("user", "", "User not allowed on a Kubernetes cluster", fmt.Sprintf("user = %q: a pod names "+
			"its user by number, as \"UID\" or \"UID:GID\": give the user's number (id -u in the image)", spec.User))
	}
	if p.Paused {
		refuse("state", "", "Not possible on a Kubernetes cluster", "state = \"paused\": a pod cannot be frozen "+
			"(no Kubernetes API pauses a pod's processes); use state = \"stopped\" to put it to sleep (its pod "+
			"goes, its Secret, policy and volumes stay), or a Docker or Podman engine to freeze sandboxes")
	}
	for _, opt := range spec.SecurityOpt {
		if _, ok := securityOpts[opt]; !ok {
			refuse("security_opts", "", "Security option not possible on a Kubernetes cluster",
				fmt.Sprintf("security_opts holds %q; a pod carries only no-new-privileges and seccomp=unconfined "+
					"(its default is the runtime's seccomp profile): remove the others", opt))
		}
	}
	out = append(out, c.refuseTmpfs(spec.Tmpfs)...)
	for _, m := range spec.Mounts {
		if m.HostPath != "" {
			refuse("mounts", m.Target, "Host path not possible on a Kubernetes cluster", fmt.Sprintf("mounts[%q] "+
				"mounts a host path, and which node's path a pod would see is the scheduler's choice; mount a "+
				"sandbox_volume, which is a persistent volume claim on a cluster", m.Target))
		}
	}
	out = append(out, c.refuseRuntime(ctx, spec.Runtime)...)
	if facts, err := c.Facts(ctx); err == nil {
		out = append(out, engine.GVisorRefusals(facts, p)...)
	}
	if p.FilesBytes > filesBytes {
		out = append(out, engine.Refusal{Attribute: "files", Summary: "Files too large for a Kubernetes cluster",
			Detail: fmt.Sprintf("The files have %d bytes, more than the %d a sandbox's files may have on a "+
				"cluster, where they travel in the sandbox's Secret. Build larger files into the image instead "+
				"(on %s).", p.FilesBytes, filesBytes, c.Where())})
	}
	return out
}

// refuseTmpfs refuses the tmpfs options a pod's memory-backed volume has
// no place for: all but a size, which must be one.
func (c *Client) refuseTmpfs(tmpfs map[string]string) []engine.Refusal {
	var out []engine.Refusal
	refuse := func(target, summary, detail string) {
		out = append(out, engine.Refusal{Attribute: "tmpfs", Key: target, Summary: summary,
			Detail: detail + " (on " + c.Where() + ")."})
	}
	for _, target := range slices.Sorted(maps.Keys(tmpfs)) {
		if _, err := tmpfsSize(tmpfs[target]); err != nil {
			refuse(target, "tmpfs size not possible on a Kubernetes cluster", fmt.Sprintf("tmpfs[%q]: %v: "+
				"write size=64m, for example", target, err))
		}
		for _, opt := range strings.Split(tmpfs[target], ",") {
			if key, _, _ := strings.Cut(opt, "="); key != "" && key != "size" {
				refuse(target, "tmpfs option not possible on a Kubernetes cluster", fmt.Sprintf("tmpfs[%q] sets "+
					"%q; a pod's memory-backed volume takes only size: remove the other options", target, opt))
			}
		}
	}
	return out
}

// refuseRuntime refuses a runtime other than the cluster's class for
// sandboxes, or its handler.
func (c *Client) refuseRuntime(ctx context.Context, runtime string) []engine.Refusal {
	if runtime == "" {
		return nil
	}
	facts, err := c.Facts(ctx)
	if _, ok := facts.Runtimes[runtime]; err != nil || ok {
		return nil
	}
	return []engine.Refusal{{Attribute: "runtime", Summary: "Runtime not possible on this cluster",
		Detail: fmt.Sprintf("runtime = %q: every sandbox on a cluster runs in RuntimeClass %q, whose pods have "+
			"no network (the provider's kubernetes.runtime_class); leave runtime unset, or name that class or "+
			"its handler %q (on %s).", runtime, facts.DefaultRuntime, facts.Runtimes[facts.DefaultRuntime],
			c.Where())}}
}

// FixedInPlace: a pod's name, restart policy and resources are fixed once
// it is made. Its state is not: a sleep removes the pod and a wake makes it
// again (sleep.go), which also brings back one that ended.
func (c *Client) FixedInPlace(context.Context, string) []engine.Fixed {
	return []engine.Fixed{{Attributes: []string{"name", "restart"}}, {Attributes: engine.LimitAttributes,
		Why: fmt.Sprintf("the sandbox runs on %s, where a pod's limits are fixed once it is made", c.Where())}}
}

// RefuseCommand refuses what the API cannot give a command: the exec of a
// pod takes no environment, user or working directory of its own (it
// runs as the sandbox's main process does).
func (c *Client) RefuseCommand(_ context.Context, p engine.PlannedCommand) []engine.Refusal {
	var out []engine.Refusal
	for _, a := range []struct {
		name string
		set  bool
	}{
		{"env", p.Set.Has("env", len(p.Spec.Env) > 0)}, {"env_wo", p.Set["env_wo"]},
		{"user", p.Set.Has("user", p.Spec.User != "")}, {"working_dir", p.Set.Has("working_dir", p.Spec.WorkingDir != "")},
	} {
		if a.set {
			out = append(out, engine.Refusal{Attribute: a.name, Summary: "Not possible on a Kubernetes cluster",
				Detail: fmt.Sprintf("Remove %s: a command run in a pod through the Kubernetes API (%s) has no "+
					"environment, user or working directory of its own, and runs as the sandbox's main process "+
					"does. Give the sandbox_container what the command needs, or run it through a shell that "+
					"sets it.", a.name, c.Where())})
		}
	}
	return out
}

// RefuseVolume refuses what a claim cannot be: a memory volume (a
// sandbox's tmpfs is its scratch space on a cluster), and a claim without
// a size (a claim asks for one). A seed, an owner and a snapshot are
// copied in through a helper pod (archive.go).
func (c *Client) RefuseVolume(ctx context.Context, p engine.PlannedVolume) []engine.Refusal {
	var out []engine.Refusal
	refuse := func(attr, summary, detail string) {
		out = append(out, engine.Refusal{Attribute: attr, Summary: summary, Detail: detail + " (on " + c.Where() + ")."})
	}
	if name := p.Spec.Name; name != "" && !objectNameOK(name) {
		refuse("name", "Name not allowed on a Kubernetes cluster", fmt.Sprintf("name = %q names a persistent "+
			"volume claim, which takes lower-case letters, digits, '-' and '.', at most 253 characters, "+
			"starting and ending with a letter or digit", name))
	}
	if !p.Set.Has("size_mb", p.Spec.Size > 0) {
		refuse("size_mb", "Size needed on a Kubernetes cluster", "A volume on a cluster is a persistent volume "+
			"claim, which asks its StorageClass for a size: set size_mb, such as size_mb = 1024")
	}
	if p.Spec.InMemory {
		refuse("medium", "Memory volume not possible on a Kubernetes cluster", `medium = "memory": a claim is `+
			`on disk. Give each sandbox its scratch space with sandbox_container.tmpfs instead, or use `+
			`medium = "disk"`)
	}
	for _, attr := range []string{"snapshot", "source", "owner", "reseed"} {
		if !p.Set[attr] || !p.Set[engine.FillsVolume] {
			continue
		}
		if why := c.helperImageRefusal(ctx); why != "" {
			refuse(attr, "Helper image needed on this cluster", attr+" is set: "+helperImageAdvice(why))
		}
		break
	}
	return out
}
