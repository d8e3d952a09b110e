package poolresource

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The bounds of the limits, as sandbox_container's.
const (
	maxMiB  = 1 << 24
	minMiB  = 6
	maxCPUs = 1024
	minCPUs = 0.01
)

var (
	// dnsLabel is a Kubernetes object name that is also a label value.
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	// numericUser is a user by number, and optionally a group: a pod
	// names users by number only.
	numericUser = regexp.MustCompile(`^[0-9]+(:[0-9]+)?$`)
	envName     = regexp.MustCompile(`^[^=]+$`)
)

// secretUsage is how the pool takes env_wo.
var secretUsage = writeonly.Usage{
	SentWhen: "it creates the pool",
	Readable: "The provider keeps them in a Secret owned by the pool's SandboxTemplate, which every sandbox of " +
		"the pool reads them from; anyone who can read Secrets in the namespace can read them. ",
	Rotation: "which replaces the pool with the new values",
}

func resourceSchema() schema.Schema { //nolint:funlen // a schema literal
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	s := schema.Schema{
		MarkdownDescription: "A warm pool of isolated sandboxes on a Kubernetes cluster that runs " +
			"[agent-sandbox](https://github.com/kubernetes-sigs/agent-sandbox) with its extensions: a " +
			"`SandboxTemplate` whose pod is the pod the provider makes for a `sandbox_container` (its RuntimeClass, " +
			"no service-account token, every capability dropped but `cap_add`'s, no privilege escalation, the " +
			"runtime's seccomp profile) under the provider's own deny-all `NetworkPolicy` (never agent-sandbox's default, which lets a " +
			"sandbox reach the internet), and a `SandboxWarmPool` of `replicas` ready sandboxes that agents claim at " +
			"run time with a `SandboxClaim`. Every refresh judges the template and every sandbox made from it: one " +
			"changed out of band to weaken its isolation plans a replacement. Apply waits until the pool is warm.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The pool's ID: its namespace, name and its template's UID.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the `SandboxTemplate` and the `SandboxWarmPool` (a claim's `warmPoolRef`), " +
					"in the provider's namespace: lower-case letters, digits and `-`, at most 63. Changing it forces " +
					"replacement.",
				Required:      true,
				PlanModifiers: replace,
				Validators: []validator.String{stringvalidator.RegexMatches(dnsLabel,
					"must be lower-case letters, digits and '-', start and end with a letter or digit, at most 63")},
			},
			"replicas": schema.Int64Attribute{
				MarkdownDescription: "Number of warm sandboxes the pool keeps ready to be claimed (0 to 1000). A claim " +
					"takes one and the pool makes another. Changing it is applied in place; apply waits until that " +
					"many are ready.",
				Required:   true,
				Validators: []validator.Int64{int64validator.Between(0, 1000)},
			},
			"image": schema.StringAttribute{
				MarkdownDescription: "Image of every sandbox of the pool, as the cluster's nodes pull it. Changing " +
					"it forces replacement.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"command": schema.ListAttribute{
				MarkdownDescription: "Arguments to the image's entrypoint: what each sandbox runs. When omitted, each " +
					"sandbox runs only a process that keeps it alive for the commands an agent runs in it. Changing " +
					"it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"working_dir": schema.StringAttribute{
				MarkdownDescription: "Working directory of each sandbox, absolute. Changing it forces replacement.",
				Optional:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.AbsolutePath()},
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User each sandbox runs as, `UID` or `UID:GID` by number (a pod names users by " +
					"number). When omitted, the image's. Changing it forces replacement.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.RegexMatches(numericUser, "must be UID or UID:GID, by number")},
			},
			"env": schema.MapAttribute{
				MarkdownDescription: "Environment variables of each sandbox. Claims cannot add or change any. " +
					"Changing it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"read_only": schema.BoolAttribute{
				MarkdownDescription: "Mount each sandbox's root filesystem read-only. Changing it forces replacement.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"memory": schema.Int64Attribute{
				MarkdownDescription: "Memory limit of each sandbox in MiB. When omitted, not limited. Changing it " +
					"forces replacement.",
				Optional:      true,
				Validators:    []validator.Int64{int64validator.Between(minMiB, maxMiB)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"cpus": schema.Float64Attribute{
				MarkdownDescription: "CPU limit of each sandbox, in CPUs (for example `0.5`). When omitted, not " +
					"limited. Changing it forces replacement.",
				Optional:      true,
				Validators:    []validator.Float64{float64validator.Between(minCPUs, maxCPUs)},
				PlanModifiers: []planmodifier.Float64{float64planmodifier.RequiresReplace()},
			},
			"network_mode": schema.StringAttribute{
				MarkdownDescription: "Network isolation of every sandbox of the pool: only `\"" + isolation.NoneMode +
					"\"`, the default. When a refresh finds the template or a sandbox of the pool weaker (host " +
					"networking, another RuntimeClass, a service-account token, agent-sandbox's own network policy, " +
					"the deny-all policy loosened), the refreshed value says what it found, so the plan replaces the pool.",
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString(isolation.NoneMode),
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.OneOf(isolation.NoneMode)},
			},
			"hardened": schema.BoolAttribute{
				MarkdownDescription: "Observed: whether the template still gives every sandbox the provider's " +
					"hardening (no privileged container, no capability but `cap_add`'s safe ones, no privilege " +
					"escalation, the runtime's seccomp profile). When a refresh finds it weakened, it reads `false` and the plan replaces the pool.",
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{hardenedPlan{}},
			},
			"ready_replicas": schema.Int64Attribute{
				MarkdownDescription: "Observed: warm sandboxes ready to be claimed, as of the last refresh.",
				Computed:            true,
			},
			"claimed_replicas": schema.Int64Attribute{
				MarkdownDescription: "Observed: sandboxes of the pool that a claim holds, as of the last refresh " +
					"(`data \"sandbox_pool_claims\"` lists them).",
				Computed: true,
			},
		},
	}
	s.Attributes["files"] = fileAttribute()
	s.Attributes["cap_add"] = capAddAttribute()
	for k, v := range writeonly.Attributes(secretUsage, stringvalidator.RegexMatches(envName, "must not contain '='")) {
		s.Attributes[k] = v
	}
	return s
}
