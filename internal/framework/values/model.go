package values

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Reading a whole plan, state or configuration into a model, and writing a
// model back, for models whose fields (directly or through embedded
// structs) are all attr.Value types tagged `tfsdk:"name"`: the models of
// this provider's resources. The framework's Get and Set do the same
// through general reflection that re-reads, and re-checks with a freshly
// compiled regular expression, every struct tag at every call; a refresh
// of 200 sandboxes spent about a third of the provider's own CPU there
// (bench/HISTORY.md). Here the tags are read once per model type, and a
// value is converted once, as the framework converts it.

// GetState reads the whole state into target, a pointer to a model.
func GetState(ctx context.Context, s tfsdk.State, target any) diag.Diagnostics {
	return get(ctx, typesOf(ctx, s.Schema).value, s.Raw, target)
}

// GetPlan reads the whole plan into target, a pointer to a model.
func GetPlan(ctx context.Context, p tfsdk.Plan, target any) diag.Diagnostics {
	return get(ctx, typesOf(ctx, p.Schema).value, p.Raw, target)
}

// GetConfig reads the whole configuration into target, a pointer to a
// model.
func GetConfig(ctx context.Context, c tfsdk.Config, target any) diag.Diagnostics {
	return get(ctx, typesOf(ctx, c.Schema).value, c.Raw, target)
}

// SetState replaces the whole state with model (a model or a pointer to
// one). The value is built with the schema's own object type, so it is
// assigned as it is: tfsdk.State.Set would build that type again and
// compare the two.
func SetState(ctx context.Context, s *tfsdk.State, model any) diag.Diagnostics {
	raw, diags := toRaw(ctx, typesOf(ctx, s.Schema), model)
	if !diags.HasError() {
		s.Raw = raw
	}
	return diags
}

// SetResource sets a list result's resource (terraform query's
// include_resource) to model, as SetState sets a state.
func SetResource(ctx context.Context, r *tfsdk.Resource, model any) diag.Diagnostics {
	raw, diags := toRaw(ctx, typesOf(ctx, r.Schema), model)
	if !diags.HasError() {
		r.Raw = raw
	}
	return diags
}

// Unchanged reports whether two models of the same type hold equal values
// in every field. A refresh that changed nothing can then leave the state
// as the framework passed it, instead of building it again.
func Unchanged(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() || va.Kind() != reflect.Struct {
		return false
	}
	fields, err := fieldsOf(va.Type())
	if err != nil {
		return false
	}
	for _, f := range fields {
		x, ok := va.FieldByIndex(f.index).Interface().(attr.Value)
		y, ok2 := vb.FieldByIndex(f.index).Interface().(attr.Value)
		if !ok || !ok2 || !x.Equal(y) {
			return false
		}
	}
	return true
}

// typedSchema is what the helpers need of a plan's, state's or configuration's
// schema (the framework's own interface is internal).
type typedSchema interface {
	Type() attr.Type
}

// schemaTypes is a schema's object type, as the framework's value type and
// as Terraform's.
type schemaTypes struct {
	value  attr.Type
	object tftypes.Object
	// attributes holds the schema's attribute map, the cache's key, so
	// that its address is not reused while the entry exists.
	attributes map[string]rschema.Attribute
}

// The types of each resource schema, by the identity of its attribute map.
// The framework builds a schema's type anew at every call of Schema.Type,
// copying every attribute map on the way, and the helpers need it at every
// read and write of a model. The framework's server asks each
// resource for its schema once and passes that same schema with every
// request, so a process holds one entry per resource type; maxSchemaTypes
// bounds what tests that build many schemas can add.
var (
	schemaTypeCache sync.Map // unsafe.Pointer -> schemaTypes
	schemaTypeCount atomic.Int64
)

const maxSchemaTypes = 64

// typesOf returns the types of s, cached for a resource schema.
func typesOf(ctx context.Context, s typedSchema) schemaTypes {
	rs, ok := s.(rschema.Schema)
	if !ok || rs.Attributes == nil {
		return newSchemaTypes(ctx, s)
	}
	key := reflect.ValueOf(rs.Attributes).UnsafePointer()
	if cached, ok := schemaTypeCache.Load(key); ok {
		if t, ok := cached.(schemaTypes); ok {
			return t
		}
	}
	t := newSchemaTypes(ctx, s)
	t.attributes = rs.Attributes
	if schemaTypeCount.Add(1) <= maxSchemaTypes {
		schemaTypeCache.Store(key, t)
	}
	return t
}

func newSchemaTypes(ctx context.Context, s typedSchema) schemaTypes {
	value := s.Type()
	object, _ := value.TerraformType(ctx).(tftypes.Object)
	return schemaTypes{value: value, object: object}
}

// modelField is one attribute of a model: its name and where the field is.
type modelField struct {
	name  string
	index []int
}

// modelFields caches the fields of each model type.
var modelFields sync.Map // reflect.Type -> []modelField

var attrValueType = reflect.TypeFor[attr.Value]()

// fieldsOf lists the attributes of the model type t, a struct.
func fieldsOf(t reflect.Type) ([]modelField, error) {
	if cached, ok := modelFields.Load(t); ok {
		if fields, ok := cached.([]modelField); ok {
			return fields, nil
		}
	}
	var fields []modelField
	var walk func(reflect.Type, []int) error
	walk = func(t reflect.Type, at []int) error {
		for i := range t.NumField() {
			f := t.Field(i)
			index := append(append([]int(nil), at...), i)
			tag, tagged := f.Tag.Lookup("tfsdk")
			switch {
			case tag == "-":
			case f.Anonymous && !tagged && f.Type.Kind() == reflect.Struct:
				if err := walk(f.Type, index); err != nil {
					return err
				}
			case !tagged || !f.IsExported() || !f.Type.Implements(attrValueType):
				return fmt.Errorf("field %s of %s is not an exported attr.Value with a tfsdk tag", f.Name, t)
			default:
				fields = append(fields, modelField{name: tag, index: index})
			}
		}
		return nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	if err := walk(t, nil); err != nil {
		return nil, err
	}
	modelFields.Store(t, fields)
	return fields, nil
}

// modelError is the diagnostic for a model that does not match its
// schema, always a bug in the provider.
func modelError(err error) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic("Value Conversion Error",
		"The provider's model does not match its schema. This is always an error in the provider; please report it: "+err.Error())}
}

func get(ctx context.Context, typ attr.Type, raw tftypes.Value, target any) diag.Diagnostics {
	ptr := reflect.ValueOf(target)
	if ptr.Kind() != reflect.Pointer || ptr.IsNil() {
		return modelError(fmt.Errorf("target %T is not a pointer to a model", target))
	}
	model := ptr.Elem()
	fields, err := fieldsOf(model.Type())
	if err != nil {
		return modelError(err)
	}
	value, err := typ.ValueFromTerraform(ctx, raw)
	if err != nil {
		return modelError(err)
	}
	object, ok := value.(interface{ Attributes() map[string]attr.Value })
	if !ok || value.IsNull() || value.IsUnknown() {
		return modelError(fmt.Errorf("%s is not a known object", raw.Type()))
	}
	if err := setFields(model, fields, object.Attributes()); err != nil {
		return modelError(err)
	}
	return nil
}

// setFields sets model's fields to the attributes of an object, which
// must be exactly the fields'.
func setFields(model reflect.Value, fields []modelField, attrs map[string]attr.Value) error {
	if len(attrs) != len(fields) {
		return fmt.Errorf("%s has %d fields for %d attributes", model.Type(), len(fields), len(attrs))
	}
	for _, f := range fields {
		v, ok := attrs[f.name]
		if !ok {
			return fmt.Errorf("the object has no attribute %q", f.name)
		}
		field := model.FieldByIndex(f.index)
		rv := reflect.ValueOf(v)
		if rv.Type() != field.Type() {
			return fmt.Errorf("attribute %q is a %s, its field a %s", f.name, rv.Type(), field.Type())
		}
		field.Set(rv)
	}
	return nil
}

func toRaw(ctx context.Context, typ schemaTypes, model any) (tftypes.Value, diag.Diagnostics) {
	v := reflect.ValueOf(model)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	fields, err := fieldsOf(v.Type())
	if err != nil {
		return tftypes.Value{}, modelError(err)
	}
	objectType := typ.object
	if objectType.AttributeTypes == nil || len(objectType.AttributeTypes) != len(fields) {
		return tftypes.Value{}, modelError(fmt.Errorf("%s has %d fields for the attributes of %s", v.Type(), len(fields), typ.value))
	}
	attrs := make(map[string]tftypes.Value, len(fields))
	for _, f := range fields {
		want, ok := objectType.AttributeTypes[f.name]
		if !ok {
			return tftypes.Value{}, modelError(fmt.Errorf("the schema has no attribute %q", f.name))
		}
		value, ok := v.FieldByIndex(f.index).Interface().(attr.Value)
		if !ok { // fieldsOf admits only attr.Value fields
			return tftypes.Value{}, modelError(fmt.Errorf("field %q is not an attr.Value", f.name))
		}
		// Checked before the conversion, which panics on a zero-value
		// collection (one without an element type).
		if got := value.Type(ctx).TerraformType(ctx); !got.Equal(want) {
			return tftypes.Value{}, modelError(fmt.Errorf("attribute %q is a %s, the schema's a %s", f.name, got, want))
		}
		tv, err := value.ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, modelError(fmt.Errorf("attribute %q: %w", f.name, err))
		}
		attrs[f.name] = tv
	}
	return tftypes.NewValue(objectType, attrs), nil
}

// ModelMatches reports whether the model type of target (a pointer to a
// model) has exactly the attributes of typ, each of its type, by reading
// an object of typ whose attributes are all null. Each resource's unit
// tests call it, so that a model that drifts from its schema fails there,
// not first in an acceptance test.
func ModelMatches(ctx context.Context, typ attr.Type, target any) diag.Diagnostics {
	objectType, ok := typ.TerraformType(ctx).(tftypes.Object)
	if !ok {
		return modelError(fmt.Errorf("%s is not an object type", typ))
	}
	nulls := make(map[string]tftypes.Value, len(objectType.AttributeTypes))
	for name, t := range objectType.AttributeTypes {
		nulls[name] = tftypes.NewValue(t, nil)
	}
	return get(ctx, typ, tftypes.NewValue(objectType, nulls), target)
}

// ObjectsAs reads a map of objects, such as a map nested attribute, into
// models of type T, each element's attributes into T's fields as get does;
// a null or unknown map reads as empty. An element not known yet (a whole
// object from an expression known only at apply) is left out. The framework's ElementsAs reflects over T
// for every element, so a sandbox with 2,000 files paid for 2,000 reads of
// T's tags.
func ObjectsAs[T any](m basetypes.MapValue) (map[string]T, diag.Diagnostics) {
	fields, err := fieldsOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, modelError(err)
	}
	out := make(map[string]T, len(m.Elements()))
	for key, element := range m.Elements() {
		object, ok := element.(basetypes.ObjectValue)
		if ok && object.IsUnknown() {
			continue
		}
		if !ok || object.IsNull() {
			return nil, modelError(fmt.Errorf("element %q is not an object", key))
		}
		var model T
		if err := setFields(reflect.ValueOf(&model).Elem(), fields, object.Attributes()); err != nil {
			return nil, modelError(fmt.Errorf("element %q: %w", key, err))
		}
		out[key] = model
	}
	return out, nil
}

// ObjectOf builds an object of attrTypes from model (a model or a pointer
// to one), the reverse of ObjectsAs for one element.
func ObjectOf(attrTypes map[string]attr.Type, model any) (basetypes.ObjectValue, diag.Diagnostics) {
	v := reflect.ValueOf(model)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	fields, err := fieldsOf(v.Type())
	if err != nil {
		return basetypes.ObjectValue{}, modelError(err)
	}
	attrs := make(map[string]attr.Value, len(fields))
	for _, f := range fields {
		if value, ok := v.FieldByIndex(f.index).Interface().(attr.Value); ok { // fieldsOf admits only these
			attrs[f.name] = value
		}
	}
	return basetypes.NewObjectValue(attrTypes, attrs)
}
