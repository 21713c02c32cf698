package net.graphs;

import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;

/** Shortest paths of one graph, remembered (needs Guava). */
public final class Cache {
    private final Graph graph;
    private final LoadingCache<String, Path> paths;

    public Cache(Graph graph) {
        this.graph = graph;
        this.paths = CacheBuilder.newBuilder().maximumSize(1000).build(CacheLoader.from(this::compute));
    }

    private Path compute(String key) {
        String[] ends = key.split("\u0000");
        return Bfs.shortest(graph, ends[0], ends[1]);
    }

    public Path route(String from, String to) {
        Path path = paths.getUnchecked(from + "\u0000" + to);
        return path.isEmpty() ? Path.of(java.util.List.of(from)) : path;
    }
}
