package containerresource

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// A sandbox's expiry (expires_after, expires_at): the moment its backend
// stops it, with no Terraform command running and whatever the code in it
// does (engine/expiry.go). Times are kept to the second, in UTC. A refresh
// reads a sandbox that stopped at its expiry as expired, and keeps its
// state as configured, so that no plan starts it again until the expiry
// itself changes (a renewal, applied in place).

// expiryModel is the sandbox's expiry.
type expiryModel struct {
	ExpiresAfter types.String `tfsdk:"expires_after"`
	ExpiresAt    types.String `tfsdk:"expires_at"`
	Expired      types.Bool   `tfsdk:"expired"`
	CreatedAt    types.String `tfsdk:"created_at"`
}

func expiryAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"expires_after": schema.StringAttribute{
			MarkdownDescription: "How long after its creation (`created_at`) the sandbox expires, as a duration " +
				"(`\"2h\"`, `\"90m\"`): at that moment its backend stops it, whether or not Terraform runs then, " +
				"whatever the code inside it does, and keeps its workspace. For a CI pipeline's sandboxes, so that " +
				"one whose pipeline was killed before `terraform destroy` does not run on. Changing it renews the " +
				"expiry in place; one that would already have passed is refused at plan. On a Docker engine or " +
				"Podman the provider's expiry warden enforces it, a container of its own beside the sandboxes " +
				"(the provider's `engine_socket` says where it finds the engine); on a Kubernetes cluster the " +
				"pod's `activeDeadlineSeconds` (a renewal of a running sandbox there makes its pod again).",
			Optional:   true,
			Validators: []validator.String{validators.PositiveDuration(), stringvalidator.ConflictsWith(path.MatchRoot("expires_at"))},
		},
		"expires_at": schema.StringAttribute{
			MarkdownDescription: "When the sandbox expires, as an RFC 3339 timestamp (`\"2026-12-31T18:00:00Z\"`), " +
				"enforced as `expires_after` is; or, with `expires_after`, the moment it gives. A moment in the past " +
				"is refused at plan. Changing it renews the expiry in place.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{validators.String("must be an RFC 3339 timestamp, such as \"2026-12-31T18:00:00Z\"", checkTimestamp)},
		},
		"expired": schema.BoolAttribute{
			MarkdownDescription: "Observed: the sandbox reached its expiry and its backend stopped it. A plan says " +
				"when, and does not start it again until the expiry changes; its workspace is kept.",
			Computed: true,
		},
		"created_at": schema.StringAttribute{
			MarkdownDescription: "When the provider began making the sandbox, in RFC 3339: what `expires_after` " +
				"counts from.",
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

func checkTimestamp(s string) string {
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return "must be an RFC 3339 timestamp, such as \"2026-12-31T18:00:00Z\""
	}
	return ""
}

// stamp is t as the state keeps a moment: RFC 3339, to the second, UTC.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// expiresAt is the expiry the model asks for, from created (the moment the
// provider began making the sandbox): expires_at's, or created plus
// expires_after; zero for none.
func (e expiryModel) expiresAt(created time.Time) time.Time {
	if at, err := time.Parse(time.RFC3339, e.ExpiresAt.ValueString()); err == nil && !e.ExpiresAt.IsUnknown() {
		return at
	}
	if d, err := time.ParseDuration(e.ExpiresAfter.ValueString()); err == nil {
		return created.Add(d).Truncate(time.Second)
	}
	return time.Time{}
}

// setCreated records that the provider began making the sandbox at
// created, and the expiry that gives.
func (e *expiryModel) setCreated(created time.Time) {
	created = created.Truncate(time.Second)
	e.CreatedAt = types.StringValue(stamp(created))
	at := e.expiresAt(created)
	e.ExpiresAt = types.StringNull()
	if !at.IsZero() {
		e.ExpiresAt = types.StringValue(stamp(at))
	}
	e.Expired = types.BoolValue(false)
}

// stampCreated records that the provider begins making the sandbox at
// now, and gives spec the expiry that makes, refusing one already past
// (time passed since the plan).
func (m *resourceModel) stampCreated(spec *engine.ContainerSpec, now time.Time) diag.Diagnostics {
	m.setCreated(now)
	spec.Labels[engine.LabelCreatedAt] = m.CreatedAt.ValueString()
	at, err := time.Parse(time.RFC3339, m.ExpiresAt.ValueString())
	if err != nil {
		return nil
	}
	if !at.After(now) {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root(expiryAttributeOf(*m)), "Expiry in the past",
			fmt.Sprintf("The sandbox would expire at %s, which passed before the apply could make it. Give a later "+
				"expires_at or a longer expires_after.", stamp(at)))}
	}
	spec.ExpiresAt = at
	spec.Labels[engine.LabelExpiresAt] = stamp(at)
	return nil
}

// guardExpiry has the backend's warden stop the sandbox id at at (none
// for a zero at), on a backend that has one (expirer): after its create,
// before it starts, and at a renewal.
func (r *Resource) guardExpiry(ctx context.Context, id string, m resourceModel, at time.Time) diag.Diagnostics {
	if r.expirer == nil || at.IsZero() {
		return nil
	}
	return r.setExpiry(ctx, id, m, at)
}

// setExpiry has the backend's warden stop the sandbox id at at, or no
// longer for a zero at.
func (r *Resource) setExpiry(ctx context.Context, id string, m resourceModel, at time.Time) diag.Diagnostics {
	err := r.expirer.ExpireAt(ctx, id, at)
	if err == nil {
		return nil
	}
	what := "Having sandbox %s on %s stopped at its expiry (" + stamp(at) + ")"
	if at.IsZero() {
		what = "Removing the expiry of sandbox %s on %s"
	}
	return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root(expiryAttributeOf(m)), "Cannot enforce the expiry",
		fmt.Sprintf(what+" failed: %v. %s", engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
}

// expiryAttributeOf names the attribute that gives m its expiry.
func expiryAttributeOf(m resourceModel) string {
	if !m.ExpiresAfter.IsNull() {
		return "expires_after"
	}
	return "expires_at"
}

// observeExpiry records whether the sandbox, as the backend shows it at
// now, is expired: its expiry passed and it does not run. prior is its
// state as last recorded, which an expired sandbox keeps (the plan then
// starts nothing).
func (m *resourceModel) observeExpiry(c engine.Sandbox, prior string, now time.Time) {
	// The state's expiry, not the label's: a renewal changes only the
	// state's (and the warden's).
	c.ExpiresAt, _ = time.Parse(time.RFC3339, m.ExpiresAt.ValueString())
	expired := engine.Expired(c, now)
	m.Expired = types.BoolValue(expired)
	if expired && prior != "" {
		m.setState(prior)
	}
}

// planExpiry plans expires_at and expired; refuses an expiry already
// past; and says that an expired sandbox stays stopped.
func planExpiry(ctx context.Context, config, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	attr := expiryAttribute(plan)
	var prior expiryModel
	if state != nil {
		prior = expiryModel{ExpiresAt: values.StringOf(state["expires_at"]), Expired: values.BoolOf(state["expired"]),
			CreatedAt: values.StringOf(state["created_at"])}
	}
	at, known := plannedExpiry(config, prior)
	want := types.StringNull()
	switch {
	case !known:
		want = types.StringUnknown()
	case !at.IsZero():
		want = types.StringValue(stamp(at))
	}
	setPlanned(ctx, plan, "expires_at", want, resp)
	unchanged := state != nil && want.Equal(prior.ExpiresAt)
	expired := types.BoolValue(false)
	if unchanged && prior.Expired.ValueBool() {
		expired = prior.Expired
	}
	setPlanned(ctx, plan, "expired", expired, resp)
	if known && !at.IsZero() && !unchanged && !at.After(time.Now()) {
		resp.Diagnostics.AddAttributeError(path.Root(attr), "Expiry in the past", fmt.Sprintf(
			"The sandbox would expire at %s, which has passed. Give a later expires_at, or a longer expires_after "+
				"(it counts from created_at, %s).", stamp(at), prior.CreatedAt.ValueString()))
	}
	if expired.ValueBool() {
		warnExpired(plan, prior, resp)
	}
}

// expiryAttribute names the attribute that gives the planned sandbox an
// expiry: expires_after, else expires_at; "" for none.
func expiryAttribute(plan map[string]tftypes.Value) string {
	switch {
	case !plan["expires_after"].IsNull():
		return "expires_after"
	case !plan["expires_at"].IsNull():
		return "expires_at"
	}
	return ""
}

// plannedExpiry is the expiry the configuration asks for, and whether it
// is known at plan: expires_after counts from the sandbox's created_at,
// known only once it exists.
func plannedExpiry(config map[string]tftypes.Value, prior expiryModel) (time.Time, bool) {
	after, at := config["expires_after"], config["expires_at"]
	if !after.IsKnown() || !at.IsKnown() {
		return time.Time{}, false
	}
	e := expiryModel{ExpiresAfter: values.StringOf(after), ExpiresAt: values.StringOf(at)}
	if !after.IsNull() {
		created, err := time.Parse(time.RFC3339, prior.CreatedAt.ValueString())
		if err != nil {
			return time.Time{}, false
		}
		return e.expiresAt(created), true
	}
	return e.expiresAt(time.Time{}), true
}

// warnExpired says that an expired sandbox stays stopped, and refuses to
// wake or freeze it without a renewal.
func warnExpired(plan map[string]tftypes.Value, prior expiryModel, resp *resource.ModifyPlanResponse) {
	if values.RawString(plan["state"]) == statePaused {
		resp.Diagnostics.AddAttributeError(path.Root("state"), "Sandbox expired", fmt.Sprintf(
			"The sandbox expired at %s and its backend stopped it, so it cannot be paused. Renew it first (a later "+
				"expires_at, or a longer expires_after), or set state = \"stopped\".", prior.ExpiresAt.ValueString()))
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("expired"), "Sandbox expired", fmt.Sprintf(
		"The sandbox expired at %s and its backend stopped it; its workspace is kept. It stays stopped until its "+
			"expiry changes: give a later expires_at or a longer expires_after to start it again, or destroy it.",
		prior.ExpiresAt.ValueString()))
}

// setPlanned plans v for the attribute name, where the plan holds
// something else.
func setPlanned(ctx context.Context, plan map[string]tftypes.Value, name string, v interface {
	ToTerraformValue(context.Context) (tftypes.Value, error)
}, resp *resource.ModifyPlanResponse) {
	raw, _ := v.ToTerraformValue(ctx)
	if plan[name].Equal(raw) {
		return
	}
	plan[name] = raw
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
}
