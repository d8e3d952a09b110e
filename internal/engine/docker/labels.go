package docker

import (
	"maps"

	"github.com/docker/docker/api/types/filters"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Podman 4.3 lists an image or a volume that carries any one of the labels
// a list asks for: its Docker-compatible API ORs label filters, where
// Docker, and Podman for containers, AND them. A test kit's clean-up that
// asked for the expiry warden's image (the provider's label and the
// warden's type) so removed every image the provider had built, a
// sandbox_image's included. Every list filtered by labels is filtered again
// here, by all of them (engine.HasLabels).

// managedLabels are the provider's ownership label and labels.
func managedLabels(labels map[string]string) map[string]string {
	want := map[string]string{engine.LabelManagedBy: engine.ManagedByValue}
	maps.Copy(want, labels)
	return want
}

// labelArgs are the engine's filter arguments for want.
func labelArgs(want map[string]string) filters.Args {
	args := filters.NewArgs()
	for k, v := range want {
		args.Add("label", k+"="+v)
	}
	return args
}
