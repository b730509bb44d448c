"""The headless session core: the Episode, its log, the session service, the agent driver, the batch runner and the protocols."""
