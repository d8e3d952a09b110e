package resources

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
)

// validateCombinations checks combinations of attributes at plan time.
// Values not known yet are skipped; apply sees them.
func validateCombinations(ctx context.Context, m containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if !m.Ports.IsNull() && m.isolated() {
		diags.AddAttributeError(path.Root("ports"), "Ports need a network",
			"A sandbox with network_mode = \"none\" has no network to publish ports on. Remove ports, or "+
				"remove network_mode to give the sandbox the engine's default network.")
	}
	for _, c := range setStrings(m.CapAdd) {
		if slices.Contains(setStrings(m.CapDrop), c) {
			diags.AddAttributeError(path.Root("cap_add"), "Capability both added and dropped", fmt.Sprintf(
				"Attribute cap_add and cap_drop both name %s. Keep it in one of them.", c))
		}
	}
	if !m.AllowUnconfined.ValueBool() && !m.AllowUnconfined.IsUnknown() {
		for _, opt := range setStrings(m.SecurityOpts) {
			if validators.Unconfined(opt) {
				diags.AddAttributeError(path.Root("security_opts"), "Security option disables confinement",
					fmt.Sprintf("%q switches off a confinement layer of the sandbox. If that is really "+
						"intended, also set allow_unconfined = true.", opt))
			}
		}
	}
	if known(m.Memory) && known(m.MemorySwap) && m.MemorySwap.ValueInt64() < m.Memory.ValueInt64() {
		diags.AddAttributeError(path.Root("memory_swap"), "Memory plus swap below memory", fmt.Sprintf(
			"memory_swap (%d MiB) is memory plus swap and cannot be less than memory (%d MiB).",
			m.MemorySwap.ValueInt64(), m.Memory.ValueInt64()))
	}
	diags.Append(validateUlimits(ctx, m.Ulimits)...)
	diags.Append(validateFiles(ctx, m)...)
	diags.Append(validateSecretEnv(ctx, m)...)
	return diags
}

func known(v interface {
	IsNull() bool
	IsUnknown() bool
}) bool {
	return !v.IsNull() && !v.IsUnknown()
}

func validateUlimits(ctx context.Context, ulimits types.Map) diag.Diagnostics {
	var diags diag.Diagnostics
	if !known(ulimits) {
		return diags
	}
	var entries map[string]ulimitModel
	diags.Append(ulimits.ElementsAs(ctx, &entries, false)...)
	for name, u := range entries {
		if known(u.Soft) && known(u.Hard) && u.Soft.ValueInt64() > u.Hard.ValueInt64() {
			diags.AddAttributeError(path.Root("ulimits").AtMapKey(name).AtName("soft"), "Soft limit above hard limit",
				fmt.Sprintf("Attribute ulimits[%q].soft (%d) cannot exceed ulimits[%q].hard (%d).",
					name, u.Soft.ValueInt64(), name, u.Hard.ValueInt64()))
		}
	}
	return diags
}

// validateFiles rejects files the engine could not write, or that a tmpfs
// mount would hide.
func validateFiles(ctx context.Context, m containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if !known(m.Files) {
		return diags
	}
	if m.ReadOnly.ValueBool() {
		diags.AddAttributeError(path.Root("files"), "Files need a writable root filesystem",
			"The engine cannot write files into a sandbox whose root filesystem is read-only (read_only = true). "+
				"Build the files into the image, or drop read_only.")
	}
	var mounts map[string]string
	if known(m.Tmpfs) {
		diags.Append(m.Tmpfs.ElementsAs(ctx, &mounts, false)...)
	}
	for _, file := range slices.Sorted(maps.Keys(m.Files.Elements())) {
		for mount := range mounts {
			if file == mount || strings.HasPrefix(file, mount+"/") {
				diags.AddAttributeError(path.Root("files").AtMapKey(file), "File hidden by a tmpfs mount",
					fmt.Sprintf("Attribute files[%q] is under the tmpfs mount %s, which is mounted over it when "+
						"the sandbox starts, so the file would not be seen. Put it elsewhere.", file, mount))
			}
		}
	}
	return diags
}

func validateSecretEnv(_ context.Context, m containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if !known(m.EnvWO) || !known(m.Env) {
		return diags
	}
	for name := range m.EnvWO.Elements() {
		if _, ok := m.Env.Elements()[name]; ok {
			diags.AddAttributeError(path.Root("env_wo").AtMapKey(name), "Variable set twice",
				fmt.Sprintf("Attribute env_wo[%q] is also in env. Keep it in one.", name))
		}
	}
	return diags
}
