package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What the Docker engine and Podman refuse of a sandbox, and what they
// cannot change on one they made (engine.Rules). The limits an engine does
// not apply, and memory, CPUs and runtimes it does not have, are refused
// from its Facts by the resource, the same way on every backend.

// RefuseSandbox refuses a seccomp profile given as a path (Docker takes a
// profile's content), and what gVisor's rules refuse under runsc.
func (d Docker) RefuseSandbox(ctx context.Context, p engine.PlannedSandbox) []engine.Refusal {
	out := append(seccompRefusals(p.Spec.SecurityOpt, false, d.endpoint), d.gVisorRefusals(ctx, p)...)
	return append(out, d.expiryRefusals(ctx, p)...)
}

// expiryRefusals refuses an expiry where the warden that enforces it
// (warden.go) cannot run: the provider has no helper program for the
// engine's host.
func (c *Client) expiryRefusals(ctx context.Context, p engine.PlannedSandbox) []engine.Refusal {
	if p.Expiry == "" {
		return nil
	}
	_, err := c.helper(ctx)
	var none *NoProgramError
	if !errors.As(err, &none) {
		return nil
	}
	return []engine.Refusal{{Attribute: p.Expiry, Summary: "Expiry not enforceable on this engine",
		Detail: fmt.Sprintf("A Docker engine or Podman stops no container at a given moment by itself: the "+
			"provider's expiry warden does, a container beside the sandboxes that runs the provider's helper "+
			"program, and this provider has none for the engine at %s (%v). Use a release build of the provider, "+
			"which embeds one for every Linux architecture, or remove %s.", c.endpoint, none.Err, p.Expiry)}}
}

// gVisorRefusals are gVisor's rules (engine.GVisorRefusals), for a
// sandbox that runs under it here.
func (c *Client) gVisorRefusals(ctx context.Context, p engine.PlannedSandbox) []engine.Refusal {
	facts, err := c.Facts(ctx)
	if err != nil {
		return nil // the plan warns that it could not check; create checks what the engine applied
	}
	return engine.GVisorRefusals(facts, p)
}

// RefuseSandbox refuses what Podman 4's Docker-compatible API would ignore
// or reject at create: a runtime (it runs its own default), the uid= and
// gid= tmpfs options, and a seccomp profile given inline (it reads a path
// on its own host); and gVisor's rules where its default runtime is gVisor.
func (p Podman) RefuseSandbox(ctx context.Context, planned engine.PlannedSandbox) []engine.Refusal {
	var out []engine.Refusal
	if name := planned.Spec.Runtime; name != "" {
		out = append(out, engine.Refusal{Attribute: "runtime", Summary: "Runtime not honoured by this engine",
			Detail: fmt.Sprintf("The engine at %s is %s, whose Docker-compatible API ignores the runtime a "+
				"container asks for and runs its own default runtime, so runtime = %q would not be honoured. "+
				"Remove runtime and make the runtime Podman's default on that host (containers.conf: [engine] "+
				"runtime = \"runsc\"), or place this sandbox on a Docker engine.", p.endpoint, KindPodman, name)})
	}
	for _, target := range slices.Sorted(maps.Keys(planned.Spec.Tmpfs)) {
		for _, opt := range strings.Split(planned.Spec.Tmpfs[target], ",") {
			if strings.HasPrefix(opt, "uid=") || strings.HasPrefix(opt, "gid=") {
				out = append(out, engine.Refusal{Attribute: "tmpfs", Key: target,
					Summary: "tmpfs option not accepted by Podman", Detail: fmt.Sprintf("Podman 4 does not "+
						"accept the tmpfs option %q (in %q). Give the mount mode=1777 so that a non-root user "+
						"can write to it, or place this sandbox on a Docker engine.", opt, target)})
			}
		}
	}
	out = append(out, seccompRefusals(planned.Spec.SecurityOpt, true, p.endpoint)...)
	out = append(out, p.expiryRefusals(ctx, planned)...)
	return append(out, p.gVisorRefusals(ctx, planned)...)
}

// seccompRefusals refuses a seccomp profile in the form the engine cannot
// take: Podman 4 reads a seccomp= value as the path of a profile on its
// own host, so a profile given inline cannot reach it; Docker takes the
// profile's content, so a path means nothing to it.
func seccompRefusals(opts []string, podman bool, endpoint string) []engine.Refusal {
	for _, opt := range opts {
		key, value, _ := engine.SplitSecurityOpt(opt)
		switch {
		case key != "seccomp" || value == "unconfined":
		case podman && !engine.IsSeccompPath(value):
			return []engine.Refusal{{Attribute: "security_opts", Summary: "Seccomp profile not accepted by Podman",
				Detail: "The engine at " + endpoint + " is Podman, which reads a seccomp= value as the path of a " +
					"profile on its own host, so a profile given inline cannot reach it. Put the profile on the " +
					"Podman host and name it: security_opts = [\"seccomp=/path/on/that/host.json\"], or set it " +
					"for every container there (containers.conf: [containers] seccomp_profile)."}}
		case !podman && engine.IsSeccompPath(value):
			return []engine.Refusal{{Attribute: "security_opts", Summary: "Seccomp profile path not accepted by Docker",
				Detail: "The engine at " + endpoint + " is Docker, which takes a seccomp profile's content, not " +
					"a path: write seccomp=${file(\"" + value + "\")} to send the file from the machine running " +
					"Terraform."}}
		}
	}
	return nil
}

// FixedInPlace: the Docker engine changes limits in place, but not under
// gVisor (runsc), whose sandbox keeps the limits it started with.
func (d Docker) FixedInPlace(ctx context.Context, runtime string) []engine.Fixed {
	facts, err := d.Facts(ctx)
	if err != nil || facts.UpdatesLimitsInPlace(runtime) {
		return nil
	}
	if runtime == "" {
		runtime = facts.DefaultRuntime
	}
	return []engine.Fixed{{Attributes: engine.LimitAttributes, Why: fmt.Sprintf("the sandbox runs under the "+
		"runtime %q, which cannot change the limits of a running sandbox (gVisor keeps the limits it started "+
		"with)", runtime)}}
}

// FixedInPlace: Podman's Docker-compatible API has no container update
// (Podman 4), so a change of limits or restart policy replaces the
// sandbox.
func (p Podman) FixedInPlace(context.Context, string) []engine.Fixed {
	return []engine.Fixed{{Attributes: []string{"restart"}}, {Attributes: engine.LimitAttributes, Why: fmt.Sprintf(
		"the engine at %s is %s, whose Docker-compatible API cannot change a container's limits", p.endpoint,
		KindPodman)}}
}

// RefuseCommand: the Docker API runs a command with any environment, user
// and working directory.
func (*Client) RefuseCommand(context.Context, engine.PlannedCommand) []engine.Refusal { return nil }

// RefuseVolume: what a volume cannot be on an engine is found when it is
// made (its size bound, volumeOptions).
func (*Client) RefuseVolume(context.Context, engine.PlannedVolume) []engine.Refusal { return nil }
