"""The built-in demo orgs (B2B and B2C), their tasks with ground truth and reference solutions."""
