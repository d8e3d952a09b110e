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

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
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

var (
	fileModePattern = regexp.MustCompile(`^0?[0-7]{3}$`)
	fileAttrTypes   = map[string]attr.Type{
		"content": types.StringType, "content_base64": types.StringType, "source": types.StringType,
		"mode": types.StringType, "sha256": types.StringType,
	}
)

// filesModel puts files into the sandbox before it starts.
type filesModel struct {
	Files types.Map `tfsdk:"files"`
}

type fileModel struct {
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	Source        types.String `tfsdk:"source"`
	Mode          types.String `tfsdk:"mode"`
	SHA256        types.String `tfsdk:"sha256"`
}

// nullFiles writes nothing.
func nullFiles() filesModel {
	return filesModel{Files: types.MapNull(types.ObjectType{AttrTypes: fileAttrTypes})}
}

func fileAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{"files": schema.MapNestedAttribute{
		MarkdownDescription: "Files written into the sandbox's filesystem before it starts, by absolute path. " +
			"Missing parent directories are created. Files are owned by root. A sandbox recreated after " +
			"drift gets its files again. Each file takes exactly one of `content`, `content_base64` or " +
			"`source`. A path under a `tmpfs` mount or under `" + joinCode(kernelFilesystems) + "`, or one of " +
			"the files the engine mounts itself (`" + joinCode(engineMountedFiles) + "`), would be " +
			"hidden by what is mounted there, so these are rejected at plan; one that the image's symlinks " +
			"lead under a tmpfs mount is refused at create. With `read_only = true`, which the engine " +
			"cannot write into, the files are built into an untagged image derived from `image` (one per " +
			"sandbox, removed with it), and `image_id` is that image's. Files are not read back from the " +
			"sandbox. A file may hold 1 MiB and all files 10 MiB: larger content belongs in an image " +
			"(`sandbox_image`) or a volume. Changing them, or the content of a `source` file, forces replacement.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(validators.AbsolutePath(), outsideKernelFilesystems()),
		},
		NestedObject: schema.NestedAttributeObject{Validators: []validator.Object{
			validators.ExactlyOneOf("content", "content_base64", "source"),
		}, Attributes: map[string]schema.Attribute{
			"content": schema.StringAttribute{
				MarkdownDescription: "Text content, stored in the state.",
				Optional:            true,
			},
			"content_base64": schema.StringAttribute{
				MarkdownDescription: "Binary content as standard base64, stored in the state.",
				Optional:            true,
				Validators:          []validator.String{validators.Base64()},
			},
			"source": schema.StringAttribute{
				MarkdownDescription: "Path of a local file on the machine running Terraform, read at apply. Only " +
					"its path and digest are stored in the state.",
				Optional:   true,
				Validators: []validator.String{validators.LocalFile()},
			},
			"mode": schema.StringAttribute{
				MarkdownDescription: "Permission bits in octal, for example `\"0755\"`. Defaults to `\"" +
					defaultFileMode + "\"`.",
				Optional:   true,
				Computed:   true,
				Default:    stringdefault.StaticString(defaultFileMode),
				Validators: []validator.String{stringvalidator.RegexMatches(fileModePattern, "must be octal permission bits such as \"0644\"")},
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "Observed at plan: SHA-256 digest of the file's content, in hex.",
				Computed:            true,
			},
		}},
	}}
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

// plan fills in each file's digest, so that a plan shows a changed source
// file, and counts the bytes of the files whose content is known. Files
// whose content is not known yet get an unknown digest.
func (f filesModel) plan() (planned types.Map, total int, diags diag.Diagnostics) {
	if !values.Known(f.Files) {
		return f.Files, 0, diags
	}
	entries, d := values.ObjectsAs[fileModel](f.Files)
	diags.Append(d...)
	if diags.HasError() {
		return f.Files, 0, diags
	}
	vals := make(map[string]attr.Value, len(entries))
	for p, element := range f.Files.Elements() {
		if _, known := entries[p]; !known {
			vals[p] = element // known at apply, its digest with it
		}
	}
	sizes := map[string]int{}
	for p, file := range entries {
		file.SHA256 = types.StringUnknown()
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
				diags.AddAttributeError(path.Root("files").AtMapKey(p), "Cannot read file", err.Error())
				continue
			}
			file.SHA256 = types.StringValue(digest(content))
			sizes[p] = len(content)
		}
		obj, d := values.ObjectOf(fileAttrTypes, file)
		diags.Append(d...)
		vals[p] = obj
	}
	if diags.Append(checkSizes(sizes)...); diags.HasError() {
		return f.Files, 0, diags
	}
	for _, size := range sizes {
		total += size
	}
	planned, d = types.MapValue(types.ObjectType{AttrTypes: fileAttrTypes}, vals)
	diags.Append(d...)
	return planned, total, diags
}

// engineFiles reads the planned files for the engine. A source file whose
// content changed since the plan is an error: apply writes what was planned
// or nothing.
func (f filesModel) engineFiles() ([]engine.File, diag.Diagnostics) {
	var diags diag.Diagnostics
	entries, d := values.ObjectsAs[fileModel](f.Files)
	diags.Append(d...)
	out := make([]engine.File, 0, len(entries))
	for p, file := range entries {
		at := path.Root("files").AtMapKey(p)
		content, err := file.read()
		if err != nil {
			diags.AddAttributeError(at, "Cannot read file", err.Error())
			continue
		}
		if want := file.SHA256.ValueString(); want != "" && digest(content) != want {
			diags.AddAttributeError(at, "File changed since the plan", fmt.Sprintf(
				"The content of %s no longer has the digest the plan recorded (%s). Plan and apply again.",
				file.Source.ValueString(), want))
			continue
		}
		mode, err := strconv.ParseInt(file.Mode.ValueString(), 8, 64)
		if err != nil {
			diags.AddAttributeError(at.AtName("mode"), "Invalid file mode", err.Error())
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

// validate rejects files the engine could not write, that a tmpfs mount
// would hide, or that are too large to travel inline.
func (f filesModel) validate(ctx context.Context, p filesystemModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if !values.Known(f.Files) {
		return diags
	}
	entries, d := values.ObjectsAs[fileModel](f.Files)
	if diags.Append(d...); diags.HasError() {
		return diags
	}
	if diags.Append(checkSizes(inlineSizes(entries))...); diags.HasError() {
		return diags
	}
	var mounts map[string]string
	if values.Known(p.Tmpfs) {
		diags.Append(p.Tmpfs.ElementsAs(ctx, &mounts, false)...)
	}
	for _, file := range slices.Sorted(maps.Keys(f.Files.Elements())) {
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
	return m.ReadOnly.ValueBool() && values.Known(m.Files) && len(m.Files.Elements()) > 0
}
