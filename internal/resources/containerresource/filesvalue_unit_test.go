package containerresource

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// object is an object literal of the given attributes.
func object(attrs map[string]attr.Value) types.Object {
	attrTypes := map[string]attr.Type{}
	for name, v := range attrs {
		attrTypes[name] = v.Type(context.Background())
	}
	return types.ObjectValueMust(attrTypes, attrs)
}

// typedFiles is files as a variable of type map(object({content = string,
// mode = optional(string)})) gives them.
func typedFiles(contents map[string]string) types.Dynamic {
	fileType := map[string]attr.Type{"content": types.StringType, "mode": types.StringType}
	elements := map[string]attr.Value{}
	for p, c := range contents {
		elements[p] = types.ObjectValueMust(fileType, map[string]attr.Value{
			"content": types.StringValue(c), "mode": types.StringNull(),
		})
	}
	return types.DynamicValue(types.MapValueMust(types.ObjectType{AttrTypes: fileType}, elements))
}

// literalFiles is files as an object literal gives them.
func literalFiles(contents map[string]string) types.Dynamic {
	elements := map[string]attr.Value{}
	for p, c := range contents {
		elements[p] = object(map[string]attr.Value{"content": types.StringValue(c)})
	}
	return types.DynamicValue(object(elements))
}

// Files come as an object (a literal), a map (a typed variable), and each
// file as an object or a map; numbers and booleans become text, as for a
// string attribute.
func TestDecodeFiles(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]types.Dynamic{
		"literal": literalFiles(map[string]string{"/a": "x"}),
		"typed":   typedFiles(map[string]string{"/a": "x"}),
		"map of maps": types.DynamicValue(types.MapValueMust(types.MapType{ElemType: types.StringType},
			map[string]attr.Value{"/a": types.MapValueMust(types.StringType, map[string]attr.Value{"content": types.StringValue("x")})})),
	} {
		entries, diags := decodeFiles(files)
		if diags.HasError() || len(entries) != 1 || entries["/a"].Content.ValueString() != "x" ||
			!entries["/a"].Source.IsNull() || entries["/a"].mode().ValueString() != defaultFileMode {
			t.Errorf("%s: read %+v, %v", name, entries, diags)
		}
	}
	entries, diags := decodeFiles(types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{
		"content": types.NumberValue(big.NewFloat(42)), "mode": types.NumberValue(big.NewFloat(755)),
	})})))
	if diags.HasError() || entries["/a"].Content.ValueString() != "42" || entries["/a"].Mode.ValueString() != "755" {
		t.Errorf("numbers read as %+v, %v", entries, diags)
	}
	entries, diags = decodeFiles(types.DynamicValue(object(map[string]attr.Value{
		"/later": types.DynamicValue(types.ObjectUnknown(map[string]attr.Type{"content": types.StringType})),
	})))
	if diags.HasError() || !entries["/later"].Content.IsUnknown() || entries["/later"].contentKnown() {
		t.Errorf("a file known only at apply read as %+v, %v", entries, diags)
	}
	for _, v := range []types.Dynamic{types.DynamicNull(), types.DynamicUnknown(), types.DynamicValue(types.MapNull(types.StringType))} {
		if entries, diags := decodeFiles(v); len(entries) != 0 || diags.HasError() {
			t.Errorf("%v read as %v, %v", v, entries, diags)
		}
	}
}

// Each value that is not files says so at the path of what is wrong.
func TestDecodeFilesRefuses(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		files types.Dynamic
		at    path.Path
		says  string
	}{
		"a string": {types.DynamicValue(types.StringValue("x")), path.Root("files"), "must be a map of files by absolute path"},
		"a list": {types.DynamicValue(types.ListValueMust(types.StringType, []attr.Value{types.StringValue("/a")})),
			path.Root("files"), "got a list"},
		"a file that is a string": {types.DynamicValue(object(map[string]attr.Value{"/a": types.StringValue("x")})),
			path.Root("files").AtMapKey("/a"), "must be an object with one of content"},
		"an attribute a file does not take": {types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{
			"content": types.StringValue("x"), "contnet": types.StringValue("y"),
		})})), path.Root("files").AtMapKey("/a").AtName("contnet"), "has \"contnet\", which a file does not take: a file takes `content`, `content_base64`, `source`, `mode`."},
		"content that is a list": {types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{
			"content": types.ListValueMust(types.StringType, nil),
		})})), path.Root("files").AtMapKey("/a").AtName("content"), "must be a string"},
	} {
		_, diags := decodeFiles(c.files)
		expectError(t, name, diags, c.at, c.says)
	}
}

// What the schema of a nested object checked is checked for each file.
func TestCheckFiles(t *testing.T) {
	t.Parallel()
	source := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(source, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := path.Root("files").AtMapKey
	str := types.StringValue
	null := types.StringNull()
	for name, c := range map[string]struct {
		files map[string]fileModel
		at    path.Path
		says  string // "" when fine
	}{
		"fine": {map[string]fileModel{
			"/a": {Content: str("x"), ContentBase64: null, Source: null, Mode: null},
			"/b": {Content: null, ContentBase64: str("eA=="), Source: null, Mode: str("0755")},
			"/c": {Content: null, ContentBase64: null, Source: str(source), Mode: str("600")},
		}, path.Empty(), ""},
		"none":             {map[string]fileModel{}, path.Root("files"), "has no file"},
		"relative path":    {map[string]fileModel{"a": {Content: str("x"), ContentBase64: null, Source: null, Mode: null}}, at("a"), "clean absolute path"},
		"under /proc":      {map[string]fileModel{"/proc/x": {Content: str("x"), ContentBase64: null, Source: null, Mode: null}}, at("/proc/x"), "must not be under"},
		"an engine's file": {map[string]fileModel{"/etc/hosts": {Content: str("x"), ContentBase64: null, Source: null, Mode: null}}, at("/etc/hosts"), "must not be /etc/hosts"},
		"two contents":     {map[string]fileModel{"/a": {Content: str("x"), ContentBase64: str("eA=="), Source: null, Mode: null}}, at("/a"), "exactly one of"},
		"no content":       {map[string]fileModel{"/a": {Content: null, ContentBase64: null, Source: null, Mode: str("0644")}}, at("/a"), "exactly one of"},
		"bad base64":       {map[string]fileModel{"/a": {Content: null, ContentBase64: str("!"), Source: null, Mode: null}}, at("/a").AtName("content_base64"), "standard base64"},
		"missing source":   {map[string]fileModel{"/a": {Content: null, ContentBase64: null, Source: str(source + "-not"), Mode: null}}, at("/a").AtName("source"), "readable regular file"},
		"mode not octal":   {map[string]fileModel{"/a": {Content: str("x"), ContentBase64: null, Source: null, Mode: str("0888")}}, at("/a").AtName("mode"), "octal permission bits"},
	} {
		diags := checkFiles(context.Background(), c.files)
		if c.says == "" {
			if diags.HasError() {
				t.Errorf("%s: refused: %v", name, diags)
			}
			continue
		}
		expectError(t, name, diags, c.at, c.says)
	}
}

// Files are the same by what they hold, not by their type; the default
// mode is the mode.
func TestSameFiles(t *testing.T) {
	t.Parallel()
	explicitMode := types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{
		"content": types.StringValue("x"), "mode": types.StringValue(defaultFileMode),
	})}))
	for name, c := range map[string]struct {
		a, b types.Dynamic
		same bool
	}{
		"literal and typed":     {literalFiles(map[string]string{"/a": "x"}), typedFiles(map[string]string{"/a": "x"}), true},
		"default mode written":  {literalFiles(map[string]string{"/a": "x"}), explicitMode, true},
		"other content":         {literalFiles(map[string]string{"/a": "x"}), typedFiles(map[string]string{"/a": "y"}), false},
		"another file":          {literalFiles(map[string]string{"/a": "x"}), literalFiles(map[string]string{"/a": "x", "/b": "x"}), false},
		"none and some":         {types.DynamicNull(), literalFiles(map[string]string{"/a": "x"}), false},
		"none and none":         {types.DynamicNull(), types.DynamicNull(), true},
		"unknown":               {types.DynamicUnknown(), types.DynamicUnknown(), false},
		"unknown content":       {literalFiles(map[string]string{"/a": "x"}), types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{"content": types.StringUnknown()})})), false},
		"same bytes in base64":  {literalFiles(map[string]string{"/a": "x"}), inlineAs("content_base64", "eA=="), true},
		"other bytes in base64": {literalFiles(map[string]string{"/a": "x"}), inlineAs("content_base64", "eQ=="), false},
		"bad base64":            {inlineAs("content_base64", "!"), inlineAs("content_base64", "!"), false},
		"a source file":         {literalFiles(map[string]string{"/a": "x"}), inlineAs("source", "x"), false},
		"the same source":       {inlineAs("source", "x"), inlineAs("source", "x"), true},
	} {
		if got := sameFiles(c.a, c.b); got != c.same {
			t.Errorf("%s: sameFiles = %v, want %v", name, got, c.same)
		}
	}
}

// inlineAs is a files value of one file, /a, whose kind of content is
// attribute.
func inlineAs(attribute, value string) types.Dynamic {
	return types.DynamicValue(object(map[string]attr.Value{"/a": object(map[string]attr.Value{attribute: types.StringValue(value)})}))
}

// expectError fails unless diags has an error at the path that says what.
func expectError(t *testing.T, name string, diags diag.Diagnostics, at path.Path, says string) {
	t.Helper()
	for _, d := range diags {
		withPath, ok := d.(diag.DiagnosticWithPath)
		if ok && withPath.Path().Equal(at) && strings.Contains(d.Detail(), says) {
			return
		}
	}
	t.Errorf("%s: diagnostics %v, want an error at %s that says %q", name, diags, at, says)
}

// Version 2's files split into the files, without their digests, and the
// digests by path; no files stay none.
func TestUpgradeFilesV2(t *testing.T) {
	t.Parallel()
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	none := tftypes.NewValue(tftypes.String, nil)
	v2 := tftypes.NewValue(tftypes.Map{ElementType: fileTypeV2}, map[string]tftypes.Value{
		"/a": tftypes.NewValue(fileTypeV2, map[string]tftypes.Value{
			"content": str("x"), "content_base64": none, "source": none, "mode": str("0644"), "sha256": str("d"),
		}),
	})
	files, digests, err := upgradeFilesV2(v2)
	if err != nil {
		t.Fatal(err)
	}
	var elements, sums map[string]tftypes.Value
	if err := files.As(&elements); err != nil {
		t.Fatal(err)
	}
	if err := digests.As(&sums); err != nil || !sums["/a"].Equal(str("d")) {
		t.Errorf("digests %v (%v), want /a's", digests, err)
	}
	var fields map[string]tftypes.Value
	if err := elements["/a"].As(&fields); err != nil || len(fields) != 4 || !fields["content"].Equal(str("x")) {
		t.Errorf("file %v (%v), want its four attributes without the digest", elements["/a"], err)
	}
	files, digests, err = upgradeFilesV2(tftypes.NewValue(tftypes.Map{ElementType: fileTypeV2}, nil))
	if err != nil || !files.IsNull() || !digests.IsNull() {
		t.Errorf("no files upgraded to %v and %v (%v), want none", files, digests, err)
	}
}
