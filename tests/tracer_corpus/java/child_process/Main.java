import java.io.IOException;
import java.nio.charset.StandardCharsets;

public class Main {
    static int startWorker() throws IOException, InterruptedException {
        String java = System.getProperty("java.home") + "/bin/java";
        Process worker = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "Worker", "3")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(worker.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        worker.waitFor();
        return Integer.parseInt(out);
    }

    static int startTool() throws IOException, InterruptedException {
        return new ProcessBuilder("/bin/true").start().waitFor();
    }

    public static void main(String[] args) throws Exception {
        int total = Shared.twice(1) + startWorker();
        startTool();
        System.out.println(total);
    }
}
