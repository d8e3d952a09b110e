package engine

import (
	"context"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Pools are warm pools of sandboxes that agents claim at run time, outside
// Terraform: on a cluster that runs agent-sandbox, a SandboxTemplate (the
// pod every sandbox of the pool is made from) and a SandboxWarmPool of it.
// The provider makes and judges the template and the pool; the claims are
// the agents'.
type Pools interface {
	// PoolsServed says, in an error that names the fix, why the backend
	// cannot keep pools: nil when it can.
	PoolsServed(ctx context.Context) error
	// CreatePool makes the pool and returns its ID.
	CreatePool(ctx context.Context, spec PoolSpec) (string, error)
	// InspectPool reads the pool, its template and every sandbox made
	// from it; a pool that is gone, or another of its name, is not found.
	InspectPool(ctx context.Context, id string) (Pool, error)
	// ScalePool sets the number of warm sandboxes the pool keeps.
	ScalePool(ctx context.Context, id string, replicas int) error
	// PoolID is the ID of the pool an import names: its ID, or its
	// template's name (namespace/name, or a name in the provider's
	// namespace). A template that carries the provider's labels without
	// the provider having written them (a copy) is refused.
	PoolID(ctx context.Context, nameOrID string) (string, error)
	// RemovePool removes the pool, its template and what the provider made
	// beside them; it refuses while sandboxes claimed from the pool run
	// under the template's policy (a ClaimedError).
	RemovePool(ctx context.Context, id string) error
}

// PoolSpec is what a pool is made of: its name, the number of warm
// sandboxes it keeps, and the sandbox each of them is, in the terms of a
// sandbox's create (its name is unused: the pool names its sandboxes).
type PoolSpec struct {
	Name     string
	Replicas int
	Sandbox  ContainerSpec
}

// Pool is what the backend shows of a pool.
type Pool struct {
	ID, Name string
	// Template is the pod each sandbox of the pool is made from, read as
	// a sandbox (Config, HostConfig, Network): what the next sandbox the
	// pool makes will be.
	Template Sandbox
	// Replicas is the number of warm sandboxes the pool is asked to
	// keep, and Ready how many of them are ready to be claimed.
	Replicas, Ready int
	// Sandboxes are the pool's sandboxes that have a pod, warm or claimed,
	// each as the backend observed it.
	Sandboxes []PoolSandbox
}

// PoolSandbox is one sandbox of a pool.
type PoolSandbox struct {
	// Name is its pod's name; Claim the claim that holds it, "" while it
	// is warm.
	Name, Claim string
	// Ready is a sandbox whose pod runs and is ready.
	Ready   bool
	Network isolation.Observed
}

// Claimed are the pool's sandboxes that a claim holds.
func (p Pool) Claimed() []PoolSandbox {
	var out []PoolSandbox
	for _, s := range p.Sandboxes {
		if s.Claim != "" {
			out = append(out, s)
		}
	}
	return out
}

// ClaimedError is a pool that cannot be removed because sandboxes claimed
// from it still run: removing the pool would remove the NetworkPolicy and
// Secrets they run under. Where claims took sandboxes as the pool went,
// the pool is gone but its policy and Secrets are kept for them: Kept is
// the command that removes those once the claims end.
type ClaimedError struct {
	Pool   string
	Claims []string
	// Command removes the claims by hand.
	Command string
	Kept    string
}

func (e *ClaimedError) Error() string {
	return "sandboxes claimed from the pool " + e.Pool + " still run"
}
