# Sandboxes on two engines from one configuration: one provider
# configuration per engine, chosen per resource with `provider`.
#
#   terraform apply -var remote_host=ssh://builder@build-1
#   terraform apply -var remote_host=tcp://build-1:2376 -var remote_cert_path=$HOME/.docker/build-1
#
# The first sandbox runs on the local engine (DOCKER_HOST or the local
# socket), the second on remote_host (see the engines guide).
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "remote_host" {
  description = "The second engine, for example ssh://builder@build-1 or tcp://build-1:2376."
  type        = string
}

variable "remote_cert_path" {
  description = "For a tcp:// engine: the directory with ca.pem, cert.pem and key.pem."
  type        = string
  default     = null
}

# The local engine.
provider "sandbox" {}

provider "sandbox" {
  alias     = "remote"
  host      = var.remote_host
  cert_path = var.remote_cert_path
}

resource "sandbox_container" "local" {
  name         = "agent-local"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
}

resource "sandbox_container" "remote" {
  provider     = sandbox.remote
  name         = "agent-remote"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
}
