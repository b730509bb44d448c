"""The demo org generator, one module per family of objects (see `crmarena_tui.demo.generator`)."""
