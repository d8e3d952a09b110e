package containersdatasource

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Read.

// inspectors is how many containers are inspected at once.
const inspectors = 8

// list lists the provider's containers once, filtered by the engine by
// their labels and name, and inspects each one it returns.
func (d *DataSource) list(ctx context.Context, labels map[string]string, namePrefix string) ([]engine.Sandbox, diag.Diagnostics) {
	ids, err := d.Client.ManagedContainers(ctx, labels, namePrefix)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot list sandboxes", fmt.Sprintf(
			"Listing the containers on %s failed: %s", d.Client.Where(), engine.Brief(err)))}
	}
	found, err := d.inspect(ctx, ids)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read sandboxes", fmt.Sprintf(
			"Inspecting the containers on %s failed: %s", d.Client.Where(), engine.Brief(err)))}
	}
	return found, nil
}

// inspect inspects the containers, a few at a time, leaving out those that
// are gone.
func (d *DataSource) inspect(ctx context.Context, ids []string) ([]engine.Sandbox, error) {
	var (
		mu       sync.Mutex
		found    []engine.Sandbox
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, inspectors)
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := d.Client.InspectContainer(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case engine.IsNotFound(err):
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			default:
				found = append(found, c)
			}
		}()
	}
	wg.Wait()
	return found, firstErr
}

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
					"Listing the containers that mount the volume %q on the engine at %s failed: %s",
					volume, d.Client.Endpoint(), engine.Brief(err)))}
			}
			users[volume] = list
		}
	}
	return users, nil
}
