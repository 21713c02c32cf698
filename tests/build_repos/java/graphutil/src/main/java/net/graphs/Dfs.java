package net.graphs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Depth-first traversal and cycle detection. */
public final class Dfs {
    private Dfs() {
    }

    public static List<String> order(Graph graph, String start) {
        List<String> seen = new ArrayList<>();
        visit(graph, start, seen);
        return seen;
    }

    private static void visit(Graph graph, String node, List<String> seen) {
        if (seen.contains(node)) {
            return;
        }
        seen.add(node);
        for (String next : graph.neighbours(node)) {
            visit(graph, next, seen);
        }
    }

    public static boolean hasCycle(Graph graph) {
        Set<String> done = new HashSet<>();
        for (String node : graph.nodes()) {
            if (onCycle(graph, node, new HashSet<>(), done)) {
                return true;
            }
        }
        return false;
    }

    private static boolean onCycle(Graph graph, String node, Set<String> path, Set<String> done) {
        if (path.contains(node)) {
            return true;
        }
        if (!done.add(node)) {
            return false;
        }
        path.add(node);
        for (String next : graph.neighbours(node)) {
            if (onCycle(graph, next, path, done)) {
                return true;
            }
        }
        path.remove(node);
        return false;
    }
}
