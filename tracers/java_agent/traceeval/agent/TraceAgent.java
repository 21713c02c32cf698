package traceeval.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.Map;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The Java agent: instruments exactly the methods the plan file lists (the program's own classes,
 * mapped to TraceEval nodes by the Python tracer), and reports the uncaught exception of main.
 *
 * <p>Plan file lines: {@code class<TAB>method<TAB>descriptor<TAB>N|T<TAB>id} (internal class
 * names). N: a node (entry records an edge); T: a lambda body standing for its enclosing node id
 * (no edge on entry). Methods not listed run uninstrumented (their calls belong to the frame below).
 */
public final class TraceAgent {
    private TraceAgent() {
    }

    public static void premain(String planPath, Instrumentation instrumentation) throws IOException {
        TraceLog.open();
        ChildProcesses.writeProcess();
        Map<String, Map<String, int[]>> plan = readPlan(planPath);
        Thread mainThread = Thread.currentThread();
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            String text = describe(error);
            if (thread == mainThread) {
                TraceRuntime.exception(text);
            } else {
                TraceRuntime.warning("uncaught exception in thread \"" + thread.getName() + "\": " + text);
            }
            // What the JVM prints without a handler (ThreadGroup.uncaughtException).
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace(System.err);
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ChildProcesses.writeEnded();
            TraceRuntime.writeCounts();
            TraceLog.close();
        }, "traceeval-counts"));
        instrumentation.addTransformer(new Transformer(plan));
        ChildProcesses.watchStarts(instrumentation);
    }

    private static Map<String, Map<String, int[]>> readPlan(String path) throws IOException {
        Map<String, Map<String, int[]>> plan = new HashMap<>();
        for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (f.length == 5) {
                int kind = f[3].equals("T") ? MethodTracer.TRANSPARENT : MethodTracer.NODE;
                plan.computeIfAbsent(f[0], k -> new HashMap<>())
                        .put(f[1] + f[2], new int[] {kind, Integer.parseInt(f[4])});
            }
        }
        return plan;
    }

    /** `java.lang.IllegalStateException: msg (Main.java:12)`, at the innermost program frame. */
    static String describe(Throwable error) {
        StackTraceElement where = null;
        for (StackTraceElement element : error.getStackTrace()) {
            String cls = element.getClassName();
            if (!cls.startsWith("java.") && !cls.startsWith("jdk.") && !cls.startsWith("sun.")
                    && element.getFileName() != null) {
                where = element;
                break;
            }
        }
        String text = error.toString();
        if (where != null) {
            text += " (" + where.getFileName() + ":" + where.getLineNumber() + ")";
        }
        return text;
    }

    static final class Transformer implements ClassFileTransformer {
        private final Map<String, Map<String, int[]>> plan;

        Transformer(Map<String, Map<String, int[]>> plan) {
            this.plan = plan;
        }

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) {
            Map<String, int[]> methods = className == null ? null : plan.get(className);
            if (methods == null || loader == null) {
                return null;
            }
            try {
                return ClassFiles.rewrite(bytes, new LoaderClassWriter(loader), (next, access, name, descriptor) -> {
                    int[] what = methods.get(name + descriptor);
                    if (what == null || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                        return next;
                    }
                    return new MethodTracer(next, access, name, descriptor, what[0], what[1]);
                });
            } catch (Throwable error) {
                TraceRuntime.warning("could not instrument " + className + ": " + error);  // runs uninstrumented
                return null;
            }
        }
    }

    /** Computes frames without loading classes: the hierarchy is read from class files. */
    static final class LoaderClassWriter extends ClassWriter {
        private final ClassLoader loader;

        LoaderClassWriter(ClassLoader loader) {
            super(ClassWriter.COMPUTE_FRAMES);
            this.loader = loader;
        }

        @Override
        protected String getCommonSuperClass(String first, String second) {
            if (first.equals(second)) {
                return first;
            }
            ClassReader a = read(first);
            ClassReader b = read(second);
            if (a == null || b == null || isInterface(a) || isInterface(b)) {
                return "java/lang/Object";
            }
            java.util.Set<String> ancestors = new java.util.HashSet<>();
            for (String name = first; name != null; name = superOf(name)) {
                ancestors.add(name);
            }
            for (String name = second; name != null; name = superOf(name)) {
                if (ancestors.contains(name)) {
                    return name;
                }
            }
            return "java/lang/Object";
        }

        private String superOf(String name) {
            ClassReader reader = read(name);
            return reader == null ? null : reader.getSuperName();
        }

        private static boolean isInterface(ClassReader reader) {
            return (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0;
        }

        private ClassReader read(String name) {
            String resource = name + ".class";
            try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                    : ClassLoader.getSystemResourceAsStream(resource)) {
                return in == null ? null : ClassFiles.reader(in.readAllBytes());
            } catch (IOException error) {
                return null;
            }
        }
    }
}
