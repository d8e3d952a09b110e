// Package writeonly is the write-only environment that sandbox_container
// and sandbox_exec share: env_wo, which Terraform sends when it applies and
// never stores in a plan or state, and env_wo_version, whose change is the
// only way Terraform can see that env_wo changed.
package writeonly

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// Env is the write-only environment of a resource. EnvWO is always null in
// plans and states: the values are read from the configuration when the
// resource is applied.
type Env struct {
	EnvWO        types.Map   `tfsdk:"env_wo"`
	EnvWOVersion types.Int64 `tfsdk:"env_wo_version"`
}

// Null is no write-only environment.
func Null() Env {
	return Env{EnvWO: types.MapNull(types.StringType), EnvWOVersion: types.Int64Null()}
}

// Usage says, for the descriptions and errors of one resource, when the
// values are sent, where they can be read, and what a new version does.
type Usage struct {
	// SentWhen ends "Terraform sends them when ...": "it creates the sandbox".
	SentWhen string
	// Readable says who else can read the values, a sentence or "".
	Readable string
	// Rotation ends "raise env_wo_version in the same apply, ...": "which
	// replaces the sandbox with the new values".
	Rotation string
}

// Attributes are env_wo and env_wo_version, whose names names must pass.
func Attributes(u Usage, names validator.String) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"env_wo": schema.MapAttribute{
			MarkdownDescription: "Secret environment variables. Write-only: Terraform sends them when " + u.SentWhen +
				" and never stores them in the plan or state (requires Terraform 1.11 or OpenTofu 1.11 or later). " +
				u.Readable + "Terraform cannot see a change here: change `env_wo_version` to apply new values. " +
				"Names must not repeat `env`'s.",
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
			WriteOnly:   true,
			Validators:  []validator.Map{mapvalidator.KeysAre(names)},
		},
		"env_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Required with `env_wo`: any number. Terraform cannot see `env_wo` change, so to " +
				"rotate the secrets change `env_wo` and raise `env_wo_version` in the same apply, " + u.Rotation + ".",
			Optional:      true,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
	}
}

// Validate refuses env_wo without a version, and a variable both in env
// and in env_wo.
func (e Env) Validate(env types.Map, u Usage) diag.Diagnostics {
	var diags diag.Diagnostics
	if !e.EnvWO.IsNull() && e.EnvWOVersion.IsNull() {
		// Terraform never sees env_wo change, so without a version there
		// would be no way to roll its values later.
		diags.AddAttributeError(path.Root("env_wo_version"), "Secret version missing",
			"Attribute env_wo needs env_wo_version. Terraform never stores env_wo, so it cannot see its "+
				"values change: to rotate the secrets, change env_wo and raise env_wo_version in the same "+
				"apply, "+u.Rotation+". Start with env_wo_version = 1.")
	}
	if !values.Known(e.EnvWO) || !values.Known(env) {
		return diags
	}
	for _, name := range slices.Sorted(maps.Keys(e.EnvWO.Elements())) {
		if _, ok := env.Elements()[name]; ok {
			diags.AddAttributeError(path.Root("env_wo").AtMapKey(name), "Variable set twice",
				fmt.Sprintf("Attribute env_wo[%q] is also in env. Keep it in one.", name))
		}
	}
	return diags
}

// NeedsCapableCLI refuses env_wo on a CLI that cannot send write-only
// attributes (Terraform before 1.11, OpenTofu before 1.11), which would
// otherwise store the secrets in the state.
func (e Env) NeedsCapableCLI(writeOnlyAllowed bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if writeOnlyAllowed || e.EnvWO.IsNull() {
		return diags
	}
	diags.AddAttributeError(path.Root("env_wo"), "This CLI cannot keep env_wo out of the state",
		"env_wo is write-only: only Terraform 1.11 or later and OpenTofu 1.11 or later can send it without "+
			"storing it in the plan and state, and this CLI does not support write-only attributes. Upgrade "+
			"the CLI, or, if storing the values in the state is acceptable, move them to env.")
	return diags
}
