package engine

// Labels the provider stamps on every container it creates. They are its
// only proof of ownership: the provider never adopts or removes a container
// that does not carry them.
const (
	LabelManagedBy    = "tfsandbox.managed-by"
	LabelResourceType = "tfsandbox.resource-type"
	ManagedByValue    = "terraform-provider-sandbox"
)

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
