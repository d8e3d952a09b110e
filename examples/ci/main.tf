# A CI pipeline's sandboxes that end by themselves if the pipeline dies:
# each job gets an isolated, hardened sandbox that expires two hours after
# it is made. A pipeline killed before `terraform destroy` leaves them
# stopped at their expiry by the engine (a Docker engine's or Podman's
# expiry warden, a cluster's pod deadline), with no Terraform running;
# the next run lists what is left with data "sandbox_containers".
#
#   terraform init
#   terraform apply -var pipeline=build-4711
#   terraform destroy -var pipeline=build-4711
#
# Clean-up after killed pipelines, from any directory with this provider:
#   terraform apply -var pipeline=any && terraform output expired
terraform {
  required_providers {
    sandbox = {
      source  = "tfsandbox/sandbox"
      version = "~> 0.1"
    }
  }
}

provider "sandbox" {
  # Every sandbox of this configuration must be network-less.
  require_isolation = true
}

variable "pipeline" {
  description = "The pipeline run these sandboxes belong to: their names start with it."
  type        = string
}

variable "jobs" {
  description = "How many job sandboxes the pipeline runs."
  type        = number
  default     = 2
}

variable "lifetime" {
  description = "How long a job sandbox may live, from its creation: its expiry."
  type        = string
  default     = "2h"
}

variable "image" {
  description = "The jobs' image."
  type        = string
  default     = "busybox:latest"
}

resource "sandbox_container" "job" {
  count        = var.jobs
  name         = "ci-${var.pipeline}-${count.index}"
  image        = var.image
  command      = ["sleep", "86400"]
  network_mode = "none"
  read_only    = true
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  memory       = 512
  pids_limit   = 256

  # Stopped by its backend at this moment, whatever runs in it, whether or
  # not Terraform runs then; its workspace is kept until destroy.
  expires_after = var.lifetime

  labels = {
    pipeline = var.pipeline
  }
}

# Every expired sandbox of every pipeline on this engine: what killed
# pipelines left behind, to destroy (or adopt with terraform query).
data "sandbox_containers" "expired" {
  name_prefix = "ci-"
  expired     = true
  depends_on  = [sandbox_container.job]
}

output "expires_at" {
  description = "When each job sandbox expires."
  value       = { for c in sandbox_container.job : c.name => c.expires_at }
}

output "expired" {
  description = "The names of the expired CI sandboxes on the engine."
  value       = [for c in data.sandbox_containers.expired.containers : c.name]
}
