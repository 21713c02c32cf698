package net.graphs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A directed graph of named nodes, neighbours in insertion order. */
public class Graph {
    private final Map<String, List<String>> edges = new LinkedHashMap<>();

    public static Graph parse(String spec) {
        Graph graph = new Graph();
        for (String pair : spec.split(",")) {
            String[] ends = pair.trim().split("->");
            graph.connect(ends[0].trim(), ends[1].trim());
        }
        return graph;
    }

    public Graph connect(String from, String to) {
        node(from).add(to);
        node(to);
        return this;
    }

    private List<String> node(String name) {
        return edges.computeIfAbsent(name, key -> new ArrayList<>());
    }

    public List<String> neighbours(String name) {
        return edges.getOrDefault(name, List.of());
    }

    public Set<String> nodes() {
        return edges.keySet();
    }
}
