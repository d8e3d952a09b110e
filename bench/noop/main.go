// Command noop measures what Terraform itself, and then the plugin
// framework, need for sandbox_container's schema, with no work of the
// provider's own. It talks to no engine. bench/run.sh times the same
// terraform commands against it, in two layers chosen by BENCH_NOOP_LAYER:
//
//   - "protocol" (the default; "Terraform alone"): the schema, taken from the
//     provider in this tree, served on terraform-plugin-go alone. A plan
//     returns Terraform's proposed state, a read returns the state it was
//     given, an apply records the plan with id = name, a destroy forgets.
//   - "framework": the same schema with its validators, plan modifiers and
//     defaults, served through terraform-plugin-framework by a resource whose
//     CRUD does the same nothing (framework.go).
//   - "engine": the framework layer making bench/floor's engine calls
//     (bench/internal/floorcalls): an apply creates and starts each
//     container, a read inspects it, a destroy force-removes it. It is what
//     any provider of this schema on the framework needs with the least
//     engine work, measured where that work shares the machine with
//     Terraform and the framework, as the provider's does.
//
// It is a measuring instrument, never a stand-in for the provider in a test.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/bench/internal/floorcalls"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/process"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

const typeName = "sandbox_container"

func main() {
	// The provider's own process settings, so that the layers compare.
	process.QuietUnreadLogs()
	process.TuneGC()
	var s tfprotov6.ProviderServer
	var err error
	switch layer := os.Getenv("BENCH_NOOP_LAYER"); layer {
	case "", "protocol":
		s, err = newServer(context.Background())
	case "framework":
		s = frameworkServer(nil)
	case "engine":
		// The client lives as long as the process.
		var api *client.Client
		if api, err = floorcalls.Connect(context.Background()); err == nil {
			s = frameworkServer(api)
		}
	default:
		err = fmt.Errorf("BENCH_NOOP_LAYER is %q; use protocol, framework or engine", layer)
	}
	if err == nil {
		err = tf6server.Serve("registry.terraform.io/tfsandbox/sandbox", func() tfprotov6.ProviderServer { return s })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "noop:", err)
		os.Exit(1)
	}
}

// server implements the protocol calls Terraform makes for a resource of
// one type. The embedded interface is nil: a call not implemented here
// would panic, and the benchmark would fail loudly.
type server struct {
	tfprotov6.ProviderServer
	schemas  *tfprotov6.GetProviderSchemaResponse
	typ      tftypes.Type
	computed map[string]bool
}

// newServer takes the provider's and sandbox_container's schemas from the
// provider in this tree, exactly as it sends them to Terraform.
func newServer(ctx context.Context) (*server, error) {
	full, err := providerserver.NewProtocol6(provider.New("bench")())().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	res, ok := full.ResourceSchemas[typeName]
	if !ok {
		return nil, fmt.Errorf("the provider has no %s schema", typeName)
	}
	s := &server{
		schemas: &tfprotov6.GetProviderSchemaResponse{
			ServerCapabilities: full.ServerCapabilities,
			Provider:           full.Provider,
			ResourceSchemas:    map[string]*tfprotov6.Schema{typeName: res},
		},
		typ:      res.ValueType(),
		computed: map[string]bool{},
	}
	for _, a := range res.Block.Attributes {
		s.computed[a.Name] = a.Computed
	}
	return s, nil
}

func (s *server) GetMetadata(context.Context, *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return &tfprotov6.GetMetadataResponse{
		ServerCapabilities: s.schemas.ServerCapabilities,
		Resources:          []tfprotov6.ResourceMetadata{{TypeName: typeName}},
	}, nil
}

func (s *server) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schemas, nil
}

func (s *server) GetResourceIdentitySchemas(context.Context, *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov6.GetResourceIdentitySchemasResponse{}, nil
}

func (s *server) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *server) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (s *server) StopProvider(context.Context, *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return &tfprotov6.StopProviderResponse{}, nil
}

func (s *server) ValidateResourceConfig(_ context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	_, err := req.Config.Unmarshal(s.typ)
	return &tfprotov6.ValidateResourceConfigResponse{}, err
}

func (s *server) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	v, err := req.RawState.UnmarshalWithOpts(s.typ, tfprotov6.UnmarshalOpts{})
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(s.typ, v)
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, err
}

func (s *server) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	v, err := req.CurrentState.Unmarshal(s.typ)
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(s.typ, v)
	return &tfprotov6.ReadResourceResponse{NewState: &dv, Private: req.Private}, err
}

// PlanResourceChange returns Terraform's proposed state; on create, the
// computed attributes the configuration leaves null become unknown.
func (s *server) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	proposed, err := req.ProposedNewState.Unmarshal(s.typ)
	if err != nil {
		return nil, err
	}
	prior, err := req.PriorState.Unmarshal(s.typ)
	if err != nil {
		return nil, err
	}
	if prior.IsNull() && !proposed.IsNull() {
		var attrs map[string]tftypes.Value
		if err := proposed.As(&attrs); err != nil {
			return nil, err
		}
		for name, v := range attrs {
			if v.IsNull() && s.computed[name] {
				attrs[name] = tftypes.NewValue(v.Type(), tftypes.UnknownValue)
			}
		}
		proposed = tftypes.NewValue(s.typ, attrs)
	}
	dv, err := tfprotov6.NewDynamicValue(s.typ, proposed)
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: &dv, PlannedPrivate: req.PriorPrivate}, err
}

// ApplyResourceChange records the plan, its unknowns null and id = name.
func (s *server) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	planned, err := req.PlannedState.Unmarshal(s.typ)
	if err != nil {
		return nil, err
	}
	if planned.IsNull() {
		return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState}, nil
	}
	var attrs map[string]tftypes.Value
	if err := planned.As(&attrs); err != nil {
		return nil, err
	}
	attrs["id"] = attrs["name"]
	newState := nullUnknowns(tftypes.NewValue(s.typ, attrs))
	dv, err := tfprotov6.NewDynamicValue(s.typ, newState)
	return &tfprotov6.ApplyResourceChangeResponse{NewState: &dv, Private: req.PlannedPrivate}, err
}
