package containerresource

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// labelSecretEnv holds the names (never the values) of the write-only
// secret environment variables, so that import leaves them out of env.
const labelSecretEnv = "tfsandbox.secret-env-names"

// secretsModel passes secrets without storing them. EnvWO is always null in
// plans and states: the values are read from the configuration in Create.
type secretsModel struct {
	EnvWO        types.Map   `tfsdk:"env_wo"`
	EnvWOVersion types.Int64 `tfsdk:"env_wo_version"`
}

// nullSecrets has no secrets.
func nullSecrets() secretsModel {
	return secretsModel{EnvWO: types.MapNull(types.StringType), EnvWOVersion: types.Int64Null()}
}

func secretAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"env_wo": schema.MapAttribute{
			MarkdownDescription: "Secret environment variables. Write-only: Terraform sends them when it creates " +
				"the sandbox and never stores them in the plan or state (requires Terraform 1.11 or later). " +
				"The provider records only their names, in a container label, so that import leaves them out. " +
				"Anyone who can inspect the container on the engine can read them. Terraform cannot see a " +
				"change here: change `env_wo_version` to apply new values. Names must not repeat `env`'s.",
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
			WriteOnly:   true,
			Validators:  []validator.Map{mapvalidator.KeysAre(envNameValidator())},
		},
		"env_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Required with `env_wo`: any number. Terraform cannot see `env_wo` change, so to " +
				"rotate the secrets change `env_wo` and raise `env_wo_version` in the same apply, which replaces " +
				"the sandbox with the new values.",
			Optional:      true,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
	}
}

// applySecrets adds the secret variables, read from the configuration, to
// spec's environment, and their names to its labels.
func applySecrets(secretEnv map[string]string, spec *engine.ContainerSpec) {
	if len(secretEnv) == 0 {
		return
	}
	spec.Env = append(spec.Env, envList(secretEnv)...)
	spec.Labels[labelSecretEnv] = strings.Join(slices.Sorted(maps.Keys(secretEnv)), ",")
}

// withoutSecrets removes from env the variables the container's labels
// name as secrets.
func withoutSecrets(env map[string]string, labels map[string]string) map[string]string {
	for _, secret := range strings.Split(labels[labelSecretEnv], ",") {
		delete(env, secret)
	}
	return env
}

// validate rejects a variable both in env and in env_wo.
func (s secretsModel) validate(env types.Map) diag.Diagnostics {
	var diags diag.Diagnostics
	if !s.EnvWO.IsNull() && s.EnvWOVersion.IsNull() {
		// Terraform never sees env_wo change, so without a version there
		// would be no way to roll its values later.
		diags.AddAttributeError(path.Root("env_wo_version"), "Secret version missing",
			"Attribute env_wo needs env_wo_version. Terraform never stores env_wo, so it cannot see its "+
				"values change: to rotate the secrets, change env_wo and raise env_wo_version in the same "+
				"apply, which replaces the sandbox with the new values. Start with env_wo_version = 1.")
	}
	if !values.Known(s.EnvWO) || !values.Known(env) {
		return diags
	}
	for _, name := range slices.Sorted(maps.Keys(s.EnvWO.Elements())) {
		if _, ok := env.Elements()[name]; ok {
			diags.AddAttributeError(path.Root("env_wo").AtMapKey(name), "Variable set twice",
				fmt.Sprintf("Attribute env_wo[%q] is also in env. Keep it in one.", name))
		}
	}
	return diags
}

// needsWriteOnlyCLI refuses env_wo on a CLI that cannot send write-only
// attributes (Terraform before 1.11, OpenTofu before 1.11), which would
// otherwise store the secrets in the state.
func (s secretsModel) needsWriteOnlyCLI(writeOnlyAllowed bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if writeOnlyAllowed || s.EnvWO.IsNull() {
		return diags
	}
	diags.AddAttributeError(path.Root("env_wo"), "This CLI cannot keep env_wo out of the state",
		"env_wo is write-only: only Terraform 1.11 or later and OpenTofu 1.11 or later can send it without "+
			"storing it in the plan and state, and this CLI does not support write-only attributes. Upgrade "+
			"the CLI, or, if storing the values in the state is acceptable, move them to env.")
	return diags
}
