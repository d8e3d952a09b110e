package isolation

import (
	"fmt"
	"sort"
)

// Pod is what a Kubernetes cluster shows about a sandbox's pod that bears
// on its network, gathered by the cluster backend (package kube) from the
// pod, its RuntimeClass and the NetworkPolicies that select it.
type Pod struct {
	// HostNetwork is the pod's spec.hostNetwork: it shares the node's
	// network namespace.
	HostNetwork bool
	// HostPID and HostIPC are the pod's spec.hostPID and spec.hostIPC: it
	// shares the node's process or IPC namespace. (A pod's hostname is the
	// node's only with hostNetwork.)
	HostPID, HostIPC bool
	// RuntimeClass is the pod's spec.runtimeClassName, "" for none.
	RuntimeClass string
	// IsolatedClass is the RuntimeClass whose pods have no network, as the
	// provider is configured: its handler gives a pod no network stack
	// (gVisor with --network=none) or an interface that leads nowhere.
	IsolatedClass string
	// ExtraNetworks are networks the pod asks to be attached to beside its
	// own (the k8s.v1.cni.cncf.io/networks annotation of Multus).
	ExtraNetworks []string
	// ServiceAccountToken is a pod that mounts its service account's
	// token (automountServiceAccountToken not false): what runs in it can
	// act on the cluster's API as that account.
	ServiceAccountToken bool
	// Policy is what the provider's deny-all NetworkPolicy for the pod
	// shows, the second layer of its isolation.
	Policy PolicyState
	// Asleep is a sandbox with no pod (state = "stopped"): what remains
	// of it is its policy, which a wake's pod, made in IsolatedClass,
	// falls under.
	Asleep bool
}

// PolicyState is what became of the deny-all NetworkPolicy the provider
// made beside a sandbox's pod.
type PolicyState int

const (
	// PolicyDeniesAll: it exists, selects the pod, and allows nothing in
	// and nothing out.
	PolicyDeniesAll PolicyState = iota
	// PolicyMissing: it is gone.
	PolicyMissing
	// PolicyLoosened: it exists but allows some traffic, or no longer
	// selects the pod, or no longer covers both directions.
	PolicyLoosened
)

// The network modes the verdict gives a pod that is not isolated; the
// state records them in network_mode, so a plan shows what was found. A
// pod in another RuntimeClass reads as PodModeNetwork followed by the
// class, for example `pod network (RuntimeClass "runc")`.
const (
	PodModeHost        = "host"
	PodModeNetwork     = "pod network"
	PodModeNoPolicy    = "none without its deny-all NetworkPolicy"
	PodModeLoosePolicy = "none with a loosened NetworkPolicy"
	PodModeToken       = "none with a service-account token"
)

// assessPod is the isolation verdict for a sandbox's pod: isolated
// only when it does not share the node's network, runs in the isolated
// RuntimeClass, is attached to no other network, shares none of the
// node's namespaces, and its deny-all policy is intact. A sandbox asleep
// has no pod: it is judged on its policy, and on the provider knowing an
// isolated RuntimeClass for the pod a wake makes. Missing data is never
// isolated.
func assessPod(p Pod) Verdict {
	extra := append([]string(nil), p.ExtraNetworks...)
	sort.Strings(extra)
	switch {
	case p.HostNetwork:
		return Verdict{Mode: PodModeHost, Networks: append([]string{PodModeHost}, extra...),
			Reason: "the pod shares its node's network (hostNetwork: true)"}
	case p.IsolatedClass == "":
		return Verdict{Mode: PodModeNetwork, Networks: append([]string{PodModeNetwork}, extra...),
			Reason: "the provider knows no RuntimeClass whose pods have no network"}
	case !p.Asleep && p.RuntimeClass != p.IsolatedClass:
		mode := fmt.Sprintf("%s (%s)", PodModeNetwork, runtimeClassBrief(p.RuntimeClass))
		return Verdict{Mode: mode, Networks: append([]string{PodModeNetwork}, extra...),
			Reason: fmt.Sprintf("the pod runs in %s, not in RuntimeClass %q, whose pods have no network",
				runtimeClass(p.RuntimeClass), p.IsolatedClass)}
	case len(extra) > 0:
		return Verdict{Mode: PodModeNetwork, Networks: append([]string{NoneMode}, extra...),
			Reason: fmt.Sprintf("the pod asks to be attached to %s (annotation k8s.v1.cni.cncf.io/networks)",
				describeNetworks(extra))}
	case p.HostPID || p.HostIPC:
		var shared []sharing
		if p.HostPID {
			shared = append(shared, sharing{"pid", "the node", "hostPID: true"})
		}
		if p.HostIPC {
			shared = append(shared, sharing{"ipc", "the node", "hostIPC: true"})
		}
		return sharedVerdict(shared, []string{NoneMode}, "the pod shows")
	case p.ServiceAccountToken && !p.Asleep:
		return Verdict{Mode: PodModeToken, Networks: []string{NoneMode},
			Reason: "the pod mounts its service account's token (automountServiceAccountToken is not false), " +
				"with which what runs in it can act on the cluster's API"}
	case p.Policy == PolicyMissing:
		return Verdict{Mode: PodModeNoPolicy, Networks: []string{NoneMode},
			Reason: "the deny-all NetworkPolicy the provider made for the pod is gone"}
	case p.Policy != PolicyDeniesAll:
		return Verdict{Mode: PodModeLoosePolicy, Networks: []string{NoneMode},
			Reason: "the deny-all NetworkPolicy the provider made for the pod was changed: it no longer selects " +
				"the pod, or allows some traffic, or no longer covers both directions"}
	}
	return Verdict{Isolated: true, Mode: NoneMode, Networks: []string{NoneMode}}
}

func runtimeClassBrief(name string) string {
	if name == "" {
		return "no RuntimeClass"
	}
	return fmt.Sprintf("RuntimeClass %q", name)
}

func runtimeClass(name string) string {
	if name == "" {
		return "no RuntimeClass (the node's default runtime and network)"
	}
	return fmt.Sprintf("RuntimeClass %q", name)
}
