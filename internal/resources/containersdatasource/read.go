package containersdatasource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Read.

// volumeUsers lists, once per volume that one of the containers mounts,
// every container that mounts it.
func (d *DataSource) volumeUsers(ctx context.Context, found []engine.Sandbox) (map[string][]engine.VolumeUser, diag.Diagnostics) {
	users := map[string][]engine.VolumeUser{}
	for _, c := range found {
		for volume := range volumesOf(c) {
			if _, done := users[volume]; done {
				continue
			}
			list, err := d.Client.VolumeUsers(ctx, volume)
			if err != nil {
				return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot list a volume's users", fmt.Sprintf(
					"Listing the containers that mount the volume %q on the engine at %s failed: %s. %s",
					volume, d.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, d.Client.Where())))}
			}
			users[volume] = list
		}
	}
	return users, nil
}
