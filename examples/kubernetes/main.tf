# The same hardened sandbox on a Docker engine or on a Kubernetes cluster,
# and moved between them by one variable: each placement is a resource of
# its own, so that a move plans the sandbox's creation where it goes and
# its removal where it was, in one apply (see the Kubernetes guide).
#
#   terraform apply                                    # on the local Docker engine
#   terraform apply -var placement=cluster \
#     -var kubeconfig=$HOME/.kube/config               # moved to the cluster
#
# It needs both: a Docker engine (DOCKER_HOST or the local socket) and a
# cluster with a RuntimeClass "gvisor" whose pods have no network, whose
# nodes have or can pull var.image. Its cluster provider is configured even
# while the sandbox is on Docker: on a machine with no kubeconfig, the plan
# fails once, naming kubernetes.config_path.
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "placement" {
  description = "Where the sandbox runs: \"docker\" or \"cluster\"."
  type        = string
  default     = "docker"
  validation {
    condition     = contains(["docker", "cluster"], var.placement)
    error_message = "placement is \"docker\" or \"cluster\"."
  }
}

variable "kubeconfig" {
  description = "The cluster's kubeconfig (null: KUBECONFIG, then ~/.kube/config)."
  type        = string
  default     = null
}

variable "image" {
  description = "The sandbox's image: one the engine has, and the cluster's nodes have or can pull."
  type        = string
  default     = "tfsandbox/busybox:latest"
}

# The local Docker engine.
provider "sandbox" {}

provider "sandbox" {
  alias = "cluster"
  kubernetes = {
    config_path   = var.kubeconfig
    runtime_class = "gvisor"
  }
}

resource "sandbox_container" "docker" {
  count        = var.placement == "docker" ? 1 : 0
  name         = "agent-1"
  image        = var.image
  network_mode = "none"
  user         = "1000:1000"
  read_only    = true
  cap_drop     = ["ALL"]
  memory       = 128
  cpus         = 0.5
  tmpfs        = { "/scratch" = "size=16m" }
}

resource "sandbox_container" "cluster" {
  provider     = sandbox.cluster
  count        = var.placement == "cluster" ? 1 : 0
  name         = "agent-1"
  image        = var.image
  network_mode = "none"
  user         = "1000:1000"
  read_only    = true
  cap_drop     = ["ALL"]
  memory       = 128
  cpus         = 0.5
  tmpfs        = { "/scratch" = "size=16m" }
}

output "sandbox" {
  value = one(concat(sandbox_container.docker[*].id, sandbox_container.cluster[*].id))
}
