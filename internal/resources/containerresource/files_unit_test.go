package containerresource

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// fileObject is a file as a literal writes it: an object with the
// attributes set (object, filesvalue_unit_test.go).
func fileObject(f fileModel) attr.Value {
	attrs := map[string]attr.Value{}
	for name, v := range map[string]types.String{
		"content": f.Content, "content_base64": f.ContentBase64, "source": f.Source, "mode": f.Mode,
	} {
		if !v.IsNull() {
			attrs[name] = v
		}
	}
	return object(attrs)
}

// filesValue is files as a literal writes them: an object of objects.
func filesValue(entries map[string]attr.Value) types.Dynamic {
	return types.DynamicValue(object(entries))
}

func file(content, b64, source string) fileModel {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	return fileModel{Content: str(content), ContentBase64: str(b64), Source: str(source), Mode: types.StringValue("0755")}
}

// The plan records each file's digest, and apply writes exactly what was
// planned: a source file changed in between is refused.
func TestFilesPlannedThenRead(t *testing.T) {
	t.Parallel()
	source := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(source, []byte("echo hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := filesValue(map[string]attr.Value{
		"/a": fileObject(file("hello", "", "")),
		"/b": fileObject(file("", "aGVsbG8=", "")),
		"/c": fileObject(file("", "", source)),
	})
	digests, total, diags := filesModel{Files: files}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if total != 5+5+8 {
		t.Errorf("the plan counted %d bytes, want 18", total)
	}
	sums := digests.Elements()
	helloDigest := types.StringValue("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
	if !sums["/a"].Equal(helloDigest) || !sums["/b"].Equal(helloDigest) {
		t.Errorf("digests %v %v, want sha256(hello) for both", sums["/a"], sums["/b"])
	}

	planned := filesModel{Files: files, SHA256: digests}
	written, diags := planned.engineFiles()
	if diags.HasError() || len(written) != 3 {
		t.Fatalf("files %v, diags %v", written, diags)
	}
	for _, f := range written {
		if f.Mode != 0o755 {
			t.Errorf("%s: mode %o", f.Path, f.Mode)
		}
	}

	if err := os.WriteFile(source, []byte("echo changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags = planned.engineFiles()
	if !diags.HasError() || !strings.Contains(diags[0].Detail(), "no longer has the digest the plan recorded") {
		t.Errorf("a source changed after the plan was written: %v", diags)
	}
}

// A file without a mode gets the default one.
func TestFileModeDefault(t *testing.T) {
	t.Parallel()
	f := file("x", "", "")
	f.Mode = types.StringNull()
	written, diags := filesModel{Files: filesValue(map[string]attr.Value{"/a": fileObject(f)})}.engineFiles()
	if diags.HasError() || len(written) != 1 || written[0].Mode != 0o644 {
		t.Errorf("files %v, diags %v; want one of mode 0644", written, diags)
	}
}

func TestFilesWithUnknownContentPlanUnknownDigest(t *testing.T) {
	t.Parallel()
	f := file("", "", "")
	f.Content = types.StringUnknown()
	digests, _, diags := filesModel{Files: filesValue(map[string]attr.Value{"/a": fileObject(f)})}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !digests.Elements()["/a"].IsUnknown() {
		t.Errorf("digest %v, want unknown", digests.Elements()["/a"])
	}
}

// A whole file object known only at apply gets an unknown digest, and the
// files beside it get theirs; validation passes over it.
func TestFilesWithAnUnknownElementPlanIt(t *testing.T) {
	t.Parallel()
	files := filesValue(map[string]attr.Value{
		"/a":     fileObject(file("hello", "", "")),
		"/later": types.ObjectUnknown(map[string]attr.Type{"content": types.StringType}),
	})
	digests, total, diags := filesModel{Files: files}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	sums := digests.Elements()
	if !sums["/later"].IsUnknown() || total != 5 {
		t.Errorf("the unknown file's digest is %v, %d bytes counted; want it unknown and 5 bytes", sums["/later"], total)
	}
	if a := sums["/a"]; a.IsUnknown() || a.IsNull() {
		t.Errorf("the known file's digest is %v", a)
	}
	if diags := (filesModel{Files: files}).validate(context.Background(), filesystemModel{}); diags.HasError() {
		t.Errorf("validation: %v", diags)
	}
}

func TestFileSizeLimits(t *testing.T) {
	cases := map[string]struct {
		sizes map[string]int
		want  string // the error's attribute, or "" for none
	}{
		"small":            {map[string]int{"/a": 10, "/b": maxFileBytes}, ""},
		"one too large":    {map[string]int{"/a": 10, "/b": maxFileBytes + 1}, `files["/b"]`},
		"too large in all": {map[string]int{"/a": maxFileBytes, "/b": maxFileBytes, "/c": maxFilesBytes - 2*maxFileBytes + 1}, "files"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			diags := checkSizes(c.sizes)
			if c.want == "" {
				if diags.HasError() {
					t.Errorf("refused: %v", diags)
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("diagnostics %v, want one on %s", diags, c.want)
			}
			onPath, ok := diags[0].(interface{ Path() path.Path })
			if !ok || !strings.Contains(fmt.Sprint(onPath.Path()), c.want) {
				t.Errorf("diagnostics %v, want one on %s", diags, c.want)
			}
		})
	}
}

// The size of base64 content is counted exactly, padding and line breaks
// left out, so that the error says the file's true size.
func TestDecodedLen(t *testing.T) {
	for n := range 10 {
		content := strings.Repeat("x", n*7)
		for _, encoded := range []string{
			base64.StdEncoding.EncodeToString([]byte(content)),
			wrap(base64.StdEncoding.EncodeToString([]byte(content)), 76, "\n"),
			wrap(base64.StdEncoding.EncodeToString([]byte(content)), 64, "\r\n") + "\r\n",
		} {
			decoded, err := base64.StdEncoding.DecodeString(encoded)
			if err != nil {
				t.Fatal(err)
			}
			if got := decodedLen(encoded); got != len(decoded) {
				t.Errorf("decodedLen(%q) = %d, want %d", encoded, got, len(decoded))
			}
		}
	}
}

// wrap breaks s into lines of width characters.
func wrap(s string, width int, newline string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + newline)
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

func TestHiddenBy(t *testing.T) {
	tmpfs := []string{"/run", "/scratch"}
	for dir, want := range map[string]string{
		"/run": "/run", "/run/app": "/run", "/runner": "", "/proc/1": "/proc", "/work": "", "/scratch/x/y": "/scratch",
	} {
		if got := hiddenBy(dir, tmpfs); got != want {
			t.Errorf("hiddenBy(%q) = %q, want %q", dir, got, want)
		}
	}
}
