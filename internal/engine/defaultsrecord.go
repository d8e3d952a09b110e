package engine

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
)

// How Defaults are recorded in a sandbox's private state. Terraform copies
// and rewrites every resource's private state with each state write (about
// once per resource an apply or destroy changes), so its size costs every
// sandbox of a configuration: the names of the default capability set made
// a third of a sandbox's recorded state, and a destroy of 200 sandboxes
// spent about a second more CPU with them than without (bench/HISTORY.md).
// A capability set is therefore recorded as a mask of Linux capability
// numbers, in hex ("a80425fb" for Docker's default set). Records with the
// names, as earlier versions wrote them, are read as before, and a set
// holding a name this table lacks keeps the names. A mask implies
// has_capabilities, which is left out: an earlier version reading the
// record then takes the sandbox for one created before capabilities were
// recorded, rather than for one created with none.

// capabilityNumbers are the Linux capability numbers (linux/capability.h),
// which the kernel ABI never changes.
var capabilityNumbers = map[string]uint{
	"CHOWN": 0, "DAC_OVERRIDE": 1, "DAC_READ_SEARCH": 2, "FOWNER": 3, "FSETID": 4, "KILL": 5, "SETGID": 6,
	"SETUID": 7, "SETPCAP": 8, "LINUX_IMMUTABLE": 9, "NET_BIND_SERVICE": 10, "NET_BROADCAST": 11,
	"NET_ADMIN": 12, "NET_RAW": 13, "IPC_LOCK": 14, "IPC_OWNER": 15, "SYS_MODULE": 16, "SYS_RAWIO": 17,
	"SYS_CHROOT": 18, "SYS_PTRACE": 19, "SYS_PACCT": 20, "SYS_ADMIN": 21, "SYS_BOOT": 22, "SYS_NICE": 23,
	"SYS_RESOURCE": 24, "SYS_TIME": 25, "SYS_TTY_CONFIG": 26, "MKNOD": 27, "LEASE": 28, "AUDIT_WRITE": 29,
	"AUDIT_CONTROL": 30, "SETFCAP": 31, "MAC_OVERRIDE": 32, "MAC_ADMIN": 33, "SYSLOG": 34, "WAKE_ALARM": 35,
	"BLOCK_SUSPEND": 36, "AUDIT_READ": 37, "PERFMON": 38, "BPF": 39, "CHECKPOINT_RESTORE": 40,
}

// capabilityNames is capabilityNumbers the other way round.
var capabilityNames = func() map[uint]string {
	names := make(map[uint]string, len(capabilityNumbers))
	for name, n := range capabilityNumbers {
		names[n] = name
	}
	return names
}()

// capabilityMask returns the mask of caps, or false when one is not in
// capabilityNumbers.
func capabilityMask(caps []string) (string, bool) {
	var mask uint64
	for _, c := range caps {
		n, ok := capabilityNumbers[c]
		if !ok {
			return "", false
		}
		mask |= 1 << n
	}
	return strconv.FormatUint(mask, 16), true
}

// capabilitiesOf returns the sorted names of the capabilities in mask.
func capabilitiesOf(mask string) ([]string, error) {
	m, err := strconv.ParseUint(mask, 16, 64)
	if err != nil {
		return nil, fmt.Errorf("capability mask %q: %w", mask, err)
	}
	caps := []string{}
	for m != 0 {
		n := uint(bits.TrailingZeros64(m))
		name, ok := capabilityNames[n]
		if !ok {
			return nil, fmt.Errorf("capability mask %q has unknown capability %d", mask, n)
		}
		caps = append(caps, name)
		m &^= 1 << n
	}
	slices.Sort(caps)
	return caps, nil
}

// defaultsFields are Defaults' JSON fields without its methods.
type defaultsFields Defaults

// defaultsRecord is the JSON form of Defaults.
type defaultsRecord struct {
	defaultsFields
	CapabilityMask string `json:"capability_mask,omitempty"`
}

// MarshalJSON records the capability set as a mask where it can.
func (d Defaults) MarshalJSON() ([]byte, error) {
	rec := defaultsRecord{defaultsFields: defaultsFields(d)}
	if d.HasCapabilities {
		if mask, ok := capabilityMask(d.Capabilities); ok {
			rec.Capabilities, rec.HasCapabilities, rec.CapabilityMask = nil, false, mask
		}
	}
	return json.Marshal(rec)
}

// UnmarshalJSON reads a record with a capability mask or with names.
func (d *Defaults) UnmarshalJSON(data []byte) error {
	var rec defaultsRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	if rec.CapabilityMask != "" {
		caps, err := capabilitiesOf(rec.CapabilityMask)
		if err != nil {
			return err
		}
		rec.Capabilities, rec.HasCapabilities = caps, true
	}
	*d = Defaults(rec.defaultsFields)
	return nil
}
