package values

import (
	"context"
	"reflect"
	"strings"
	"testing"

	fwtimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type testGroup struct {
	Tags types.List `tfsdk:"tags"`
}

type testModel struct {
	ID types.String `tfsdk:"id"`
	testGroup
	Ports    types.Set        `tfsdk:"ports"`
	Limit    types.Int64      `tfsdk:"limit"`
	Timeouts fwtimeouts.Value `tfsdk:"timeouts"`
}

var portType = types.ObjectType{AttrTypes: map[string]attr.Type{"internal": types.Int64Type}}

func testSchema(ctx context.Context) schema.Schema {
	return schema.Schema{Attributes: map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true},
		"tags": schema.ListAttribute{ElementType: types.StringType, Optional: true},
		"ports": schema.SetNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{"internal": schema.Int64Attribute{Required: true}},
		}},
		"limit":    schema.Int64Attribute{Optional: true},
		"timeouts": fwtimeouts.Attributes(ctx, fwtimeouts.Opts{Create: true}),
	}}
}

func testModelValue() testModel {
	port := types.ObjectValueMust(portType.AttrTypes, map[string]attr.Value{"internal": types.Int64Value(80)})
	return testModel{
		ID:        types.StringValue("abc"),
		testGroup: testGroup{Tags: StringList([]string{"x", "y"})},
		Ports:     types.SetValueMust(portType, []attr.Value{port}),
		Limit:     types.Int64Unknown(),
		Timeouts: fwtimeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType,
		})},
	}
}

// The model helpers must give exactly what the framework's Get and Set
// give, for every kind of field the provider's models have.
func TestModelMatchesTheFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testSchema(ctx)
	want := testModelValue()

	framework := tfsdk.State{Schema: s}
	if diags := framework.Set(ctx, want); diags.HasError() {
		t.Fatalf("framework Set: %v", diags)
	}
	ours := tfsdk.State{Schema: s}
	if diags := SetState(ctx, &ours, &want); diags.HasError() {
		t.Fatalf("SetState: %v", diags)
	}
	if !ours.Raw.Equal(framework.Raw) {
		t.Fatalf("SetState wrote %v, the framework %v", ours.Raw, framework.Raw)
	}

	var got, viaFramework testModel
	if diags := GetState(ctx, framework, &got); diags.HasError() {
		t.Fatalf("GetState: %v", diags)
	}
	if diags := framework.Get(ctx, &viaFramework); diags.HasError() {
		t.Fatalf("framework Get: %v", diags)
	}
	if !reflect.DeepEqual(got, viaFramework) {
		t.Errorf("GetState read %+v, the framework %+v", got, viaFramework)
	}
	var fromPlan, fromConfig testModel
	GetPlan(ctx, tfsdk.Plan{Schema: s, Raw: framework.Raw}, &fromPlan)
	GetConfig(ctx, tfsdk.Config{Schema: s, Raw: framework.Raw}, &fromConfig)
	if !reflect.DeepEqual(fromPlan, got) || !reflect.DeepEqual(fromConfig, got) {
		t.Errorf("GetPlan and GetConfig read %+v and %+v, GetState %+v", fromPlan, fromConfig, got)
	}
}

// A model that does not match its schema is an error, never a panic or a
// value written in part.
func TestModelMismatchIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testSchema(ctx)
	good := tfsdk.State{Schema: s}
	m := testModelValue()
	if diags := SetState(ctx, &good, m); diags.HasError() {
		t.Fatal(diags)
	}
	type missing struct {
		ID types.String `tfsdk:"id"`
	}
	type wrongType struct {
		ID types.Int64 `tfsdk:"id"`
		testGroup
		Ports    types.Set        `tfsdk:"ports"`
		Limit    types.Int64      `tfsdk:"limit"`
		Timeouts fwtimeouts.Value `tfsdk:"timeouts"`
	}
	type untagged struct {
		ID types.String
	}
	type plainField struct {
		ID string `tfsdk:"id"`
	}
	zeroList := m
	zeroList.Tags = types.List{} // no element type: not the schema's list
	for name, c := range map[string]struct {
		get   any
		set   any
		wants string
	}{
		"a missing field":         {&missing{}, missing{}, "fields for"},
		"a field of another type": {&wrongType{}, wrongType{ID: types.Int64Value(1)}, "attribute \"id\""},
		"an untagged field":       {&untagged{}, untagged{}, "tfsdk tag"},
		"a field of a Go type":    {&plainField{}, plainField{}, "attr.Value"},
		"a zero-value list":       {nil, zeroList, "attribute \"tags\""},
		"not a pointer":           {testModel{}, nil, "not a pointer"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if c.get != nil {
				diags := GetState(ctx, good, c.get)
				if !diags.HasError() || !strings.Contains(diags[0].Detail(), c.wants) {
					t.Errorf("GetState into %T = %v, want an error with %q", c.get, diags, c.wants)
				}
			}
			if c.set != nil {
				st := tfsdk.State{Schema: s, Raw: good.Raw}
				diags := SetState(ctx, &st, c.set)
				if !diags.HasError() || !strings.Contains(diags[0].Detail(), c.wants) {
					t.Errorf("SetState of %T = %v, want an error with %q", c.set, diags, c.wants)
				}
				if !st.Raw.Equal(good.Raw) {
					t.Errorf("a refused SetState changed the state to %v", st.Raw)
				}
			}
		})
	}
	var null testModel
	diags := GetState(ctx, tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}, &null)
	if !diags.HasError() {
		t.Error("GetState of a null state must be an error")
	}
}

type testElement struct {
	Name types.String `tfsdk:"name"`
	Size types.Int64  `tfsdk:"size"`
}

var elementType = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "size": types.Int64Type}}

// ObjectsAs and ObjectOf read and build the elements of a map of objects
// exactly as the framework's ElementsAs and ObjectValueFrom do.
func TestObjectsMatchTheFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want := map[string]testElement{
		"/a": {Name: types.StringValue("a"), Size: types.Int64Value(1)},
		"/b": {Name: types.StringUnknown(), Size: types.Int64Null()},
	}
	elements := map[string]attr.Value{}
	for key, e := range want {
		built, diags := ObjectOf(elementType.AttrTypes, e)
		framework, fwDiags := types.ObjectValueFrom(ctx, elementType.AttrTypes, e)
		if diags.HasError() || fwDiags.HasError() || !built.Equal(framework) {
			t.Fatalf("%s: ObjectOf %v (%v), the framework %v (%v)", key, built, diags, framework, fwDiags)
		}
		elements[key] = built
	}
	m := types.MapValueMust(elementType, elements)
	got, diags := ObjectsAs[testElement](m)
	var framework map[string]testElement
	if fwDiags := m.ElementsAs(ctx, &framework, false); diags.HasError() || fwDiags.HasError() {
		t.Fatalf("ObjectsAs: %v; the framework: %v", diags, fwDiags)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, framework) {
		t.Errorf("ObjectsAs %v, the framework %v, want %v", got, framework, want)
	}

	// A model that does not match the objects is an error, never a panic.
	type other struct {
		Name types.String `tfsdk:"name"`
	}
	if _, diags := ObjectsAs[other](m); !diags.HasError() {
		t.Error("a model with fewer fields than the objects' attributes was read")
	}
	unknown := types.MapValueMust(elementType, map[string]attr.Value{
		"/a": elements["/a"], "/u": types.ObjectUnknown(elementType.AttrTypes),
	})
	if got, diags := ObjectsAs[testElement](unknown); diags.HasError() || len(got) != 1 || got["/a"] != want["/a"] {
		t.Errorf("an element not known yet must be left out, the others read: %v, %v", got, diags)
	}
	for _, empty := range []types.Map{types.MapNull(elementType), types.MapUnknown(elementType)} {
		if got, diags := ObjectsAs[testElement](empty); diags.HasError() || len(got) != 0 {
			t.Errorf("a %v map read as %v, %v; want empty", empty, got, diags)
		}
	}
	nulls := types.MapValueMust(elementType, map[string]attr.Value{"/n": types.ObjectNull(elementType.AttrTypes)})
	if _, diags := ObjectsAs[testElement](nulls); !diags.HasError() {
		t.Error("a null element was read into a model")
	}
	if _, diags := ObjectOf(map[string]attr.Type{"name": types.StringType}, want["/a"]); !diags.HasError() {
		t.Error("ObjectOf built an object whose types lack a field of the model")
	}
}

// A schema's types are kept per schema: the same schema reads and writes
// as before, and another schema, even one built from the same code, gets
// its own types, never a stale entry.
func TestSchemaTypesFollowTheSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testSchema(ctx)
	m := testModelValue()
	first, again := tfsdk.State{Schema: s}, tfsdk.State{Schema: s}
	if diags := SetState(ctx, &first, m); diags.HasError() {
		t.Fatal(diags)
	}
	if diags := SetState(ctx, &again, m); diags.HasError() || !again.Raw.Equal(first.Raw) {
		t.Fatalf("the second write with the same schema gave %v (%v), the first %v", again.Raw, diags, first.Raw)
	}
	if got := typesOf(ctx, s); !got.object.Equal(s.Type().TerraformType(ctx)) || !got.value.Equal(s.Type()) {
		t.Errorf("the kept types %v differ from the schema's %v", got.object, s.Type().TerraformType(ctx))
	}

	type smaller struct {
		ID types.String `tfsdk:"id"`
	}
	other := schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}
	st := tfsdk.State{Schema: other}
	if diags := SetState(ctx, &st, smaller{ID: types.StringValue("x")}); diags.HasError() {
		t.Fatalf("another schema: %v", diags)
	}
	var back smaller
	if diags := GetState(ctx, st, &back); diags.HasError() || back.ID.ValueString() != "x" {
		t.Errorf("another schema read back %v (%v)", back, diags)
	}
	if diags := SetState(ctx, &st, m); !diags.HasError() {
		t.Error("a model of the first schema was written with the second's types")
	}
}

// Unchanged compares every field, the embedded ones included.
func TestUnchanged(t *testing.T) {
	t.Parallel()
	m := testModelValue()
	same := m
	if !Unchanged(m, same) {
		t.Error("a copy of a model is not Unchanged")
	}
	for name, change := range map[string]func(*testModel){
		"a top-level field":   func(c *testModel) { c.ID = types.StringValue("other") },
		"an embedded field":   func(c *testModel) { c.Tags = StringList([]string{"x"}) },
		"known to unknown":    func(c *testModel) { c.ID = types.StringUnknown() },
		"null to empty":       func(c *testModel) { c.Tags = types.ListValueMust(types.StringType, nil) },
		"an element of a set": func(c *testModel) { c.Ports = types.SetValueMust(portType, nil) },
		"a value of a custom type": func(c *testModel) {
			c.Timeouts = fwtimeouts.Value{Object: types.ObjectValueMust(map[string]attr.Type{"create": types.StringType},
				map[string]attr.Value{"create": types.StringValue("1m")})}
		},
		"unknown to a known number": func(c *testModel) { c.Limit = types.Int64Value(1) },
	} {
		changed := m
		change(&changed)
		if Unchanged(m, changed) {
			t.Errorf("%s changed, yet Unchanged", name)
		}
	}
	if Unchanged(m, struct{}{}) || Unchanged(1, 1) || Unchanged(nil, nil) {
		t.Error("values of different types, or not models, compare as Unchanged")
	}
}
