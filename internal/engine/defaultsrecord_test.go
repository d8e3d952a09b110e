package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDefaultsRecord(t *testing.T) {
	t.Parallel()
	docker := Defaults{Capabilities: EffectiveCapabilities(nil, nil), HasCapabilities: true, ShmSize: 64 << 20}
	for name, c := range map[string]struct {
		in       Defaults
		recorded string // a part of the record
	}{
		"Docker's default set is a mask": {docker, `"capability_mask":"a80425fb"`},
		"no capabilities at all":         {Defaults{Capabilities: []string{}, HasCapabilities: true}, `"capability_mask":"0"`},
		"every capability":               {Defaults{Capabilities: allCapabilities(), HasCapabilities: true}, `"capability_mask":"1ffffffffff"`},
		"ALL as a name keeps the names":  {Defaults{Capabilities: []string{"ALL"}, HasCapabilities: true}, `"capabilities":["ALL"]`},
		"a name the table lacks keeps the names": {
			Defaults{Capabilities: []string{"CHOWN", "NEW_ONE"}, HasCapabilities: true}, `"capabilities":["CHOWN","NEW_ONE"]`,
		},
		"none recorded": {Defaults{PidsLimit: 2048}, `{"pids_limit":2048}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := json.Marshal(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), c.recorded) {
				t.Errorf("recorded %s, want it to hold %s", raw, c.recorded)
			}
			var back Defaults
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			sameEmpty := len(back.Capabilities) == 0 && len(c.in.Capabilities) == 0 && back.HasCapabilities == c.in.HasCapabilities
			if !reflect.DeepEqual(back, c.in) && !sameEmpty {
				t.Errorf("read back %+v, want %+v", back, c.in)
			}
		})
	}
	if raw, _ := json.Marshal(docker); len(raw) > 80 {
		t.Errorf("Docker's defaults take %d bytes (%s); the mask is there to keep them short", len(raw), raw)
	}
}

func allCapabilities() []string {
	caps := make([]string, 0, len(capabilityNumbers))
	for name := range capabilityNumbers {
		caps = append(caps, name)
	}
	slices.Sort(caps)
	return caps
}

// Records that earlier versions wrote, with the names, read as before.
func TestDefaultsRecordWrittenBefore(t *testing.T) {
	t.Parallel()
	var d Defaults
	old := `{"capabilities":["AUDIT_WRITE","CHOWN","DAC_OVERRIDE","FOWNER","FSETID","KILL","MKNOD","NET_BIND_SERVICE",` +
		`"NET_RAW","SETFCAP","SETGID","SETPCAP","SETUID","SYS_CHROOT"],"has_capabilities":true,"shm_size":67108864}`
	if err := json.Unmarshal([]byte(old), &d); err != nil {
		t.Fatal(err)
	}
	if !d.HasCapabilities || !d.CreatedWith(EffectiveCapabilities(nil, nil)) || d.ShmSize != 64<<20 {
		t.Errorf("read %+v", d)
	}
	for _, bad := range []string{`{"capability_mask":"zz"}`, `{"capability_mask":"40000000000"}`} {
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}
