# Every volume sandbox_volume made for the team "agents", in a state or in
# none, with the state an import of each gives:
#   terraform query -generate-config-out=adopted.tf
list "sandbox_volume" "workspaces" {
  provider         = sandbox
  include_resource = true

  config {
    labels = { team = "agents" }
  }
}
