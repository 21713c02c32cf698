"""The graph panel: the layered drawing of one program's edges, its toolbar, tooltips and legend."""
