package engine

// Identity is how a resource identity (Terraform 1.12 and later: import
// blocks with `identity`, and what `terraform query` finds) names a
// sandbox or a volume on a backend, in the backend's own terms: a Docker
// engine's container ID, or a cluster's namespace, name and UID; a volume's
// name, and on a cluster its namespace. What a backend does not use is "".
type Identity struct {
	ID        string
	Namespace string
	Name      string
	UID       string
}

// Identities turns the IDs a backend gives sandboxes and volumes into
// identities and back. Going back refuses an identity that names what this
// backend has no place for (a namespace on a Docker engine, another
// namespace than the provider's on a cluster), with an error that says
// which attribute to give.
type Identities interface {
	SandboxIdentity(id string) Identity
	SandboxID(Identity) (string, error)
	VolumeIdentity(name string) Identity
	VolumeName(Identity) (string, error)
}

// InvalidIdentity is an identity a backend has no place for, in words that
// name the identity attribute to give: an invalid argument (errdefs).
type InvalidIdentity string

func (e InvalidIdentity) Error() string { return string(e) }

// InvalidParameter classifies the error as an invalid argument.
func (InvalidIdentity) InvalidParameter() {}
