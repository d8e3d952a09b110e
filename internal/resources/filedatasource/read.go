package filedatasource

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	pathattr "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

// read reads the file into m.
func (d *DataSource) read(ctx context.Context, m *dataModel) diag.Diagnostics {
	var diags diag.Diagnostics
	file := m.Path.ValueString()
	id, name := m.Container.ValueString(), ""
	if !m.Volume.IsNull() {
		if path.IsAbs(file) {
			diags.AddAttributeError(pathattr.Root("path"), "Path not in the volume", fmt.Sprintf("With volume, "+
				"path is relative to the volume's root, such as %q, not %q. Remove the leading slash.",
				strings.TrimPrefix(file, "/"), file))
			return diags
		}
		user, d2 := d.mounter(ctx, m.Volume.ValueString())
		if diags.Append(d2...); diags.HasError() {
			return diags
		}
		id, name, file = user.ID, user.Container, path.Join(user.Target, file)
	} else {
		if !path.IsAbs(file) {
			diags.AddAttributeError(pathattr.Root("path"), "Path not absolute", fmt.Sprintf("With container, "+
				"path is absolute inside the sandbox, such as %q. Start it with a slash.", "/"+file))
			return diags
		}
		c, err := d.Client.InspectContainer(ctx, id)
		switch {
		case engine.IsNotFound(err):
			diags.AddAttributeError(pathattr.Root("container"), "No such sandbox", fmt.Sprintf("The engine at %s "+
				"has no container %q. Give a sandbox's ID or name, such as sandbox_container.NAME.id.",
				d.Client.Endpoint(), id))
			return diags
		case err != nil:
			diags.AddError("Cannot read the sandbox", fmt.Sprintf("Inspecting the container %q on the engine at "+
				"%s failed: %s. %s", id, d.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, d.Client.Where())))
			return diags
		}
		id, name = c.ID, strings.TrimPrefix(c.Name, "/")
	}
	limit := int64(defaultMaxSize)
	if !m.MaxSize.IsNull() {
		limit = m.MaxSize.ValueInt64()
	}
	reader, err := base.Ability[engine.FileReader](d.Client, "reading a file out of a sandbox")
	var content []byte
	if err == nil {
		content, err = reader.ReadFile(ctx, id, file, limit)
	}
	if err != nil {
		diags.Append(readDiagnostics(err, name, file, d.Client.Endpoint())...)
		return diags
	}
	m.setContent(content, name)
	return diags
}

// mounter is the container to read a volume through: one that mounts it,
// running first. Podman reads a volume only through a running one.
func (d *DataSource) mounter(ctx context.Context, volume string) (engine.VolumeUser, diag.Diagnostics) {
	var diags diag.Diagnostics
	users, err := d.Client.VolumeUsers(ctx, volume)
	if err != nil {
		diags.AddError("Cannot list the volume's users", fmt.Sprintf("Listing the containers that mount the "+
			"volume %q on the engine at %s failed: %s. %s", volume, d.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, d.Client.Where())))
		return engine.VolumeUser{}, diags
	}
	facts, err := d.Client.Facts(ctx)
	onlyRunning := err == nil && facts.ReadsOnlyRunning
	var stopped *engine.VolumeUser
	for i, u := range users {
		if u.Running {
			return u, diags
		}
		if stopped == nil && !onlyRunning {
			stopped = &users[i]
		}
	}
	if stopped != nil {
		return *stopped, diags
	}
	why := "no container mounts it"
	if len(users) > 0 {
		why = "no running container mounts it, and Podman reads a volume only through a running one"
	}
	diags.AddAttributeError(pathattr.Root("volume"), "No container to read the volume through", fmt.Sprintf(
		"The volume %q on the engine at %s cannot be read: %s. The provider starts nothing to read it, as a "+
			"plan changes nothing on the engine. Read it through a sandbox that mounts it (container = "+
			"sandbox_container.NAME.id, with the path where it mounts the volume), or mount it in one.",
		volume, d.Client.Endpoint(), why))
	return engine.VolumeUser{}, diags
}

// setContent records what was read, in the plain or the sensitive
// attributes.
func (m *dataModel) setContent(content []byte, through string) {
	m.Size = types.Int64Value(int64(len(content)))
	m.ReadThrough = types.StringValue(through)
	text := types.StringNull()
	if utf8.Valid(content) {
		text = types.StringValue(string(content))
	}
	b64 := types.StringValue(base64.StdEncoding.EncodeToString(content))
	null := types.StringNull()
	if m.Sensitive.ValueBool() {
		m.Content, m.ContentBase64, m.SensitiveContent, m.SensitiveContentBase64 = null, null, text, b64
		return
	}
	m.Content, m.ContentBase64, m.SensitiveContent, m.SensitiveContentBase64 = text, b64, null, null
}

// readDiagnostics says why a read failed, on the attribute to change.
func readDiagnostics(err error, container, file, endpoint string) diag.Diagnostics {
	var diags diag.Diagnostics
	var tooLarge *engine.FileTooLargeError
	var notRegular *engine.NotRegularFileError
	at := pathattr.Root("path")
	switch {
	case engine.IsNotFound(err):
		diags.AddAttributeError(at, "No such file", fmt.Sprintf("%s is not in the container %q on the engine at "+
			"%s (or the container is gone). Check the path, and that the sandbox wrote the file where it "+
			"persists: a tmpfs is emptied when the sandbox stops.", file, container, endpoint))
	case errors.As(err, &tooLarge):
		diags.AddAttributeError(pathattr.Root("max_size"), "File too large", fmt.Sprintf("%s in the container %q "+
			"is %d bytes, more than max_size (%d). Raise max_size (at most %d), or have the sandbox write a "+
			"smaller result.", file, container, tooLarge.Size, tooLarge.Max, maxMaxSize))
	case errors.As(err, &notRegular):
		diags.AddAttributeError(at, "Not a regular file", fmt.Sprintf("In the container %q, %s. Give the path of "+
			"a regular file.", container, notRegular.Error()))
	default:
		diags.AddError("Cannot read the file", fmt.Sprintf("Reading %s from the container %q on the engine at %s "+
			"failed: %s. %s", file, container, endpoint, engine.Brief(err), engine.NextStep(err, "the engine at "+endpoint)))
	}
	return diags
}
