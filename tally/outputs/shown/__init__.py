"""What the director sees: the terminal (tables, sentences, the live screen of a watch) and
the JSON a command prints on standard output."""
