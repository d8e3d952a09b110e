// Package acctest is the acceptance-test kit every resource package's tests
// share: provider factories, pre-checks, unique names with cleanup, checks
// that ask the real engine, out-of-band changes, a fault-injecting engine
// proxy and the terraform CLI runner. Acceptance tests run only with
// TF_ACC=1; without it nothing here contacts an engine or runs terraform.
package acctest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/warden"
)

// TestImage is the small local image the tests run; `make image` builds it
// from Debian's static busybox. Nothing is ever pulled.
var TestImage = envOr("SANDBOX_TEST_IMAGE", "tfsandbox/busybox:latest")

// ProtoV6ProviderFactories serve the provider as built from this tree.
var ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// ProviderFactoriesWith serve the provider with only the given resources,
// for example a resource frozen at an earlier schema version, to write the
// states a newer version must upgrade.
func ProviderFactoriesWith(resources ...func() fwresource.Resource) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"sandbox": providerserver.NewProtocol6WithError(withResources{provider.New("test")(), resources}),
	}
}

type withResources struct {
	fwprovider.Provider
	resources []func() fwresource.Resource
}

func (p withResources) Resources(context.Context) []func() fwresource.Resource { return p.resources }

// RandString returns n random lower-case letters, for unique values.
func RandString(n int) string { return tfacctest.RandString(n) }

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// RequireAcc skips a test that needs the engine or terraform unless
// TF_ACC is set, as the plugin testing framework does for its own tests.
func RequireAcc(t *testing.T) {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1", resource.EnvTfAcc)
	}
}

// PreCheck fails the test, rather than skipping it, when the engine or the
// test image is missing.
func PreCheck(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Engine(t).Ping(ctx); err != nil {
		t.Fatalf("no Docker engine answers at %s (%v): start one with `make engine`", Engine(t).Endpoint(), err)
	}
	if _, err := Engine(t).InspectImage(ctx, TestImage); err != nil {
		t.Fatalf("test image %s is missing (%v): build it with `make image`", TestImage, err)
	}
}

// Test runs acceptance steps with the current provider, failing without an
// engine and asking the engine at the end that every sandbox is gone.
func Test(t *testing.T, steps []resource.TestStep) {
	t.Helper()
	resource.ParallelTest(t, testCase(t, steps))
}

// testCase is the case every acceptance test runs.
func testCase(t *testing.T, steps []resource.TestStep) resource.TestCase {
	return resource.TestCase{
		PreCheck:                 func() { PreCheck(t) },
		ProtoV6ProviderFactories: ProtoV6ProviderFactories,
		CheckDestroy:             CheckDestroyed(t),
		Steps:                    steps,
	}
}

// Config renders one sandbox_container "test" with the given name and
// extra arguments, on the test image.
func Config(name, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_container" "test" {
  name  = %q
  image = %q
%s
}
`, name, TestImage, extra)
}

// CountConfig renders count isolated sandbox_container "test" instances
// named name-0, name-1, ...
func CountConfig(name string, count int) string {
	return fmt.Sprintf(`
resource "sandbox_container" "test" {
  count        = %d
  name         = "%s-${count.index}"
  image        = %q
  network_mode = "none"
}
`, count, name, TestImage)
}

// Main runs a test package's tests, or its sweepers with -sweep, and then
// removes what the kit built for the run (the provider binary).
func Main(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == volumetar.Command {
		// The provider runs in the test binary, which a helper container
		// on Podman runs to read a volume, as it runs the provider's.
		os.Exit(volumetar.Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == warden.Command {
		os.Exit(warden.Main(os.Args[2:]))
	}
	resource.AddTestSweepers("sandbox_container", &resource.Sweeper{Name: "sandbox_container", F: sweep})
	resource.TestMain(runThenClean{m})
}

type runThenClean struct{ m *testing.M }

func (r runThenClean) Run() int {
	// The tests' engine client is built from DOCKER_HOST and the like as the
	// run starts, before a test that sets them for itself (t.Setenv) could
	// point it at another engine for every later test.
	if os.Getenv(resource.EnvTfAcc) != "" {
		_ = connect()
	}
	code := r.m.Run()
	removeBuiltProvider()
	return code
}
