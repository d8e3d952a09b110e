package containerresource

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The plan gives the backend's rules only what it knows: a value known
// only at apply is left out of the spec (the backend refuses it at apply),
// except that an attribute refused whatever its value is marked set.
func TestPlannedSandboxHoldsOnlyWhatIsKnown(t *testing.T) {
	t.Parallel()
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	mountType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"host_path": tftypes.String}}
	plan := map[string]tftypes.Value{
		"name":          unknown,
		"user":          tftypes.NewValue(tftypes.String, "agent"),
		"runtime":       tftypes.NewValue(tftypes.String, nil),
		"security_opts": rawStrings("no-new-privileges"),
		"ports":         tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue),
		"shm_size":      tftypes.NewValue(tftypes.Number, nil),
		"state":         tftypes.NewValue(tftypes.String, stateStopped),
		"mounts": tftypes.NewValue(tftypes.Map{ElementType: mountType}, map[string]tftypes.Value{
			"/known":   tftypes.NewValue(mountType, map[string]tftypes.Value{"host_path": tftypes.NewValue(tftypes.String, "/srv")}),
			"/unknown": tftypes.NewValue(mountType, map[string]tftypes.Value{"host_path": unknown}),
		}),
	}
	p := plannedSandbox(plan)
	if p.Spec.Name != "" || p.Spec.User != "agent" || p.Spec.Runtime != "" ||
		!slices.Equal(p.Spec.SecurityOpt, []string{"no-new-privileges"}) {
		t.Errorf("spec %+v", p.Spec)
	}
	if !p.Set["ports"] || p.Set["shm_size"] {
		t.Errorf("set %v: want ports (known only at apply) and not shm_size (null)", p.Set)
	}
	if len(p.Spec.Mounts) != 1 || p.Spec.Mounts[0].Target != "/known" || p.Spec.Mounts[0].HostPath != "/srv" {
		t.Errorf("mounts %+v: want only the known host path", p.Spec.Mounts)
	}
	if p.Paused {
		t.Error("a sandbox to be stopped is planned paused")
	}
	plan["state"] = tftypes.NewValue(tftypes.String, statePaused)
	if !plannedSandbox(plan).Paused {
		t.Error("a sandbox to be kept paused is not planned paused")
	}
}

// gVisor's rules get the limits they read from the plan, and a runtime
// known only at apply is marked so.
func TestPlannedSandboxCarriesGVisorsLimits(t *testing.T) {
	t.Parallel()
	ulimit := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"soft": tftypes.Number, "hard": tftypes.Number}}
	plan := map[string]tftypes.Value{
		"runtime":    tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"memory":     tftypes.NewValue(tftypes.Number, 16),
		"pids_limit": tftypes.NewValue(tftypes.Number, 64),
		"ulimits": tftypes.NewValue(tftypes.Map{ElementType: ulimit}, map[string]tftypes.Value{
			"nproc": tftypes.NewValue(ulimit, map[string]tftypes.Value{
				"soft": tftypes.NewValue(tftypes.Number, 64), "hard": tftypes.NewValue(tftypes.Number, 100)}),
		}),
	}
	p := plannedSandbox(plan)
	if !p.Unknown["runtime"] || p.Spec.Limits.Memory != 16*mib || p.Spec.Limits.PidsLimit != 64 ||
		len(p.Spec.Ulimits) != 1 || p.Spec.Ulimits[0].Hard != 100 {
		t.Errorf("planned %+v", p)
	}
}
