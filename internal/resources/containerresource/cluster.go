package containerresource

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// What a sandbox on a Kubernetes cluster cannot have (engine.Kubernetes):
// a pod carries no host ports, host paths or /dev/shm size, nor files
// beyond what its Secret holds, cannot be stopped and kept, renamed or
// changed in place, and names its user by number. Each is refused at plan,
// on its attribute, never accepted and ignored; the limits a pod cannot carry (memory_swap, pids_limit,
// ulimits) are refused with the other engines' through engine.Facts.

// clusterRefused are the attributes a sandbox on a cluster cannot set, and
// why.
var clusterRefused = []struct{ attr, why string }{
	{"ports", "a sandbox on a cluster has no network, so no port can reach it"},
	{"shm_size", "a pod's /dev/shm is the runtime's; mount a tmpfs where the sandbox needs more"},
}

// clusterFilesBytes bounds a sandbox's files on a cluster: they travel in
// its Secret, which the API server takes up to 1 MiB, with room for the
// write-only environment beside them.
const clusterFilesBytes = 1_000_000

// clusterSecurityOpts are the security options a pod carries.
var clusterSecurityOpts = []string{"no-new-privileges", "no-new-privileges=true", "no-new-privileges:true",
	"no-new-privileges=false", "no-new-privileges:false", "seccomp=unconfined", "seccomp:unconfined"}

// planForCluster refuses, when the engine is a cluster, what a pod cannot
// carry, and replaces the sandbox for what a pod cannot change.
func (r *Resource) planForCluster(plan, state map[string]tftypes.Value, facts engine.Facts, resp *resource.ModifyPlanResponse) {
	refuse := func(at path.Path, summary, detail string) {
		resp.Diagnostics.AddAttributeError(at, summary, detail+" (on "+r.Client.Where()+").")
	}
	for _, a := range clusterRefused {
		if v, ok := plan[a.attr]; ok && !v.IsNull() {
			refuse(path.Root(a.attr), "Not possible on a Kubernetes cluster",
				fmt.Sprintf("Remove %s, or place this sandbox on a Docker engine: %s", a.attr, a.why))
		}
	}
	if name := values.RawString(plan["name"]); plan["name"].IsKnown() && name != "" &&
		!engine.KubernetesName(name) {
		refuse(path.Root("name"), "Name not allowed on a Kubernetes cluster", fmt.Sprintf("name = %q names a pod, "+
			"which takes lower-case letters, digits, '-' and '.', at most 253 characters, starting and ending "+
			"with a letter or digit", name))
	}
	if user := values.RawString(plan["user"]); plan["user"].IsKnown() && user != "" && !numericUser(user) {
		refuse(path.Root("user"), "User not allowed on a Kubernetes cluster", fmt.Sprintf("user = %q: a pod names "+
			"its user by number, as \"UID\" or \"UID:GID\"", user))
	}
	if running, ok := plan["running"]; ok && running.IsKnown() && !values.RawBool(running) && state == nil {
		refuse(path.Root("running"), "Not possible on a Kubernetes cluster", "running = false: a pod cannot be "+
			"made and kept stopped; leave running unset")
	}
	for _, opt := range values.RawStrings(plan["security_opts"]) {
		if !slices.Contains(clusterSecurityOpts, opt) {
			refuse(path.Root("security_opts"), "Security option not possible on a Kubernetes cluster",
				fmt.Sprintf("security_opts holds %q; a pod carries only no-new-privileges and seccomp=unconfined "+
					"(its default is the runtime's seccomp profile)", opt))
		}
	}
	r.planClusterTmpfs(plan, refuse)
	planClusterMounts(plan, refuse)
	r.planClusterRuntime(plan, facts, refuse)
	if state == nil {
		return
	}
	// A pod's name is fixed, and one that ended (its main process exited
	// under restart = "no") cannot be started again.
	for _, attr := range []string{"name", "running"} {
		if !plan[attr].Equal(state[attr]) {
			resp.RequiresReplace.Append(path.Root(attr))
		}
	}
}

// planClusterTmpfs refuses tmpfs options other than size, the only one a
// pod's memory-backed volume takes.
func (r *Resource) planClusterTmpfs(plan map[string]tftypes.Value, refuse func(path.Path, string, string)) {
	for target, options := range values.RawStringMap(plan["tmpfs"]) {
		for _, opt := range strings.Split(options, ",") {
			if key, _, _ := strings.Cut(opt, "="); key != "" && key != "size" {
				refuse(path.Root("tmpfs").AtMapKey(target), "tmpfs option not possible on a Kubernetes cluster",
					fmt.Sprintf("tmpfs[%q] sets %q; a pod's memory-backed volume takes only size", target, opt))
			}
		}
	}
}

// planClusterMounts refuses host paths: a pod mounts sandbox_volume's
// claims, and the node's files are not the sandbox's to see.
func planClusterMounts(plan map[string]tftypes.Value, refuse func(path.Path, string, string)) {
	var mounts map[string]tftypes.Value
	if !plan["mounts"].IsKnown() || plan["mounts"].IsNull() || plan["mounts"].As(&mounts) != nil {
		return
	}
	for _, target := range slices.Sorted(maps.Keys(mounts)) {
		var m map[string]tftypes.Value
		if mounts[target].As(&m) == nil && m["host_path"].IsKnown() && !m["host_path"].IsNull() {
			refuse(path.Root("mounts").AtMapKey(target), "Host path not possible on a Kubernetes cluster",
				fmt.Sprintf("mounts[%q] mounts a host path, and which node's path a pod would see is the "+
					"scheduler's choice; mount a sandbox_volume, which is a persistent volume claim on a cluster",
					target))
		}
	}
}

// planClusterRuntime refuses a runtime other than the cluster's class for
// sandboxes, or its handler.
func (r *Resource) planClusterRuntime(plan map[string]tftypes.Value, facts engine.Facts, refuse func(path.Path, string, string)) {
	runtime := values.RawString(plan["runtime"])
	if !plan["runtime"].IsKnown() || runtime == "" {
		return
	}
	if _, ok := facts.Runtimes[runtime]; !ok {
		refuse(path.Root("runtime"), "Runtime not possible on this cluster", fmt.Sprintf("runtime = %q: every "+
			"sandbox on a cluster runs in RuntimeClass %q, whose pods have no network (the provider's "+
			"kubernetes.runtime_class); leave runtime unset, or name that class or its handler %q", runtime,
			facts.DefaultRuntime, facts.Runtimes[facts.DefaultRuntime]))
	}
}

// planClusterFiles refuses, on a cluster, files that its Secret could not
// hold; total is what the files plan counted.
func (r *Resource) planClusterFiles(ctx context.Context, total int, resp *resource.ModifyPlanResponse) {
	if total <= clusterFilesBytes || r.Client == nil || r.Client.Kind(ctx) != engine.Kubernetes {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("files"), "Files too large for a Kubernetes cluster", fmt.Sprintf(
		"The files have %d bytes, more than the %d a sandbox's files may have on a cluster, where they travel "+
			"in the sandbox's Secret. Build larger files into the image instead (on %s).", total,
		clusterFilesBytes, r.Client.Where()))
}

// numericUser reports whether a user is "UID" or "UID:GID".
func numericUser(user string) bool {
	u, g, hasGroup := strings.Cut(user, ":")
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	return digits(u) && (!hasGroup || digits(g))
}
