"""Model access (litellm, loaded on first call) and the classification of failed calls."""
