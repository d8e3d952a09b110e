package volumeresource

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox_volume on a Kubernetes cluster is a PersistentVolumeClaim of
// its name, in the provider's namespace and the cluster's default
// StorageClass (the kube backend's volumes.go). What a claim cannot be is
// refused at plan, on its attribute: a memory volume (a sandbox's tmpfs
// is its scratch space on a cluster), a seed (a claim is filled only
// through a pod that mounts it, whose code the provider does not trust),
// an owner (which the storage driver decides), and a claim without a size
// (a claim asks for one).

// planForCluster refuses what a claim cannot be.
func (m resourceModel) planForCluster(where string, resp *resource.ModifyPlanResponse) {
	refuse := func(attr, summary, detail string) {
		resp.Diagnostics.AddAttributeError(path.Root(attr), summary, detail+" (on "+where+").")
	}
	if name := m.Name.ValueString(); !m.Name.IsUnknown() && !engine.KubernetesName(name) {
		refuse("name", "Name not allowed on a Kubernetes cluster", fmt.Sprintf("name = %q names a persistent "+
			"volume claim, which takes lower-case letters, digits, '-' and '.', at most 253 characters, "+
			"starting and ending with a letter or digit", name))
	}
	if m.SizeMB.IsNull() {
		refuse("size_mb", "Size needed on a Kubernetes cluster", "A volume on a cluster is a persistent volume "+
			"claim, which asks its StorageClass for a size: set size_mb, such as size_mb = 1024")
	}
	if m.inMemory() {
		refuse("medium", "Memory volume not possible on a Kubernetes cluster", `medium = "memory": a claim is `+
			`on disk. Give each sandbox its scratch space with sandbox_container.tmpfs instead, or use `+
			`medium = "disk"`)
	}
	for _, seed := range []struct {
		attr string
		set  bool
	}{{"source", !m.Source.IsNull()}, {"reseed", !m.Reseed.IsNull()}, {"owner", !m.Owner.IsNull()}} {
		if attr := seed.attr; seed.set {
			refuse(attr, "Seeding not possible on a Kubernetes cluster", fmt.Sprintf("Remove %s: a claim "+
				"is filled only by a pod that mounts it, and its root's owner is the storage driver's. Build "+
				"the files into the image, or give them to the sandbox with sandbox_container.files, and copy "+
				"them into the volume from there", attr))
		}
	}
}
