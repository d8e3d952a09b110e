# Every image sandbox_image built whose name starts with "agents/", in a
# state or in none, with the state an import of each gives:
#   terraform query -generate-config-out=adopted.tf
list "sandbox_image" "agents" {
  provider         = sandbox
  include_resource = true

  config {
    name_prefix = "agents/"
  }
}
