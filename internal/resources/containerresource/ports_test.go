package containerresource_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox with a network publishes its ports on loopback unless told
// otherwise.
func TestAccContainer_portsBindToLoopback(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{
		{
			Config: acctest.Config(name, `
  ports = [
    { internal = 8080 },
    { internal = 5353, protocol = "udp", host_ip = "0.0.0.0" },
  ]
`),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					var tcp, udp []engine.PortBinding
					for _, p := range c.HostConfig.PortBindings {
						switch {
						case p.Port == 8080 && p.Protocol == "tcp":
							tcp = append(tcp, p)
						case p.Port == 5353 && p.Protocol == "udp":
							udp = append(udp, p)
						}
					}
					if len(tcp) != 1 || tcp[0].HostIP != "127.0.0.1" || len(udp) != 1 || udp[0].HostIP != "0.0.0.0" {
						return fmt.Errorf("port bindings %v", c.HostConfig.PortBindings)
					}
					return nil
				}),
			},
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
			// Import spells out the defaults the configuration left out, so
			// ports are compared here rather than with the state.
			ImportStateVerifyIgnore: []string{"ports"},
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				got := importedPorts(states[0].Attributes)
				want := []string{"5353/udp on 0.0.0.0:", "8080/tcp on 127.0.0.1:"}
				if !slices.Equal(got, want) {
					return fmt.Errorf("imported ports %v, want %v", got, want)
				}
				return nil
			},
		},
	})
}

// importedPorts renders the ports of an imported state as
// "internal/protocol on host_ip:external", sorted.
func importedPorts(attrs map[string]string) []string {
	ports := map[string]map[string]string{}
	for k, v := range attrs {
		parts := strings.Split(k, ".")
		if len(parts) != 3 || parts[0] != "ports" {
			continue
		}
		if ports[parts[1]] == nil {
			ports[parts[1]] = map[string]string{}
		}
		ports[parts[1]][parts[2]] = v
	}
	var out []string
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%s/%s on %s:%s", p["internal"], p["protocol"], p["host_ip"], p["external"]))
	}
	slices.Sort(out)
	return out
}
