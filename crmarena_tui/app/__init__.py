"""The Textual app: the App class, its palette commands, study glue, messages, keymap and start-up helpers."""
