"""One program as every view and export sees it: the overlay of all edge sources, view modes, the
program view, the graph's layout, routes, labels and palette, graph exports, the evidence packet, and
text made safe for a terminal."""
