"""Settings and locations: typed settings, the config file, setting problems, and every path the project uses."""
