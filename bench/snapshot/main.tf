# The snapshot rows of bench/run.sh: a snapshot of a filled volume, or a
# volume restored from one.
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

variable "volume" {
  type = string
}

variable "dir" {
  type = string
}

variable "max_files" {
  description = "The snapshot's max_files."
  type        = number
  default     = 100000
}

variable "restore" {
  description = "The snapshot to restore (null: take one)."
  type        = object({ file = string, sha256 = string })
  default     = null
}

resource "sandbox_snapshot" "s" {
  count           = var.restore == null ? 1 : 0
  volume          = var.volume
  directory       = var.dir
  max_size_mb     = 2 * var.n + 1
  max_files       = var.max_files
  keep_on_destroy = true
}

resource "sandbox_volume" "r" {
  count    = var.restore == null ? 0 : 1
  name     = "${var.volume}-restored"
  snapshot = var.restore
}

output "snapshot" {
  value = one([for s in sandbox_snapshot.s : { file = s.file, sha256 = s.sha256 }])
}
