package containerresource

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/distribution/reference"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// schemaVersion is the version of the current schema. Version 0 predated
// network_mode; version 1 predated hardening, limits, ports, files and
// secrets; version 2 had files as a map of nested objects (see upgrade.go).
const schemaVersion = 3

// Defaults of the core attributes, part of the schema and of import.
const (
	defaultInit        = true
	defaultStopTimeout = 10
)

var (
	// namePattern is the engine's own rule for container names.
	namePattern    = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]+$`)
	envNamePattern = regexp.MustCompile(`^[^=]+$`)
	// userPattern is a user, and optionally a group, by name or number.
	userPattern = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*|[0-9]+)(:([A-Za-z_][A-Za-z0-9_.-]*|[0-9]+))?$`)
)

// maxID is the largest user or group ID (the kernel reserves 2^32-1).
const maxID uint64 = 1<<32 - 2

// resourceSchema is the whole schema: the core attributes here, and each
// attribute group's from its own file.
func resourceSchema(ctx context.Context) schema.Schema {
	s := schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "A sandbox: a Docker container for running untrusted code, kept alive so it can be " +
			"exec'd into. With `network_mode = \"none\"` it has no network but loopback, and the provider keeps " +
			"it that way: when the container is removed, or re-attached to a network outside Terraform, the next " +
			"plan shows it and apply brings back a sandbox with the same isolation.",
		Attributes: coreAttributes(),
	}
	for _, group := range []map[string]schema.Attribute{
		networkAttributes(), capabilityAttributes(), privilegeAttributes(), filesystemAttributes(), mountAttributes(), limitAttributes(), portAttributes(), fileAttributes(),
		secretAttributes(), timeoutAttributes(ctx), restartAttributes(), runStateAttributes(), expiryAttributes(),
	} {
		maps.Copy(s.Attributes, group)
	}
	return s
}

// coreAttributes are the sandbox's identity, image and process.
func coreAttributes() map[string]schema.Attribute { //nolint:funlen // a schema literal
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "Full ID of the container on the engine.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Container name. When omitted the engine picks one. Changing it renames the " +
				"container in place; a name taken by another container is an error, and that container is " +
				"left alone. At least two characters: letters, digits, `_`, `.` and `-`, starting with a letter " +
				"or digit.",
			Optional:      true,
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			Validators: []validator.String{
				stringvalidator.RegexMatches(namePattern,
					"must be at least two characters, start with a letter or digit, and contain only "+
						"letters, digits, '_', '.' and '-'"),
			},
		},
		"image": schema.StringAttribute{
			MarkdownDescription: "Image to run, by name and tag or by ID. It must be present on the engine; when it " +
				"is not, the provider tries one pull and otherwise fails, saying how to build or load it. " +
				"Changing it forces replacement.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{imageValidator()},
		},
		"entrypoint": schema.ListAttribute{
			MarkdownDescription: "Entrypoint, overriding the image's. When both `entrypoint` and `command` are " +
				"omitted, the sandbox runs the keep-alive `" + keepAliveText + "` (the image must provide `" +
				keepAlive[0] + "`), whatever the image's own command is. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
		},
		"command": schema.ListAttribute{
			MarkdownDescription: "Command, overriding the image's, run by the image's entrypoint (or by " +
				"`entrypoint` when set). It should keep running: a sandbox whose command exits is not running. " +
				"Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
		},
		"env": schema.MapAttribute{
			MarkdownDescription: "Environment variables added to the image's. Sensitive: values are hidden " +
				"in plans, but they are stored in the state. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			Sensitive:     true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators:    []validator.Map{mapvalidator.KeysAre(envNameValidator())},
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Labels added to the container. The provider also stamps its own labels, " +
				"whose keys start with `" + engine.LabelPrefix + "` (`" + engine.LabelManagedBy + "`, `" +
				engine.LabelResourceType + "`, `" + engine.LabelCreateToken + "` and others); keys with that " +
				"prefix cannot be set here. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{mapvalidator.KeysAre(
				stringvalidator.LengthAtLeast(1),
				validators.NoPrefix(engine.LabelPrefix, "the provider's own labels use"),
			)},
		},
		"working_dir": schema.StringAttribute{
			MarkdownDescription: "Working directory of the sandbox's processes, an absolute path, overriding " +
				"the image's. Changing it forces replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{absoluteDirValidator()},
		},
		"user": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("User (and optionally group) the sandbox runs as, as `name`, "+
				"`uid`, `name:group` or `uid:gid` (IDs up to %d), overriding the image's. Changing it forces "+
				"replacement.", maxID),
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{userValidator()},
		},
		"init": schema.BoolAttribute{
			MarkdownDescription: "Run the engine's init process (`docker-init`) as PID 1, so that the sandbox " +
				"reaps zombie processes and stops promptly on SIGTERM. Defaults to `" + fmt.Sprint(defaultInit) +
				"`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultInit),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"image_id": schema.StringAttribute{
			MarkdownDescription: "Observed: ID of the image the container runs: `image`'s, or with `files` " +
				"and `read_only = true` the image derived from it to hold the files.",
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

// envNameValidator accepts an environment variable name.
func envNameValidator() validator.String {
	return stringvalidator.RegexMatches(envNamePattern, "must be non-empty and contain no '='")
}

// joinCode lists values for a Markdown description: "a`, `b`, `c", to go
// between backticks.
func joinCode(list []string) string {
	return strings.Join(list, "`, `")
}

// imageValidator accepts what the engine takes as an image: a reference
// such as busybox:1.36 or registry.example/team/image@sha256:..., or an
// image ID.
func imageValidator() validator.String {
	const desc = "must be an image reference such as busybox:1.36 or registry.example/team/image@sha256:..., " +
		"or an image ID"
	return validators.String(desc, func(s string) string {
		if _, err := reference.ParseAnyReference(s); err != nil {
			return fmt.Sprintf("%s (%v)", desc, err)
		}
		return ""
	})
}

// userValidator accepts a user, and optionally a group, by name or ID.
func userValidator() validator.String {
	desc := fmt.Sprintf("must be a user name or ID, optionally followed by :group or :gid, with IDs up to %d, "+
		"such as 65534:65534 or nobody", maxID)
	return validators.String(desc, func(s string) string {
		if !userPattern.MatchString(s) {
			return desc
		}
		for _, part := range strings.Split(s, ":") {
			// The pattern makes a part a name or digits; digits are an ID.
			if id, err := strconv.ParseUint(part, 10, 64); isDigit(part[0]) && (err != nil || id > maxID) {
				return desc
			}
		}
		return ""
	})
}

// absoluteDirValidator accepts an absolute path, "/" included.
func absoluteDirValidator() validator.String {
	const desc = "must be an absolute path such as /workspace"
	return validators.String(desc, func(s string) string {
		if !path.IsAbs(s) {
			return desc
		}
		return ""
	})
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
