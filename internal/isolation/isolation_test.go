package isolation

import (
	"reflect"
	"testing"
)

// inspect is what a Docker-API engine shows of a container's network.
func inspect(mode string, networks ...string) Observed {
	return Observed{Attachments: &Attachments{Reported: true, Mode: mode, Networks: networks}}
}

// namespaces sets the PID, IPC and UTS modes of an observation.
func namespaces(o Observed, pid, ipc, uts string) Observed {
	o.Attachments.PID, o.Attachments.IPC, o.Attachments.UTS = pid, ipc, uts
	return o
}

// The verdict for a container on a Docker-API engine, Docker's shapes and
// Podman's (the Docker backend reads them out of its inspect data).
func TestAssessAttachments(t *testing.T) {
	t.Parallel()

	noHostConfig := inspect("none", "none")
	noHostConfig.Attachments.Reported = false

	noSettings := Observed{Attachments: &Attachments{Reported: true, Mode: "none"}}

	tests := map[string]struct {
		in   Observed
		want Verdict
	}{
		"none attached to none": {
			in:   inspect("none", "none"),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{"none"}},
		},
		"none attached to nothing": {
			in:   inspect("none"),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{}},
		},
		"none without network settings": {
			in:   noSettings,
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{}},
		},
		// Podman lists no network for a container with network mode
		// "none", and calls its default network "podman".
		"Podman: none, no network listed": {
			in:   inspect("none"),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{}},
		},
		"Podman: default network": {
			in: inspect("bridge", "podman"),
			want: Verdict{Mode: "bridge", Networks: []string{"podman"},
				Reason: `the engine reports network mode "bridge" instead of "none"`},
		},
		"Podman: none, then attached to its default network": {
			in: inspect("none", "podman"),
			want: Verdict{Mode: "podman", Networks: []string{"podman"},
				Reason: `the engine has attached it to network "podman" (its network mode still reads "none")`},
		},
		"bridge mode": {
			in: inspect("bridge", "bridge"),
			want: Verdict{Mode: "bridge", Networks: []string{"bridge"},
				Reason: `the engine reports network mode "bridge" instead of "none"`},
		},
		"host mode": {
			in: inspect("host", "host"),
			want: Verdict{Mode: "host", Networks: []string{"host"},
				Reason: `the engine reports network mode "host" instead of "none"`},
		},
		"shares another container's network": {
			in: inspect("container:abc"),
			want: Verdict{Mode: "container:abc", Networks: []string{},
				Reason: `the engine reports network mode "container:abc" instead of "none"`},
		},
		"empty mode is the default network": {
			in: inspect("", "bridge"),
			want: Verdict{Mode: "default", Networks: []string{"bridge"},
				Reason: `the engine reports network mode "default" instead of "none"`},
		},
		"uppercase NONE is not none": {
			in: inspect("NONE", "none"),
			want: Verdict{Mode: "NONE", Networks: []string{"none"},
				Reason: `the engine reports network mode "NONE" instead of "none"`},
		},
		"none mode disconnected and reconnected to bridge": {
			in: inspect("none", "bridge"),
			want: Verdict{Mode: "bridge", Networks: []string{"bridge"},
				Reason: `the engine has attached it to network "bridge" (its network mode still reads "none")`},
		},
		"none mode still on none and also on user networks": {
			in: inspect("none", "none", "prod", "backend"),
			want: Verdict{Mode: "backend,prod", Networks: []string{"backend", "none", "prod"},
				Reason: `the engine has attached it to networks "backend", "prod" (its network mode still reads "none")`},
		},
		// The modes Docker and Podman report for a container's own
		// namespaces are isolated.
		"Docker: its own namespaces": {
			in:   namespaces(inspect("none", "none"), "", "private", ""),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{"none"}},
		},
		"Podman: its own namespaces": {
			in:   namespaces(inspect("none"), "private", "shareable", "private"),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{}},
		},
		"no IPC at all": {
			in:   namespaces(inspect("none"), "", "none", ""),
			want: Verdict{Isolated: true, Mode: "none", Networks: []string{}},
		},
		"the host's PID namespace": {
			in: namespaces(inspect("none", "none"), "host", "private", ""),
			want: Verdict{Mode: "none sharing pid with the host", Networks: []string{"none"},
				Reason: `the engine reports that it shares namespaces beside the network: pid with the host (pid mode "host")`},
		},
		"the host's UTS and another container's IPC": {
			in: namespaces(inspect("none"), "", "container:abc", "host"),
			want: Verdict{Mode: "none sharing ipc with container abc, uts with the host", Networks: []string{},
				Reason: `the engine reports that it shares namespaces beside the network: ipc with container abc, ` +
					`uts with the host (ipc mode "container:abc", uts mode "host")`},
		},
		"a network wins over the namespaces": {
			in: namespaces(inspect("bridge", "bridge"), "host", "host", "host"),
			want: Verdict{Mode: "bridge", Networks: []string{"bridge"},
				Reason: `the engine reports network mode "bridge" instead of "none"`},
		},
		"no host configuration fails closed": {
			in: noHostConfig,
			want: Verdict{Mode: "unknown", Networks: []string{"none"},
				Reason: "the engine reported no host configuration for the container"},
		},
		"nothing at all fails closed": {
			in: Observed{Attachments: &Attachments{}},
			want: Verdict{Mode: "unknown", Networks: []string{},
				Reason: "the engine reported no host configuration for the container"},
		},
		"no observation at all fails closed": {
			in: Observed{},
			want: Verdict{Mode: "unknown", Networks: []string{},
				Reason: "the engine reported nothing of the sandbox's network"},
		},
	}

	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Assess(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Assess() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}
