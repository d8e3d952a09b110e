# A workspace that outlives its sandbox, offline: a volume seeded from
# ./repo, mounted read-write at /workspace in a hardened, network-less,
# read-only-root sandbox that runs as a non-root user. The agent (here a
# sandbox_exec) appends to /workspace/notes.md; raising agent_revision
# rebuilds the image and replaces the sandbox, and notes.md keeps every
# line written before.
#
#   terraform init && terraform apply
#   terraform apply -var agent_revision=2
#   terraform output notes
terraform {
  required_providers {
    sandbox = {
      source  = "tfsandbox/sandbox"
      version = "~> 0.1"
    }
  }
}

provider "sandbox" {}

variable "agent_revision" {
  description = "The agent image's revision: changing it rebuilds the image and replaces the sandbox."
  type        = number
  default     = 1
}

resource "sandbox_image" "agent" {
  name       = "sandbox-workspace-agent:latest"
  context    = "${path.module}/agent"
  build_args = { REVISION = tostring(var.agent_revision) }
}

resource "sandbox_volume" "workspace" {
  name   = "sandbox-workspace"
  source = "${path.module}/repo"
  owner  = "1000:1000"
}

resource "sandbox_container" "agent" {
  name              = "sandbox-workspace"
  image             = sandbox_image.agent.image_id
  network_mode      = "none"
  user              = "1000:1000"
  read_only         = true
  cap_drop          = ["ALL"]
  no_new_privileges = true

  mounts = {
    "/workspace" = { volume = sandbox_volume.workspace.name }
  }
}

# The agent's work: one line per revision that ran, in the workspace.
resource "sandbox_exec" "work" {
  container_id = sandbox_container.agent.id
  command      = ["sh", "-c", "echo \"revision $REVISION read $(head -n 1 TASK.md)\" >> notes.md"]
  env          = { REVISION = tostring(var.agent_revision) }
  working_dir  = "/workspace"
}

data "sandbox_file" "notes" {
  container  = sandbox_container.agent.id
  path       = "/workspace/notes.md"
  depends_on = [sandbox_exec.work]
}

output "notes" {
  value = data.sandbox_file.notes.content
}
