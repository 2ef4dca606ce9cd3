"""Stage 7, pictures: channels, slot lattices and sentences in; Graphviz drawings, SVG trees in word
order, the learned-rules chart and the self-contained HTML viewer out (one module per kind)."""
