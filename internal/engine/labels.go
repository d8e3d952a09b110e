package engine

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// LabelPrefix starts every label the provider stamps; a configuration
// cannot set labels with it.
const LabelPrefix = "tfsandbox."

// IsProviderLabel reports whether key is one of the provider's own labels.
func IsProviderLabel(key string) bool { return strings.HasPrefix(key, LabelPrefix) }

// Labels the provider stamps on every container it creates. They are its
// only proof of ownership: the provider never adopts or removes a container
// that does not carry them.
const (
	LabelManagedBy    = "tfsandbox.managed-by"
	LabelResourceType = "tfsandbox.resource-type"
	ManagedByValue    = "terraform-provider-sandbox"
	// LabelCreateToken carries a token unique to one create request, so
	// that a container the engine made for a request that was cut off (by
	// Ctrl-C, a timeout or a crash) can be found, and only that one.
	LabelCreateToken = "tfsandbox.create-token"
)

// NewCreateToken returns a fresh value for LabelCreateToken.
func NewCreateToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// OwnershipLabels are the labels that mark a container as made by this
// provider for the given resource type, such as "sandbox_container".
func OwnershipLabels(resourceType string) map[string]string {
	return map[string]string{LabelManagedBy: ManagedByValue, LabelResourceType: resourceType}
}

// ManagedBy reports whether labels prove that this provider made the
// container.
func ManagedBy(labels map[string]string) bool {
	return labels[LabelManagedBy] == ManagedByValue
}

// ShortID is a container or image ID as the docker CLI prints it: twelve
// hex digits, without "sha256:"; a pod's, its namespace and name.
func ShortID(id string) string {
	// A sandbox on a cluster is namespace/name/UID (package kube): the
	// pod's name says which.
	if namespace, rest, ok := strings.Cut(id, "/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return namespace + "/" + name
	}
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Labels are not authenticated, and the engine passes them on: a child
// image built FROM one of the provider's images, a `docker commit` of one
// of its containers and a container run from either carry the provider's
// labels too. So a label proves ownership only where it cannot have been
// inherited:
//
//   - an image: the builder records the labels a build adds as the
//     image's newest history entries. An image the provider built has, among
//     them, the label that sets a build token (LabelBuildToken) fresh for
//     that build, and a label (LabelBuildLabels) that lists every label
//     the build set. Those entries must be the newest, each key set once:
//     a child image or a commit has newer entries of its own, and a child
//     that adds nothing but labels sets a key outside the list, or one of
//     them a second time. (Images built before LabelBuildLabels existed
//     get the older proof, which such a child passes.)
//   - a container: the create token (LabelCreateToken) is fresh for each
//     create and set on the container, never on an image. A container whose
//     image carries the same token inherited it.
//
// Anyone who can use the engine's socket can still forge either on
// purpose: the proofs guard against inheritance, not against the engine's
// own users.

// LabelBuildToken carries a token unique to one build by the provider.
const LabelBuildToken = LabelPrefix + "build-token"

// LabelBuildLabels lists, on an image the provider built, the keys of the
// labels its build set (itself and the build token among them), as a JSON
// array.
const LabelBuildLabels = LabelPrefix + "build-labels"

// LabelHelperVolume names, on a helper the provider makes to copy into or
// out of a volume, the volume it copies: a helper left behind says whose
// it is.
const LabelHelperVolume = LabelPrefix + "helper-volume"

// CreatedByProvider reports whether a container's labels prove that the
// provider created it (see above), given the labels of its image.
func CreatedByProvider(labels, imageLabels map[string]string) bool {
	token := labels[LabelCreateToken]
	return ManagedBy(labels) && token != "" && imageLabels[LabelCreateToken] != token
}

// HasLabels reports whether have carries every label of want, with its
// value. Podman 4.3 lists an image or a volume that carries any one of the
// labels a list filters by (docker/labels.go): a list is checked with it.
func HasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
