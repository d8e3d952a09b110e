# Bring an existing container under Terraform with an import block, and let
# Terraform write its configuration:
#
#   terraform plan -generate-config-out=generated.tf
#
# Review generated.tf before applying: it holds what the engine shows, and
# any difference from the provider's defaults that you remove from it plans
# a replacement.
import {
  to = sandbox_container.agent
  id = "agent-sandbox"
}
