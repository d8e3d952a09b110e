# Import by container ID or by name. The imported state reflects the engine,
# network_mode included: "none" only when the container is isolated.
terraform import sandbox_container.agent agent-sandbox
terraform import sandbox_container.agent 4f1c2a7d9e0b
