package containerresource

import (
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
)

// labelSecretEnv holds the names (never the values) of the write-only
// secret environment variables, so that import leaves them out of env.
const labelSecretEnv = "tfsandbox.secret-env-names"

// secretsModel passes secrets without storing them (writeonly.Env).
type secretsModel = writeonly.Env

// secretUsage is how the sandbox takes env_wo.
var secretUsage = writeonly.Usage{
	SentWhen: "it creates the sandbox",
	Readable: "The provider records only their names, in a container label, so that import leaves them out. " +
		"Anyone who can inspect the container on the engine can read them. ",
	Rotation: "which replaces the sandbox with the new values",
}

// nullSecrets has no secrets.
func nullSecrets() secretsModel { return writeonly.Null() }

func secretAttributes() map[string]schema.Attribute {
	return writeonly.Attributes(secretUsage, envNameValidator())
}

// applySecrets adds the secret variables, read from the configuration, to
// spec's environment, and their names to its labels.
func applySecrets(secretEnv map[string]string, spec *engine.ContainerSpec) {
	if len(secretEnv) == 0 {
		return
	}
	spec.Env = append(spec.Env, values.EnvList(secretEnv)...)
	spec.SecretEnv = slices.Sorted(maps.Keys(secretEnv))
	spec.Labels[labelSecretEnv] = strings.Join(spec.SecretEnv, ",")
}

// withoutSecrets removes from env the variables the container's labels
// name as secrets.
func withoutSecrets(env map[string]string, labels map[string]string) map[string]string {
	for _, secret := range strings.Split(labels[labelSecretEnv], ",") {
		delete(env, secret)
	}
	return env
}
