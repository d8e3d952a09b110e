package docker

import "github.com/tfsandbox/terraform-provider-sandbox/internal/engine"

var (
	_ engine.Engine = (*Client)(nil)
	_ error         = (*engine.UnsupportedError)(nil)
)
