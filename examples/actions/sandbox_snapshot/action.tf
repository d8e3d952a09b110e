# Take a snapshot of an agent's workspace on demand, outside any state:
#   terraform apply -invoke=action.sandbox_snapshot.checkpoint
# The apply shows the archive's path and SHA-256, for sandbox_volume.snapshot.
action "sandbox_snapshot" "checkpoint" {
  config {
    volume    = sandbox_volume.workspace.name
    directory = "${path.root}/snapshots"
  }
}
