# Every sandbox this provider made whose name starts with "agent-", in a
# state or in none, with the state an import of each gives:
#   terraform query -generate-config-out=adopted.tf
list "sandbox_container" "left_behind" {
  provider         = sandbox
  include_resource = true

  config {
    name_prefix = "agent-"
  }
}

# Only the sandboxes that lost their isolation.
list "sandbox_container" "exposed" {
  provider = sandbox

  config {
    isolated = false
  }
}
