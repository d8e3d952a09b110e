# An agent's session that resumes elsewhere: its workspace is snapshotted
# where it runs, and `placement` moves it between a Docker engine and a
# Kubernetes cluster, its workspace restored from the last snapshot, byte
# for byte (see the workspaces guide, "Snapshots and resuming elsewhere").
#
#   terraform apply                                  # a session on Docker
#   terraform apply -var checkpoint=1                # a snapshot of its work
#   terraform apply -var placement=cluster \
#     -var "resume_from=$(terraform output -json snapshot)"   # resumed on the cluster
#
# and back the same way. Snapshots are kept in ./snapshots when the session
# moves (keep_on_destroy); remove the ones you no longer need. It needs a
# Docker engine and a cluster's kubeconfig (KUBECONFIG or ~/.kube/config):
# the cluster's provider is configured even while the session is on Docker,
# and without a kubeconfig the plan fails once, naming
# kubernetes.config_path.
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "placement" {
  description = "Where the session runs: \"docker\" or \"cluster\"."
  type        = string
  default     = "docker"
  validation {
    condition     = contains(["docker", "cluster"], var.placement)
    error_message = "placement is \"docker\" or \"cluster\"."
  }
}

variable "resume_from" {
  description = "The snapshot the workspace starts from, as the snapshot output gives it (null: an empty workspace)."
  type        = object({ file = string, sha256 = string })
  default     = null
}

variable "checkpoint" {
  description = "Any value; a change takes a new snapshot of the workspace."
  type        = string
  default     = "0"
}

variable "kubeconfig" {
  description = "The cluster's kubeconfig (null: KUBECONFIG, then ~/.kube/config)."
  type        = string
  default     = null
}

variable "image" {
  description = "The sandbox's image, and on the cluster the helper pods' (any image with tar): one the engine has, and the cluster's nodes have or can pull."
  type        = string
  default     = "tfsandbox/busybox:latest"
}

# The local Docker engine.
provider "sandbox" {
  alias = "docker"
}

provider "sandbox" {
  alias = "cluster"
  kubernetes = {
    config_path  = var.kubeconfig
    helper_image = var.image
  }
}

locals {
  on = { docker = var.placement == "docker" ? 1 : 0, cluster = var.placement == "cluster" ? 1 : 0 }
  agent = {
    image        = var.image
    network_mode = "none"
    user         = "65534:65534"
    read_only    = true
    cap_drop     = ["ALL"]
  }
}

resource "sandbox_volume" "docker" {
  provider = sandbox.docker
  count    = local.on.docker
  name     = "agent-7-workspace"
  owner    = var.resume_from == null ? "65534:65534" : null
  snapshot = var.resume_from
}

resource "sandbox_container" "docker" {
  provider     = sandbox.docker
  count        = local.on.docker
  name         = "agent-7"
  image        = local.agent.image
  network_mode = local.agent.network_mode
  user         = local.agent.user
  read_only    = local.agent.read_only
  cap_drop     = local.agent.cap_drop
  mounts       = { "/workspace" = { volume = sandbox_volume.docker[0].name } }
}

resource "sandbox_snapshot" "docker" {
  provider        = sandbox.docker
  count           = local.on.docker
  volume          = sandbox_volume.docker[0].name
  directory       = "${path.root}/snapshots"
  keep_on_destroy = true
  triggers        = { checkpoint = var.checkpoint }
}

resource "sandbox_volume" "cluster" {
  provider = sandbox.cluster
  count    = local.on.cluster
  name     = "agent-7-workspace"
  size_mb  = 1024
  owner    = var.resume_from == null ? "65534:65534" : null
  snapshot = var.resume_from
}

resource "sandbox_container" "cluster" {
  provider     = sandbox.cluster
  count        = local.on.cluster
  name         = "agent-7"
  image        = local.agent.image
  network_mode = local.agent.network_mode
  user         = local.agent.user
  read_only    = local.agent.read_only
  cap_drop     = local.agent.cap_drop
  mounts       = { "/workspace" = { volume = sandbox_volume.cluster[0].name } }
}

resource "sandbox_snapshot" "cluster" {
  provider        = sandbox.cluster
  count           = local.on.cluster
  volume          = sandbox_volume.cluster[0].name
  directory       = "${path.root}/snapshots"
  keep_on_destroy = true
  triggers        = { checkpoint = var.checkpoint }
}

output "snapshot" {
  description = "The last snapshot of the workspace, for resume_from."
  value = one([for s in concat(sandbox_snapshot.docker, sandbox_snapshot.cluster) : {
    file = s.file, sha256 = s.sha256
  }])
}

output "sandbox" {
  value = one(concat(sandbox_container.docker[*].id, sandbox_container.cluster[*].id))
}
