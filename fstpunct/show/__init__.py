"""Pictures: channels, slot lattices and trees in, Graphviz drawings out."""
