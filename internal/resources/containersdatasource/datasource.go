// Package containersdatasource implements the sandbox_containers data source: the
// containers this provider created on the engine, with their isolation.
// Its files: datasource.go (the framework's methods, in scaffolding
// order), schema.go and model.go (filters and results) and entry.go (one
// container's entry).
package containersdatasource

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

var (
	_ datasource.DataSource              = &DataSource{}
	_ datasource.DataSourceWithConfigure = &DataSource{}
)

// inspectors is how many containers are inspected at once.
const inspectors = 8

// New returns the sandbox_containers data source.
func New() datasource.DataSource {
	return &DataSource{}
}

// DataSource lists the provider's containers on the engine.
type DataSource struct {
	base.DataSource
}

// Metadata names the data source.
func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_containers"
}

// Schema describes the data source.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dataSchema()
}

// Read lists the provider's containers once, filtered by the engine, and
// inspects each one it returns; one removed in between is left out.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m dataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	var labels map[string]string
	resp.Diagnostics.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ids, err := d.Client.ManagedContainers(ctx, labels, m.NamePrefix.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot list sandboxes", fmt.Sprintf(
			"Listing the containers on the Docker engine at %s failed: %s", d.Client.Endpoint(), engine.Brief(err)))
		return
	}
	found, err := d.inspect(ctx, ids)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read sandboxes", fmt.Sprintf(
			"Inspecting the containers on the Docker engine at %s failed: %s", d.Client.Endpoint(), engine.Brief(err)))
		return
	}
	slices.SortFunc(found, func(a, b engine.Container) int { return strings.Compare(a.Name, b.Name) })
	entries := make([]attr.Value, 0, len(found))
	for _, c := range found {
		entries = append(entries, entry(c))
	}
	m.Containers = types.ListValueMust(types.ObjectType{AttrTypes: entryAttrTypes}, entries)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// inspect inspects the containers, a few at a time, leaving out those that
// are gone.
func (d *DataSource) inspect(ctx context.Context, ids []string) ([]engine.Container, error) {
	var (
		mu       sync.Mutex
		found    []engine.Container
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
