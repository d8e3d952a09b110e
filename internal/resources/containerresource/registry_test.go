package containerresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Private registries (the provider's registry_auth), against the test
// registry on 127.0.0.1, which takes only its own user and password.

// registryProvider is a provider block with the registry's credentials
// (none when user is empty).
func registryProvider(host, user, password string) string {
	if user == "" {
		return ""
	}
	return fmt.Sprintf(`
provider "sandbox" {
  registry_auth = [{
    address  = %q
    username = %q
    password = %q
  }]
}
`, host, user, password)
}

// privateSandbox is one isolated sandbox_container "test" of image.
func privateSandbox(name, image string) string {
	return fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
}
`, name, image)
}

// TestAccContainer_privateRegistry: an image only a private registry holds
// is pulled with the provider's credentials for that registry; without
// them, or with wrong ones, the create fails naming the registry and the
// setting, and makes nothing.
func TestAccContainer_privateRegistry(t *testing.T) {
	reg := acctest.PrivateRegistry(t)
	name := acctest.Name(t)
	ref := reg.PushPrivate(t)
	acctest.Test(t, []resource.TestStep{
		{
			Config: privateSandbox(name, ref),
			ExpectError: acctest.Phrase(fmt.Sprintf(`the registry %s asks for credentials, and the provider has `+
				`none for it`, reg.Host)),
		},
		{
			Config: registryProvider(reg.Host, reg.User, "not-"+reg.Password) + privateSandbox(name, ref),
			ExpectError: acctest.Phrase(fmt.Sprintf(`the registry %s refused the credentials of registry_auth["%s"]`,
				reg.Host, reg.Host)),
		},
		{
			Config:            registryProvider(reg.Host, reg.User, reg.Password) + privateSandbox(name, ref),
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIsolated(t, addr)},
		},
	})
}

// TestAccContainer_registryPasswordNeverShown: the registry's password, right
// or wrong, reaches neither the state, nor the CLI's output, nor its log at
// TRACE, which holds every message between Terraform and the provider.
func TestAccContainer_registryPasswordNeverShown(t *testing.T) {
	reg := acctest.PrivateRegistry(t)
	name := acctest.Name(t)
	ref := reg.PushPrivate(t)
	tf := acctest.NewCLI(t, fmt.Sprintf(`
variable "registry_password" {
  type      = string
  sensitive = true
}

provider "sandbox" {
  registry_auth = [{
    address  = %q
    username = %q
    password = var.registry_password
  }]
}
`, reg.Host, reg.User)+privateSandbox(name, ref))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	logs := filepath.Join(tf.Dir, "trace.log")
	tf.Env = append(tf.Env, "TF_LOG=TRACE", "TF_LOG_PATH="+logs)
	wrong := "wrong-" + reg.Password
	var outputs []string
	for _, password := range []string{wrong, reg.Password} {
		tf.Env = append(tf.Env, "TF_VAR_registry_password="+password)
		out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false")
		if (err == nil) != (password == reg.Password) {
			t.Fatalf("apply with the password %s: %v\n%s", map[bool]string{true: "right", false: "wrong"}[password == reg.Password], err, out)
		}
		outputs = append(outputs, out)
	}
	state, err := os.ReadFile(filepath.Join(tf.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(logs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(trace), "registry_auth") {
		t.Fatal("the TRACE log does not show the provider's configuration at all: the search below would prove nothing")
	}
	for what, text := range map[string]string{"the state": string(state), "the TRACE log": string(trace),
		"the output": strings.Join(outputs, "\n")} {
		for _, password := range []string{reg.Password, wrong} {
			if strings.Contains(text, password) {
				t.Errorf("%s holds the registry's password", what)
			}
		}
	}
}

// TestAccCluster_privateRegistry: on the test cluster, a sandbox of an image
// only the private registry holds runs from it with the provider's
// credentials, which go into an image pull secret of the pod's own (owned
// by it, removed with it); without them, or with wrong ones, the create
// fails naming the registry and the setting.
func TestAccCluster_privateRegistry(t *testing.T) {
	acctest.RequireCluster(t)
	reg := acctest.PrivateRegistry(t)
	name := acctest.ClusterName(t)
	ref := reg.PushPrivate(t)
	withAuth := func(password string) string {
		return strings.Replace(acctest.ClusterProvider(t, ""), "provider \"sandbox\" {", fmt.Sprintf(
			"provider \"sandbox\" {\n  registry_auth = [{ address = %q, username = %q, password = %q }]",
			reg.Host, reg.User, password), 1)
	}
	var secret string
	acctest.ClusterTest(t, []resource.TestStep{
		{
			Config: acctest.ClusterProvider(t, "") + privateSandbox(name, ref),
			ExpectError: acctest.Phrase(fmt.Sprintf(`the registry %s asks for credentials, and the provider has `+
				`none for it`, reg.Host)),
		},
		{
			Config: withAuth("not-"+reg.Password) + privateSandbox(name, ref),
			ExpectError: acctest.Phrase(fmt.Sprintf(`the registry %s refused the credentials of registry_auth["%s"]`,
				reg.Host, reg.Host)),
		},
		{
			Config: withAuth(reg.Password) + privateSandbox(name, ref),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ClusterIsolated(t, addr),
				acctest.ClusterCheck(t, addr, func(ctx context.Context, _ engine.Sandbox, pod *corev1.Pod) error {
					var err error
					secret, err = acctest.PodPullSecret(ctx, t, pod, reg.Host)
					return err
				}),
			},
		},
	})
	if secret != "" {
		acctest.ExpectSecretGone(t, secret)
	}
}

// TestAccCluster_pullSecretMadeAfterThePod: a pull secret the provider's
// kubernetes.image_pull_secrets names, which the namespace gets only after
// the pod's first pull was refused (as an operator that syncs pull secrets
// may make it late, or as a loaded node's kubelet may not read it in
// time), does not fail the create: the kubelet said it could not read the
// secret, so the refusal did not judge it, and its next pull, with it,
// starts the sandbox.
func TestAccCluster_pullSecretMadeAfterThePod(t *testing.T) {
	acctest.RequireCluster(t)
	reg := acctest.PrivateRegistry(t)
	name := acctest.ClusterName(t)
	ref := reg.PushPrivate(t)
	secret := name + "-synced"
	provider := strings.Replace(acctest.ClusterProvider(t, ""), "helper_image",
		fmt.Sprintf("image_pull_secrets = [%q]\n    helper_image", secret), 1)
	var made <-chan error
	acctest.ClusterTest(t, []resource.TestStep{{
		PreConfig: func() { made = reg.PullSecretAfterRefusal(t, name, secret) },
		Config:    provider + privateSandbox(name, ref),
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ClusterIsolated(t, addr),
			acctest.ClusterCheck(t, addr, func(context.Context, engine.Sandbox, *corev1.Pod) error {
				select {
				case err := <-made:
					return err
				default:
					return fmt.Errorf("the sandbox started before the secret %s was made", secret)
				}
			}),
		},
	}})
}
