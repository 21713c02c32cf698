package net.graphs;

import java.util.List;

/** A walk through a graph; empty when there is none. */
public final class Path {
    private final List<String> nodes;

    private Path(List<String> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    public static Path of(List<String> nodes) {
        return new Path(nodes);
    }

    public int length() {
        return Math.max(0, nodes.size() - 1);
    }

    public boolean isEmpty() {
        return nodes.isEmpty();
    }

    @Override
    public String toString() {
        return nodes.isEmpty() ? "(no path)" : String.join(" -> ", nodes);
    }
}
