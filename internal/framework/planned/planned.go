// Package planned is what one plan's resources tell each other inside the
// provider process that plans them: sandbox_volume records who owns each
// volume's root as it is planned, and sandbox_container reads it for the
// volumes it mounts writable, to say at plan that its user cannot write
// there. Terraform plans a volume before a sandbox that refers to it
// (sandbox_volume.work.name); a sandbox that names a volume by a literal
// may be planned first, and then learns nothing.
package planned

import "sync"

// Root is a volume's root directory as planned: its owner and mode, and
// what decides them, for messages.
type Root struct {
	UID, GID int
	Mode     int64
	// From says where the owner comes from: "owner", "the snapshot" or
	// "no owner".
	From string
}

var roots sync.Map // endpoint "\x00" volume name: Root

func key(endpoint, volume string) string { return endpoint + "\x00" + volume }

// RecordRoot records the volume's root on the engine at endpoint.
func RecordRoot(endpoint, volume string, r Root) { roots.Store(key(endpoint, volume), r) }

// VolumeRoot is the volume's root as recorded in this process, if it was.
func VolumeRoot(endpoint, volume string) (Root, bool) {
	v, ok := roots.Load(key(endpoint, volume))
	if !ok {
		return Root{}, false
	}
	r, ok := v.(Root)
	return r, ok
}

// WritableBy reports whether a process of uid and gid can make files in
// the root directory; dacOverride is whether it keeps CAP_DAC_OVERRIDE,
// which lets root (uid 0) write whatever the mode.
func (r Root) WritableBy(uid, gid int, dacOverride bool) bool {
	switch {
	case uid == 0 && dacOverride:
		return true
	case uid == r.UID:
		return r.Mode&0o300 == 0o300
	case gid == r.GID:
		return r.Mode&0o030 == 0o030
	}
	return r.Mode&0o003 == 0o003
}
