# The agent's workspace, and a snapshot of it: an archive in ./snapshots
# with its SHA-256, which a volume on any engine or cluster restores.
resource "sandbox_volume" "work" {
  name  = "agent-42-workspace"
  owner = "65534:65534"
}

resource "sandbox_snapshot" "work" {
  volume    = sandbox_volume.work.name
  directory = "${path.root}/snapshots"

  # A new snapshot whenever the task changes.
  triggers = {
    task = "fix-issue-1234"
  }
}

# The session resumed: a new volume holding exactly what the snapshot
# holds.
resource "sandbox_volume" "resumed" {
  name = "agent-42-workspace-resumed"
  snapshot = {
    file   = sandbox_snapshot.work.file
    sha256 = sandbox_snapshot.work.sha256
  }
}
