package engine

// Labels are not authenticated, and the engine passes them on: a child
// image built FROM one of the provider's images, a `docker commit` of one
// of its containers and a container run from either carry the provider's
// labels too. So a label proves ownership only where it cannot have been
// inherited:
//
//   - an image: the builder records the labels a build adds as the
//     image's newest history entries. An image the provider built has, among
//     them, the label that sets a build token (LabelBuildToken) fresh for
//     that build; a child image or a commit has newer entries of its own
//     (a child that adds nothing but labels passes, a gap the docs name).
//   - a container: the create token (LabelCreateToken) is fresh for each
//     create and set on the container, never on an image. A container whose
//     image carries the same token inherited it.
//
// Anyone who can use the engine's socket can still forge either on
// purpose: the proofs guard against inheritance, not against the engine's
// own users.

// LabelBuildToken carries a token unique to one build by the provider.
const LabelBuildToken = LabelPrefix + "build-token"

// CreatedByProvider reports whether a container's labels prove that the
// provider created it (see above), given the labels of its image.
func CreatedByProvider(labels, imageLabels map[string]string) bool {
	token := labels[LabelCreateToken]
	return ManagedBy(labels) && token != "" && imageLabels[LabelCreateToken] != token
}
