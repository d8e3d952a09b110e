# Import by the pool's SandboxTemplate: namespace/name, or a name in the
# provider's kubernetes.namespace. A template that copies a pool's labels
# is refused; files and env_wo are not read back, so a configuration with
# files plans a replacement after the import, which writes them anew.
terraform import sandbox_pool.agents agents/agents
