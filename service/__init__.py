"""What is served: the break-even engine, the REST API, the CLI and the settings."""
