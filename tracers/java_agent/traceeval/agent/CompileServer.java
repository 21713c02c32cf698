package traceeval.agent;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * A warm javac: compiles one program per request and describes the classes it produced.
 *
 * <p>Request (one line, tab-separated): {@code COMPILE <release> <root> <outdir> <file>...} (absolute
 * paths; release: the {@code --release} number, or empty for the JDK's own level).
 * Response lines, then {@code END}: {@code OK} or {@code ERROR}; {@code D <relpath> <line> <message>}
 * per error; {@code C <internal name> <SourceFile>} per class, followed by its methods
 * {@code M <name> <descriptor> <access> <first line>} (first line = line of the lowest bytecode
 * offset that has one, 0 when none). Newlines, tabs and backslashes in fields are escaped.
 */
public final class CompileServer {
    private CompileServer() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);  // nothing but responses on stdout
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] request = line.split("\t");
            if (request.length >= 5 && request[0].equals("COMPILE")) {
                StringBuilder response = new StringBuilder();
                try {
                    compile(compiler, files, request[1], Paths.get(request[2]), Paths.get(request[3]),
                            Arrays.asList(request).subList(4, request.length), response);
                } catch (RuntimeException | IOException | LinkageError error) {
                    response.setLength(0);
                    response.append("ERROR\nD\t\t0\t").append(escape("compiler failed: " + error)).append('\n');
                }
                out.print(response.append("END\n"));
            } else {
                out.print("ERROR\nD\t\t0\tbad request\nEND\n");
            }
            out.flush();
        }
    }

    private static void compile(JavaCompiler compiler, StandardJavaFileManager files, String release, Path root,
                                Path outdir, List<String> sources, StringBuilder response) throws IOException {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = new ArrayList<>(List.of("-d", outdir.toString(), "-proc:none", "-g", "-encoding",
                "UTF-8", "-implicit:none", "-nowarn", "-Xlint:none", "-sourcepath", ""));
        if (!release.isEmpty()) {
            options.addAll(List.of("--release", release));
        }
        Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromStrings(sources);
        StringWriter other = new StringWriter();
        boolean ok = compiler.getTask(other, files, diagnostics, options, null, units).call();
        response.append(ok ? "OK\n" : "ERROR\n");
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            String where = "";
            if (d.getSource() != null) {
                Path path = Paths.get(d.getSource().toUri());
                where = path.startsWith(root) ? root.relativize(path).toString() : path.toString();
            }
            response.append("D\t").append(escape(where)).append('\t').append(d.getLineNumber()).append('\t')
                    .append(escape(d.getMessage(Locale.ROOT))).append('\n');
        }
        if (!ok && !other.toString().isBlank()) {
            response.append("D\t\t0\t").append(escape(other.toString().strip())).append('\n');
        }
        if (ok) {
            try (Stream<Path> walk = Files.walk(outdir)) {
                for (Path file : (Iterable<Path>) walk.filter(p -> p.toString().endsWith(".class")).sorted()::iterator) {
                    describe(Files.readAllBytes(file), response);
                }
            }
        }
    }

    private static void describe(byte[] bytes, StringBuilder response) {
        ClassReader reader = ClassFiles.reader(bytes);
        List<String> methods = new ArrayList<>();
        String[] source = {""};
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visitSource(String file, String debug) {
                source[0] = file == null ? "" : file;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                int index = methods.size();
                methods.add(name + "\t" + descriptor + "\t" + access + "\t0");
                return new MethodVisitor(Opcodes.ASM9) {
                    private boolean seen;

                    @Override
                    public void visitLineNumber(int line, Label start) {
                        if (!seen) {
                            seen = true;
                            methods.set(index, name + "\t" + descriptor + "\t" + access + "\t" + line);
                        }
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
        response.append("C\t").append(reader.getClassName()).append('\t').append(escape(source[0])).append('\n');
        for (String method : methods) {
            response.append("M\t").append(method).append('\n');
        }
    }

    static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "");
    }
}
