package resources

import (
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/planmodifiers"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
)

// Hardening defaults, part of the schema and of state upgrades.
const (
	defaultNoNewPrivileges = true
	defaultReadOnly        = false
	defaultAllowUnconfined = false
	defaultPortHostIP      = "127.0.0.1"
	defaultPortProtocol    = "tcp"
	defaultFileMode        = "0644"
	// engineDefaultShmMiB is the /dev/shm size the engine gives when none
	// is asked for.
	engineDefaultShmMiB = 64
	// minMemoryMiB is the engine's smallest memory limit.
	minMemoryMiB = 6
)

// ulimitNames are the process limits the engine can set.
var ulimitNames = []string{
	"core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss",
	"rtprio", "rttime", "sigpending", "stack",
}

var (
	ulimitAttrTypes = map[string]attr.Type{"soft": types.Int64Type, "hard": types.Int64Type}
	portAttrTypes   = map[string]attr.Type{
		"internal": types.Int64Type, "external": types.Int64Type,
		"host_ip": types.StringType, "protocol": types.StringType,
	}
	fileAttrTypes = map[string]attr.Type{
		"content": types.StringType, "content_base64": types.StringType, "source": types.StringType,
		"mode": types.StringType, "sha256": types.StringType,
	}
)

var fileModePattern = regexp.MustCompile(`^0?[0-7]{3}$`)

// privilegeAttributes are what the sandbox's processes may do.
func privilegeAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"cap_drop": schema.SetAttribute{
			MarkdownDescription: "Linux capabilities removed from the engine's default set, by name in upper case " +
				"without the `CAP_` prefix (for example `NET_RAW`), or `ALL` to drop every one. " +
				"Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(validators.Capability(true)),
			},
		},
		"cap_add": schema.SetAttribute{
			MarkdownDescription: "Linux capabilities added to the sandbox, by name in upper case without the " +
				"`CAP_` prefix (for example `NET_BIND_SERVICE`). `ALL` is not accepted. Combine with " +
				"`cap_drop = [\"ALL\"]` to grant exactly these. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(validators.Capability(false)),
			},
		},
		"no_new_privileges": schema.BoolAttribute{
			MarkdownDescription: "Forbid the sandbox's processes from gaining privileges, for example through " +
				"setuid or setgid binaries or file capabilities. Defaults to `true`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultNoNewPrivileges),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"read_only": schema.BoolAttribute{
			MarkdownDescription: "Mount the root filesystem read-only. Use `tmpfs` for the paths the sandbox " +
				"must write to. The engine cannot write `files` into a read-only root, so the two do not " +
				"combine. Defaults to `false`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultReadOnly),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"tmpfs": schema.MapAttribute{
			MarkdownDescription: "In-memory filesystems to mount, by absolute path, each with its mount " +
				"options (`\"\"` for the engine's defaults, or for example `\"rw,size=64m,mode=1777\"`). " +
				"Their contents are lost when the sandbox stops. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(validators.AbsolutePath()),
			},
		},
		"runtime": schema.StringAttribute{
			MarkdownDescription: "OCI runtime the engine runs the sandbox with, as registered with the engine, " +
				"for example `\"runsc\"` for gVisor, which puts a user-space kernel between the sandbox and the " +
				"host. When omitted the engine's default runtime (usually `runc`) is used. Changing it forces " +
				"replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"security_opts": schema.SetAttribute{
			MarkdownDescription: "Security options, as `key=value` with key one of `" +
				strings.Join(validators.SecurityOptKeys, "`, `") + "`, for example a custom seccomp profile " +
				"(`\"seccomp=${file(\"profile.json\")}\"`) or AppArmor profile. Values that switch " +
				"confinement off (`seccomp=unconfined`, `apparmor=unconfined`, `systempaths=unconfined`, " +
				"`label=disable`) are rejected unless `allow_unconfined = true`. Use `no_new_privileges` " +
				"rather than `no-new-privileges` here. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(validators.SecurityOpt()),
			},
		},
		"allow_unconfined": schema.BoolAttribute{
			MarkdownDescription: "Escape hatch: allow `security_opts` values that switch confinement off. " +
				"Defaults to `false`. It only unlocks validation, so changing it updates the state only.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(defaultAllowUnconfined),
		},
	}
}

// limitAttributes bound what the sandbox can consume.
func limitAttributes() map[string]schema.Attribute {
	inPlace := "Changing it is applied to the running sandbox and checked; removing it forces replacement."
	return map[string]schema.Attribute{
		"memory": schema.Int64Attribute{
			MarkdownDescription: "Memory limit in MiB (at least 6). The kernel kills processes of the sandbox " +
				"that would exceed it. When omitted, memory is not limited. " + inPlace,
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AtLeast(minMemoryMiB)},
			PlanModifiers: []planmodifier.Int64{planmodifiers.Int64RequiresReplaceWhenRemoved()},
		},
		"memory_swap": schema.Int64Attribute{
			MarkdownDescription: "Memory plus swap limit in MiB, at least `memory`, which it requires. When " +
				"omitted it equals `memory`: the sandbox gets no swap. Changing or removing it is applied to " +
				"the running sandbox and checked.",
			Optional: true,
			Validators: []validator.Int64{
				int64validator.AtLeast(minMemoryMiB),
				int64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("memory")),
			},
		},
		"cpus": schema.Float64Attribute{
			MarkdownDescription: "CPU limit as a number of CPUs, fractional (for example `0.5`), at least " +
				"`0.01` and at most the engine's CPU count. When omitted, CPU is not limited. " + inPlace,
			Optional:      true,
			Validators:    []validator.Float64{float64validator.AtLeast(0.01)},
			PlanModifiers: []planmodifier.Float64{planmodifiers.Float64RequiresReplaceWhenRemoved()},
		},
		"pids_limit": schema.Int64Attribute{
			MarkdownDescription: "Largest number of processes and threads the sandbox may run at once " +
				"(at least 1), which stops fork bombs. When omitted, it is not limited. " + inPlace,
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{planmodifiers.Int64RequiresReplaceWhenRemoved()},
		},
		"shm_size": schema.Int64Attribute{
			MarkdownDescription: "Size of `/dev/shm` in MiB (at least 1). When omitted the engine gives 64 MiB. " +
				"Changing it forces replacement.",
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"ulimits": schema.MapNestedAttribute{
			MarkdownDescription: "Process resource limits, by name: one of `" + strings.Join(ulimitNames, "`, `") +
				"`. Changing it forces replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(stringvalidator.OneOf(ulimitNames...)),
			},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"soft": schema.Int64Attribute{
					MarkdownDescription: "Soft limit (at least 0, at most `hard`).",
					Required:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
				"hard": schema.Int64Attribute{
					MarkdownDescription: "Hard limit (at least 0).",
					Required:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
			}},
		},
	}
}

// portsAttribute publishes container ports, for sandboxes with a network.
func portsAttribute() schema.Attribute {
	return schema.SetNestedAttribute{
		MarkdownDescription: "Container ports published on the engine's host. Not allowed with " +
			"`network_mode = \"none\"`: an isolated sandbox has nothing to publish. Ports bind to " +
			"`127.0.0.1` unless `host_ip` says otherwise. Changing it forces replacement.",
		Optional:      true,
		PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
		Validators:    []validator.Set{setvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"internal": schema.Int64Attribute{
				MarkdownDescription: "Port in the container (1 to 65535).",
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 65535)},
			},
			"external": schema.Int64Attribute{
				MarkdownDescription: "Port on the host (1 to 65535). When omitted the engine picks a free one " +
					"(see `docker port`).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, 65535)},
			},
			"host_ip": schema.StringAttribute{
				MarkdownDescription: "Host address to bind. When omitted, `127.0.0.1`: reachable from the " +
					"engine's host only. Use `0.0.0.0` to publish on every interface.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"protocol": schema.StringAttribute{
				MarkdownDescription: "One of `tcp`, `udp`, `sctp`. When omitted, `tcp`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf("tcp", "udp", "sctp")},
			},
		}},
	}
}

// filesAttribute puts files into the sandbox before it starts.
func filesAttribute() schema.Attribute {
	sources := func(others ...string) validator.String {
		exprs := make([]path.Expression, len(others))
		for i, o := range others {
			exprs[i] = path.MatchRelative().AtParent().AtName(o)
		}
		return stringvalidator.ExactlyOneOf(exprs...)
	}
	return schema.MapNestedAttribute{
		MarkdownDescription: "Files written into the sandbox's filesystem before it starts, by absolute path. " +
			"Missing parent directories are created. Files are owned by root. A sandbox recreated after " +
			"drift gets its files again. Each file takes exactly one of `content`, `content_base64` or " +
			"`source`. A path under a `tmpfs` mount would be hidden by it, and a read-only root cannot be " +
			"written, so both are rejected. Files are not read back from the sandbox. Changing them, or the " +
			"content of a `source` file, forces replacement.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(validators.AbsolutePath()),
		},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"content": schema.StringAttribute{
				MarkdownDescription: "Text content, stored in the state.",
				Optional:            true,
				Validators:          []validator.String{sources("content_base64", "source")},
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
	}
}

// secretAttributes pass secrets without storing them.
func secretAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"env_wo": schema.MapAttribute{
			MarkdownDescription: "Secret environment variables. Write-only: Terraform sends them when it creates " +
				"the sandbox and never stores them in the plan or state (requires Terraform 1.11 or later). " +
				"The provider records only their names, in a container label, so that import leaves them out. " +
				"Anyone who can inspect the container on the engine can read them. Terraform cannot see a " +
				"change here: change `env_wo_version` to apply new values. Names must not repeat `env`'s.",
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
			WriteOnly:   true,
			Validators: []validator.Map{mapvalidator.KeysAre(
				stringvalidator.RegexMatches(envNamePattern, "must be non-empty and contain no '='"),
			)},
		},
		"env_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Any number; change it to replace the sandbox with the current `env_wo` values.",
			Optional:            true,
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
	}
}
