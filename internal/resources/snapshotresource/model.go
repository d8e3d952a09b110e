package snapshotresource

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// resourceModel is a sandbox_snapshot in Terraform's state.
type resourceModel struct {
	ID            types.String   `tfsdk:"id"`
	Volume        types.String   `tfsdk:"volume"`
	Directory     types.String   `tfsdk:"directory"`
	Triggers      types.Map      `tfsdk:"triggers"`
	MaxSizeMB     types.Int64    `tfsdk:"max_size_mb"`
	MaxFiles      types.Int64    `tfsdk:"max_files"`
	KeepOnDestroy types.Bool     `tfsdk:"keep_on_destroy"`
	File          types.String   `tfsdk:"file"`
	SHA256        types.String   `tfsdk:"sha256"`
	SizeBytes     types.Int64    `tfsdk:"size_bytes"`
	Files         types.Int64    `tfsdk:"files"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
}

// limits bound what the volume may hold.
func (m resourceModel) limits() archive.Limits {
	return archive.Limits{MaxBytes: m.MaxSizeMB.ValueInt64() * mib, MaxEntries: int(m.MaxFiles.ValueInt64())}
}

// record records what was written, at path.
func (m *resourceModel) record(path string, s archive.Summary) {
	m.ID, m.File = types.StringValue(path), types.StringValue(path)
	m.SHA256 = types.StringValue(s.SHA256)
	m.SizeBytes, m.Files = types.Int64Value(s.Size), types.Int64Value(int64(s.Entries))
}
