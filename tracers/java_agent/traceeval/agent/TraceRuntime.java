package traceeval.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What instrumented program methods call: a shadow stack per thread of node ids, the edges seen
 * (caller on top of the stack, callee entering) with the caller's current line, and the log.
 *
 * <p>Records follow tracers/trace_records.py (written by {@link TraceLog}): an edge's first sighting is
 * written at once; counts are written by a shutdown hook. Frame ids are the node ids of the plan the
 * Python tracer wrote. Only JDK classes are used here, never program code.
 */
public final class TraceRuntime {
    /** One thread's shadow stack: node id and current line per program frame. */
    public static final class Stack {
        public int[] ids = new int[64];
        public int[] lines = new int[64];
        public int depth;
        final HashMap<Long, long[]> counts = new HashMap<>();

        void push(int id) {
            if (depth == ids.length) {
                ids = java.util.Arrays.copyOf(ids, depth * 2);
                lines = java.util.Arrays.copyOf(lines, depth * 2);
            }
            ids[depth] = id;
            lines[depth] = 0;
            depth++;
        }

        void record(int caller, int callee, int line) {
            long key = ((long) caller << 40) | ((long) callee << 20) | (line & 0xFFFFFL);
            long[] count = counts.get(key);
            if (count == null) {
                count = new long[1];
                synchronized (this) {
                    counts.put(key, count);
                }
                firstSighting(key);
            }
            count[0]++;
        }
    }

    private static final List<Stack> STACKS = Collections.synchronizedList(new ArrayList<>());
    private static final ThreadLocal<Stack> CURRENT = ThreadLocal.withInitial(() -> {
        Stack stack = new Stack();
        STACKS.add(stack);
        return stack;
    });
    private static final Set<Long> SEEN = ConcurrentHashMap.newKeySet();
    /** Thread -> (caller id, line) of the program frame that called its start(). */
    private static final Map<Thread, long[]> STARTERS = Collections.synchronizedMap(new WeakHashMap<>());
    private static volatile boolean countsWritten;

    private TraceRuntime() {
    }

    /** A program method (a node) starts: record the edge from the frame below, push. */
    public static Stack enter(int id) {
        Stack stack = CURRENT.get();
        int depth = stack.depth;
        if (depth > 0) {
            stack.record(stack.ids[depth - 1], id, stack.lines[depth - 1]);
        } else if (!STARTERS.isEmpty()) {
            long[] starter = STARTERS.remove(Thread.currentThread());
            if (starter != null) {
                stack.record((int) starter[0], id, (int) starter[1]);
            }
        }
        stack.push(id);
        return stack;
    }

    /** A lambda body starts: push its enclosing node without an edge (calls inside are its). */
    public static Stack enterTransparent(int id) {
        Stack stack = CURRENT.get();
        stack.push(id);
        return stack;
    }

    /** Before `thread.start()` in a program frame: the new thread's first frame is called by it. */
    public static void starting(Object thread, Stack stack, int index) {
        if (thread instanceof Thread) {
            STARTERS.put((Thread) thread, new long[] {stack.ids[index], stack.lines[index]});
        }
    }

    static void firstSighting(long key) {
        if (SEEN.add(key)) {
            write("[\"E\",\"" + (key >>> 40) + "\",\"" + ((key >>> 20) & 0xFFFFF) + "\"," + (key & 0xFFFFF) + "]");
        }
    }

    static void write(String record) {
        TraceLog.write(record);
    }

    static void warning(String text) {
        write("[\"W\"," + quote(text) + "]");
    }

    static void exception(String text) {
        write("[\"X\"," + quote(text) + "]");
    }

    /** Sum every thread's counts and write them (the shutdown hook; runs once). */
    static void writeCounts() {
        if (countsWritten) {
            return;
        }
        countsWritten = true;
        Map<Long, Long> totals = new HashMap<>();
        Stack[] stacks;
        synchronized (STACKS) {
            stacks = STACKS.toArray(new Stack[0]);
        }
        for (Stack stack : stacks) {
            synchronized (stack) {
                for (Map.Entry<Long, long[]> entry : stack.counts.entrySet()) {
                    totals.merge(entry.getKey(), entry.getValue()[0], Long::sum);
                }
            }
        }
        List<String> records = new ArrayList<>();
        for (Map.Entry<Long, Long> entry : totals.entrySet()) {
            long key = entry.getKey();
            records.add("[\"C\",\"" + (key >>> 40) + "\",\"" + ((key >>> 20) & 0xFFFFF) + "\"," + (key & 0xFFFFF) + ","
                    + entry.getValue() + "]");
        }
        TraceLog.writeAll(records);
    }

    /** A JSON string of at most 1000 characters of `text`. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length() && i < 1000; i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
