"""Demo task families: each module plants nothing, it reads an org file and derives tasks with
ground truth by plain SQL and Python (never through the SOQL engine). See `crmarena_tui.demo.tasks`."""
