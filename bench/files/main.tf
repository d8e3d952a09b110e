# One isolated sandbox with N files, the files row of the benchmark
# (bench/run.sh).
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "n" {
  type = number
}

variable "image" {
  type = string
}

locals {
  # range() makes at most 1,024 values: count in hundreds.
  indexes = [for k in flatten([for i in range(ceil(var.n / 100)) : [for j in range(100) : i * 100 + j]]) : k if k < var.n]
}

resource "sandbox_container" "bench" {
  name         = "tfbench-files"
  image        = var.image
  network_mode = "none"
  files        = { for i in local.indexes : "/work/f${i}.txt" => { content = "file ${i}\n" } }
}
