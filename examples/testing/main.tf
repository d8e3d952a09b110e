# A module that gives one agent a hardened, network-less sandbox and a
# workspace that outlives it; tests/agent.tftest.hcl tests it with
# `terraform test` and a mocked provider, with no engine:
#
#   terraform init && terraform test
terraform {
  required_providers {
    sandbox = { source = "tfsandbox/sandbox" }
  }
}

variable "agent" {
  description = "The agent's name, which names its sandbox and workspace."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,40}$", var.agent))
    error_message = "agent must be 2 to 41 lowercase letters, digits and dashes, starting with a letter."
  }
}

variable "image" {
  description = "The sandbox's image, on the engine."
  type        = string
  default     = "tfsandbox/busybox:latest"
}

variable "memory_mb" {
  description = "The sandbox's memory limit, in MiB."
  type        = number
  default     = 256
}

resource "sandbox_volume" "workspace" {
  name  = "${var.agent}-workspace"
  owner = "65534:65534"
}

resource "sandbox_container" "agent" {
  name         = var.agent
  image        = var.image
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  memory       = var.memory_mb

  mounts = {
    "/workspace" = { volume = sandbox_volume.workspace.name }
  }

  lifecycle {
    precondition {
      condition     = var.memory_mb >= 64
      error_message = "An agent needs at least 64 MiB."
    }
  }
}

output "sandbox_id" {
  description = "The sandbox's container ID."
  value       = sandbox_container.agent.id
}
