package volumeresource

import (
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// planned is the volume as the plan knows it, for the backend's rules
// (engine.Rules): only known values in the spec, and in Set the
// attributes a rule refuses whatever their value (a claim on a cluster is
// filled by no seed, and asks for a size).
func (m resourceModel) planned() engine.PlannedVolume {
	p := engine.PlannedVolume{
		Spec: engine.VolumeSpec{Name: m.Name.ValueString(), InMemory: m.inMemory()},
		Set: engine.Attributes{"size_mb": !m.SizeMB.IsNull(), "source": !m.Source.IsNull(),
			"reseed": !m.Reseed.IsNull(), "owner": !m.Owner.IsNull(), "snapshot": m.restores()},
	}
	if !m.SizeMB.IsUnknown() {
		p.Spec.Size = m.SizeMB.ValueInt64() * mib
	}
	return p
}
