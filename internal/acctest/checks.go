package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// CheckDestroyed asks the engine that every sandbox_container,
// sandbox_image and sandbox_volume in the state is gone.
func CheckDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type == "sandbox_volume" {
				if err := volumeDestroyed(t, rs.Primary.Attributes); err != nil {
					return err
				}
				continue
			}
			if rs.Type == "sandbox_image" {
				if err := imageDestroyed(t, rs.Primary.Attributes); err != nil {
					return err
				}
				continue
			}
			if rs.Type != "sandbox_container" {
				continue
			}
			_, err := Engine(t).InspectContainer(context.Background(), rs.Primary.ID)
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

// volumeDestroyed asks the engine that a destroyed sandbox_volume is gone,
// unless it was to be kept.
func volumeDestroyed(t *testing.T, attrs map[string]string) error {
	if attrs["keep_on_destroy"] == "true" {
		return nil
	}
	_, err := Engine(t).InspectVolume(context.Background(), attrs["name"])
	switch {
	case err == nil:
		return fmt.Errorf("volume %s still exists", attrs["name"])
	case !engine.IsNotFound(err):
		return fmt.Errorf("inspecting volume %s: %w", attrs["name"], err)
	}
	return nil
}

// imageDestroyed asks the engine that a destroyed sandbox_image's name
// names nothing, and that its image is gone unless another tag keeps it or
// it was to be kept.
func imageDestroyed(t *testing.T, attrs map[string]string) error {
	if attrs["keep_on_destroy"] == "true" {
		return nil
	}
	ctx := context.Background()
	if img, err := Engine(t).InspectImage(ctx, attrs["name"]); err == nil && img.ID == attrs["image_id"] {
		return fmt.Errorf("%s still names image %s", attrs["name"], attrs["image_id"])
	}
	img, err := Engine(t).InspectImage(ctx, attrs["image_id"])
	switch {
	case engine.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("inspecting image %s: %w", attrs["image_id"], err)
	case len(img.RepoTags) == 0:
		return fmt.Errorf("image %s (built as %s) still exists, untagged", attrs["image_id"], attrs["name"])
	}
	return nil
}

// EngineCheck is a state check that looks up a resource's container on the
// engine and hands it to Check.
type EngineCheck struct {
	T       *testing.T
	Address string
	Check   func(ctx context.Context, c engine.Sandbox) error
}

// CheckState implements statecheck.StateCheck.
func (e EngineCheck) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("%s: no state", e.Address)
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != e.Address {
			continue
		}
		id, _ := r.AttributeValues["id"].(string)
		c, err := Engine(e.T).InspectContainer(ctx, id)
		if err != nil {
			resp.Error = fmt.Errorf("%s: inspecting container %q: %w", e.Address, id, err)
			return
		}
		if err := e.Check(ctx, c); err != nil {
			resp.Error = fmt.Errorf("%s (container %s): %w", e.Address, id, err)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in state", e.Address)
}

// ExpectIsolated checks, through the engine and from inside the running
// container, that the sandbox at address has no network but loopback.
func ExpectIsolated(t *testing.T, address string) statecheck.StateCheck {
	return EngineCheck{T: t, Address: address, Check: func(ctx context.Context, c engine.Sandbox) error {
		if v := isolation.Assess(c.Network); !v.Isolated {
			return fmt.Errorf("engine shows the sandbox is not isolated: %s", v.Reason)
		}
		if !c.State.Running {
			return fmt.Errorf("sandbox is %s, not running", c.State.Status)
		}
		return OnlyLoopbackInside(ctx, t, c.ID)
	}}
}

// ExpectEngine checks a condition on the container at address as the
// engine shows it.
func ExpectEngine(t *testing.T, address string, check func(c engine.Sandbox) error) statecheck.StateCheck {
	return EngineCheck{T: t, Address: address, Check: func(_ context.Context, c engine.Sandbox) error {
		return check(c)
	}}
}

// ExpectInside checks a condition from inside the running container at
// address.
func ExpectInside(t *testing.T, address string, check func(ctx context.Context, id string) error) statecheck.StateCheck {
	return EngineCheck{T: t, Address: address, Check: func(ctx context.Context, c engine.Sandbox) error {
		return check(ctx, c.ID)
	}}
}

// ExpectPriorValue checks the value an attribute has in the refreshed prior
// state that a plan starts from: what the plan output shows left of "->".
type ExpectPriorValue struct {
	Address, Attribute string
	Want               any
}

// CheckPlan implements plancheck.PlanCheck.
func (e ExpectPriorValue) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.Address {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		// Numbers may come as float64 or json.Number: compare as printed.
		if got := before[e.Attribute]; fmt.Sprint(got) != fmt.Sprint(e.Want) {
			resp.Error = fmt.Errorf("%s.%s before the change is %#v, want %#v", e.Address, e.Attribute, got, e.Want)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", e.Address)
}

// StateLacks checks that a string appears nowhere in the state.
type StateLacks struct{ Secret string }

// CheckState implements statecheck.StateCheck.
func (s StateLacks) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if strings.Contains(string(raw), s.Secret) {
		resp.Error = fmt.Errorf("the secret is in the state")
	}
}

// OutOfBand returns a PreConfig function that changes the world behind
// Terraform's back, failing the test when it cannot.
func OutOfBand(t *testing.T, change func(ctx context.Context, api *client.Client) error) func() {
	return func() {
		t.Helper()
		if err := change(context.Background(), Docker(t)); err != nil {
			t.Fatalf("out-of-band change: %v", err)
		}
	}
}

// StartForeign creates and starts a container the provider did not make,
// named name and running cmd, with the tests' label (so the sweeper may
// remove it) and the given host configuration. It returns its ID.
func StartForeign(ctx context.Context, api *client.Client, name string, host *container.HostConfig, cmd ...string) (string, error) {
	c, err := api.ContainerCreate(ctx, &container.Config{
		Image: TestImage, Cmd: cmd, Labels: map[string]string{labelTest: "foreign"},
	}, host, nil, nil, name)
	if err != nil {
		return "", err
	}
	return c.ID, api.ContainerStart(ctx, c.ID, container.StartOptions{})
}

// Phrase matches words in Terraform's output however its line wrapping
// split them, anywhere in a multi-line error.
func Phrase(words string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + strings.Join(strings.Fields(regexp.QuoteMeta(words)), `\s+`))
}

// ExpectVolume checks a condition on a volume, by name, as the engine shows
// it; a volume that is gone fails it.
func ExpectVolume(t *testing.T, name string, check func(v engine.Volume) error) statecheck.StateCheck {
	return stateCheckFunc(func(ctx context.Context) error {
		v, err := Engine(t).InspectVolume(ctx, name)
		if err != nil {
			return fmt.Errorf("inspecting volume %s: %w", name, err)
		}
		return check(v)
	})
}

// stateCheckFunc is a state check that asks the engine, not the state.
type stateCheckFunc func(ctx context.Context) error

// CheckState implements statecheck.StateCheck.
func (f stateCheckFunc) CheckState(ctx context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f(ctx)
}

// LeftByCreate matches the command an error gives to remove the container
// a failed create left, found by its create token.
var LeftByCreate = regexp.MustCompile(`docker -H \S+ ps -aq --filter label=` + regexp.QuoteMeta(engine.LabelCreateToken) +
	`=[0-9a-f]{32} \| xargs -r docker -H \S+ rm -f`)

// RunByHand runs a shell command an error gave, as a user would, failing
// the test when it fails.
func RunByHand(t *testing.T, command string) {
	t.Helper()
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
}
