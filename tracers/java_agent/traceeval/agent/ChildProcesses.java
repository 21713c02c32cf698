package traceeval.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.security.ProtectionDomain;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Child processes (tracers/child_processes.py). Every JVM of the run gets this agent through
 * {@code JAVA_TOOL_OPTIONS}; the program's own JVM is started with {@code -Dtraceeval.top=true}
 * and writes to {@code $TRACEEVAL_LOG} (an inherited descriptor). A child JVM has no such descriptor
 * ({@code ProcessBuilder} closes it): it creates {@code <pid>-<random>.jsonl} in
 * {@code $TRACEEVAL_CHILD_LOGS} (never an existing file, never through a link) and says who it is
 * ({@code P}). {@code ProcessBuilder.start} is instrumented to log every program started ({@code S})
 * and, when it ends, its exit code ({@code Q}), so children of other languages are listed too.
 */
final class ChildProcesses {
    static final String HOOK = "traceeval.process-started";
    private static final String BUILDER = "java/lang/ProcessBuilder";
    private static final String START = "([Ljava/lang/ProcessBuilder$Redirect;)Ljava/lang/Process;";

    private ChildProcesses() {
    }

    static void openLog() throws IOException {
        if (Boolean.getBoolean("traceeval.top")) {
            String path = System.getenv("TRACEEVAL_LOG");
            if (path != null) {
                TraceRuntime.open(path);
            }
            return;
        }
        String folder = System.getenv("TRACEEVAL_CHILD_LOGS");
        if (folder == null) {
            return;
        }
        long pid = ProcessHandle.current().pid();
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        StringBuilder name = new StringBuilder().append(pid).append('-');
        for (byte b : random) {
            name.append(String.format("%02x", b & 0xFF));
        }
        Path log = Paths.get(folder, name.append(".jsonl").toString());
        try {
            OutputStream stream = Files.newOutputStream(log, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
            TraceRuntime.open(stream);
        } catch (IOException | UnsupportedOperationException error) {
            return;  // no log of its own: this child runs untraced
        }
        List<String> argv = new ArrayList<>();
        ProcessHandle.Info info = ProcessHandle.current().info();
        argv.add(info.command().orElse("java"));
        for (String argument : info.arguments().orElse(new String[0])) {
            argv.add(argument);
        }
        TraceRuntime.write("[\"P\",\"java\"," + pid + "," + list(argv) + "]");
    }

    /** Log the programs `ProcessBuilder` starts: a hook in the system properties, called by `start`. */
    static void watchStarts(Instrumentation instrumentation) {
        instrumentation.addTransformer(new Starts());  // first: making the hook may load ProcessBuilder
        BiConsumer<Object, Object> hook = ChildProcesses::started;
        System.getProperties().put(HOOK, hook);
    }

    static void started(Object starter, Object started) {
        ProcessBuilder builder = (ProcessBuilder) starter;
        Process process = (Process) started;
        long pid = process.pid();
        TraceRuntime.write("[\"S\"," + pid + "," + list(builder.command()) + "]");
        process.onExit().thenAccept(ended -> TraceRuntime.write("[\"Q\"," + pid + "," + ended.exitValue() + "]"));
    }

    static String list(List<String> items) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < items.size() && i < 24; i++) {
            String item = String.valueOf(items.get(i));
            out.append(i > 0 ? "," : "").append(TraceRuntime.quote(item.length() > 200 ? item.substring(0, 200) : item));
        }
        return out.append(']').toString();
    }

    /**
     * Adds, before each return of {@code ProcessBuilder.start(Redirect[])} (which {@code start()} and
     * {@code startPipeline} use), a call of the hook: {@code hook.accept(this, process)} when the hook is set.
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
        CallHook(MethodVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.ARETURN) {
                Label none = new Label();
                Label done = new Label();
                super.visitInsn(Opcodes.DUP);  // process, process
                super.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "getProperties",
                        "()Ljava/util/Properties;", false);
                super.visitLdcInsn(HOOK);
                super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/util/Properties", "get",
                        "(Ljava/lang/Object;)Ljava/lang/Object;", false);  // process, process, hook
                super.visitInsn(Opcodes.DUP);
                super.visitTypeInsn(Opcodes.INSTANCEOF, "java/util/function/BiConsumer");
                super.visitJumpInsn(Opcodes.IFEQ, none);
                super.visitTypeInsn(Opcodes.CHECKCAST, "java/util/function/BiConsumer");
                super.visitInsn(Opcodes.SWAP);  // process, hook, process
                super.visitVarInsn(Opcodes.ALOAD, 0);  // process, hook, process, this
                super.visitInsn(Opcodes.SWAP);  // process, hook, this, process
                super.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/util/function/BiConsumer", "accept",
                        "(Ljava/lang/Object;Ljava/lang/Object;)V", true);
                super.visitJumpInsn(Opcodes.GOTO, done);
                super.visitLabel(none);  // process, process, hook
                super.visitInsn(Opcodes.POP2);
                super.visitLabel(done);  // process
            }
            super.visitInsn(opcode);
        }
    }
}
