package docker

import (
	"reflect"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestParseTop(t *testing.T) {
	tests := map[string]struct {
		top     container.TopResponse
		podman  bool
		want    []engine.Process
		wantErr bool
	}{
		"Docker: host IDs as the host's ps gives them": {
			top: container.TopResponse{Titles: []string{"PID", "PPID", "STAT", "COMMAND"}, Processes: [][]string{
				{"3435", "3416", "Ss", "/sbin/docker-init -- sleep 1000"}, {"3505", "3416", "S", "sleep 301"},
				{"3511", "3505", "Z", "[sleep] <defunct>"},
			}},
			want: []engine.Process{{PID: 3435, PPID: 3416, Command: "/sbin/docker-init -- sleep 1000"},
				{PID: 3505, PPID: 3416, Command: "sleep 301"}, {PID: 3511, PPID: 3505, Zombie: true, Command: "[sleep] <defunct>"}},
		},
		"Podman: the container's IDs mapped to the host's": {
			podman: true,
			top: container.TopResponse{Titles: []string{"PID", "PPID", "HPID", "STATE", "COMMAND"}, Processes: [][]string{
				{"1", "0", "32490", "S", "sleep 1000"}, {"6", "0", "32520", "S", "sleep 998"}, {"11", "6", "32525", "R", "sleep 999"},
			}},
			want: []engine.Process{{PID: 32490, Command: "sleep 1000"}, {PID: 32520, Command: "sleep 998"},
				{PID: 32525, PPID: 32520, Command: "sleep 999"}},
		},
		// Podman's answer when it ran the container's own ps: refused, as
		// the sandbox's programs are not to be trusted.
		"columns the engine chose itself": {
			podman:  true,
			top:     container.TopResponse{Titles: []string{"PID   USER     COMMAND"}, Processes: [][]string{{"1 root sleep"}}},
			wantErr: true,
		},
		"a malformed ID": {
			top:     container.TopResponse{Titles: []string{"PID", "PPID", "STAT", "COMMAND"}, Processes: [][]string{{"x", "1", "S", "sh"}}},
			wantErr: true,
		},
		"a short row": {
			top:     container.TopResponse{Titles: []string{"PID", "PPID", "STAT", "COMMAND"}, Processes: [][]string{{"1", "0"}}},
			wantErr: true,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseTop(tt.top, tt.podman)
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseTop = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// The processes to stop after an interrupted command: those that started
// with it and still run, and all that descend from them, whoever their
// parent now is; never the ones that ran before it, nor zombies.
func TestSuspectsOfAnInterruptedCommand(t *testing.T) {
	before := []engine.Process{{PID: 10, PPID: 1}, {PID: 11, PPID: 10}}
	during := []engine.Process{{PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 20, PPID: 2}, {PID: 21, PPID: 20},
		{PID: 22, PPID: 10}, {PID: 23, PPID: 20, Zombie: true}}
	suspects := startedSince(before, during)
	if want := map[int]bool{20: true, 21: true, 22: true}; !reflect.DeepEqual(suspects, want) {
		t.Fatalf("startedSince = %v, want %v", suspects, want)
	}
	// After the kill: 20 is gone, its child 21 was reparented to the
	// sandbox's init, 30 is a child 21 started since, 11 ran before.
	after := []engine.Process{{PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 21, PPID: 10}, {PID: 30, PPID: 21}}
	got := running(descendants(after, suspects))
	if want := []engine.Process{{PID: 21, PPID: 10}, {PID: 30, PPID: 21}}; !reflect.DeepEqual(got, want) {
		t.Errorf("left = %+v, want %+v", got, want)
	}
	// A cycle in what the engine said ends.
	if got := descendants([]engine.Process{{PID: 5, PPID: 6}, {PID: 6, PPID: 5}}, map[int]bool{7: true}); got != nil {
		t.Errorf("descendants of a cycle = %+v", got)
	}
}

// Rootless Podman cannot tell the host's IDs: the container's own stand.
func TestParseTopRootlessPodman(t *testing.T) {
	top := container.TopResponse{Titles: []string{"PID", "PPID", "HPID", "STATE", "COMMAND"}, Processes: [][]string{
		{"1", "0", "?", "S", "sleep 1000"}, {"6", "1", "?", "S", "sleep 998"},
	}}
	got, err := parseTop(top, true)
	want := []engine.Process{{PID: 1, OwnIDs: true, Command: "sleep 1000"}, {PID: 6, PPID: 1, OwnIDs: true, Command: "sleep 998"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseTop = %+v, %v; want %+v", got, err, want)
	}
}
