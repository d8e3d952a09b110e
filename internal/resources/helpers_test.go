package resources_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources"
)

// testImage is the small local image the tests run; `make image` builds it
// from Debian's static busybox. Nothing is ever pulled.
var testImage = envOr("SANDBOX_TEST_IMAGE", "tfsandbox/busybox:latest")

// namePrefix starts the name of every container the tests create, so that
// cleanup can find them.
const namePrefix = "tfacc-"

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// legacyProviderFactories serve sandbox_container at schema version 0, as a
// provider release before network_mode would have.
var legacyProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": providerserver.NewProtocol6WithError(&legacyProvider{
		SandboxProvider: &provider.SandboxProvider{},
	}),
}

type legacyProvider struct {
	*provider.SandboxProvider
}

func (p *legacyProvider) Resources(context.Context) []func() fwresource.Resource {
	return []func() fwresource.Resource{resources.NewLegacyContainerResourceV0}
}

var _ fwprovider.Provider = &legacyProvider{}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

var (
	dockerOnce sync.Once
	dockerAPI  *client.Client
	dockerErr  error
)

// docker returns the tests' own engine client, used to look at and change
// the world behind Terraform's back.
func docker(t *testing.T) *client.Client {
	t.Helper()
	dockerOnce.Do(func() {
		dockerAPI, dockerErr = client.NewClientWithOpts(
			client.WithHost(engine.ResolveHost("")), client.WithAPIVersionNegotiation())
	})
	if dockerErr != nil {
		t.Fatalf("docker client: %v", dockerErr)
	}
	return dockerAPI
}

// preCheck fails the test, rather than skipping it, when the engine or the
// test image is missing.
func preCheck(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := docker(t).Ping(ctx); err != nil {
		t.Fatalf("no Docker engine answers at %s (%v): start one with `make engine`", engine.ResolveHost(""), err)
	}
	if _, err := docker(t).ImageInspect(ctx, testImage); err != nil {
		t.Fatalf("test image %s is missing (%v): build it with `make image`", testImage, err)
	}
}

// sandboxName returns a name unique to this test run and removes, when the
// test ends however it ends, every container whose name starts with it.
func sandboxName(t *testing.T) string {
	t.Helper()
	short := strings.ToLower(strings.TrimPrefix(t.Name(), "TestAcc"))
	short = strings.NewReplacer("/", "-", "_", "-").Replace(short)
	if len(short) > 30 {
		short = short[:30]
	}
	name := namePrefix + short + "-" + acctest.RandString(6)
	t.Cleanup(func() { removeContainers(t, name) })
	return name
}

func removeContainers(t *testing.T, prefix string) {
	ctx := context.Background()
	list, err := docker(t).ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("name", "^/"+prefix)),
	})
	if err != nil {
		t.Errorf("cleanup: listing containers: %v", err)
		return
	}
	for _, c := range list {
		if err := docker(t).ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}); err != nil {
			t.Errorf("cleanup: removing %s: %v", c.ID, err)
		}
	}
}

// containersNamed lists the containers whose name starts with prefix.
func containersNamed(t *testing.T, prefix string) []container.Summary {
	t.Helper()
	list, err := docker(t).ContainerList(context.Background(), container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("name", "^/"+prefix)),
	})
	if err != nil {
		t.Fatalf("listing containers: %v", err)
	}
	return list
}

func inspect(t *testing.T, idOrName string) container.InspectResponse {
	t.Helper()
	c, err := docker(t).ContainerInspect(context.Background(), idOrName)
	if err != nil {
		t.Fatalf("inspecting %s: %v", idOrName, err)
	}
	return c
}

// checkDestroyed asks the engine that every sandbox_container in the state
// is gone.
func checkDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "sandbox_container" {
				continue
			}
			_, err := docker(t).ContainerInspect(context.Background(), rs.Primary.ID)
			if err == nil {
				return fmt.Errorf("container %s still exists", rs.Primary.ID)
			}
			if !engine.IsNotFound(err) {
				return fmt.Errorf("inspecting %s: %w", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// execIn runs a command in a running container and returns its standard
// output, or an error when it exits non-zero.
func execIn(ctx context.Context, api *client.Client, id string, cmd ...string) (string, error) {
	res, err := execRun(ctx, api, id, cmd...)
	if err != nil {
		return "", err
	}
	if res.exitCode != 0 {
		return "", fmt.Errorf("%v exited %d: %s", cmd, res.exitCode, res.stderr)
	}
	return res.stdout, nil
}

// errText prints an error that may be nil, for messages about checks that
// failed with or without one.
func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

type execResult struct {
	stdout, stderr string
	exitCode       int
}

// execRun runs a command in a running container, as the container's user,
// and returns its output and exit code.
func execRun(ctx context.Context, api *client.Client, id string, cmd ...string) (execResult, error) {
	created, err := api.ContainerExecCreate(ctx, id, container.ExecOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return execResult{}, err
	}
	att, err := api.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return execResult{}, err
	}
	defer att.Close()
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, att.Reader); err != nil {
		return execResult{}, err
	}
	res, err := api.ContainerExecInspect(ctx, created.ID)
	if err != nil {
		return execResult{}, err
	}
	return execResult{stdout: stdout.String(), stderr: stderr.String(), exitCode: res.ExitCode}, nil
}

// interfaces lists the network interfaces a process inside the container
// sees, from /proc/net/dev.
func interfaces(ctx context.Context, api *client.Client, id string) ([]string, error) {
	out, err := execIn(ctx, api, id, "cat", "/proc/net/dev")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names, nil
}

// engineCheck is a state check that looks up a resource's container on the
// engine and hands it to check.
type engineCheck struct {
	t       *testing.T
	address string
	check   func(ctx context.Context, c container.InspectResponse) error
}

func (e engineCheck) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("%s: no state", e.address)
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != e.address {
			continue
		}
		id, _ := r.AttributeValues["id"].(string)
		c, err := docker(e.t).ContainerInspect(ctx, id)
		if err != nil {
			resp.Error = fmt.Errorf("%s: inspecting container %q: %w", e.address, id, err)
			return
		}
		if err := e.check(ctx, c); err != nil {
			resp.Error = fmt.Errorf("%s (container %s): %w", e.address, id, err)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in state", e.address)
}

// expectIsolated checks, through the engine and from inside the running
// container, that the test's sandbox has no network but loopback.
func expectIsolated(t *testing.T) statecheck.StateCheck {
	return engineCheck{t: t, address: addr, check: func(ctx context.Context, c container.InspectResponse) error {
		if v := isolation.Assess(c); !v.Isolated {
			return fmt.Errorf("engine shows the sandbox is not isolated: %s", v.Reason)
		}
		if !c.State.Running {
			return fmt.Errorf("sandbox is %s, not running", c.State.Status)
		}
		names, err := interfaces(ctx, docker(t), c.ID)
		if err != nil {
			return fmt.Errorf("listing interfaces inside: %w", err)
		}
		if len(names) != 1 || names[0] != "lo" {
			return fmt.Errorf("interfaces inside the sandbox are %v, want only [lo]", names)
		}
		return nil
	}}
}

// expectEngine checks a condition on the test's container as the engine
// shows it.
func expectEngine(t *testing.T, check func(c container.InspectResponse) error) statecheck.StateCheck {
	return engineCheck{t: t, address: addr, check: func(_ context.Context, c container.InspectResponse) error {
		return check(c)
	}}
}

// expectInside checks a condition from inside the test's running container.
func expectInside(t *testing.T, check func(ctx context.Context, api *client.Client, id string) error) statecheck.StateCheck {
	return engineCheck{t: t, address: addr, check: func(ctx context.Context, c container.InspectResponse) error {
		return check(ctx, docker(t), c.ID)
	}}
}

// expectPriorValue checks the value an attribute has in the refreshed prior
// state that a plan starts from: what the plan output shows left of "->".
type expectPriorValue struct {
	address, attribute string
	want               any
}

func (e expectPriorValue) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.address {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		// Numbers may come as float64 or json.Number: compare as printed.
		if got := before[e.attribute]; fmt.Sprint(got) != fmt.Sprint(e.want) {
			resp.Error = fmt.Errorf("%s.%s before the change is %#v, want %#v", e.address, e.attribute, got, e.want)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", e.address)
}

// outOfBand returns a PreConfig function that changes the world behind
// Terraform's back, failing the test when it cannot.
func outOfBand(t *testing.T, change func(ctx context.Context, api *client.Client) error) func() {
	return func() {
		t.Helper()
		if err := change(context.Background(), docker(t)); err != nil {
			t.Fatalf("out-of-band change: %v", err)
		}
	}
}

// sandboxConfig renders one sandbox_container "test" with the given extra
// arguments.
func sandboxConfig(name, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_container" "test" {
  name  = %q
  image = %q
%s
}
`, name, testImage, extra)
}
