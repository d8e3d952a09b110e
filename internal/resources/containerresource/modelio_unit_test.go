package containerresource

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The resource reads and writes its whole model through values.GetState
// and SetState (faster than the framework's reflection); both must agree
// with the framework on this resource's schema and model, embedded
// attribute groups included.
func TestModelReadAndWrittenAsTheFrameworkDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := resourceSchema(ctx)
	m := coreModel()
	m.ID = types.StringValue("0123456789ab")
	m.ImageID = types.StringUnknown()
	m.Networks = types.SetUnknown(types.StringType)
	m.Env = values.StringMap(map[string]string{"A": "1"})
	m.CapDrop = values.StringSet([]string{"ALL"})

	framework := tfsdk.State{Schema: s}
	if diags := framework.Set(ctx, m); diags.HasError() {
		t.Fatalf("framework Set: %v", diags)
	}
	ours := tfsdk.State{Schema: s}
	if diags := values.SetState(ctx, &ours, m); diags.HasError() {
		t.Fatalf("SetState: %v", diags)
	}
	if !ours.Raw.Equal(framework.Raw) {
		t.Fatalf("SetState and the framework differ:\n%v\n%v", ours.Raw, framework.Raw)
	}
	var got, want resourceModel
	if diags := values.GetState(ctx, framework, &got); diags.HasError() {
		t.Fatalf("GetState: %v", diags)
	}
	if diags := framework.Get(ctx, &want); diags.HasError() {
		t.Fatalf("framework Get: %v", diags)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GetState read\n%+v\nthe framework\n%+v", got, want)
	}
}
