# Import by the volume's name: only a volume a sandbox_volume created (its
# labels and create token say so) can be imported.
terraform import sandbox_volume.work agent-42-workspace
