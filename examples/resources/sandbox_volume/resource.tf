# A workspace that outlives its sandbox: what the agent writes under
# /workspace stays in the volume when the sandbox is replaced (a rebuilt
# image, a repaired breach, terraform apply -replace).
# It starts as a copy of ./repo, owned by the sandbox's user.
resource "sandbox_volume" "work" {
  name   = "agent-42-workspace"
  source = "${path.module}/repo"
  owner  = "65534:65534"
  labels = {
    team = "platform"
  }
}

resource "sandbox_container" "agent" {
  name         = "agent-42"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]

  mounts = {
    "/workspace" = { volume = sandbox_volume.work.name }
  }
}

# Bounded scratch space in memory, shared by the sandboxes that run
# together: a process that writes past 256 MiB gets ENOSPC. It is emptied
# whenever no running sandbox mounts it.
resource "sandbox_volume" "scratch" {
  name    = "agent-42-scratch"
  medium  = "memory"
  size_mb = 256
  owner   = "65534:65534"
}
