package isolation

import (
	"slices"
	"strings"
	"testing"
)

func TestAssessPod(t *testing.T) {
	isolated := Pod{RuntimeClass: "gvisor", IsolatedClass: "gvisor"}
	for _, c := range []struct {
		name     string
		pod      func(Pod) Pod
		isolated bool
		mode     string
		networks []string
		reason   string
	}{
		{"isolated", func(p Pod) Pod { return p }, true, NoneMode, []string{NoneMode}, ""},
		{"asleep with its policy", func(p Pod) Pod { p.Asleep, p.RuntimeClass = true, ""; return p }, true, NoneMode,
			[]string{NoneMode}, ""},
		{"asleep without its policy", func(p Pod) Pod { p.Asleep, p.RuntimeClass, p.Policy = true, "", PolicyMissing; return p },
			false, PodModeNoPolicy, []string{NoneMode}, "NetworkPolicy the provider made for the pod is gone"},
		{"asleep with a loosened policy", func(p Pod) Pod { p.Asleep, p.Policy = true, PolicyLoosened; return p },
			false, PodModeLoosePolicy, []string{NoneMode}, "was changed"},
		{"asleep with no isolated class known", func(p Pod) Pod { p.Asleep, p.RuntimeClass, p.IsolatedClass = true, "", ""; return p },
			false, PodModeNetwork, []string{PodModeNetwork}, "knows no RuntimeClass"},
		{"host network", func(p Pod) Pod { p.HostNetwork = true; return p }, false, PodModeHost,
			[]string{PodModeHost}, "hostNetwork: true"},
		{"host network wins over the class", func(p Pod) Pod { p.HostNetwork, p.ExtraNetworks = true, []string{"b"}; return p },
			false, PodModeHost, []string{PodModeHost, "b"}, "node's network"},
		{"another class", func(p Pod) Pod { p.RuntimeClass = "runc"; return p }, false,
			`pod network (RuntimeClass "runc")`, []string{PodModeNetwork}, `RuntimeClass "runc", not in RuntimeClass "gvisor"`},
		{"no class", func(p Pod) Pod { p.RuntimeClass = ""; return p }, false, "pod network (no RuntimeClass)",
			[]string{PodModeNetwork}, "node's default runtime"},
		{"no isolated class known", func(p Pod) Pod { p.IsolatedClass = ""; return p }, false, PodModeNetwork,
			[]string{PodModeNetwork}, "no RuntimeClass whose pods have no network"},
		{"no class and none known is not isolated", func(p Pod) Pod { p.IsolatedClass, p.RuntimeClass = "", ""; return p },
			false, PodModeNetwork, []string{PodModeNetwork}, "knows no RuntimeClass"},
		{"multus networks", func(p Pod) Pod { p.ExtraNetworks = []string{"z", "a"}; return p }, false, PodModeNetwork,
			[]string{NoneMode, "a", "z"}, `attached to networks "a", "z"`},
		{"the node's PID namespace", func(p Pod) Pod { p.HostPID = true; return p }, false,
			"none sharing pid with the node", []string{NoneMode}, "hostPID: true"},
		{"the node's PID and IPC namespaces", func(p Pod) Pod { p.HostPID, p.HostIPC = true, true; return p }, false,
			"none sharing pid with the node, ipc with the node", []string{NoneMode}, "(hostPID: true, hostIPC: true)"},
		{"host namespaces before policy", func(p Pod) Pod { p.HostIPC, p.Policy = true, PolicyMissing; return p }, false,
			"none sharing ipc with the node", []string{NoneMode}, "hostIPC: true"},
		{"policy gone", func(p Pod) Pod { p.Policy = PolicyMissing; return p }, false, PodModeNoPolicy,
			[]string{NoneMode}, "is gone"},
		{"policy loosened", func(p Pod) Pod { p.Policy = PolicyLoosened; return p }, false, PodModeLoosePolicy,
			[]string{NoneMode}, "was changed"},
		{"service-account token", func(p Pod) Pod { p.ServiceAccountToken = true; return p }, false, PodModeToken,
			[]string{NoneMode}, "automountServiceAccountToken"},
		{"token before policy", func(p Pod) Pod { p.ServiceAccountToken, p.Policy = true, PolicyMissing; return p },
			false, PodModeToken, []string{NoneMode}, "token"},
		{"asleep: no pod, no token", func(p Pod) Pod { p.Asleep, p.ServiceAccountToken = true, true; return p }, true,
			NoneMode, []string{NoneMode}, ""},
		{"class before policy", func(p Pod) Pod { p.RuntimeClass, p.Policy = "runc", PolicyMissing; return p }, false,
			`pod network (RuntimeClass "runc")`, []string{PodModeNetwork}, "runc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := c.pod(isolated)
			v := Assess(Observed{Pod: &pod})
			if v.Isolated != c.isolated || v.Mode != c.mode || !slices.Equal(v.Networks, c.networks) {
				t.Errorf("Assess = %+v, want isolated %v, mode %q, networks %v", v, c.isolated, c.mode, c.networks)
			}
			if c.isolated != (v.Reason == "") || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("reason %q, want one containing %q", v.Reason, c.reason)
			}
			if !c.isolated && v.Mode == NoneMode {
				t.Errorf("a pod that is not isolated reads as %q", NoneMode)
			}
		})
	}
}
