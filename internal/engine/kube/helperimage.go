package kube

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The helper pods that fill and read claims (archive.go) run an image. The
// default is busybox pinned by digest: never a tag someone can move. And it
// is used only where a node already has it, so that the provider never has
// a node pull from a public registry unasked, and a cluster that reaches no
// registry (the test cluster is one) is told at plan which setting to give
// instead of failing at apply. A helper_image the provider's block names
// is the user's choice, pulled as any pod's image.

// DefaultHelperImage is the helper's image unless the provider names
// another: busybox 1.37, pinned by the digest of its multi-platform index.
const DefaultHelperImage = "busybox:1.37@sha256:9db7b59979c38555a39def84a31fb98b5296952f9e3afd4f6f11f05b07adfab0"

// helperCheck is what the nodes said about the default helper image, asked
// once: empty where a node has it, else why it cannot be used.
type helperCheck struct {
	asked bool
	why   string
}

// helperImageRefusal says why the helper image cannot be used, for a plan
// that needs a helper: empty when the provider's block names one, or a
// node already has the default.
func (c *Client) helperImageRefusal(ctx context.Context) string {
	if c.helperImage != DefaultHelperImage {
		return ""
	}
	c.helperMu.Lock()
	defer c.helperMu.Unlock()
	if c.helper.asked {
		return c.helper.why
	}
	var nodes corev1.NodeList
	err := c.call(ctx, "the request to list nodes", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Resource("nodes").Do(ctx).Into(&nodes)
	})
	switch {
	case isForbidden(err):
		c.helper = helperCheck{asked: true, why: "the provider may not list the cluster's nodes to see whether one has it"}
	case err != nil:
		return "" // not known now: the apply says what the pod met
	case !anyNodeHas(nodes.Items, DefaultHelperImage):
		c.helper = helperCheck{asked: true, why: fmt.Sprintf("none of the cluster's %d nodes has it", len(nodes.Items))}
	default:
		c.helper = helperCheck{asked: true}
	}
	return c.helper.why
}

// anyNodeHas reports whether a node lists ref (name@sha256:digest) among
// its images: a runtime lists an image pulled by digest under its digest.
func anyNodeHas(nodes []corev1.Node, ref string) bool {
	_, digest, ok := strings.Cut(ref, "@")
	if !ok {
		return false
	}
	for _, n := range nodes {
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				if strings.HasSuffix(name, "@"+digest) {
					return true
				}
			}
		}
	}
	return false
}

// helperImageAdvice is the refusal of a plan that needs a helper pod with
// the default image a node does not have, and why.
func helperImageAdvice(why string) string {
	return fmt.Sprintf("Filling or reading a claim takes a short-lived helper pod, whose image is "+
		"kubernetes.helper_image. It is not set, and the default (%s) is used only where a node already has it, so "+
		"that the provider never has a node pull from a public registry unasked: %s. Set kubernetes.helper_image in "+
		"the provider block to an image with a busybox or GNU tar and sleep that the nodes have or can pull: the "+
		"default itself to let them pull it from Docker Hub, or a copy of it in your own registry (for example "+
		"crane copy %s registry.example.com/busybox, then helper_image = "+
		"\"registry.example.com/busybox@sha256:...\"), or the image of your sandboxes when it has tar",
		DefaultHelperImage, why, DefaultHelperImage)
}
