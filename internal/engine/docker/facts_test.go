package docker

import (
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestPodmanInfoDecidesWhatIsEnforced(t *testing.T) {
	info := func(rootless bool, cgroup string, controllers []string, profile string) podmanInfo {
		var p podmanInfo
		p.Host.CgroupVersion, p.Host.CgroupControllers = cgroup, controllers
		p.Host.Security.Rootless, p.Host.Security.SeccompEnabled, p.Host.Security.SeccompProfilePath = rootless, true, profile
		return p
	}
	docker := engine.Facts{Enforces: dockerEnforcement(true, true, true, true), Pausable: true}
	for _, c := range []struct {
		name                        string
		info                        podmanInfo
		memory, cpu, pids, ulimits  bool
		pausable, allowsUserNamespc bool
	}{
		{"rootful", info(false, "v1", nil, "/usr/share/containers/seccomp.json"), true, true, true, true, true, true},
		{"rootless on cgroup v1", info(true, "v1", nil, "/usr/share/containers/seccomp.json"), false, false, false, false, false, true},
		{"rootless on cgroup v2, memory and pids delegated", info(true, "v2", []string{"memory", "pids"}, ""), true, false, true, false, true, true},
		{"rootful with a profile of the host's own", info(false, "v2", nil, "/etc/containers/docker-seccomp.json"), true, true, true, true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := docker
			c.info.apply(&f)
			e := f.Enforces
			if e.Memory != c.memory || e.Swap != c.memory || e.CPU != c.cpu || e.Pids != c.pids || e.Ulimits != c.ulimits {
				t.Errorf("enforces %+v", e)
			}
			if f.Pausable != c.pausable || f.Seccomp.AllowsUserNamespaces != c.allowsUserNamespc {
				t.Errorf("pausable %v, allows user namespaces %v", f.Pausable, f.Seccomp.AllowsUserNamespaces)
			}
			if (!e.Memory && (e.Why == "" || e.Fix == "")) || (!e.Ulimits && (e.UlimitsWhy == "" || e.UlimitsFix == "")) {
				t.Errorf("a refusal without its reason or fix: %+v", e)
			}
		})
	}
}
