package traceeval.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Child processes (tracers/child_processes.py). Every JVM of the run gets this agent through
 * {@code JAVA_TOOL_OPTIONS}, and each writes its own log to the run's log pipe ({@link TraceLog}), saying
 * first who it is ({@code P}). {@code ProcessBuilder.start} is instrumented to log every program started
 * ({@code S}) and, when it ends, its exit code ({@code Q}), so children of other languages are listed too;
 * and around it, a {@code java} child gets its lineage and a one-time ticket for its key in its
 * environment while it starts (taken out of the builder's environment again after, or when start fails),
 * and every other child none (a JVM started through a shell has no key: its records are not used).
 */
final class ChildProcesses {
    static final String HOOK = "traceeval.process-started";
    private static final String BUILDER = "java/lang/ProcessBuilder";
    private static final String START = "([Ljava/lang/ProcessBuilder$Redirect;)Ljava/lang/Process;";
    private static final Map<Long, Process> RUNNING = new ConcurrentHashMap<>();  // started, exit code not written
    private static final String[] OURS = {TraceLog.KEY_ENV, TraceLog.STREAM_ENV};
    /** Per thread: the environment entries of the builder being started, as the program left them. */
    private static final ThreadLocal<Map<String, String>> LEFT = new ThreadLocal<>();

    private ChildProcesses() {
    }

    /** A traced child JVM's first record: who writes the log (the program's own needs none). */
    static void writeProcess() {
        if (!TraceLog.isChild()) {
            return;
        }
        List<String> argv = new ArrayList<>();
        ProcessHandle.Info info = ProcessHandle.current().info();
        argv.add(info.command().orElse("java"));
        for (String argument : info.arguments().orElse(new String[0])) {
            argv.add(argument);
        }
        TraceRuntime.write("[\"P\",\"java\"," + TraceLog.pid() + "," + list(argv) + "]");
    }

    /** Log the programs `ProcessBuilder` starts: a hook in the system properties, called by `start`. */
    static void watchStarts(Instrumentation instrumentation) {
        instrumentation.addTransformer(new Starts());  // first: making the hook may load ProcessBuilder
        BiConsumer<Object, Object> hook = ChildProcesses::started;
        System.getProperties().put(HOOK, hook);
    }

    /**
     * The hook {@code start} calls: with null at its start, with the process before it returns, with the
     * exception it throws (then rethrown).
     */
    static void started(Object starter, Object started) {
        ProcessBuilder builder = (ProcessBuilder) starter;
        if (started == null) {
            starting(builder);
            return;
        }
        restore(builder);
        if (!(started instanceof Process)) {
            return;
        }
        Process process = (Process) started;
        long pid = process.pid();
        TraceRuntime.write("[\"S\"," + pid + "," + list(builder.command()) + "]");
        RUNNING.put(pid, process);
        process.onExit().thenAccept(ended -> ended(pid));
    }

    private static void starting(ProcessBuilder builder) {
        Map<String, String> env = builder.environment();
        Map<String, String> left = new HashMap<>();
        for (String name : OURS) {
            left.put(name, env.remove(name));
        }
        List<String> command = builder.command();
        String program = command.isEmpty() ? "" : command.get(0);
        if (program.equals("java") || program.endsWith("/java")) {
            Map<String, String> child = TraceLog.childEnvironment();
            left.put(TraceLog.LOG_ENV, env.get(TraceLog.LOG_ENV));
            env.putAll(child);
        }
        LEFT.set(left);
    }

    /** The builder's environment as the program left it. */
    private static void restore(ProcessBuilder builder) {
        Map<String, String> left = LEFT.get();
        LEFT.remove();
        if (left == null) {
            return;
        }
        Map<String, String> env = builder.environment();
        for (Map.Entry<String, String> entry : left.entrySet()) {
            if (entry.getValue() == null) {
                env.remove(entry.getKey());
            } else {
                env.put(entry.getKey(), entry.getValue());
            }
        }
    }

    /**
     * Write the exit code of `pid` once: from `onExit`, or at shutdown (`writeEnded`) if that has not run yet.
     * Synchronized with `writeEnded`, so the JVM cannot end between taking an entry and writing it.
     */
    private static synchronized void ended(long pid) {
        Process process = RUNNING.remove(pid);
        if (process != null) {
            TraceRuntime.write("[\"Q\"," + pid + "," + process.exitValue() + "]");
        }
    }

    /**
     * At shutdown: the exit codes of the programs that ended but whose {@code onExit} has not run (it runs
     * on another thread, so a program that waited for a child and returned can end the JVM first).
     */
    static synchronized void writeEnded() {
        for (Map.Entry<Long, Process> entry : RUNNING.entrySet()) {
            if (!entry.getValue().isAlive()) {
                ended(entry.getKey());
            }
        }
    }

    /** At most 24 items of at most 200 characters, and about 2000 in all (the record fits one line). */
    static String list(List<String> items) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < items.size() && i < 24; i++) {
            String item = String.valueOf(items.get(i));
            String quoted = TraceRuntime.quote(item.length() > 200 ? item.substring(0, 200) : item);
            if (out.length() + quoted.length() > 2000) {
                break;
            }
            out.append(i > 0 ? "," : "").append(quoted);
        }
        return out.append(']').toString();
    }

    /**
     * Wraps {@code ProcessBuilder.start(Redirect[])} (which {@code start()} and {@code startPipeline} use) in
     * calls of the hook, when it is set: {@code hook.accept(this, null)} first, {@code hook.accept(this, process)}
     * before each return, and {@code hook.accept(this, exception)} before an exception leaves it (a handler
     * after the method's own, so they catch first).
     */
    static final class Starts implements ClassFileTransformer {
        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) {
            if (!BUILDER.equals(className) || loader != null) {
                return null;
            }
            try {
                return ClassFiles.rewrite(bytes, new TraceAgent.LoaderClassWriter(null),
                        (next, access, name, descriptor) ->
                                name.equals("start") && descriptor.equals(START) ? new CallHook(next) : next);
            } catch (Throwable error) {
                // A JDK class file ASM cannot read even through ClassFiles: other programs are not
                // listed, java children are still traced. Said in docs/benchmark.md, not on every run.
                return null;
            }
        }
    }

    static final class CallHook extends MethodVisitor {
        private final Label body = new Label();
        private final Label handler = new Label();

        CallHook(MethodVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitInsn(Opcodes.ACONST_NULL);
            callHook();
            super.visitInsn(Opcodes.POP);
            super.visitLabel(body);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.ARETURN) {
                callHook();
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitLabel(handler);  // exception
            callHook();
            super.visitInsn(Opcodes.ATHROW);
            super.visitTryCatchBlock(body, handler, handler, null);
            super.visitMaxs(maxStack, maxLocals);
        }

        /** value -> value, having called hook.accept(this, value) when the hook is set. */
        private void callHook() {
            Label none = new Label();
            Label done = new Label();
            super.visitInsn(Opcodes.DUP);  // value, value
            super.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "getProperties",
                    "()Ljava/util/Properties;", false);
            super.visitLdcInsn(HOOK);
            super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/util/Properties", "get",
                    "(Ljava/lang/Object;)Ljava/lang/Object;", false);  // value, value, hook
            super.visitInsn(Opcodes.DUP);
            super.visitTypeInsn(Opcodes.INSTANCEOF, "java/util/function/BiConsumer");
            super.visitJumpInsn(Opcodes.IFEQ, none);
            super.visitTypeInsn(Opcodes.CHECKCAST, "java/util/function/BiConsumer");
            super.visitInsn(Opcodes.SWAP);  // value, hook, value
            super.visitVarInsn(Opcodes.ALOAD, 0);  // value, hook, value, this
            super.visitInsn(Opcodes.SWAP);  // value, hook, this, value
            super.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/util/function/BiConsumer", "accept",
                    "(Ljava/lang/Object;Ljava/lang/Object;)V", true);
            super.visitJumpInsn(Opcodes.GOTO, done);
            super.visitLabel(none);  // value, value, hook
            super.visitInsn(Opcodes.POP2);
            super.visitLabel(done);  // value
        }
    }
}
