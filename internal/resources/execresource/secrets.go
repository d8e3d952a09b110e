package execresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
)

// The command's write-only environment: a secret given to a setup command
// that no plan or state keeps.

// secretUsage is how the command takes env_wo.
var secretUsage = writeonly.Usage{
	SentWhen: "the command runs",
	Readable: "They are in the command's environment only, not the sandbox's: other processes of the same user " +
		"in the sandbox can read them while it runs (`/proc/PID/environ`). ",
	Rotation: "which runs the command again with the new values",
}

func secretAttributes() map[string]schema.Attribute {
	return writeonly.Attributes(secretUsage, stringvalidator.RegexMatches(envName,
		"must be a variable name: non-empty, without '='"))
}

// secretEnv reads env_wo from the configuration, the only place it is.
func secretEnv(ctx context.Context, config tfsdk.Config) (map[string]string, diag.Diagnostics) {
	var env map[string]string
	diags := config.GetAttribute(ctx, path.Root("env_wo"), &env)
	return env, diags
}
