# Import by image ID or name: only an image a sandbox_image of this provider
# built (its history proves it) can be imported, and the configuration it
# was built from comes back from its build record.
terraform import sandbox_image.agent agents/python:3
