# Audit the engine: every sandbox this provider made, in a state or not,
# and which of them lost their isolation.
data "sandbox_containers" "agents" {
  name_prefix = "agent-"
  labels = {
    team = "platform"
  }
}

output "not_isolated" {
  value = {
    for c in data.sandbox_containers.agents.containers : c.name => c.reason if !c.isolated
  }
}
