package containerresource_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// remoteEngine reports whether the tests' engine is reached over the
// network (TCP, TLS, SSH), where host paths are refused.
func remoteEngine(t *testing.T) bool {
	acctest.RequireAcc(t)
	return !strings.HasPrefix(acctest.Engine(t).Endpoint(), "unix://")
}

// sharedDir makes a directory every engine's user can read (rootless
// Podman's included), holding input.txt, and removes it when the test ends.
func sharedDir(t *testing.T, mode os.FileMode) string {
	dir := t.TempDir()
	acctest.Write(t, filepath.Join(dir, "input.txt"), "from the host\n")
	// The test's temporary directory is private to its user: open the way.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "input.txt")} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A host path, allowed, is mounted read-only by default, and writable when
// asked; on a remote engine it is refused at plan, saying the path is the
// engine host's.
func TestAccContainer_hostPathMount(t *testing.T) {
	name := acctest.Name(t)
	dir := sharedDir(t, 0o777)
	config := func(readOnly string) string {
		return acctest.Config(name, fmt.Sprintf(`  network_mode     = "none"
  allow_host_paths = true
  mounts = { "/input" = { host_path = %q%s } }`, dir, readOnly))
	}
	if remoteEngine(t) {
		acctest.Test(t, []resource.TestStep{{
			Config: config(""), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Host\s+path\s+on\s+a\s+remote\s+engine.*is\s+a\s+path\s+of\s+the\s+host\s+of\s+the\s+engine\s+at`),
		}})
		return
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config(""),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIsolated(t, addr),
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					if got, err := acctest.ExecOK(ctx, t, id, "cat", "/input/input.txt"); err != nil || got != "from the host\n" {
						return fmt.Errorf("the host path holds %q (%s)", got, acctest.ErrText(err))
					}
					if res, err := acctest.Exec(ctx, t, id, "touch", "/input/new"); err != nil || res.ExitCode == 0 {
						return fmt.Errorf("writing to the host path, read-only by default, did not fail: %+v %s", res, acctest.ErrText(err))
					}
					return nil
				}),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					// Propagation is the Docker API's own.
					info, err := acctest.Docker(t).ContainerInspect(context.Background(), c.ID)
					if err != nil {
						return err
					}
					for _, m := range info.Mounts {
						if m.Destination == "/input" && (m.Propagation != "rprivate" && m.Propagation != "") {
							return fmt.Errorf("bind propagation is %q, want private", m.Propagation)
						}
					}
					return nil
				}),
			},
		},
		{
			Config: config(", read_only = false"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				_, err := acctest.ExecOK(ctx, t, id, "sh", "-c", "echo out > /input/out.txt")
				return err
			})},
		},
		{
			Config:           config(", read_only = false"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		{
			// Import reads the host path back, and that it was allowed.
			Config: config(", read_only = false"), ResourceName: addr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
	})
	if got, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(got) != "out\n" {
		t.Errorf("the sandbox's write is not on the host: %q %v", got, err)
	}
}

// Host paths are refused without the opt-in, and those that hand the host
// over are refused whatever it says: the root, the kernel's, devices' and
// configuration's paths, what holds them, the engine's data and sockets,
// a directory that holds a socket, and what leads to them through symbolic
// links.
func TestAccContainer_hostPathsRefusedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	dir := sharedDir(t, 0o755)
	if err := os.Symlink("/etc", filepath.Join(dir, "config")); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	allowed := "  allow_host_paths = true\n"
	cases := []struct{ body, want string }{
		{fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, dir), `Host paths not allowed.*Set allow_host_paths = true`},
		{allowed + `mounts = { "/in" = { host_path = "/etc" } }`, `Host path hands over the host.*it is /etc or lies under it`},
		{allowed + `mounts = { "/in" = { host_path = "/var" } }`, `Host path hands over the host.*it holds /var/run`},
		{allowed + `mounts = { "/in" = { host_path = "/var/lib" } }`, `it holds /var/lib/docker`},
		{allowed + `mounts = { "/in" = { host_path = "/var/run/docker.sock" } }`, `it is an engine's socket`},
		{allowed + `mounts = { "/in" = { host_path = "/run/containerd/containerd.sock" } }`, `it is an engine's socket`},
		{allowed + `mounts = { "/in" = { host_path = "/proc/1/root" } }`, `it is /proc or lies under it`},
		{allowed + `mounts = { "/in" = { host_path = "/root/.ssh" } }`, `it is /root or lies under it`},
		{allowed + `mounts = { "/in" = { host_path = "/" } }`, `must be a clean absolute path other than /`},
		{allowed + `mounts = { "/in" = { host_path = "/srv/../etc" } }`, `must be a clean absolute path`},
		{allowed + `mounts = { "/in" = { host_path = "relative" } }`, `must be a clean absolute path`},
		{allowed + `mounts = { "/in" = { } }`, `needs exactly one of volume, host_path; it has none`},
		{allowed + fmt.Sprintf(`mounts = { "/in" = { volume = "v", host_path = %q } }`, dir), `it has volume and host_path`},
		{allowed + fmt.Sprintf(`mounts = { "/proc" = { host_path = %q } }`, dir), `must not be under /proc, /sys, /dev`},
	}
	if remoteEngine(t) {
		cases = append(cases, struct{ body, want string }{
			allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, dir), `Host path on a remote engine`})
	} else {
		cases = append(cases,
			struct{ body, want string }{allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, filepath.Join(dir, "config")),
				`it leads through symbolic links to /etc, and it is /etc`},
			struct{ body, want string }{allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, socket), `it is a socket`},
			struct{ body, want string }{allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, dir),
				`it holds the socket ` + socket},
			struct{ body, want string }{allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, filepath.Join(dir, "missing")),
				`it cannot be resolved on the engine's host`},
		)
		if root := acctest.Facts(t).DataRoot; root != "" {
			cases = append(cases, struct{ body, want string }{
				allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, filepath.Join(root, "volumes")),
				"Host path hands over the host.*or lies under it"})
		}
		if socket, ok := acctest.Engine(t).LocalSocket(); ok {
			cases = append(cases, struct{ body, want string }{
				allowed + fmt.Sprintf(`mounts = { "/in" = { host_path = %q } }`, filepath.Dir(socket)),
				"Host path hands over the host"})
		}
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: acctest.Config(name, "  network_mode = \"none\"\n  "+c.body), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	acctest.Test(t, steps)
}

// An engine that does not say where it keeps its data gets no host path:
// the plan cannot check that the path does not reach it.
func TestAccContainer_hostPathRefusedWhenTheEngineCannotSayItsDataRoot(t *testing.T) {
	name := acctest.Name(t)
	dir := sharedDir(t, 0o755)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(acctest.On(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/info") }, acctest.Refuse))
	acctest.Test(t, []resource.TestStep{{
		Config: proxy.ProviderBlock() + acctest.Config(name, fmt.Sprintf(`  network_mode     = "none"
  allow_host_paths = true
  mounts = { "/in" = { host_path = %q } }`, dir)),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Host\s+path\s+not\s+checked.*did\s+not\s+say\s+where\s+it\s+keeps\s+its\s+data`),
	}})
}
