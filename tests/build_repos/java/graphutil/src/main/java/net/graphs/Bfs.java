package net.graphs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Breadth-first search: shortest paths by edge count. */
public final class Bfs {
    private Bfs() {
    }

    public static Path shortest(Graph graph, String from, String to) {
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>();
        parent.put(from, from);
        queue.addLast(from);
        while (!queue.isEmpty()) {
            String current = queue.removeFirst();
            if (current.equals(to)) {
                return reconstruct(parent, from, to);
            }
            for (String next : graph.neighbours(current)) {
                if (!parent.containsKey(next)) {
                    parent.put(next, current);
                    queue.addLast(next);
                }
            }
        }
        return Path.of(List.of());
    }

    private static Path reconstruct(Map<String, String> parent, String from, String to) {
        List<String> nodes = new ArrayList<>();
        for (String at = to; !at.equals(from); at = parent.get(at)) {
            nodes.add(at);
        }
        nodes.add(from);
        Collections.reverse(nodes);
        return Path.of(nodes);
    }
}
