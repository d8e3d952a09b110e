# terraform test, with the sandbox provider mocked: no engine is needed,
# and none is contacted. Run it in this directory:
#   terraform init && terraform test
mock_provider "sandbox" {
  mock_resource "sandbox_container" {
    defaults = {
      id = "4f1c0ffee0ddba11c0de5eed5a1dfacefeedbeefcafe0123456789abcdef0123"
    }
  }
}

variables {
  agent = "agent-7"
}

# The plan asks for the isolation and hardening the module promises.
run "sandbox_is_isolated_and_hardened" {
  command = plan

  assert {
    condition     = sandbox_container.agent.network_mode == "none"
    error_message = "The sandbox must have no network."
  }
  assert {
    condition     = sandbox_container.agent.cap_drop == toset(["ALL"]) && sandbox_container.agent.read_only
    error_message = "The sandbox must drop every capability and have a read-only root."
  }
  assert {
    condition     = sandbox_container.agent.user == "65534:65534"
    error_message = "The sandbox must not run as root."
  }
}

# The workspace is the agent's, and mounted where the agent works.
run "workspace_is_mounted" {
  command = plan

  assert {
    condition     = sandbox_container.agent.mounts["/workspace"].volume == "agent-7-workspace"
    error_message = "The workspace volume must be mounted at /workspace."
  }
}

# An apply against the mock: computed values come from the mock's defaults.
run "apply_with_the_mock" {
  assert {
    condition     = output.sandbox_id == "4f1c0ffee0ddba11c0de5eed5a1dfacefeedbeefcafe0123456789abcdef0123"
    error_message = "The output must be the sandbox's ID."
  }
}

# The module's own checks still run.
run "bad_agent_name_is_refused" {
  command = plan
  variables {
    agent = "Agent_7"
  }
  expect_failures = [var.agent]
}

run "too_little_memory_is_refused" {
  command = plan
  variables {
    memory_mb = 16
  }
  expect_failures = [sandbox_container.agent]
}
