// Package values converts between Go values and the framework's attribute
// values, the same way for every resource: empty collections are null, and
// a refreshed value that means the same as the one held keeps its spelling.
package values

import (
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Value is what every framework value can say about itself.
type Value interface {
	attr.Value
	IsNull() bool
	IsUnknown() bool
}

// Known reports whether v is neither null nor unknown.
func Known(v Value) bool {
	return !v.IsNull() && !v.IsUnknown()
}

// KeepIfEqual returns held when it means the same as observed (null and
// empty alike), else observed. A refresh that uses it plans nothing for an
// unchanged object whose engine spells a value differently.
func KeepIfEqual[T Value](held, observed T) T {
	if held.IsUnknown() {
		return observed
	}
	if held.Equal(observed) || (held.IsNull() && observed.IsNull()) {
		return held
	}
	return observed
}

func stringValues(list []string) []attr.Value {
	vals := make([]attr.Value, len(list))
	for i, s := range list {
		vals[i] = types.StringValue(s)
	}
	return vals
}

// StringList is a list of strings, null when empty.
func StringList(list []string) types.List {
	if len(list) == 0 {
		return types.ListNull(types.StringType)
	}
	return types.ListValueMust(types.StringType, stringValues(list))
}

// StringSet is a set of strings, empty (not null) when list is empty.
func StringSet(list []string) types.Set {
	return types.SetValueMust(types.StringType, stringValues(list))
}

// StringSetOrNull is a set of strings, null when list is empty.
func StringSetOrNull(list []string) types.Set {
	if len(list) == 0 {
		return types.SetNull(types.StringType)
	}
	return StringSet(list)
}

// StringMap is a map of strings, null when empty.
func StringMap(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	vals := make(map[string]attr.Value, len(m))
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

// SetStrings returns the strings of a set, sorted; nil when the set is null
// or unknown.
func SetStrings(s types.Set) []string {
	if !Known(s) {
		return nil
	}
	out := make([]string, 0, len(s.Elements()))
	for _, v := range s.Elements() {
		if str, ok := v.(types.String); ok {
			out = append(out, str.ValueString())
		}
	}
	slices.Sort(out)
	return out
}

// Int64OrNull is v, or null when v is zero or negative (the engine's "no
// limit").
func Int64OrNull(v int64) types.Int64 {
	if v <= 0 {
		return types.Int64Null()
	}
	return types.Int64Value(v)
}

// RawString is a known string's value from the plan or state's raw
// terraform value, else "": reading one attribute raw spares a walk of the
// whole schema, which a plan pays once per resource.
func RawString(v tftypes.Value) string {
	var s string
	if !v.IsKnown() || v.IsNull() || v.As(&s) != nil {
		return ""
	}
	return s
}

// RawBool is a known bool's value from a raw terraform value, else false.
func RawBool(v tftypes.Value) bool {
	var b bool
	if !v.IsKnown() || v.IsNull() || v.As(&b) != nil {
		return false
	}
	return b
}

// StringOf is a raw terraform string as the framework's type: null,
// unknown or known.
func StringOf(v tftypes.Value) types.String {
	switch {
	case !v.IsKnown():
		return types.StringUnknown()
	case v.IsNull():
		return types.StringNull()
	}
	return types.StringValue(RawString(v))
}

// BoolOf is a raw terraform bool as the framework's type.
func BoolOf(v tftypes.Value) types.Bool {
	switch {
	case !v.IsKnown():
		return types.BoolUnknown()
	case v.IsNull():
		return types.BoolNull()
	}
	return types.BoolValue(RawBool(v))
}

// RawNumber is a known number's value from a raw terraform value.
func RawNumber(v tftypes.Value) (float64, bool) {
	var n big.Float
	if !v.IsKnown() || v.IsNull() || v.As(&n) != nil {
		return 0, false
	}
	f, _ := n.Float64()
	return f, true
}

// RawStrings is the known elements of a raw set or list of strings.
func RawStrings(v tftypes.Value) []string {
	var list []tftypes.Value
	if !v.IsKnown() || v.IsNull() || v.As(&list) != nil {
		return nil
	}
	var out []string
	for _, e := range list {
		var s string
		if e.IsKnown() && e.As(&s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// RawStringMap is the known entries of a raw map of strings.
func RawStringMap(v tftypes.Value) map[string]string {
	var m map[string]tftypes.Value
	if !v.IsKnown() || v.IsNull() || v.As(&m) != nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		var s string
		if e.IsKnown() && e.As(&s) == nil {
			out[k] = s
		}
	}
	return out
}

// EnvList renders environment variables as the engine takes them
// (NAME=value), sorted, so that the same map always gives the same list.
func EnvList(env map[string]string) []string {
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	slices.Sort(list)
	return list
}
