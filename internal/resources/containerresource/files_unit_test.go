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

func filesValue(t *testing.T, entries map[string]fileModel) types.Map {
	t.Helper()
	vals := make(map[string]attr.Value, len(entries))
	for p, f := range entries {
		obj, diags := types.ObjectValueFrom(context.Background(), fileAttrTypes, f)
		if diags.HasError() {
			t.Fatal(diags)
		}
		vals[p] = obj
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: fileAttrTypes}, vals)
}

func file(content, b64, source string) fileModel {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	return fileModel{Content: str(content), ContentBase64: str(b64), Source: str(source),
		Mode: types.StringValue("0755"), SHA256: types.StringNull()}
}

// The plan records each file's digest, and apply writes exactly what was
// planned: a source file changed in between is refused.
func TestFilesPlannedThenRead(t *testing.T) {
	t.Parallel()
	source := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(source, []byte("echo hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	planned, total, diags := filesModel{Files: filesValue(t, map[string]fileModel{
		"/a": file("hello", "", ""),
		"/b": file("", "aGVsbG8=", ""),
		"/c": file("", "", source),
	})}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if total != 5+5+8 {
		t.Errorf("the plan counted %d bytes, want 18", total)
	}
	entries := fileEntries(t, planned)
	helloDigest := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if entries["/a"].SHA256.ValueString() != helloDigest || entries["/b"].SHA256.ValueString() != helloDigest {
		t.Errorf("digests %v %v, want sha256(hello) for both", entries["/a"].SHA256, entries["/b"].SHA256)
	}

	files, diags := filesModel{Files: planned}.engineFiles()
	if diags.HasError() || len(files) != 3 {
		t.Fatalf("files %v, diags %v", files, diags)
	}
	for _, f := range files {
		if f.Mode != 0o755 {
			t.Errorf("%s: mode %o", f.Path, f.Mode)
		}
	}

	if err := os.WriteFile(source, []byte("echo changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags = filesModel{Files: planned}.engineFiles()
	if !diags.HasError() || !strings.Contains(diags[0].Detail(), "no longer has the digest the plan recorded") {
		t.Errorf("a source changed after the plan was written: %v", diags)
	}
}

func TestFilesWithUnknownContentPlanUnknownDigest(t *testing.T) {
	t.Parallel()
	f := file("", "", "")
	f.Content = types.StringUnknown()
	planned, _, diags := filesModel{Files: filesValue(t, map[string]fileModel{"/a": f})}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	entries := fileEntries(t, planned)
	if !entries["/a"].SHA256.IsUnknown() {
		t.Errorf("digest %v, want unknown", entries["/a"].SHA256)
	}
}

// A whole file object known only at apply stays unknown in the plan, and
// the files beside it get their digests; validation passes over it.
func TestFilesWithAnUnknownElementPlanIt(t *testing.T) {
	t.Parallel()
	objectType := types.ObjectType{AttrTypes: fileAttrTypes}
	known := filesValue(t, map[string]fileModel{"/a": file("hello", "", "")}).Elements()["/a"]
	files := types.MapValueMust(objectType, map[string]attr.Value{"/a": known, "/later": types.ObjectUnknown(fileAttrTypes)})
	planned, total, diags := filesModel{Files: files}.plan()
	if diags.HasError() {
		t.Fatal(diags)
	}
	elements := planned.Elements()
	if !elements["/later"].IsUnknown() || total != 5 {
		t.Errorf("the unknown file planned as %v, %d bytes counted; want it unknown and 5 bytes", elements["/later"], total)
	}
	if a, ok := elements["/a"].(types.Object); !ok || a.Attributes()["sha256"].IsUnknown() || a.Attributes()["sha256"].IsNull() {
		t.Errorf("the known file planned as %v, want it with its digest", elements["/a"])
	}
	if diags := (filesModel{Files: files}).validate(context.Background(), filesystemModel{}); diags.HasError() {
		t.Errorf("validation: %v", diags)
	}
}

func fileEntries(t *testing.T, files types.Map) map[string]fileModel {
	t.Helper()
	var entries map[string]fileModel
	if diags := files.ElementsAs(context.Background(), &entries, false); diags.HasError() {
		t.Fatal(diags)
	}
	return entries
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
