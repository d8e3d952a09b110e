# The cluster's snapshot rows of bench/run.sh: a snapshot of a filled claim
# on the test cluster, or a claim restored from one.
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "n" {
  description = "The volume's size in MiB (for the results' rows)."
  type        = number
}

variable "kubeconfig" {
  type = string
}

variable "namespace" {
  type = string
}

variable "image" {
  description = "The helper pods' image, which the node has."
  type        = string
}

variable "volume" {
  type = string
}

variable "dir" {
  type = string
}

variable "restore" {
  description = "The snapshot to restore (null: take one)."
  type        = object({ file = string, sha256 = string })
  default     = null
}

provider "sandbox" {
  kubernetes = {
    config_path  = var.kubeconfig
    namespace    = var.namespace
    helper_image = var.image
  }
}

resource "sandbox_snapshot" "s" {
  count           = var.restore == null ? 1 : 0
  volume          = var.volume
  directory       = var.dir
  max_size_mb     = 2 * var.n + 1
  keep_on_destroy = true
}

resource "sandbox_volume" "r" {
  count    = var.restore == null ? 0 : 1
  name     = "${var.volume}-restored"
  size_mb  = 2 * var.n
  snapshot = var.restore
}

output "snapshot" {
  value = one([for s in sandbox_snapshot.s : { file = s.file, sha256 = s.sha256 }])
}
