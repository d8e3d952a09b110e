package containerresource

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

const defaultFileMode = "0644"

// Files travel inline in the configuration, the plan and the state, each
// several times over in Terraform's messages to the provider: they are for
// configuration, not for data. Larger content belongs in an image
// (sandbox_image) or, for data, a volume.
const (
	maxFileBytes  = 1 << 20  // one file
	maxFilesBytes = 10 << 20 // all of a sandbox's files
)

// kernelFilesystems are mounted over the sandbox's filesystem when it
// starts, hiding any file written below them.
var kernelFilesystems = []string{"/proc", "/sys", "/dev"}

var fileModePattern = regexp.MustCompile(`^0?[0-7]{3}$`)

// filesModel puts files into the sandbox before it starts.
type filesModel struct {
	Files  types.Dynamic `tfsdk:"files"`
	SHA256 types.Map     `tfsdk:"files_sha256"`
}

// fileModel is one file (filesvalue.go reads them).
type fileModel struct {
	Content, ContentBase64, Source, Mode types.String
}

// nullFiles writes nothing.
func nullFiles() filesModel {
	return filesModel{Files: types.DynamicNull(), SHA256: types.MapNull(types.StringType)}
}

func fileAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"files": schema.DynamicAttribute{
			MarkdownDescription: "Files written into the sandbox's filesystem before it starts: a map from " +
				"absolute path to an object with exactly one of `content` (text), `content_base64` (binary " +
				"content as standard base64) or `source` (path of a local file on the machine running " +
				"Terraform, read at apply, of which only the path and digest are stored in the state), and " +
				"optionally `mode`, the permission bits in octal, such as `\"0755\"` (default `\"" +
				defaultFileMode + "\"`). Missing parent directories are created. Files are owned by root. A " +
				"sandbox recreated after drift gets its files again. A path under a `tmpfs` mount or under `" +
				joinCode(kernelFilesystems) + "`, or one of the files the engine mounts itself (`" +
				joinCode(engineMountedFiles) + "`), would be hidden by what is mounted there, so these are " +
				"rejected at plan; one that the image's symlinks lead under a tmpfs mount is refused at create. " +
				"With `read_only = true`, which the engine cannot write into, the files are built into an " +
				"untagged image derived from `image` (one per sandbox, removed with it), and `image_id` is that " +
				"image's. Files are not read back from the sandbox. A file may hold 1 MiB and all files 10 MiB: " +
				"larger content belongs in an image (`sandbox_image`) or a volume. Changing the files, or the " +
				"content of a `source` file, forces replacement. The attribute's type is not fixed, so that a " +
				"plan of thousands of files stays fast; the provider checks it, and a literal and a typed " +
				"variable holding the same files are the same files, as is the same text given as `content` " +
				"or as `content_base64`.",
			Optional: true,
		},
		"files_sha256": schema.MapAttribute{
			MarkdownDescription: "Observed at plan: the SHA-256 digest of each file's content, in hex, by path. " +
				"A plan shows a `source` file whose content changed here.",
			ElementType: types.StringType,
			Computed:    true,
		},
	}
}

// engineMountedFiles are the files the engine mounts over every sandbox's
// when it starts (Podman adds /run/.containerenv), hiding any written
// there.
var engineMountedFiles = []string{"/etc/hosts", "/etc/hostname", "/etc/resolv.conf", "/run/.containerenv"}

// outsideKernelFilesystems refuses paths under the kernel's filesystems,
// and the files the engine mounts itself.
func outsideKernelFilesystems() validator.String {
	desc := "must not be under " + strings.Join(kernelFilesystems, ", ") + ": the engine mounts the kernel's " +
		"filesystems there when the sandbox starts, so the file would be hidden; put it elsewhere"
	mounted := "must not be " + strings.Join(engineMountedFiles, ", ") + ": the engine mounts its own file " +
		"there when the sandbox starts, so the file would be hidden; put it elsewhere"
	return validators.String(desc+"; and "+mounted, func(s string) string {
		for _, fs := range kernelFilesystems {
			if under(s, fs) {
				return desc
			}
		}
		if slices.Contains(engineMountedFiles, s) {
			return mounted
		}
		return ""
	})
}

// contentKnown reports whether the file's content can be read now.
func (f fileModel) contentKnown() bool {
	return !f.Content.IsUnknown() && !f.ContentBase64.IsUnknown() && !f.Source.IsUnknown()
}

// read returns the file's content from whichever source it has.
func (f fileModel) read() ([]byte, error) {
	switch {
	case !f.Content.IsNull():
		return []byte(f.Content.ValueString()), nil
	case !f.ContentBase64.IsNull():
		return base64.StdEncoding.DecodeString(f.ContentBase64.ValueString())
	case !f.Source.IsNull():
		return os.ReadFile(f.Source.ValueString())
	}
	return nil, errors.New("no content, content_base64 or source")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// plan records each file's digest, so that a plan shows a changed source
// file, and counts the bytes of the files whose content is known. Files
// whose content is not known yet get an unknown digest; files not known
// at all, unknown digests.
func (f filesModel) plan() (digests types.Map, total int, diags diag.Diagnostics) {
	if !filesKnown(f.Files) {
		if f.Files.IsUnknown() || f.Files.IsUnderlyingValueUnknown() {
			return types.MapUnknown(types.StringType), 0, diags
		}
		return types.MapNull(types.StringType), 0, diags
	}
	entries, d := decodeFiles(f.Files)
	if diags.Append(d...); diags.HasError() {
		return types.MapNull(types.StringType), 0, diags
	}
	vals := make(map[string]attr.Value, len(entries))
	sizes := map[string]int{}
	for p, file := range entries {
		vals[p] = types.StringUnknown()
		if values.Known(file.Source) {
			// Not read when too large to be one of the files.
			if st, err := os.Stat(file.Source.ValueString()); err == nil && st.Size() > maxFileBytes {
				sizes[p] = int(min(st.Size(), 1<<40))
				continue
			}
		}
		if file.contentKnown() {
			content, err := file.read()
			if err != nil {
				diags.AddAttributeError(path.Root("files").AtMapKey(p), "Cannot read file", err.Error()+
					". Make the file readable by the user running Terraform, or change its source.")
				continue
			}
			vals[p] = types.StringValue(digest(content))
			sizes[p] = len(content)
		}
	}
	if diags.Append(checkSizes(sizes)...); diags.HasError() {
		return types.MapNull(types.StringType), 0, diags
	}
	for _, size := range sizes {
		total += size
	}
	digests, d = types.MapValue(types.StringType, vals)
	diags.Append(d...)
	return digests, total, diags
}

// engineFiles reads the planned files for the engine. A source file whose
// content changed since the plan is an error: apply writes what was planned
// or nothing.
func (f filesModel) engineFiles() ([]engine.File, diag.Diagnostics) {
	entries, diags := decodeFiles(f.Files)
	digests := map[string]string{}
	if values.Known(f.SHA256) {
		for p, d := range f.SHA256.Elements() {
			if s, ok := d.(types.String); ok {
				digests[p] = s.ValueString()
			}
		}
	}
	out := make([]engine.File, 0, len(entries))
	for p, file := range entries {
		at := path.Root("files").AtMapKey(p)
		content, err := file.read()
		if err != nil {
			diags.AddAttributeError(at, "Cannot read file", err.Error()+
				". Make the file readable by the user running Terraform, or change its source.")
			continue
		}
		if want := digests[p]; want != "" && digest(content) != want {
			diags.AddAttributeError(at, "File changed since the plan", fmt.Sprintf(
				"The content of %s no longer has the digest the plan recorded (%s). Plan and apply again.",
				file.Source.ValueString(), want))
			continue
		}
		mode, err := strconv.ParseInt(file.mode().ValueString(), 8, 64)
		if err != nil {
			diags.AddAttributeError(at.AtName("mode"), "Invalid file mode", err.Error()+
				`. Give mode as four octal digits in a string, such as "0644" or "0755".`)
			continue
		}
		out = append(out, engine.File{Path: p, Content: content, Mode: mode})
	}
	return out, diags
}

// tooLarge says that a file, or all files, exceed their limit.
func tooLarge(at path.Path, what string, size, limit int) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Files too large", fmt.Sprintf(
		"%s %d bytes, more than the %d that files allow: their content travels inline in the configuration, "+
			"the plan and the state. Build larger files into the image instead (a sandbox_image whose "+
			"Dockerfile COPYs them), or keep data in a volume.", what, size, limit))
}

// checkSizes refuses files over their limits, counting what is known now:
// inline content at validation, and a source file's size at plan.
func checkSizes(sizes map[string]int) diag.Diagnostics {
	var diags diag.Diagnostics
	total := 0
	for _, p := range slices.Sorted(maps.Keys(sizes)) {
		total += sizes[p]
		if sizes[p] > maxFileBytes {
			diags.Append(tooLarge(path.Root("files").AtMapKey(p), fmt.Sprintf("File %s has", p), sizes[p], maxFileBytes))
		}
	}
	if total > maxFilesBytes && !diags.HasError() {
		diags.Append(tooLarge(path.Root("files"), "The files have", total, maxFilesBytes))
	}
	return diags
}

// decodedLen is the length of what standard base64 s, maybe wrapped in
// lines (the decoder skips line breaks), decodes to, without decoding it.
func decodedLen(s string) int {
	n := len(s) - strings.Count(s, "\n") - strings.Count(s, "\r")
	s = strings.TrimRight(s, "\r\n")
	padding := len(s) - len(strings.TrimRight(s, "="))
	return n/4*3 - padding
}

// inlineSizes are the sizes of the files whose content is inline.
func inlineSizes(entries map[string]fileModel) map[string]int {
	sizes := map[string]int{}
	for p, file := range entries {
		switch {
		case values.Known(file.Content):
			sizes[p] = len(file.Content.ValueString())
		case values.Known(file.ContentBase64):
			sizes[p] = decodedLen(file.ContentBase64.ValueString())
		}
	}
	return sizes
}

// validate rejects files that are not files, that the engine could not
// write, that a tmpfs mount would hide, or that are too large to travel
// inline.
func (f filesModel) validate(ctx context.Context, p filesystemModel) diag.Diagnostics {
	entries, diags := decodeFiles(f.Files)
	if !filesKnown(f.Files) || diags.HasError() {
		return diags
	}
	if diags.Append(checkFiles(ctx, entries)...); diags.HasError() {
		return diags
	}
	if diags.Append(checkSizes(inlineSizes(entries))...); diags.HasError() {
		return diags
	}
	var mounts map[string]string
	if values.Known(p.Tmpfs) {
		diags.Append(p.Tmpfs.ElementsAs(ctx, &mounts, false)...)
	}
	for _, file := range slices.Sorted(maps.Keys(entries)) {
		for mount := range mounts {
			if under(file, mount) {
				diags.AddAttributeError(path.Root("files").AtMapKey(file), "File hidden by a tmpfs mount",
					fmt.Sprintf("Attribute files[%q] is under the tmpfs mount %s, which is mounted over it when "+
						"the sandbox starts, so the file would not be seen. Put it elsewhere.", file, mount))
			}
		}
	}
	return diags
}

// under reports whether p is mount or below it.
func under(p, mount string) bool {
	return p == mount || strings.HasPrefix(p, mount+"/")
}

// hiddenBy returns the mount (a tmpfs mount, or a kernel filesystem) that
// would hide a file written into dir once the sandbox starts, or "".
func hiddenBy(dir string, tmpfs []string) string {
	for _, mount := range append(slices.Clone(kernelFilesystems), tmpfs...) {
		if under(dir, mount) {
			return mount
		}
	}
	return ""
}

// hiddenThroughSymlinks says which files the image's symlinks lead under a
// mount that would hide them: where maps each file to the directory it
// lands in (engine.WhereFilesGo).
func (f filesModel) hiddenThroughSymlinks(ctx context.Context, p filesystemModel, where map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	var mounts map[string]string
	if values.Known(p.Tmpfs) {
		diags.Append(p.Tmpfs.ElementsAs(ctx, &mounts, false)...)
	}
	for _, file := range slices.Sorted(maps.Keys(where)) {
		if mount := hiddenBy(where[file], slices.Collect(maps.Keys(mounts))); mount != "" {
			diags.AddAttributeError(path.Root("files").AtMapKey(file), "File hidden through the image's symlinks",
				fmt.Sprintf("Attribute files[%q] lands in %s, where the image's symlinks lead its directory, and "+
					"%s is mounted over that when the sandbox starts, so the file would not be seen. Put it "+
					"elsewhere (the sandbox was not kept).", file, where[file], mount))
		}
	}
	return diags
}

// labelDerivedFiles marks an image the provider derived from a sandbox's
// image to hold its files.
const labelDerivedFiles = engine.LabelPrefix + "derived-files"

// labelDerivedFor names the sandbox a derived image was made for.
const labelDerivedFor = engine.LabelPrefix + "derived-for"

// labelDerivedToken carries, on a derived image, the create token of the
// create that made it. It is not the create token's own label, which is
// the container's alone: the sandbox runs from this image, and a label it
// inherits proves nothing (engine.CreatedByProvider).
const labelDerivedToken = engine.LabelPrefix + "derived-token"

// derivedImageLabels are the labels of the image derived for the files of
// the read-only sandbox named name that the create with token makes: the
// provider's ownership, the token, so that a create cut off leaves
// nothing, and the sandbox's name.
func derivedImageLabels(name, token string) map[string]string {
	labels := engine.OwnershipLabels(resourceType)
	labels[labelDerivedToken] = token
	labels[labelDerivedFiles] = "true"
	labels[labelDerivedFor] = name
	return labels
}

// derivesImage reports whether the sandbox runs an image derived to hold
// its files: it has files and a read-only root, which the engine cannot
// write into.
func (m resourceModel) derivesImage() bool {
	if !m.ReadOnly.ValueBool() || !filesKnown(m.Files) {
		return false
	}
	entries, ok := entriesOf(m.Files.UnderlyingValue())
	return ok && len(entries) > 0
}
