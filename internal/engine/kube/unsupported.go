package kube

import (
	"context"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What a cluster does not do for a sandbox, or not yet through this
// provider. The plan refuses every attribute, resource and data source
// that needs one of these on a cluster (containerresource's cluster checks
// and each resource's ModifyPlan), so apply meets none of them but through
// a bug, and then fails instead of doing less.

// UnpauseContainer: a pod cannot be paused, so never needs this.
func (c *Client) UnpauseContainer(context.Context, string) error {
	return unsupported(c, "unpausing a sandbox")
}

// RenameContainer: a pod's name is fixed; a new name replaces the sandbox.
func (c *Client) RenameContainer(context.Context, string, string) error {
	return unsupported(c, "renaming a sandbox")
}

// UpdateLimits: a pod's resources are fixed; a change replaces it.
func (c *Client) UpdateLimits(context.Context, string, engine.Limits) error {
	return unsupported(c, "changing a running sandbox's limits")
}

// UpdateRestartPolicy: a pod's restart policy is fixed.
func (c *Client) UpdateRestartPolicy(context.Context, string, string) error {
	return unsupported(c, "changing a sandbox's restart policy")
}

// CopyFiles: a pod's files are mounted from its Secret as it is made
// (Facts.MountsFiles), never written into it.
func (c *Client) CopyFiles(context.Context, string, []engine.File) error {
	return unsupported(c, "writing files into a sandbox")
}

// WhereFilesGo: see CopyFiles.
func (c *Client) WhereFilesGo(context.Context, string, []string) (map[string]string, error) {
	return nil, unsupported(c, "writing files into a sandbox")
}

// ReadFile: the API reads a pod's files only by running a program in it,
// which a sandbox's own code may have replaced.
func (c *Client) ReadFile(context.Context, string, string, int64) ([]byte, error) {
	return nil, unsupported(c, "reading a file out of a sandbox")
}

// Images are the nodes' and registries' business on a cluster.

func (c *Client) EnsureImage(context.Context, string) (engine.Image, error) {
	return engine.Image{}, unsupported(c, "looking up an image")
}

func (c *Client) InspectImage(context.Context, string) (engine.Image, error) {
	return engine.Image{}, unsupported(c, "looking up an image")
}

func (c *Client) BuildImage(context.Context, engine.BuildSpec, func(string)) (string, error) {
	return "", unsupported(c, "building an image")
}

func (c *Client) DeriveImage(context.Context, string, []engine.File, map[string]string) (string, error) {
	return "", unsupported(c, "building an image")
}

func (c *Client) TagImage(context.Context, string, string) error {
	return unsupported(c, "tagging an image")
}

func (c *Client) TagImageID(context.Context, string) (string, error) {
	return "", unsupported(c, "looking up an image")
}

func (c *Client) RemoveImage(context.Context, string) error {
	return unsupported(c, "removing an image")
}

func (c *Client) RemoveLeftBuilds(context.Context, string, string) error {
	return unsupported(c, "removing an image")
}

func (c *Client) ImagesLabelled(context.Context, string, string) ([]string, error) {
	return nil, unsupported(c, "listing images")
}

func (c *Client) ContainersUsingImage(context.Context, string) ([]string, error) {
	return nil, unsupported(c, "listing images")
}

func (c *Client) BuiltByProvider(context.Context, engine.Image) (bool, error) {
	return false, unsupported(c, "looking up an image")
}
